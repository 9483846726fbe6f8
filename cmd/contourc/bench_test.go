package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// BenchmarkPipeline measures load -> translate -> render on a generated
// corpus of HTTPProxies, each with its own Service and EndpointSlice and
// five routes, sharing one TLS Secret.
func BenchmarkPipeline(b *testing.B) {
	for _, n := range []int{100, 1000} {
		dir := b.TempDir()
		writeScaleCorpus(b, dir, n)
		for _, format := range []string{"json", "yaml"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, format), func(b *testing.B) {
				for b.Loop() {
					_, res := loadAndTranslate(b, dir)
					if err := renderers[format](io.Discard, &res.Resources); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// loadAndTranslate runs the first two phases of render on dir.
func loadAndTranslate(b *testing.B, dir string) (*loader.Result, *translate.Result) {
	b.Helper()
	loaded, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return loaded, res
}

// BenchmarkPhases measures each phase of render on its own, on the same
// corpus of 1,000 HTTPProxies: load, translate, and writing each format
// (validation included, as render does).
func BenchmarkPhases(b *testing.B) {
	dir := b.TempDir()
	writeScaleCorpus(b, dir, 1000)
	loaded, res := loadAndTranslate(b, dir)
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := loader.Load([]string{dir}, loader.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("translate", func(b *testing.B) {
		for b.Loop() {
			if _, err := translate.Translate(loaded.Objects, translate.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, format := range []string{"json", "yaml"} {
		b.Run("render-"+format, func(b *testing.B) {
			for b.Loop() {
				if err := renderers[format](io.Discard, &res.Resources); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func writeScaleCorpus(b *testing.B, dir string, n int) {
	b.Helper()
	secret, err := os.ReadFile(filepath.Join(repoRoot, "examples", "kuard-tls-secret.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.Write(secret)
	for i := range n {
		ns := fmt.Sprintf("team-%d", i%20)
		fmt.Fprintf(&sb, `
---
apiVersion: v1
kind: Service
metadata: {name: app-%[1]d, namespace: %[2]s}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: app-%[1]d-x, namespace: %[2]s, labels: {kubernetes.io/service-name: app-%[1]d}}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints: [{addresses: [10.0.%[3]d.%[4]d]}, {addresses: [10.1.%[3]d.%[4]d]}]
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app-%[1]d, namespace: %[2]s}
spec:
  virtualhost: {fqdn: app-%[1]d.example.com}
  routes:
`, i, ns, i/250, i%250)
		for r := range 5 {
			fmt.Fprintf(&sb, "  - conditions: [{prefix: /r%d}]\n    services: [{name: app-%d, port: 80}]\n", r, i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "corpus.yaml"), []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
}
