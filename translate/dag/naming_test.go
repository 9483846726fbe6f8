package dag

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestHashname(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"default", "kuard", "80", "da39a3ee5e"}, "default/kuard/80/da39a3ee5e"},
		// Contour's own example (featuretests/v3/cluster_test.go).
		{[]string{"default", "kbujbkuhdod66gjdmwmijz8xzgsx1nkfbrloezdjiulquzk4x3p0nnvpzi8r", "8080", "da39a3ee5e"}, "default/kbujbkuh-c83ceb/8080/da39a3ee5e"},
		{[]string{"short"}, "short"},
	}
	for _, tt := range tests {
		if got := hashname(maxNameLength, tt.parts...); got != tt.want {
			t.Errorf("hashname(%q) = %q, want %q", tt.parts, got, tt.want)
		}
	}
	long := "a-very-long-host-name-that-goes-on-and-on.and-on.example.com"
	if got := hashname(maxNameLength, long); len(got) != maxNameLength || got == long {
		t.Errorf("hashname of a %d-char single part = %q, want 60 hex chars", len(long), got)
	}
}

func TestClusterNameHashesProtocol(t *testing.T) {
	svc := &Service{Namespace: "default", Name: "backend", Port: corev1.ServicePort{Port: 80}}
	for proto, want := range map[string]string{
		"":    "default/backend/80/da39a3ee5e",
		"tls": "default/backend/80/4929fca9d4",
		"h2c": "default/backend/80/f4f94965ec",
		"h2":  "default/backend/80/bf1c365741",
	} {
		if got := ClusterName(&Cluster{Upstream: svc, Protocol: proto}); got != want {
			t.Errorf("protocol %q: cluster name %q, want %q", proto, got, want)
		}
	}
}
