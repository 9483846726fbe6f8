package translate_test

// Golden tests of Contour's configuration, one case per key family: each
// translate/testdata/config/cases/<case>/ holds the configuration
// (contour.yaml, or a ContourConfiguration or ConfigMap under input/ named
// by flags.json), optional `contour serve` flags (flags.json) and
// expected.json, the xDS resources render -o json writes for the shared
// inputs in translate/testdata/config/input/ plus the case's input/.
// Every output passes render.Validate (Envoy's ValidateAll, deep).
// Rewrite the expected files with
//
//	go test ./translate -run ConfigGolden -update-config
//
// and review the diff against Contour's behaviour before committing it.

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

var updateConfig = flag.Bool("update-config", false, "rewrite translate/testdata/config/cases/*/expected.json")

const configTestdata = "testdata/config"

// caseFlags are a case's flags.json: `contour serve` flags and
// --contour-config.
type caseFlags struct {
	translate.ServeFlags
	ContourConfig  string   `json:"contourConfig"`
	RootNamespaces []string `json:"rootNamespaces"`
	Gateway        string   `json:"gateway"`
}

// configCase translates the shared inputs (plus the case's) with the case's
// configuration.
func configCase(t *testing.T, dir string) (*translate.Result, error) {
	t.Helper()
	opts := translate.Options{}
	if data, err := os.ReadFile(filepath.Join(dir, "flags.json")); err == nil {
		var f caseFlags
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("flags.json: %v", err)
		}
		opts.Flags = f.ServeFlags
		opts.RootNamespaces = f.RootNamespaces
		if f.ContourConfig != "" {
			ns, name, _ := strings.Cut(f.ContourConfig, "/")
			opts.ContourConfiguration = &types.NamespacedName{Namespace: ns, Name: name}
		}
		if f.Gateway != "" {
			ns, name, _ := strings.Cut(f.Gateway, "/")
			opts.Gateway = &types.NamespacedName{Namespace: ns, Name: name}
		}
	}
	if path := filepath.Join(dir, "contour.yaml"); fileExists(path) {
		cfg, err := loader.LoadContourConfig(path, loader.Options{})
		if err != nil {
			t.Fatalf("contour.yaml: %v", err)
		}
		opts.Config = cfg
	}
	paths := []string{filepath.Join(configTestdata, "input")}
	if extra := filepath.Join(dir, "input"); fileExists(extra) {
		paths = append(paths, extra)
	}
	loaded, err := loader.Load(paths, loader.Options{})
	if err != nil {
		t.Fatalf("loading inputs: %v", err)
	}
	return translate.Translate(loaded.Objects, opts)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// renderJSON validates and renders the resources as render -o json does.
func renderJSON(t *testing.T, r *translate.Result) []byte {
	t.Helper()
	if err := render.Validate(&r.Resources); err != nil {
		t.Fatalf("resources do not validate: %v", err)
	}
	var buf bytes.Buffer
	if err := render.JSON(&buf, &r.Resources); err != nil {
		t.Fatalf("render: %v", err)
	}
	return buf.Bytes()
}

func TestConfigGolden(t *testing.T) {
	root := filepath.Join(configTestdata, "cases")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			res, err := configCase(t, dir)
			if err != nil {
				t.Fatalf("translate: %v", err)
			}
			got := renderJSON(t, res)
			// Notices are part of the contract: they say what was
			// not applied and where the configuration came from.
			var notices []string
			for _, n := range res.Notices {
				if n.Kind == "configuration" || n.Kind == "ConfigMap" {
					notices = append(notices, n.Kind+": "+n.Msg)
				}
			}
			got = append(got, []byte("\n"+strings.Join(notices, "\n"))...)
			want := filepath.Join(dir, "expected.json")
			if *updateConfig {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run with -update-config to create it)", err)
			}
			if !bytes.Equal(data, got) {
				t.Errorf("output differs from %s (rerun with -update-config and review the diff)\n%s", want, firstDiff(string(data), string(got)))
			}
		})
	}
}

// firstDiff shows the first differing line with some context.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestConfigDefaultsChangeNothing: a configuration file that sets nothing,
// or only Contour's default values, produces what no configuration does.
func TestConfigDefaultsChangeNothing(t *testing.T) {
	none, err := configCase(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := renderJSON(t, none)
	for _, text := range []string{
		"",
		"accesslog-format: envoy\naccesslog-level: info\nserverHeaderTransformation: overwrite\ncompression: {algorithm: gzip}\n",
		"timeouts: {connection-idle-timeout: 60s, connect-timeout: 2s}\ntls: {minimum-protocol-version: \"1.2\", maximum-protocol-version: \"1.3\"}\n",
		"network: {admin-port: 9001, num-trusted-hops: 0}\ncluster: {dns-lookup-family: auto}\ndefault-http-versions: [HTTP/1.1, HTTP/2]\n",
		"metrics: {envoy: {address: 0.0.0.0, port: 8002}}\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "contour.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := configCase(t, dir)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := renderJSON(t, res); !bytes.Equal(got, want) {
			t.Errorf("configuration %q changes the output:\n%s", text, firstDiff(string(want), string(got)))
		}
		for _, n := range res.Notices {
			if n.Kind == "configuration" {
				t.Errorf("configuration %q: unexpected notice %s", text, n)
			}
		}
	}
}
