package loader

import (
	"github.com/contourc/contourc/loader/mainbranch"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Every configuration-file key of Contour's main branch is recorded where
// it is set, in the table's order; null values and keys released Contour
// v1.33 has are not.
func TestConfigMainBranchFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "contour.yaml")
	text := `tls:
  minimum-protocol-version: "1.2"
  ecdh-curves: [X25519]
  fingerprint: {ja3: true}
cluster:
  upstream-tls:
    ecdh-curves: [P-256]
listener:
  max-connections-to-accept-per-socket-event: 2
  max-requests-per-connection: 4
tracing:
  extensionService: projectcontour/otel
  overallSampling: "50"
  clientSampling: "10"
  randomSampling: null
globalExtAuth:
  extensionService: auth/authz
  serviceType: http
  httpSettings: {pathPrefix: /auth}
runtime-settings:
  re2.max_program_size.error_level: "1000"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadContourConfig(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(line int, field string) mainbranch.Field {
		return mainbranch.Field{Source: Source{File: path, Line: line}, Field: field}
	}
	want := []mainbranch.Field{
		at(20, "runtime-settings"),
		at(3, "tls.ecdh-curves"),
		at(4, "tls.fingerprint"),
		at(7, "cluster.upstream-tls.ecdh-curves"),
		at(9, "listener.max-connections-to-accept-per-socket-event"),
		at(14, "tracing.clientSampling"),
		at(18, "globalExtAuth.serviceType"),
		at(19, "globalExtAuth.httpSettings"),
	}
	if !reflect.DeepEqual(cfg.MainBranchFields, want) {
		t.Errorf("MainBranchFields =\n%+v\nwant\n%+v", cfg.MainBranchFields, want)
	}
}

// An HTTPProxy that uses no extension field records no use, and a null
// localJWKS is none.
func TestNoMainBranchFields(t *testing.T) {
	res, err := loadText(`apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app, namespace: default}
spec:
  virtualhost:
    fqdn: app.example.com
    jwtProviders:
    - name: remote
      remoteJWKS: {uri: "https://jwks.example.com/keys"}
      localJWKS: null
    authorization:
      extensionRef: {name: authz}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Objects[0].Extensions; got == nil || len(got.MainBranchFields) != 0 {
		t.Errorf("Extensions = %+v, want the default serviceType and no main-branch field", got)
	}
}
