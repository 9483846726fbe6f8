package loader

// -n/--namespace: the namespace the deploy tool gives objects that name
// none (kubectl apply -n, Argo CD's destination.namespace, helm -n).
// kubectl sets it on namespaced objects only, and refuses an object whose
// own namespace is another one; contourc does the same, before the object
// is decoded, so that everything downstream (defaults, references, errors)
// sees the namespace the object would have in the cluster.

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// otherClusterScoped are the cluster-scoped kinds that contourc does not
// consume (those it does, Namespace and GatewayClass, say so in the kinds
// table): the built-in
// Kubernetes ones and those of the projects Contour users run beside it.
// Every other kind is namespaced, as kubectl takes a kind it does not know
// to be: it learns the scope of a custom resource from its CRD, which is
// not there without a cluster.
var otherClusterScoped = map[groupKind]bool{
	{"", "Node"}: true, {"", "PersistentVolume"}: true, {"", "ComponentStatus"}: true,
	{"rbac.authorization.k8s.io", "ClusterRole"}: true, {"rbac.authorization.k8s.io", "ClusterRoleBinding"}: true,
	{"apiextensions.k8s.io", "CustomResourceDefinition"}:                 true,
	{"apiregistration.k8s.io", "APIService"}:                             true,
	{"admissionregistration.k8s.io", "MutatingWebhookConfiguration"}:     true,
	{"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"}:   true,
	{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"}:        true,
	{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"}: true,
	{"admissionregistration.k8s.io", "MutatingAdmissionPolicy"}:          true,
	{"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"}:   true,
	{"storage.k8s.io", "StorageClass"}:                                   true, {"storage.k8s.io", "CSIDriver"}: true, {"storage.k8s.io", "CSINode"}: true,
	{"storage.k8s.io", "VolumeAttachment"}: true, {"storage.k8s.io", "VolumeAttributesClass"}: true,
	{"scheduling.k8s.io", "PriorityClass"}: true,
	{"node.k8s.io", "RuntimeClass"}:        true,
	{"networking.k8s.io", "IngressClass"}:  true, {"networking.k8s.io", "IPAddress"}: true, {"networking.k8s.io", "ServiceCIDR"}: true,
	{"certificates.k8s.io", "CertificateSigningRequest"}: true, {"certificates.k8s.io", "ClusterTrustBundle"}: true,
	{"flowcontrol.apiserver.k8s.io", "FlowSchema"}: true, {"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"}: true,
	{"resource.k8s.io", "DeviceClass"}: true, {"resource.k8s.io", "ResourceSlice"}: true,
	{"cert-manager.io", "ClusterIssuer"}: true,
}

// namespacedKind reports whether objects of the kind of apiVersion and kind
// live in a namespace, as kubectl takes it without a cluster to ask.
func namespacedKind(apiVersion, kind string) bool {
	group, _ := splitAPIVersion(apiVersion)
	if spec := kindsByGroupKind[groupKind{group, kind}]; spec != nil {
		return spec.Namespaced
	}
	return !otherClusterScoped[groupKind{group, kind}]
}

// ClusterScopedKinds lists the kinds namespacedKind says are cluster-scoped, as
// "group/Kind" ("Kind" for the core group), sorted: for the README's list
// and its test.
func ClusterScopedKinds() []string {
	var out []string
	add := func(gk groupKind) {
		if gk.group == "" {
			out = append(out, gk.kind)
		} else {
			out = append(out, gk.group+"/"+gk.kind)
		}
	}
	for _, k := range kinds {
		if !k.Namespaced {
			add(groupKind{k.Group, k.Kind})
		}
	}
	for gk := range otherClusterScoped {
		add(gk)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// namespaceRule is Options.Namespace as placeNamespace applies it.
type namespaceRule struct {
	name    string
	keepOwn bool // an object's own namespace is kept, not refused
}

// placeNamespace gives raw the namespace rule.name when it is namespaced
// and has none, and refuses it, in kubectl's words, when it has another
// one (unless rule.keepOwn). An empty name does nothing.
func placeNamespace(raw *rawObject, rule namespaceRule) error {
	ns := rule.name
	if ns == "" || !namespacedKind(raw.apiVersion, raw.kind) {
		return nil
	}
	meta := manifest.MapValue(raw.node, "metadata")
	if meta != nil && meta.Kind != yaml.MappingNode {
		return nil // decoding says what is wrong with it
	}
	if meta != nil {
		if v := manifest.MapValue(meta, "namespace"); !absent(v) {
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" && v.Value != ns && !rule.keepOwn {
				return &Error{Source: raw.source.At(v.Line), Kind: raw.kind, Namespace: v.Value, Name: raw.name,
					Msg: fmt.Sprintf("the namespace from the provided object %q does not match the namespace %q. You must pass '--namespace=%s' to perform this operation.", v.Value, ns, v.Value)}
			}
			return nil
		}
	}
	line := raw.node.Line
	if meta != nil {
		line = meta.Line
	}
	value := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ns, Line: line}
	if meta == nil {
		meta = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	}
	// The object's nodes are copied, not changed: an alias may share
	// them with another object.
	raw.node = withField(raw.node, "metadata", withField(meta, "namespace", value))
	raw.namespace = ns
	return nil
}

// withField is a copy of the mapping n with key set to val; merge keys
// (<<) are expanded in the copy, which means the same.
func withField(n *yaml.Node, key string, val *yaml.Node) *yaml.Node {
	n = manifest.ResolveAlias(n)
	pairs := manifest.MappingPairs(n)
	c := *n
	c.Content = make([]*yaml.Node, 0, len(pairs)+2)
	set := false
	for i := 0; i+1 < len(pairs); i += 2 {
		if k := manifest.ResolveAlias(pairs[i]); k.Kind == yaml.ScalarNode && k.Value == key {
			c.Content = append(c.Content, pairs[i], val)
			set = true
			continue
		}
		c.Content = append(c.Content, pairs[i], pairs[i+1])
	}
	if !set {
		c.Content = append(c.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: val.Line}, val)
	}
	return &c
}
