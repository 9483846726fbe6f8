package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
)

// Tests of where each setting comes from: a `contour serve` flag over the
// configuration file over Contour's default, a ContourConfiguration's own
// defaults and a ConfigMap. (The start-up errors are translate's tests:
// some need the ExtensionServices resolved.)

// resolveInputs loads extra YAML, the objects Resolve looks among.
func resolveInputs(t *testing.T, extra string) []loader.Object {
	t.Helper()
	if extra == "" {
		return nil
	}
	p := filepath.Join(t.TempDir(), "extra.yaml")
	if err := os.WriteFile(p, []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := loader.Load([]string{p}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Objects
}

const testContourConfiguration = `apiVersion: projectcontour.io/v1alpha1
kind: ContourConfiguration
metadata: {name: contour, namespace: projectcontour}
spec:
  envoy:
    http: {port: 8081}
    listener: {useProxyProtocol: true}
    logging: {accessLogFormat: json}
`

var testCRDName = &types.NamespacedName{Namespace: "projectcontour", Name: "contour"}

func TestConfigPrecedence(t *testing.T) {
	type want struct {
		httpPort    uint32
		proxyProto  bool
		logFormat   string
		idleTimeout dag.Timeout
		connect     time.Duration
		adminPort   int
		notice      string
	}
	idle60 := dag.Timeout{Set: true, Duration: 60 * time.Second}
	cases := []struct {
		name  string
		opts  Sources
		extra string
		want  want
	}{
		{"defaults", Sources{}, "", want{8080, false, "envoy", idle60, 2 * time.Second, 9001, ""}},
		{"flags", Sources{Flags: ServeFlags{HTTPPort: 80, UseProxyProtocol: true, AccessLogFormat: "json"}}, "",
			want{80, true, "json", idle60, 2 * time.Second, 9001, ""}},
		{"empty file", Sources{Config: &loader.ContourConfig{}}, "", want{8080, false, "envoy", idle60, 2 * time.Second, 9001, ""}},
		{"file values", Sources{Config: &loader.ContourConfig{AccessLogFormat: "json", Timeouts: loader.ConfigTimeouts{ConnectionIdleTimeout: "5s", ConnectTimeout: "1s"}, Network: loader.ConfigNetwork{EnvoyAdminPort: 9100}}}, "",
			want{8080, false, "json", dag.Timeout{Set: true, Duration: 5 * time.Second}, time.Second, 9100, ""}},
		{"flag over file", Sources{Config: &loader.ContourConfig{}, Flags: ServeFlags{HTTPPort: 81, UseProxyProtocol: true}}, "",
			want{81, true, "envoy", idle60, 2 * time.Second, 9001, ""}},
		// Contour reads the file after its flags and replaces the
		// file-backed settings: --accesslog-format loses to the file.
		{"accesslog flag with a file", Sources{Config: &loader.ContourConfig{}, Flags: ServeFlags{AccessLogFormat: "json"}}, "",
			want{8080, false, "envoy", idle60, 2 * time.Second, 9001, "--accesslog-format is ignored"}},
		// The CRD path: no idle or connect timeout by default, its own
		// listener settings, flags ignored.
		{"ContourConfiguration", Sources{ContourConfiguration: testCRDName, Flags: ServeFlags{HTTPPort: 9999}}, testContourConfiguration,
			want{8081, true, "json", dag.Timeout{}, 0, 9001, "flags are ignored with a ContourConfiguration"}},
		{"ConfigMap", Sources{}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: contour, namespace: other}\ndata:\n  contour.yaml: \"accesslog-format: json\"\n",
			want{8080, false, "json", idle60, 2 * time.Second, 9001, "using its contour.yaml"}},
		{"file wins over ConfigMap", Sources{Config: &loader.ContourConfig{}}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: contour, namespace: other}\ndata:\n  contour.yaml: \"accesslog-format: json\"\n",
			want{8080, false, "envoy", idle60, 2 * time.Second, 9001, ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, notices, err := Resolve(resolveInputs(t, c.extra), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := want{s.HTTPPort, s.UseProxyProtocol, s.AccessLogFormat, s.Timeouts.ConnectionIdleTimeout, s.ConnectTimeout, s.EnvoyAdminPort, ""}
			for _, n := range notices {
				if c.want.notice != "" && strings.Contains(n.String(), c.want.notice) {
					got.notice = c.want.notice
				}
			}
			if len(notices) > 0 && c.want.notice == "" {
				t.Errorf("unexpected notices %v", notices)
			}
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}
