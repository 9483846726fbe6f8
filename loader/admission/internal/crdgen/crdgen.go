// Package crdgen reads the CustomResourceDefinitions of the pinned Gateway
// API and Contour modules from the module cache and writes the compact
// form the admission package embeds: every served version's schema, with
// descriptions and status dropped (neither takes part in admitting an
// object on create), as JSON.
package crdgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Source is one module's CRD files.
type Source struct {
	Module string   // module path, as in go.mod
	Files  []string // paths inside the module, globs allowed
}

// Sources are the CRDs contourc admits objects against: the Gateway API
// experimental channel (Contour's install uses it: it serves TLSRoute,
// TCPRoute and BackendTLSPolicy) and Contour's own.
var Sources = []Source{
	{Module: "sigs.k8s.io/gateway-api", Files: []string{"config/crd/experimental/gateway.networking.k8s.io_*.yaml"}},
	{Module: "github.com/projectcontour/contour", Files: []string{"examples/contour/01-crds.yaml"}},
}

// Bundle is the embedded form.
type Bundle struct {
	// Modules are the module versions the CRDs were read from.
	Modules map[string]string `json:"modules"`
	CRDs    []CRD             `json:"crds"`
}

// CRD is what admission needs of one CustomResourceDefinition.
type CRD struct {
	Group      string    `json:"group"`
	Kind       string    `json:"kind"`
	Namespaced bool      `json:"namespaced"`
	Versions   []Version `json:"versions"`
}

// Version is one served version and its openAPIV3Schema.
type Version struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// module is the part of `go list -m -json` output used here.
type module struct {
	Path, Version, Dir string
}

// Generate reads the CRDs of Sources, resolving each module to the version
// the build list (go.mod) selects, in the module cache.
func Generate() ([]byte, error) {
	b := Bundle{Modules: map[string]string{}}
	for _, src := range Sources {
		m, err := locate(src.Module)
		if err != nil {
			return nil, err
		}
		b.Modules[m.Path] = m.Version
		for _, glob := range src.Files {
			files, err := filepath.Glob(filepath.Join(m.Dir, glob))
			if err != nil || len(files) == 0 {
				return nil, fmt.Errorf("crdgen: no files %s in %s@%s", glob, m.Path, m.Version)
			}
			sort.Strings(files)
			for _, f := range files {
				crds, err := readFile(f)
				if err != nil {
					return nil, err
				}
				b.CRDs = append(b.CRDs, crds...)
			}
		}
	}
	sort.Slice(b.CRDs, func(i, j int) bool {
		if b.CRDs[i].Group != b.CRDs[j].Group {
			return b.CRDs[i].Group < b.CRDs[j].Group
		}
		return b.CRDs[i].Kind < b.CRDs[j].Kind
	})
	return json.Marshal(b)
}

func locate(path string) (module, error) {
	out, err := exec.Command("go", "list", "-mod=mod", "-m", "-json", path).Output()
	if err != nil {
		return module{}, fmt.Errorf("crdgen: go list -m %s: %v", path, err)
	}
	var m module
	if err := json.Unmarshal(out, &m); err != nil {
		return module{}, err
	}
	if m.Dir == "" {
		return module{}, fmt.Errorf("crdgen: %s@%s is not in the module cache (go mod download %s)", m.Path, m.Version, m.Path)
	}
	return m, nil
}

// readFile reads the CRDs of a multi-document YAML file; other documents
// (a ValidatingAdmissionPolicy, say) are left out.
func readFile(path string) ([]CRD, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []CRD
	for _, doc := range bytes.Split(data, []byte("\n---")) {
		var obj struct {
			Kind string `json:"kind"`
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Scope    string `json:"scope"`
				Versions []struct {
					Name   string `json:"name"`
					Served bool   `json:"served"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("crdgen: %s: %v", path, err)
		}
		if obj.Kind != "CustomResourceDefinition" {
			continue
		}
		crd := CRD{Group: obj.Spec.Group, Kind: obj.Spec.Names.Kind, Namespaced: obj.Spec.Scope == "Namespaced"}
		for _, v := range obj.Spec.Versions {
			if !v.Served {
				continue
			}
			s := v.Schema.OpenAPIV3Schema
			if props, ok := s["properties"].(map[string]any); ok {
				delete(props, "status")
			}
			strip(s)
			raw, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			crd.Versions = append(crd.Versions, Version{Name: v.Name, Schema: raw})
		}
		out = append(out, crd)
	}
	return out, nil
}

// strip drops the descriptions of a schema node and of the nodes below it.
// Only schema nodes are edited: a property named "description" stays.
func strip(s map[string]any) {
	delete(s, "description")
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if m, ok := p.(map[string]any); ok {
				strip(m)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not"} {
		if m, ok := s[key].(map[string]any); ok {
			strip(m)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[key].([]any); ok {
			for _, x := range list {
				if m, ok := x.(map[string]any); ok {
					strip(m)
				}
			}
		}
	}
}

// Modules reads the versions go.mod requires of the Sources' modules.
func Modules(gomod []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "require" {
			f = f[1:]
		}
		for _, src := range Sources {
			if len(f) >= 2 && f[0] == src.Module {
				out[src.Module] = f[1]
			}
		}
	}
	return out
}
