package manifest

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestLineOfField checks that API server field paths find their line.
func TestLineOfField(t *testing.T) {
	const doc = `apiVersion: v1
kind: Secret
metadata:
  name: s
  annotations:
    kubernetes.io/ingress.class: contour
spec:
  rules:
  - host: a
  - host: b
    http:
      paths:
      - path: /
stringData:
  tls.crt: x
`
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	n := root.Content[0]
	tests := []struct {
		path string
		line int
	}{
		{"spec.rules[1].host", 10},
		{"spec.rules[1].http.paths[0].path", 13},
		{"spec.rules[1].http.paths[0].pathType", 13}, // absent: its mapping
		{"spec.rules[5].host", 9},                    // no such item: the list
		{"metadata.annotations[kubernetes.io/ingress.class]", 6},
		{"annotations.kubernetes.io/ingress.class", 6}, // the API server's path, without metadata
		{"data[tls.crt]", 15},                          // written in stringData
		{"metadata.name", 4},
		{"nowhere", 1},
	}
	for _, tt := range tests {
		if got := lineOfField(n, tt.path); got != tt.line {
			t.Errorf("lineOfField(%q) = %d, want %d", tt.path, got, tt.line)
		}
	}
}
