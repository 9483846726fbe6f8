package flux

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader"
)

// vars are a Kustomization's post-build variables: s to substitute with
// (the --substitute flags on top), and the Kustomization's own, which are
// part of its build's key.
type vars struct {
	s    *loader.Substitution
	vars map[string]string
}

// substitution reads a Kustomization's postBuild as kustomize-controller
// does (fluxcd/pkg/kustomize's LoadVariables): the data of each
// substituteFrom ConfigMap and Secret, in the Kustomization's namespace,
// in order, later ones winning, then spec.postBuild.substitute over them.
// A reference that cannot be read is why the Kustomization is not
// followed, in Flux's words, unless it is optional and absent; a Secret
// encrypted by SOPS is read only through the --substitute flags. The
// reason not to follow is returned, "" to follow.
func substitution(in *loader.FollowInput, u *unstructured.Unstructured) (vars, string) {
	out := vars{vars: map[string]string{}}
	refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "postBuild", "substituteFrom")
	for i, r := range refs {
		m, ok := r.(map[string]any)
		if !ok {
			return out, fmt.Sprintf("spec.postBuild.substituteFrom[%d] is not a reference", i)
		}
		kind, name := str(m, "kind"), str(m, "name")
		optional, _ := m["optional"].(bool)
		data, why := referencedData(in, kind, u.GetNamespace(), name, optional)
		if why != "" {
			return out, "spec.postBuild.substituteFrom: " + why
		}
		for k, v := range data {
			out.vars[k] = strings.ReplaceAll(v, "\n", "")
		}
	}
	inline, _, err := unstructured.NestedStringMap(u.Object, "spec", "postBuild", "substitute")
	if err != nil {
		return out, "spec.postBuild.substitute: " + err.Error()
	}
	for k, v := range inline {
		out.vars[k] = strings.ReplaceAll(v, "\n", "")
	}
	_, hasPostBuild, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "postBuild")
	if !hasPostBuild && !active(in.Substitute) {
		return out, "" // Flux substitutes nothing without postBuild
	}
	if out.s, err = in.Substitute.Over(out.vars); err != nil {
		return out, err.Error()
	}
	return out, ""
}

// active says whether the --substitute flags hold variables.
func active(s *loader.Substitution) bool { return s != nil && !s.Empty() }

// referencedData is the data of the ConfigMap or Secret namespace/name
// (valuesFrom and substituteFrom references), or why it cannot be read;
// an optional one that is absent has none.
func referencedData(in *loader.FollowInput, kind, namespace, name string, optional bool) (map[string]string, string) {
	if kind != "ConfigMap" && kind != "Secret" {
		return nil, fmt.Sprintf("kind %q is not ConfigMap or Secret", kind)
	}
	o, ok := in.Find(kind, namespace, name)
	if !ok {
		if optional {
			return nil, ""
		}
		return nil, fmt.Sprintf("substitute from '%s/%s' error: %ss %q not found", kind, name, strings.ToLower(kind), name)
	}
	switch obj := o.Obj.(type) {
	case *corev1.ConfigMap:
		return obj.Data, ""
	case *corev1.Secret:
		data := make(map[string]string, len(obj.Data))
		for k, v := range obj.Data {
			data[k] = string(v)
		}
		return data, ""
	default:
		// A SOPS Secret's keys are in clear: when the --substitute
		// flags give them all, they stand for its values (the flags
		// apply over the repository's variables).
		missing := missingSOPSKeys(o.Obj, in.Substitute)
		if len(missing) == 0 {
			return nil, ""
		}
		return nil, fmt.Sprintf("Secret %s/%s is encrypted with SOPS, which contourc cannot decrypt: give its variables with --substitute (%s)", namespace, name, strings.Join(missing, ", "))
	}
}

// missingSOPSKeys are the keys of the SOPS-encrypted Secret obj that the
// --substitute flags s do not give, sorted.
func missingSOPSKeys(obj any, s *loader.Substitution) []string {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return []string{"its keys"}
	}
	var missing []string
	for _, field := range []string{"data", "stringData"} {
		m, _, _ := unstructured.NestedMap(u.Object, field)
		for k := range m {
			if !s.Has(k) {
				missing = append(missing, k)
			}
		}
	}
	sort.Strings(missing)
	return slices.Compact(missing)
}
