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
	"os"
	"path/filepath"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

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
// written to the repository: the file comes back for the build to read in
// memory.
func Generate(req engines.FluxGenerateRequest) (*engines.FluxGenerated, error) {
	// UnmarshalJSON keeps whole numbers int64, as the API server hands
	// the object to the controller, not float64.
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON(req.Kustomization); err != nil {
		return nil, fmt.Errorf("%s: unreadable Kustomization: %v", engines.OpFluxGenerate, err)
	}
	if req.Base != nil {
		return generateOver(req.Base, u)
	}
	data, file, _, err := fluxkustomize.NewGenerator(req.Root, u).GenerateManifest(req.Dir)
	if err != nil {
		return nil, err
	}
	return &engines.FluxGenerated{File: file, Data: data}, nil
}

// generateOver writes u's options into base, the kustomization the
// GitRepository's artifact has in place of the directory's file on disk.
// The generator reads a kustomization only from a directory, so base is
// put alone in a temporary one (the caller has resolved what else the
// generator looks at in the directory: the components it may leave out).
// A listing with no resources gets the generator's placeholder namespace,
// as when the generator lists an empty directory itself.
func generateOver(base *engines.FluxBase, u unstructured.Unstructured) (*engines.FluxGenerated, error) {
	data := base.Data
	if base.Listed {
		kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
		if len(base.Resources) == 0 {
			kus.Namespace = "_placeholder"
		} else {
			kus.Resources = base.Resources
		}
		var err error
		if data, err = yaml.Marshal(kus); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "contourc-flux-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, filepath.Base(base.File)), data, 0o600); err != nil {
		return nil, err
	}
	out, _, _, err := fluxkustomize.NewGenerator(tmp, u).GenerateManifest(tmp)
	if err != nil {
		return nil, err
	}
	return &engines.FluxGenerated{File: base.File, Data: out}, nil
}
