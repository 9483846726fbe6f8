// Package fastyamltest is the oracle the fast YAML parser's tests compare
// it with: yaml.v3's own trees for the same text, and manifests shaped like
// the scale corpus. The loader's tests use it too, on the chunks the loader
// parses, so it lives outside the parser's test files.
package fastyamltest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// V3Documents parses text the way parseYAMLChunk did before the fast
// parser: one yaml.v3 Decode per document until io.EOF.
func V3Documents(text []byte) (docs []*yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			docs, err = nil, fmt.Errorf("yaml.v3 panicked: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
}

// Diff describes the first difference between two trees, "" if none.
// Comments are not compared: the fast parser leaves them out.
func Diff(path string, got, want *yaml.Node) string {
	switch {
	case got == nil && want == nil:
		return ""
	case got == nil || want == nil:
		return fmt.Sprintf("%s: got node %v, want %v", path, got, want)
	}
	type fields struct {
		Kind         yaml.Kind
		Style        yaml.Style
		Tag, Value   string
		Anchor       string
		Alias        bool
		Line, Column int
		Children     int
		NilContent   bool
	}
	f := func(n *yaml.Node) fields {
		return fields{n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Alias != nil, n.Line, n.Column, len(n.Content), n.Content == nil}
	}
	if g, w := f(got), f(want); g != w {
		return fmt.Sprintf("%s:\n got  %+v\n want %+v", path, g, w)
	}
	for i := range got.Content {
		if d := Diff(fmt.Sprintf("%s/%d", path, i), got.Content[i], want.Content[i]); d != "" {
			return d
		}
	}
	return ""
}

// Compare checks the fast parser's result for text (got, and whether it
// accepted the text) against yaml.v3, and reports whether the fast parser
// accepted it. Accepting is only allowed when yaml.v3 accepts the text too
// and builds the same trees.
func Compare(t testing.TB, name string, text []byte, got []*yaml.Node, ok bool) bool {
	t.Helper()
	if !ok {
		return false
	}
	want, err := V3Documents(text)
	if err != nil {
		t.Errorf("%s: the fast parser accepts what yaml.v3 refuses (%v):\n%s", name, err, text)
		return true
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d documents, yaml.v3 has %d:\n%s", name, len(got), len(want), text)
		return true
	}
	for i := range got {
		if d := Diff(fmt.Sprintf("doc%d", i), got[i], want[i]); d != "" {
			t.Errorf("%s: differs from yaml.v3 at %s\ninput:\n%s", name, d, text)
			return true
		}
	}
	return true
}

// ScaleCorpus writes n of each of scalegen's objects: a TLS Secret (long
// base64 plain scalars, and a PEM block scalar), a Service, an
// EndpointSlice (flow collections) and an HTTPProxy.
func ScaleCorpus(n int) []byte {
	var b bytes.Buffer
	pem := "-----BEGIN CERTIFICATE-----\n" + strings.Repeat("MIIBjTCCATOgAwIBAgIIGOx2dPygMpgwCgYIKoZIzj0EAwIwIDEeMBwGA1UEAxMV\n", 8) + "-----END CERTIFICATE-----\n"
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Secret
metadata:
  name: app-%05[1]d-tls
  namespace: team-%03[2]d
type: kubernetes.io/tls
data:
  tls.crt: %[3]s
stringData:
  tls.key: |
%[4]s
---
apiVersion: v1
kind: Service
metadata:
  name: app-%05[1]d
  namespace: team-%03[2]d
spec:
  selector:
    app: app-%05[1]d
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: app-%05[1]d-x1y2z
  namespace: team-%03[2]d
  labels:
    kubernetes.io/service-name: app-%05[1]d
addressType: IPv4
ports:
- name: http
  port: 8080
  protocol: TCP
endpoints:
- addresses: ["10.0.%[1]d.1"]
  conditions: {ready: true}
- addresses: ["10.0.%[1]d.2"]
  conditions: {ready: true}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: app-%05[1]d
  namespace: team-%03[2]d
spec:
  virtualhost:
    fqdn: app-%05[1]d.example.com
    tls:
      secretName: app-%05[1]d-tls
  routes:
  - conditions:
    - prefix: /
    services:
    - name: app-%05[1]d
      port: 80
  - conditions:
    - prefix: /static
    services:
    - name: app-%05[1]d
      port: 80
    responseHeadersPolicy:
      set:
      - name: Cache-Control
        value: max-age=3600
    timeoutPolicy:
      response: 30s
      idle: 5m
`, i, i%20, strings.Repeat("TFMwdExTMUNSVWRKVGlCRFJWSlVTVVpKUTBGVVJTMHRMUzB0Q2sxSlNVSnFWRU5EUVZSUFowRjNTVUpCWjBsSlIw", 10), indentLines(pem, "    "))
	}
	return b.Bytes()
}

// indentLines prefixes every line of s, dropping its final line break.
func indentLines(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix)
}

// BenchCorpus is a stream of n HTTPProxies and their Services, the shape
// of a large real deployment.
func BenchCorpus(n int) []byte {
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
