package loader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "contour.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadContourConfig(t *testing.T) {
	cfg, err := LoadContourConfig(writeConfig(t, `
gateway:
  gatewayRef:
    name: contour
    namespace: projectcontour
tls:
  minimum-protocol-version: "1.3"
  fallback-certificate:
    name: fallback
    namespace: projectcontour
rateLimitService:
  extensionService: projectcontour/ratelimit
  domain: contour
  defaultGlobalRateLimitPolicy:
    descriptors:
    - entries:
      - requestHeader:
          headerName: X-Custom-Header
          descriptorKey: CustomHeader
timeouts:
  request-timeout: 10s
accesslog-format: json
default-http-versions: [HTTP/2]
cluster:
  circuit-breakers:
    max-connections: 5
    per-host-max-connections: 2
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Gateway.GatewayRef != (ConfigNamespacedName{Name: "contour", Namespace: "projectcontour"}) {
		t.Errorf("gatewayRef = %+v", cfg.Gateway.GatewayRef)
	}
	if cfg.TLS.MinimumProtocolVersion != "1.3" || cfg.TLS.FallbackCertificate.Name != "fallback" {
		t.Errorf("tls = %+v", cfg.TLS)
	}
	if d := cfg.RateLimitService.DefaultGlobalRateLimitPolicy; d == nil || d.Descriptors[0].Entries[0].RequestHeader.HeaderName != "X-Custom-Header" {
		t.Errorf("default global rate limit policy = %+v", d)
	}
	if cb := cfg.Cluster.CircuitBreakers.API(); cb == nil || cb.MaxConnections != 5 || cb.PerHostMaxConnections != 2 {
		t.Errorf("circuit breakers = %+v", cb)
	}
	if cfg.Timeouts.RequestTimeout != "10s" || cfg.AccessLogFormat != "json" {
		t.Errorf("timeouts/accesslog = %+v / %q", cfg.Timeouts, cfg.AccessLogFormat)
	}
}

func TestLoadContourConfigErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "tls:\n  minimum-protocol-versoin: \"1.2\"\n", `:2: configuration: unknown field "tls.minimum-protocol-versoin"`},
		{"wrong type", "disablePermitInsecure: maybe\n", ":1: configuration:"},
		{"bad enum", "accesslog-format: xml\n", `accesslog-format: invalid value "xml"`},
		{"half a name", "tls:\n  fallback-certificate:\n    name: x\n", "tls.fallback-certificate: name and namespace must both be defined"},
		{"circuit breakers in API spelling", "cluster:\n  circuit-breakers:\n    maxConnections: 5\n", `unknown field "cluster.circuit-breakers.maxConnections"`},
		{"two documents", "debug: true\n---\ndebug: false\n", ":3: a configuration file holds one YAML document"},
		{"unknown key in httpSettings", "globalExtAuth:\n  serviceType: http\n  httpSettings:\n    allowedHeaders: []\n", `:4: configuration: unknown field "globalExtAuth.httpSettings.allowedHeaders"`},
		{"bad serviceType", "globalExtAuth: {serviceType: rest}\n", `globalExtAuth.serviceType: invalid value "rest"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadContourConfig(writeConfig(t, tt.text), Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	cfg, err := LoadContourConfig(writeConfig(t, "# only a comment\n"), Options{})
	if err != nil || cfg == nil {
		t.Errorf("empty configuration: %v", err)
	}
}

// TestLoadContourConfigCorpus reads every configuration file of the shared
// conformance corpus, when present.
func TestLoadContourConfigCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../shared/conformance/*/*/contour.yaml")
	if len(files) == 0 {
		t.Skip("no conformance corpus")
	}
	for _, f := range files {
		if _, err := LoadContourConfig(f, Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
