// Package fluxgen is loader/flux's kustomization generator: Flux's own
// (github.com/fluxcd/pkg/kustomize), which writes a Kustomization's
// options (targetNamespace, patches, images, components...) into the
// kustomization file of the directory it builds, generating one that lists
// the directory's manifests when there is none, as kustomize-controller
// does before building.
//
// It links controller-runtime's client and client-go's type registry,
// whose initialisation would cost every contourc run: contourc asks the
// contourc-engines program instead (see loader/engines). Importing this
// package makes the generation run in this process.
package fluxgen

import (
	"encoding/json"
	"fmt"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/contourc/contourc/loader/engines"
)

func init() { engines.Register(engines.OpFluxGenerate, serve) }

func serve(body json.RawMessage) (any, error) {
	var req engines.FluxGenerateRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("%s: unreadable request: %v", engines.OpFluxGenerate, err)
	}
	return Generate(req)
}

// Generate generates the kustomization file of req.Dir. Nothing is
// written: the file comes back for the build to read in memory.
func Generate(req engines.FluxGenerateRequest) (*engines.FluxGenerated, error) {
	// UnmarshalJSON keeps whole numbers int64, as the API server hands
	// the object to the controller, not float64.
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(req.Kustomization); err != nil {
		return nil, fmt.Errorf("%s: unreadable Kustomization: %v", engines.OpFluxGenerate, err)
	}
	data, file, _, err := fluxkustomize.NewGenerator(req.Root, u).GenerateManifest(req.Dir)
	if err != nil {
		return nil, err
	}
	return &engines.FluxGenerated{File: file, Data: data}, nil
}
