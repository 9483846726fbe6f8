package loader

import (
	"encoding/json"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Secret sources are the objects that stand for a Secret the repository
// does not hold: a cert-manager Certificate, a SealedSecret, an
// ExternalSecret, and a Secret encrypted by SOPS. They are not Contour's
// kinds, and were skipped (or, for SOPS, refused: `unknown field "sops"`,
// base64 errors on ENC[...]). They are kept, undecoded beyond JSON, in
// Result.SecretSources for the standin package to make stand-ins of;
// nothing else sees them.

// secretSourceKinds are the kinds kept as secret sources, by group: every
// version of each, since only a few fields are read and they are the same
// in all of them.
var secretSourceKinds = map[groupKind]bool{
	{"cert-manager.io", "Certificate"}:        true,
	{"bitnami.com", "SealedSecret"}:           true,
	{"external-secrets.io", "ExternalSecret"}: true,
}

// isSOPSSecret reports whether raw is a core/v1 Secret encrypted by SOPS:
// one with a top-level sops mapping holding its mac and version, or an
// item of a List encrypted so (`sops --encrypt` of a `kubectl get -o yaml`
// dump puts the mapping beside the List's items).
func isSOPSSecret(raw rawObject) bool {
	if raw.apiVersion != "v1" || raw.kind != "Secret" {
		return false
	}
	return raw.sopsList || hasSOPSMetadata(raw.node)
}

// hasSOPSMetadata reports whether the mapping n has SOPS's top-level sops
// mapping, with its mac and version.
func hasSOPSMetadata(n *yaml.Node) bool {
	s := manifest.MapValue(n, "sops")
	return s != nil && s.Kind == yaml.MappingNode && manifest.MapValue(s, "mac") != nil && manifest.MapValue(s, "version") != nil
}

// isSecretSource reports whether raw is kept as a secret source.
func isSecretSource(raw rawObject) bool {
	group, _ := splitAPIVersion(raw.apiVersion)
	return secretSourceKinds[groupKind{group, raw.kind}] || isSOPSSecret(raw)
}

// loadSecretSource keeps raw as a secret source: an Object whose Obj is
// *unstructured.Unstructured, its namespace defaulted as the API server
// would. A SOPS Secret's data stays the strings it is written as: its
// ENC[...] values are never decoded.
func loadSecretSource(raw rawObject) ([]Object, []error) {
	b, err := manifest.NodeToJSON(raw.node)
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return nil, []error{&Error{Source: raw.source, Kind: raw.kind, Namespace: raw.namespace, Name: raw.name, Msg: err.Error()}}
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetName() == "" {
		return nil, []error{&Error{Source: raw.source, Kind: raw.kind, Msg: "metadata.name: Required value: name is required"}}
	}
	if u.GetNamespace() == "" {
		u.SetNamespace("default")
	}
	return []Object{{Kind: raw.kind, Source: raw.source, Obj: u, APIVersion: raw.apiVersion}}, nil
}

func isSecretSourceObject(o Object) bool {
	_, ok := o.Obj.(*unstructured.Unstructured)
	return ok
}
