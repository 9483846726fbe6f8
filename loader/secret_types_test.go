package loader

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Helm release records and service-account tokens are checked but not
// kept, and their data is not decoded: data that is not base64 at all is
// no error. Secrets of other types are kept as ever, in YAML and JSON,
// in a List, whether type comes before or after data.
func TestUnkeptSecretTypes(t *testing.T) {
	text := `apiVersion: v1
kind: Secret
metadata:
  name: sh.helm.release.v1.web.v1
  namespace: default
data:
  release: "not base64 at all: never decoded"
type: helm.sh/release.v1
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  type: kubernetes.io/service-account-token
  metadata:
    name: builder-token
    namespace: default
    annotations:
      kubernetes.io/service-account.name: builder
  stringData:
    token: abc
- apiVersion: v1
  kind: Secret
  metadata:
    name: tls
    namespace: default
  type: kubernetes.io/tls
  data:
    tls.crt: Y2VydA==
    tls.key: a2V5
---
{"apiVersion": "v1", "kind": "Secret", "type": "helm.sh/release.v1", "metadata": {"name": "sh.helm.release.v1.web.v2"}, "data": {"release": "%%%"}}
---
apiVersion: v1
kind: Secret
metadata:
  name: opaque
  namespace: default
data:
  key: dmFsdWU=
`
	res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range res.Objects {
		names = append(names, o.Obj.GetName())
	}
	if strings.Join(names, ",") != "opaque,tls" {
		t.Errorf("objects = %v, want only the opaque and TLS Secrets", names)
	}
	if s := find(t, res, "Secret", "default", "tls").Obj.(*corev1.Secret); string(s.Data["tls.crt"]) != "cert" {
		t.Errorf("TLS Secret data = %q", s.Data)
	}
	want := map[string]int{
		"v1/Secret of type helm.sh/release.v1":                  2,
		"v1/Secret of type kubernetes.io/service-account-token": 1,
	}
	for k, n := range want {
		if res.Skipped[k] != n {
			t.Errorf("Skipped[%q] = %d, want %d (Skipped: %v)", k, res.Skipped[k], n, res.Skipped)
		}
	}
}

// What the API server would refuse in a Secret left out is still refused:
// a bad name, an unknown field.
func TestUnkeptSecretsStillChecked(t *testing.T) {
	text := `apiVersion: v1
kind: Secret
metadata:
  name: Not_A_Name
data:
  release: eA==
type: helm.sh/release.v1
---
apiVersion: v1
kind: Secret
metadata:
  name: token
bogus: 1
type: kubernetes.io/service-account-token
`
	_, err := Load([]string{"-"}, Options{Stdin: strings.NewReader(text)})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`<stdin>:4: Secret default/Not_A_Name: metadata.name`, `<stdin>:13: Secret default/token: unknown field "bogus"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
}
