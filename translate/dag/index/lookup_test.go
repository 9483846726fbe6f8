package index

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestSecretReference checks the namespace a Secret reference resolves
// to: its own "ns/" part, else the annotation's namespace, else the
// object's own, with an empty "/name" part counting as none.
func TestSecretReference(t *testing.T) {
	for _, tt := range []struct {
		ref, annotation, own string
		want                 types.NamespacedName
	}{
		{"tls", "", "default", types.NamespacedName{Namespace: "default", Name: "tls"}},
		{"certs/tls", "", "default", types.NamespacedName{Namespace: "certs", Name: "tls"}},
		{"tls", "shared", "default", types.NamespacedName{Namespace: "shared", Name: "tls"}},
		{"certs/tls", "shared", "default", types.NamespacedName{Namespace: "certs", Name: "tls"}},
		{"/tls", "", "default", types.NamespacedName{Namespace: "default", Name: "tls"}},
		{"/tls", "shared", "default", types.NamespacedName{Namespace: "shared", Name: "tls"}},
		{"a/b/c", "", "default", types.NamespacedName{Namespace: "a", Name: "b/c"}},
	} {
		if got := SecretReference(tt.ref, tt.annotation, tt.own); got != tt.want {
			t.Errorf("SecretReference(%q, %q, %q) = %v, want %v", tt.ref, tt.annotation, tt.own, got, tt.want)
		}
	}
}
