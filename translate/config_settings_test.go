package translate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	fileaccesslogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
)

// Tests of the configuration through Translate: settings in the Envoy
// output, the start-up errors Contour would stop on, --watch-namespaces and
// --disable-feature, ExternalName Services. Where each setting comes from
// is translate/config's resolve_test.go.

// configInputs loads the shared configuration test inputs plus extra YAML.
func configInputs(t *testing.T, extra string) []loader.Object {
	t.Helper()
	paths := []string{filepath.Join("testdata", "config", "input")}
	if extra != "" {
		p := filepath.Join(t.TempDir(), "extra.yaml")
		if err := os.WriteFile(p, []byte(extra), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	res, err := loader.Load(paths, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Objects
}

const testContourConfiguration = `apiVersion: projectcontour.io/v1alpha1
kind: ContourConfiguration
metadata: {name: contour, namespace: projectcontour}
spec:
  envoy:
    http: {port: 8081}
    listener: {useProxyProtocol: true}
    logging: {accessLogFormat: json}
`

var testCRDName = &types.NamespacedName{Namespace: "projectcontour", Name: "contour"}

// TestConfigPrecedenceOutput checks the precedence in the Envoy output.
func TestConfigPrecedenceOutput(t *testing.T) {
	res, err := Translate(configInputs(t, testContourConfiguration), Options{ContourConfiguration: testCRDName})
	if err != nil {
		t.Fatal(err)
	}
	validateAllResources(t, res.Resources)
	var http *listenerv3.Listener
	for _, l := range res.Resources.Listeners {
		if l.Name == "ingress_http" {
			http = l
		}
	}
	if http == nil {
		t.Fatal("no ingress_http listener")
	}
	if got := http.GetAddress().GetSocketAddress().GetPortValue(); got != 8081 {
		t.Errorf("port %d, want the ContourConfiguration's 8081", got)
	}
	if len(http.ListenerFilters) != 1 || http.ListenerFilters[0].Name != "envoy.filters.listener.proxy_protocol" {
		t.Errorf("listener filters %v, want proxy_protocol", http.ListenerFilters)
	}
	hcm := &hcmv3.HttpConnectionManager{}
	if err := http.FilterChains[0].Filters[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
		t.Fatal(err)
	}
	if hcm.CommonHttpProtocolOptions.IdleTimeout != nil {
		t.Errorf("idle_timeout %v: the CRD path leaves it unset", hcm.CommonHttpProtocolOptions.IdleTimeout)
	}
	fal := &fileaccesslogv3.FileAccessLog{}
	if err := hcm.AccessLog[0].GetTypedConfig().UnmarshalTo(fal); err != nil {
		t.Fatal(err)
	}
	if fal.GetLogFormat().GetJsonFormat() == nil {
		t.Errorf("access log %v: want the default JSON fields", fal)
	}
	for _, c := range res.Resources.Clusters {
		if c.ConnectTimeout.AsDuration() != 2*time.Second {
			t.Errorf("cluster %s connect_timeout %v, want Contour's 2s", c.Name, c.ConnectTimeout.AsDuration())
		}
	}
}

// TestConfigStartupErrors: what Contour refuses at start-up, Translate
// refuses, naming the key.
func TestConfigStartupErrors(t *testing.T) {
	cases := []struct {
		name  string
		opts  Options
		extra string
		want  string
	}{
		{"rate limit service missing", Options{Config: &loader.ContourConfig{RateLimitService: loader.ConfigRateLimitService{ExtensionService: "projectcontour/nope"}}}, "",
			"rateLimitService.extensionService: error getting extension service projectcontour/nope"},
		{"tracing service missing", Options{Config: configFileText("tracing: {extensionService: other/otel}\n")}, "",
			"tracing.extensionService: error getting extension service other/otel"},
		{"global auth service missing", Options{Config: configFileText("globalExtAuth: {extensionService: projectcontour/missing}\n")}, "",
			"globalExtAuth.extensionService"},
		{"bad cipher", Options{Config: configFileText("tls: {cipher-suites: [NOPE]}\n")}, "", "invalid cipher suites"},
		{"bad upstream curve", Options{Config: configFileText("cluster: {upstream-tls: {ecdh-curves: [P-999]}}\n")}, "", "cluster.upstream-tls: invalid ECDH curve"},
		{"bad json field", Options{Config: configFileText("accesslog-format: json\njson-fields: [nonsense]\n")}, "", "json-fields"},
		{"format string without newline", Options{Config: configFileText("accesslog-format-string: \"%START_TIME%\"\n")}, "", "must end in newline"},
		{"bad timeout", Options{Config: configFileText("timeouts: {stream-idle-timeout: soon}\n")}, "", "timeouts.stream-idle-timeout"},
		{"metrics TLS on the health port", Options{Config: configFileText("metrics: {envoy: {server-certificate-path: a, server-key-path: b}}\n")}, "", "cannot use single port"},
		{"missing ContourConfiguration", Options{ContourConfiguration: testCRDName}, "", "ContourConfiguration not found"},
		{"file and ContourConfiguration", Options{ContourConfiguration: testCRDName, Config: &loader.ContourConfig{}}, testContourConfiguration, "cannot specify both"},
		{"fallback namespace not watched", Options{Config: configFileText("tls: {fallback-certificate: {name: fallback, namespace: projectcontour}}\n"), Flags: ServeFlags{WatchNamespaces: []string{"default"}}}, "",
			"fallbackCertificate namespace (projectcontour) must be watched"},
		{"root namespace not watched", Options{RootNamespaces: []string{"a"}, Flags: ServeFlags{WatchNamespaces: []string{"default"}}}, "", "not all root namespaces are being watched"},
		{"unknown feature", Options{Flags: ServeFlags{DisabledFeatures: []string{"httpproxies"}}}, "", "--disable-feature"},
		{"bad ConfigMap", Options{}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: contour, namespace: x}\ndata:\n  contour.yaml: \"bogus: 1\"\n", "bogus"},
		// Listener settings Envoy cannot take: refused with the field and
		// the object's file:line (the extra file's first document).
		{"ContourConfiguration port above 65535", Options{ContourConfiguration: testCRDName}, crdListeners("http: {port: 70000}"),
			`extra.yaml:1: ContourConfiguration projectcontour/contour: spec.envoy.http.port: Invalid value: 70000: must be between 1 and 65535, inclusive`},
		{"ContourConfiguration address not an IP", Options{ContourConfiguration: testCRDName}, crdListeners("https: {address: envoy.local}"),
			`extra.yaml:1: ContourConfiguration projectcontour/contour: spec.envoy.https.address: Invalid value: "envoy.local": must be a valid IP address`},
		{"ContourConfiguration listeners on one port", Options{ContourConfiguration: testCRDName}, crdListeners("https: {port: 8080}"),
			`extra.yaml:1: ContourConfiguration projectcontour/contour: spec.envoy.https: Invalid value: "0.0.0.0:8080": must not be the address and port of spec.envoy.http`},
		{"flags: port above 65535", Options{Flags: ServeFlags{HTTPSPort: 65536}}, "",
			`invalid argument "65536" for "--envoy-service-https-port" flag: must be between 1 and 65535, inclusive`},
		{"flags: address not an IP", Options{Flags: ServeFlags{HTTPAddress: "localhost"}}, "",
			`invalid argument "localhost" for "--envoy-service-http-address" flag: must be a valid IP address`},
		{"flags: listeners on one port", Options{Flags: ServeFlags{HTTPAddress: "10.0.0.1", HTTPSAddress: "10.0.0.1", HTTPSPort: 8080}}, "",
			`invalid argument "8080" for "--envoy-service-https-port" flag: the ingress_http listener is on 10.0.0.1:8080 already`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Translate(configInputs(t, c.extra), c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// crdListeners is a ContourConfiguration projectcontour/contour whose
// spec.envoy holds listeners (YAML flow mappings, one per line).
func crdListeners(listeners ...string) string {
	text := "apiVersion: projectcontour.io/v1alpha1\nkind: ContourConfiguration\nmetadata: {name: contour, namespace: projectcontour}\nspec:\n  envoy:\n"
	for _, l := range listeners {
		text += "    " + l + "\n"
	}
	return text
}

func configFileText(text string) *loader.ContourConfig {
	cfg, err := config.ParseContourConfig("contour.yaml", []byte(text))
	if err != nil {
		panic(err)
	}
	return cfg
}

// TestConfigWatchAndDisable: objects outside --watch-namespaces and kinds
// of --disable-feature are never seen; the configuration's extension
// services are still read directly, as Contour reads them at start-up.
func TestConfigWatchAndDisable(t *testing.T) {
	objs := configInputs(t, "")
	res, err := Translate(objs, Options{
		Config: configFileText("rateLimitService: {extensionService: projectcontour/ratelimit, domain: d}\n"),
		Flags:  ServeFlags{WatchNamespaces: []string{"default"}, DisabledFeatures: []string{"extensionservices"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	validateAllResources(t, res.Resources)
	for _, c := range res.Resources.Clusters {
		if strings.HasPrefix(c.Name, "extension/") {
			t.Errorf("cluster %s: ExtensionServices are disabled", c.Name)
		}
	}
	for _, s := range res.Status {
		if s.Namespace != "default" {
			t.Errorf("status for %s %s/%s outside the watched namespaces", s.Kind, s.Namespace, s.Name)
		}
	}
	found := false
	for _, l := range res.Resources.Listeners {
		if l.Name != "ingress_http" {
			continue
		}
		hcm := &hcmv3.HttpConnectionManager{}
		if err := l.FilterChains[0].Filters[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
			t.Fatal(err)
		}
		for _, f := range hcm.HttpFilters {
			found = found || f.Name == "envoy.filters.http.ratelimit"
		}
	}
	if !found {
		t.Error("no ratelimit filter on ingress_http")
	}
}

// TestConfigExternalName: ExternalName Services need the setting, and
// never point at Envoy itself.
func TestConfigExternalName(t *testing.T) {
	proxy := `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: ext, namespace: default}
spec:
  virtualhost: {fqdn: ext.example.com}
  routes: [{services: [{name: SVC, port: 443}]}]
---
apiVersion: v1
kind: Service
metadata: {name: local, namespace: default}
spec: {type: ExternalName, externalName: "localhost.", ports: [{port: 443}]}
---
apiVersion: v1
kind: Service
metadata: {name: loop, namespace: default}
spec: {type: ExternalName, externalName: "127.0.0.1", ports: [{port: 443}]}
`
	for _, c := range []struct {
		svc, config, want string
	}{
		{"external", "", "these are not currently enabled"},
		{"local", "enableExternalNameService: true\n", "points to localhost"},
		{"loop", "enableExternalNameService: true\n", "loopback, link-local or unspecified"},
		{"external", "enableExternalNameService: true\n", ""},
	} {
		res, err := Translate(configInputs(t, strings.ReplaceAll(proxy, "SVC", c.svc)), Options{Config: configFileText(c.config)})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, s := range res.Status {
			if s.Name == "ext" {
				b, _ := json.Marshal(s.Status)
				msgs = append(msgs, string(b))
			}
		}
		got := strings.Join(msgs, "; ")
		if c.want == "" && strings.Contains(got, "ServiceUnresolvedReference") || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s with %q: status %q, want %q", c.svc, c.config, got, c.want)
		}
		validateAllResources(t, res.Resources)
	}
}
