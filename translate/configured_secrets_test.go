package translate

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
)

// TestConfiguredSecretsOf: the Secrets named by the configuration a
// translation would resolve, wherever it comes from.
func TestConfiguredSecretsOf(t *testing.T) {
	const configMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: contour, namespace: projectcontour}
data:
  contour.yaml: |
    tls:
      fallback-certificate: {name: fallback-cert, namespace: projectcontour}
      envoy-client-certificate: {name: envoy-client, namespace: projectcontour}
`
	const contourConfiguration = `apiVersion: projectcontour.io/v1alpha1
kind: ContourConfiguration
metadata: {name: contour, namespace: projectcontour}
spec:
  httpproxy: {fallbackCertificate: {name: crd-fallback, namespace: certs}}
  envoy: {clientCertificate: {name: crd-client, namespace: certs}}
`
	fallback := &types.NamespacedName{Namespace: "projectcontour", Name: "fallback-cert"}
	client := &types.NamespacedName{Namespace: "projectcontour", Name: "envoy-client"}
	file := &loader.ContourConfig{}
	file.TLS.FallbackCertificate = loader.ConfigNamespacedName{Namespace: "file", Name: "fallback"}
	for _, tc := range []struct {
		name    string
		input   string
		opts    Options
		want    ConfiguredSecrets
		cluster string
	}{
		{"contour ConfigMap", configMap, Options{}, ConfiguredSecrets{fallback, client}, ""},
		{"ConfigMap of the cluster context", "", Options{}, ConfiguredSecrets{fallback, client}, configMap},
		{"ContourConfiguration", contourConfiguration, Options{ContourConfiguration: &types.NamespacedName{Namespace: "projectcontour", Name: "contour"}},
			ConfiguredSecrets{&types.NamespacedName{Namespace: "certs", Name: "crd-fallback"}, &types.NamespacedName{Namespace: "certs", Name: "crd-client"}}, ""},
		{"configuration file", configMap, Options{Config: file}, ConfiguredSecrets{FallbackCertificate: &types.NamespacedName{Namespace: "file", Name: "fallback"}}, ""},
		{"none configured", contourConfiguration, Options{}, ConfiguredSecrets{}, ""},
		// Translate reports it.
		{"configuration not found", configMap, Options{ContourConfiguration: &types.NamespacedName{Namespace: "projectcontour", Name: "missing"}}, ConfiguredSecrets{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []loader.Object
			if tc.input != "" {
				objs = loadYAMLForTest(t, tc.input)
			}
			if tc.cluster != "" {
				tc.opts.Cluster = loadYAMLForTest(t, tc.cluster)
			}
			show := func(c ConfiguredSecrets) string { return fmt.Sprint(c.FallbackCertificate, " ", c.ClientCertificate) }
			if got := ConfiguredSecretsOf(objs, tc.opts); show(got) != show(tc.want) {
				t.Errorf("got %s, want %s", show(got), show(tc.want))
			}
		})
	}
}
