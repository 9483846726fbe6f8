package loader

import (
	"bytes"
	"fmt"
	"testing"
)

// benchCorpus is a stream of n HTTPProxies and their Services, the shape
// of a large real deployment.
func benchCorpus(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Service
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
  labels:
    app: app-%[1]d
spec:
  selector:
    app: app-%[1]d
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
spec:
  virtualhost:
    fqdn: app-%[1]d.example.com
    tls:
      secretName: wildcard
  routes:
  - conditions:
    - prefix: /
    services:
    - name: app-%[1]d
      port: 80
    retryPolicy:
      count: 3
      perTryTimeout: 150ms
    timeoutPolicy:
      response: 5s
  - conditions:
    - prefix: /api
    - header:
        name: x-canary
        exact: "true"
    services:
    - name: app-%[1]d
      port: 80
      weight: 90
    - name: app-%[1]d
      port: 80
      weight: 10
`, i, i%20)
	}
	return b.Bytes()
}

// BenchmarkLoad loads 1000 HTTPProxies and 1000 Services from stdin.
func BenchmarkLoad(b *testing.B) {
	data := benchCorpus(1000)
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
