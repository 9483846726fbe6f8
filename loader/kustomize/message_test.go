package kustomize

import (
	"strings"
	"testing"
)

func TestKustomizeMessageRemovesPrivateKeys(t *testing.T) {
	msg := "trouble configuring builtin PatchTransformer with config: `\npatch: |-\n  data:\n    tls.key: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JR0hBZ0VBTUJNR0J5\n" +
		"  stringData:\n    tls.key: |\n      -----BEGIN EC PRIVATE KEY-----\n      MHcCAQEEIBkg\n      -----END EC PRIVATE KEY-----\n`"
	got := Message(msg)
	for _, secret := range []string{"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t", "MHcCAQEEIBkg"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q left in:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "PatchTransformer") {
		t.Errorf("the message itself went too:\n%s", got)
	}
}
