package substitute

// The variables of --substitute-from: what Flux reads from the ConfigMaps
// and Secrets of spec.postBuild.substituteFrom, here from their manifests,
// or from a file of NAME=VALUE lines.

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// ReadFrom reads the variables of one --substitute-from file: the
// data of the ConfigMaps and Secrets it holds (a Secret's data decoded from
// base64, its stringData over it, as the API server merges them), later
// documents winning; or, for a file that holds no manifest, its NAME=VALUE
// lines (blank lines and # comments skipped, the value taken as written).
func ReadFrom(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &manifest.Error{Source: manifest.Source{File: path}, Msg: manifest.DescribeFSError(err)}
	}
	if vars, ok, err := varsFromManifests(path, data); ok || err != nil {
		return vars, err
	}
	return varsFromLines(path, data)
}

// varsFromManifests reads the data of the ConfigMaps and Secrets in data;
// ok is false when data holds neither.
func varsFromManifests(path string, data []byte) (map[string]string, bool, error) {
	vars := map[string]string{}
	found := false
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var obj struct {
			Kind       string            `yaml:"kind"`
			Data       map[string]string `yaml:"data"`
			StringData map[string]string `yaml:"stringData"`
		}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return vars, found, nil
			}
			if found {
				return nil, true, &manifest.Error{Source: manifest.Source{File: path}, Msg: fmt.Sprintf("document %d: %v", doc, err)}
			}
			return nil, false, nil // not YAML manifests: NAME=VALUE lines, perhaps
		}
		switch obj.Kind {
		case "ConfigMap":
			for k, v := range obj.Data {
				vars[k] = v
			}
		case "Secret":
			for k, v := range obj.Data {
				b, err := base64.StdEncoding.DecodeString(v)
				if err != nil {
					return nil, true, &manifest.Error{Source: manifest.Source{File: path}, Kind: "Secret", Msg: fmt.Sprintf("data[%s]: illegal base64 data", k)}
				}
				vars[k] = string(b)
			}
			for k, v := range obj.StringData {
				vars[k] = v
			}
		default:
			if obj.Kind != "" {
				return nil, true, &manifest.Error{Source: manifest.Source{File: path}, Kind: obj.Kind, Msg: "--substitute-from reads ConfigMaps and Secrets, or NAME=VALUE lines"}
			}
			continue
		}
		found = true
	}
}

// varsFromLines reads NAME=VALUE lines.
func varsFromLines(path string, data []byte) (map[string]string, error) {
	vars := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &manifest.Error{Source: manifest.Source{File: path, Line: i + 1}, Msg: "want NAME=VALUE, or a ConfigMap or Secret manifest"}
		}
		vars[strings.TrimSpace(name)] = value
	}
	return vars, nil
}
