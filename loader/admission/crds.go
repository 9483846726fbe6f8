package admission

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
)

// crdsGz is written by `go generate` (gen/main.go) from the CRD files of
// the modules go.mod pins; TestEmbeddedCRDsAreCurrent fails when it is
// stale.
//
//go:embed crds.json.gz
var crdsGz []byte

// bundle is crdsGz decoded.
type bundle struct {
	Modules map[string]string `json:"modules"`
	CRDs    []struct {
		Group      string `json:"group"`
		Kind       string `json:"kind"`
		Namespaced bool   `json:"namespaced"`
		Versions   []struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"versions"`
	} `json:"crds"`
}

// GVK names one version of a kind.
type GVK struct{ Group, Version, Kind string }

// versions indexes the embedded schemas by group, version and kind. It is
// read on first use: a run without custom resources (or `contourc
// version`) never inflates it.
var versions = sync.OnceValues(func() (map[GVK]*crdVersion, error) {
	zr, err := gzip.NewReader(bytes.NewReader(crdsGz))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var b bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, err
	}
	out := map[GVK]*crdVersion{}
	for _, crd := range b.CRDs {
		for _, v := range crd.Versions {
			gvk := GVK{crd.Group, v.Name, crd.Kind}
			out[gvk] = &crdVersion{gvk: gvk, raw: v.Schema}
		}
	}
	return out, nil
})

// Modules are the module versions the embedded CRDs were generated from.
func Modules() map[string]string {
	var b struct {
		Modules map[string]string `json:"modules"`
	}
	zr, err := gzip.NewReader(bytes.NewReader(crdsGz))
	if err == nil {
		err = json.NewDecoder(zr).Decode(&b)
	}
	if err != nil {
		return nil
	}
	return b.Modules
}

// Known says whether the embedded CRDs have a schema for gvk.
func Known(gvk GVK) bool {
	m, err := versions()
	return err == nil && m[gvk] != nil
}

// crdVersion is the schema of one served version, compiled on first use.
type crdVersion struct {
	gvk  GVK
	raw  json.RawMessage
	once sync.Once
	// Set by compile.
	structural *structuralschema.Structural
	root       *node
	err        error
	// Skeletons of structural (skeleton.go), nil when it has no such
	// places.
	defaults, lists, embedded *structuralschema.Structural
	// defaulter is defaults as applyDefaults walks it.
	defaulter *defaulter
}

// compiled is v's schema, converted and checked as the API server does
// when it starts serving a CRD, once.
func (v *crdVersion) compiled() (*node, error) {
	v.once.Do(func() {
		v.root, v.structural, v.err = compile(v.gvk, v.raw)
		if v.err == nil {
			v.defaults = skeleton(v.structural, hasDefault)
			v.defaulter = newDefaulter(v.defaults)
			v.lists = skeleton(v.structural, hasListType)
			v.embedded = skeleton(v.structural, isEmbedded)
		}
	})
	return v.root, v.err
}

// compile turns the v1 openAPIV3Schema of a CRD version into the internal
// JSONSchemaProps the schema validator reads and the structural schema
// pruning, defaulting and CEL read, as customresource_handler.go does:
// defaults are pruned of unknown fields.
func compile(gvk GVK, raw json.RawMessage) (*node, *structuralschema.Structural, error) {
	raw, err := extended(gvk, raw)
	if err != nil {
		return nil, nil, err
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(raw, &v1); err != nil {
		return nil, nil, fmt.Errorf("admission: schema of %s %s: %v", gvk.Kind, gvk.Version, err)
	}
	internal := &apiextensionsinternal.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, internal, nil); err != nil {
		return nil, nil, err
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, nil, fmt.Errorf("admission: schema of %s %s is not structural: %v", gvk.Kind, gvk.Version, err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, nil, err
	}
	return newRoot(internal, s), s, nil
}
