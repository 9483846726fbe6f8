package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestSecretSourcesKept(t *testing.T) {
	dir := t.TempDir()
	manifest := `apiVersion: v1
kind: Secret
metadata: {name: sops}
type: kubernetes.io/tls
data:
  tls.crt: ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]
sops:
  mac: ENC[AES256_GCM,data:mmmm,iv:nnnn,tag:oooo,type:str]
  version: 3.8.1
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: web}
spec: {secretName: web-tls}
---
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: sealed, namespace: web}
spec: {encryptedData: {a: b}}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: ext, namespace: web}
spec: {}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: web}
spec: {ports: [{port: 80}]}
`
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	res := mustLoad(t, dir)
	if len(res.Objects) != 1 || res.Objects[0].Kind != "Service" || res.Read != 1 {
		t.Errorf("objects %d (read %d), want the Service alone", len(res.Objects), res.Read)
	}
	var got []string
	for _, o := range res.SecretSources {
		u := o.Obj.(*unstructured.Unstructured)
		got = append(got, o.Kind+" "+u.GetNamespace()+"/"+u.GetName())
	}
	want := []string{"Certificate web/web", "ExternalSecret web/ext", "SealedSecret web/sealed", "Secret default/sops"}
	if len(got) != len(want) {
		t.Fatalf("secret sources %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("secret sources %v, want %v", got, want)
			break
		}
	}
	// The SOPS Secret's values are the strings written, never decoded.
	data, _, _ := unstructured.NestedStringMap(res.SecretSources[3].Obj.(*unstructured.Unstructured).Object, "data")
	if data["tls.crt"] != "ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]" {
		t.Errorf("SOPS data %q", data["tls.crt"])
	}
}

func TestSecretWithoutSOPSMacIsASecret(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nsops: {version: 3}\n"), 0o600)
	errs := loadErrors(t, Options{}, dir)
	if len(errs) != 1 || errs[0].Msg == "" {
		t.Fatalf("errors %v, want the unknown field", errs)
	}
}

// TestSOPSEncryptedList: `sops --encrypt` of a `kubectl get secrets -o
// yaml` dump puts its metadata beside the List's items, not in each: the
// items are SOPS Secrets all the same, kept as secret sources and never
// base64-decoded.
func TestSOPSEncryptedList(t *testing.T) {
	dir := t.TempDir()
	list := `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Secret
    metadata: {name: a, namespace: web}
    type: kubernetes.io/tls
    data:
      tls.crt: ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]
      tls.key: ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]
  - apiVersion: v1
    kind: Secret
    metadata: {name: b, namespace: web}
    data: {token: "ENC[AES256_GCM,data:abcd,iv:efgh,tag:ijkl,type:str]"}
metadata: {resourceVersion: ""}
sops:
  mac: ENC[AES256_GCM,data:mmmm,iv:nnnn,tag:oooo,type:str]
  version: 3.11.0
`
	if err := os.WriteFile(filepath.Join(dir, "keys.sops.yaml"), []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	res := mustLoad(t, dir)
	var got []string
	for _, o := range res.SecretSources {
		got = append(got, o.Kind+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName())
	}
	if len(res.Objects) != 0 || strings.Join(got, ", ") != "Secret web/a, Secret web/b" {
		t.Errorf("objects %d, secret sources %v, want the two Secrets as secret sources", len(res.Objects), got)
	}
	// A List without SOPS's metadata is read as before: its ENC[...] is
	// not base64.
	plain := strings.Replace(list, "sops:\n", "notsops:\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "keys.sops.yaml"), []byte(plain), 0o600); err != nil {
		t.Fatal(err)
	}
	if errs := loadErrors(t, Options{}, dir); len(errs) == 0 {
		t.Errorf("a List without sops metadata loaded without error")
	}
}
