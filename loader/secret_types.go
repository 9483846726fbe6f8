package loader

import (
	"slices"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Secrets of the types Contour never reads are not kept: Contour's main
// branch leaves Helm release records (helm.sh/release.v1, most of a
// `kubectl get secrets -A -o yaml` dump, each a large base64 blob) and
// service-account tokens out of its cache, so referring to one is referring
// to a missing Secret. Their data is not even decoded: the type is read
// from the tree first, and the rest of the object (metadata, type) is
// still checked as the API server would.

// unkeptSecretTypes are the Secret types left out.
var unkeptSecretTypes = map[string]bool{
	"helm.sh/release.v1":                         true,
	string(corev1.SecretTypeServiceAccountToken): true,
}

// unkeptSecretType is the type of raw when it is a core/v1 Secret of a
// type left out, "" otherwise.
func unkeptSecretType(raw rawObject, spec *kindSpec) string {
	if spec.Group != "" || spec.Kind != "Secret" {
		return ""
	}
	t := manifest.MapValue(raw.node, "type")
	if t == nil || t.Kind != yaml.ScalarNode || t.ShortTag() != "!!str" || !unkeptSecretTypes[t.Value] {
		return ""
	}
	return t.Value
}

// skipUnkeptSecret checks a Secret of a type left out without its data
// and stringData, and counts it as skipped ("v1/Secret of type ...").
func skipUnkeptSecret(raw rawObject, spec *kindSpec, secretType string, skipped map[string]int) []error {
	raw.node = withoutKeys(raw.node, "data", "stringData")
	if _, errs := decodeObject(raw, spec); errs != nil {
		return errs
	}
	skipped[raw.apiVersion+"/"+raw.kind+" of type "+secretType]++
	return nil
}

// withoutKeys is mapping n without the pairs of the given keys: a copy
// when it has any, n itself otherwise (YAML aliases may share its nodes,
// so it is never edited).
func withoutKeys(n *yaml.Node, keys ...string) *yaml.Node {
	pairs := manifest.MappingPairs(n)
	kept := make([]*yaml.Node, 0, len(pairs))
	for i := 0; i+1 < len(pairs); i += 2 {
		if k := manifest.ResolveAlias(pairs[i]); k.Kind != yaml.ScalarNode || !slices.Contains(keys, k.Value) {
			kept = append(kept, pairs[i], pairs[i+1])
		}
	}
	if len(kept) == len(pairs) {
		return n
	}
	c := *n
	c.Content = kept
	return &c
}
