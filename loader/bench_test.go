package loader

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/contourc/contourc/loader/internal/fastyaml/fastyamltest"
)

// BenchmarkLoad loads 1000 HTTPProxies and 1000 Services from stdin.
func BenchmarkLoad(b *testing.B) {
	data := fastyamltest.BenchCorpus(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Load([]string{"-"}, Options{Stdin: bytes.NewReader(data)})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Objects) != 2000 {
			b.Fatalf("loaded %d objects", len(res.Objects))
		}
	}
}

// builtinCorpus is n each of Ingresses, EndpointSlices and TLS Secrets,
// the built-in kinds whose API server rules the loader applies.
func builtinCorpus(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
  annotations:
    kubernetes.io/ingress.class: contour
spec:
  tls:
  - hosts: [app-%[1]d.example.com]
    secretName: app-%[1]d
  rules:
  - host: app-%[1]d.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service: {name: app-%[1]d, port: {number: 80}}
      - path: /api
        pathType: Exact
        backend:
          service: {name: api-%[1]d, port: {name: http}}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: app-%[1]d-x1
  namespace: team-%[2]d
  labels: {kubernetes.io/service-name: app-%[1]d}
addressType: IPv4
endpoints:
- addresses: [10.%[2]d.%[3]d.1]
- addresses: [10.%[2]d.%[3]d.2]
ports:
- {name: http, port: 8080, protocol: TCP}
---
apiVersion: v1
kind: Secret
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
type: kubernetes.io/tls
data:
  tls.crt: Y2VydA==
  tls.key: a2V5
`, i, i%20, i%250)
	}
	return b.Bytes()
}

// BenchmarkLoadBuiltin loads 1000 each of Ingresses, EndpointSlices and
// Secrets from stdin.
func BenchmarkLoadBuiltin(b *testing.B) {
	data := builtinCorpus(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Load([]string{"-"}, Options{Stdin: bytes.NewReader(data)})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Objects) != 3000 {
			b.Fatalf("loaded %d objects", len(res.Objects))
		}
	}
}
