package translate

// The objects the cluster has that the input does not (Options.Cluster):
// merged under the input's, used in translation like them, and never
// given status in the result, which is the input's.

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/gatewayapi"
)

// clusterObjects are the keys of the objects a translation took from
// Options.Cluster, whose statuses are left out of its result.
type clusterObjects map[objectKey]bool

// objectKey names an object by kind, namespace and name.
type objectKey struct {
	kind string
	name types.NamespacedName
}

func keyOfObject(o loader.Object) objectKey {
	return objectKey{o.Kind, types.NamespacedName{Namespace: o.Obj.GetNamespace(), Name: o.Obj.GetName()}}
}

// withCluster merges the cluster's objects into the input's, both in the
// loader's order, keeping that order (the Memo relies on it). An object
// in both is the input's, with a notice: the repository is what is about
// to be applied over the cluster's copy.
func withCluster(objs, cluster []loader.Object) ([]loader.Object, clusterObjects, []Notice) {
	if len(cluster) == 0 {
		return objs, nil, nil
	}
	merged := make([]loader.Object, 0, len(objs)+len(cluster))
	keys := clusterObjects{}
	var notices []Notice
	i, j := 0, 0
	for i < len(objs) || j < len(cluster) {
		switch {
		case j == len(cluster):
			merged = append(merged, objs[i])
			i++
		case i == len(objs) || loader.Compare(cluster[j], objs[i]) < 0:
			merged = append(merged, cluster[j])
			keys[keyOfObject(cluster[j])] = true
			j++
		case loader.Compare(cluster[j], objs[i]) > 0:
			merged = append(merged, objs[i])
			i++
		default:
			o, other := objs[i], cluster[j]
			merged = append(merged, o)
			notices = append(notices, Notice{Source: o.Source, Kind: o.Kind, Name: qualified(keyOfObject(o).name),
				Msg: "also the cluster's (" + other.Source.String() + "): the input's is used"})
			i++
			j++
		}
	}
	return merged, keys, notices
}

// qualified is a name as "namespace/name", or "name" when cluster-scoped.
func qualified(n types.NamespacedName) string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.String()
}

// requireGateway finds the Gateway --gateway names among objs, an error
// when it is not there and required. When its GatewayClass is not there either, the
// cluster is taken to have it, with controller: Contour, not finding the
// class, would serve nothing for the Gateway, but the class is a
// platform's, installed with Contour and not kept in the repository. The
// class is added to objs, in order, and to keys.
func requireGateway(objs []loader.Object, name types.NamespacedName, controller string, required bool, keys clusterObjects) ([]loader.Object, clusterObjects, []Notice, error) {
	var gw *gatewayv1.Gateway
	classes := map[string]bool{}
	for _, o := range objs {
		switch obj := o.Obj.(type) {
		case *gatewayv1.Gateway:
			if index.NamespacedName(obj) == name {
				gw = obj
			}
		case *gatewayv1.GatewayClass:
			classes[obj.Name] = true
		}
	}
	switch {
	case gw == nil && required:
		return nil, nil, nil, fmt.Errorf("--gateway %s: no Gateway %s in the input", name, name)
	case gw == nil:
		return objs, keys, nil, nil
	}
	class := string(gw.Spec.GatewayClassName)
	if classes[class] {
		return objs, keys, nil, nil
	}
	if controller == "" {
		controller = gatewayapi.DefaultController
	}
	assumed := loader.Object{Kind: "GatewayClass", APIVersion: "gateway.networking.k8s.io/v1",
		Obj: &gatewayv1.GatewayClass{
			TypeMeta:   metav1.TypeMeta{APIVersion: "gateway.networking.k8s.io/v1", Kind: "GatewayClass"},
			ObjectMeta: metav1.ObjectMeta{Name: class},
			Spec:       gatewayv1.GatewayClassSpec{ControllerName: gatewayv1.GatewayController(controller)},
		}}
	at, _ := slices.BinarySearchFunc(objs, assumed, loader.Compare)
	objs = slices.Insert(slices.Clone(objs), at, assumed)
	if keys == nil {
		keys = clusterObjects{}
	}
	keys[keyOfObject(assumed)] = true
	notice := Notice{Kind: "GatewayClass", Name: class,
		Msg: fmt.Sprintf("not in the input: assumed to be the cluster's, with controller %s, for Gateway %s (Contour without it would serve nothing for the Gateway)", controller, name)}
	return objs, keys, []Notice{notice}, nil
}

// withoutClusterStatuses drops the statuses of the cluster's objects.
func withoutClusterStatuses(list []ObjectStatus, keys clusterObjects) []ObjectStatus {
	if len(keys) == 0 {
		return list
	}
	return slices.DeleteFunc(list, func(st ObjectStatus) bool {
		return keys[objectKey{st.Kind, types.NamespacedName{Namespace: st.Namespace, Name: st.Name}}]
	})
}

// withClusterObjects is the input as the translation sees it: the
// cluster's objects merged in (withCluster), the DefaultIngressClass
// admission done over both, and the Gateway --gateway names required,
// with its class assumed when the input lacks it (requireGateway).
func withClusterObjects(objs []loader.Object, opts Options) ([]loader.Object, clusterObjects, []Notice, error) {
	cluster := opts.Cluster
	if len(cluster) > 0 {
		objs, cluster = inOrder(objs), inOrder(cluster)
	}
	merged, keys, notices := withCluster(objs, cluster)
	merged = opts.Memo.admission().AdmitDefaultIngressClass(merged)
	if opts.Gateway == nil {
		return merged, keys, notices, nil
	}
	merged, keys, more, err := requireGateway(merged, *opts.Gateway, opts.GatewayController, opts.RequireGateway, keys)
	if err != nil {
		return nil, nil, nil, err
	}
	return merged, keys, append(notices, more...), nil
}

// inOrder is objs in the loader's order, sorted in a copy when they are
// not (a caller other than the loader's).
func inOrder(objs []loader.Object) []loader.Object {
	if index.InLoaderOrder(objs) {
		return objs
	}
	sorted := slices.Clone(objs)
	slices.SortStableFunc(sorted, loader.Compare)
	return sorted
}

// admission is the Memo's record of the admitted Ingresses, nil without a
// Memo.
func (m *Memo) admission() *loader.Admitted {
	if m == nil {
		return nil
	}
	return &m.admitted
}
