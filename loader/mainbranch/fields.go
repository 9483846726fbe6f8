package mainbranch

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Fields contourc accepts that only Contour's main branch has: the
// released Contour v1.33 CRDs lack them (so the API server of a cluster
// running it refuses them as unknown fields), and its configuration file
// reader refuses the configuration-file ones. Each use is recorded with
// its file and line, for a warning: the manifests work with contourc and
// Contour's main branch, not with the Contour most clusters run.

// Field is one use of such a field.
type Field struct {
	Source manifest.Source // the field's key
	Field  string          // its path: spec.virtualhost.jwtProviders[0].localJWKS, tls.ecdh-curves
}

// mainBranchConfigFields are the configuration-file keys of Contour's main
// branch that v1.33's configuration file lacks.
var mainBranchConfigFields = []string{
	"runtime-settings",
	"tls.ecdh-curves",
	"tls.fingerprint",
	"cluster.upstream-tls.ecdh-curves",
	"listener.max-connections-to-accept-per-socket-event",
	"tracing.clientSampling",
	"tracing.randomSampling",
	"globalExtAuth.serviceType",
	"globalExtAuth.httpSettings",
}

// ConfigFields finds the main-branch keys a configuration file
// (its document's root) sets, in the table's order.
func ConfigFields(file string, root *yaml.Node) []Field {
	var out []Field
	for _, field := range mainBranchConfigFields {
		if k := keyAt(root, strings.Split(field, ".")...); k != nil {
			out = append(out, Field{Source: manifest.Source{File: file, Line: k.Line}, Field: field})
		}
	}
	return out
}

// keyAt is the key node of the value at path in mapping n, nil when the
// path is absent or its value null.
func keyAt(n *yaml.Node, path ...string) *yaml.Node {
	var key *yaml.Node
	for _, name := range path {
		n = manifest.ResolveAlias(n)
		if n.Kind != yaml.MappingNode {
			return nil
		}
		pairs := manifest.MappingPairs(n)
		key = nil
		for i := 0; i+1 < len(pairs); i += 2 {
			if k := manifest.ResolveAlias(pairs[i]); k.Kind == yaml.ScalarNode && k.Value == name {
				key, n = k, pairs[i+1]
				break
			}
		}
		if key == nil || manifest.IsNull(manifest.ResolveAlias(n)) {
			return nil
		}
	}
	return key
}

// takenMainBranchFields records the keys of taken, a mapping of extension
// keys taken out of the mapping at path, as main-branch uses; the lines
// are placed in the object's file when the object is decoded.
func (d *detacher) takenMainBranchFields(taken *yaml.Node, path string) {
	for i := 0; i+1 < len(taken.Content); i += 2 {
		k := manifest.ResolveAlias(taken.Content[i])
		// A key without a line was added by the CRD's defaulting
		// (loader/admit.go), not written: no use of the field to warn about.
		if k.Line == 0 || manifest.IsNull(manifest.ResolveAlias(taken.Content[i+1])) {
			continue
		}
		d.extensions().MainBranchFields = append(d.extensions().MainBranchFields,
			Field{Source: manifest.Source{Line: k.Line}, Field: path + "." + k.Value})
	}
}

// PlaceFields puts the uses found in an object read from src in
// its file, in line order.
func PlaceFields(uses []Field, src manifest.Source) {
	for i := range uses {
		uses[i].Source = src.At(uses[i].Source.Line)
	}
	slices.SortStableFunc(uses, func(a, b Field) int { return a.Source.Line - b.Source.Line })
}
