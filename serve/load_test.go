package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
)

// TestServeLoadOptions checks that serve reads the files as render does
// with the same loading flags: -n's namespace and Flux variables.
func TestServeLoadOptions(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"proxies.yaml", "services.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "gitops", "namespaces", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), strings.ReplaceAll(string(b), "shop.example.com", "shop.${DOMAIN}"))
	}
	subst, err := loader.NewSubstitution(map[string]string{"DOMAIN": "example.org"}, false)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, []string{dir}, func(c *Config) {
		c.Load = loader.Options{Namespace: "shop", Substitute: subst}
	})
	ts.waitReady(t)
	_, status := ts.get(t, "/debug/status")
	if strings.Count(status, `"namespace": "shop"`) != 2 || strings.Contains(status, `"invalid"`) {
		t.Errorf("/debug/status does not have both HTTPProxies valid in shop:\n%s", status)
	}
	_, xds := ts.get(t, "/debug/xds")
	if !strings.Contains(xds, `"shop.example.org"`) {
		t.Errorf("/debug/xds has no virtual host for the substituted fqdn")
	}
}
