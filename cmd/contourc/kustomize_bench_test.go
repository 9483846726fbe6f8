//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader"
)

// BenchmarkKustomizeTree measures a repository of 50 kustomizations, 25
// applications' bases and their overlays (a namespace and a
// strategic-merge patch each), building 1,000 objects: kustomize alone on
// each overlay, as `kubectl kustomize` runs it one at a time ("krusty"),
// then contourc's load of the whole tree and a whole `check` of it, and
// the load of the same tree with a Flux variable in every HTTPProxy's fqdn
// and --substitute given ("load-substituted": Flux's substitution of each
// built object). Each also reports its CPU time per run (cpu-ms/op),
// which a busy machine disturbs less than the wall time.
func BenchmarkKustomizeTree(b *testing.B) {
	root := b.TempDir()
	overlays := writeKustomizeTree(b, root, 25, 20, "example.com")
	b.Run("krusty", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			for _, dir := range overlays {
				m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.AsYaml(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			res, err := loader.Load([]string{root}, loader.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Objects) != 1000 {
				b.Fatalf("loaded %d objects, want 1000", len(res.Objects))
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			if code := run([]string{"check", "-o", "json", root}, IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}); code != exitOK && code != exitFindings {
				b.Fatalf("check: exit %d", code)
			}
		}
	})
	b.Run("load-substituted", func(b *testing.B) {
		root := b.TempDir()
		writeKustomizeTree(b, root, 25, 20, "${CLUSTER_DOMAIN}")
		subst, err := loader.NewSubstitution(map[string]string{"CLUSTER_DOMAIN": "example.com"}, false)
		if err != nil {
			b.Fatal(err)
		}
		defer reportCPU(b)()
		for b.Loop() {
			res, err := loader.Load([]string{root}, loader.Options{Substitute: subst})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Objects) != 1000 {
				b.Fatalf("loaded %d objects, want 1000", len(res.Objects))
			}
		}
	})
}

// writeKustomizeTree writes apps applications under root, each a base of
// n HTTPProxies (of fqdns under domain) and their Services and an
// overlay, and returns the overlays' directories.
func writeKustomizeTree(b *testing.B, root string, apps, n int, domain string) []string {
	b.Helper()
	var overlays []string
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for a := range apps {
		app := filepath.Join(root, fmt.Sprintf("app%02d", a))
		var proxies, services strings.Builder
		for i := range n {
			fmt.Fprintf(&proxies, "---\napiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web%d\nspec:\n  virtualhost:\n    fqdn: web%d.app%d.%s\n  routes:\n  - conditions:\n    - prefix: /\n    services:\n    - name: web%d\n      port: 80\n", i, i, a, domain, i)
			fmt.Fprintf(&services, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web%d\nspec:\n  ports:\n  - port: 80\n", i)
		}
		write(filepath.Join(app, "base", "proxies.yaml"), proxies.String())
		write(filepath.Join(app, "base", "services.yaml"), services.String())
		write(filepath.Join(app, "base", "kustomization.yaml"), "resources:\n- proxies.yaml\n- services.yaml\n")
		overlay := filepath.Join(app, "overlays", "prod")
		write(filepath.Join(overlay, "kustomization.yaml"), fmt.Sprintf("namespace: app%d\nresources:\n- ../../base\npatches:\n- path: fqdn.yaml\n", a))
		write(filepath.Join(overlay, "fqdn.yaml"), fmt.Sprintf("apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: web0\nspec:\n  virtualhost:\n    fqdn: www.app%d.%s\n", a, domain))
		overlays = append(overlays, overlay)
	}
	return overlays
}

// reportCPU starts counting the process's CPU time; the function it
// returns reports it per iteration.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
		}
	}
}

// cpuTime is the user and system time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
