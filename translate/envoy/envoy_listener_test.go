package envoy

// Golden tests for envoy_listener.go. Each golden file under
// testdata/envoy_listener/ is a fragment of Contour's own output (a
// conformance case's expected.envoy.json) with Lua source text and
// certificate bytes replaced by placeholders. Regenerate them from the
// conformance cases with
//
//	go test ./translate/ -run TestEnvoyListenerGolden -update-listener-golden \
//	    -listener-cases=/path/to/shared/conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
)

var (
	updateListenerGolden = flag.Bool("update-listener-golden", false,
		"rewrite testdata/envoy_listener/*.json from the conformance cases named by -listener-cases")
	listenerCasesDir = flag.String("listener-cases", "../../shared/conformance",
		"directory of conformance cases (<source>/<case>/expected.envoy.json), used with -update-listener-golden")
)

const listenerGoldenDir = "testdata/envoy_listener"

// Type URLs of the expected.envoy.json sections used here.
const (
	goldenListenerType = "type.googleapis.com/envoy.config.listener.v3.Listener"
	goldenSecretType   = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"
	goldenRuntimeType  = "type.googleapis.com/envoy.service.runtime.v3.Runtime"
)

// Placeholder bytes standing in for PEM data in golden files; the builders
// under test are given the same bytes.
var listenerTestBytes = map[string][]byte{
	"certificate_chain": []byte("test certificate chain"),
	"private_key":       []byte("test private key"),
	"trusted_ca":        []byte("test client CA"),
	"crl":               []byte("test CRL"),
}

// luaPlaceholder replaces every Lua source text: the comparison ignores it.
const luaPlaceholder = "<lua source>"

// listenerGolden is one golden fragment: where it comes from in Contour's
// output and how contourc builds it.
type listenerGolden struct {
	file    string                  // under testdata/envoy_listener
	source  string                  // conformance case, <source>/<case>
	extract func(doc jsonObj) any   // the fragment of expected.envoy.json
	build   func() []proto.Message  // what contourc builds for it
	check   func(*testing.T, []any) // optional extra assertions on the golden
}

type jsonObj = map[string]any

func listenerGoldens() []listenerGolden {
	secure := tlsv3.TlsParameters_TLSv1_2
	latest := tlsv3.TlsParameters_TLSv1_3
	https := func(name, routeConfig, secret string) *listenerv3.FilterChain {
		return sniFilterChain(name,
			downstreamTLSContext(secret, secure, latest, "h2", "http/1.1"),
			httpConnectionManager("ingress_https", routeConfig, true))
	}
	clientValidated := func(v downstreamClientValidation) []proto.Message {
		ctx := withDownstreamClientValidation(
			downstreamTLSContext("default/secret/df23ae141c", secure, latest, "h2", "http/1.1"), v)
		return []proto.Message{sniFilterChain("www.example.com", ctx,
			httpConnectionManager("ingress_https", "https/www.example.com", true))}
	}
	return []listenerGolden{{
		file:    "static_listeners.json",
		source:  "contour/docs-guides-cert-manager-L358",
		extract: listenersNamed("envoy-admin", "stats-health"),
		build: func() []proto.Message {
			var out []proto.Message
			for _, l := range staticListeners() {
				out = append(out, l)
			}
			return out
		},
	}, {
		file:    "ingress_http.json",
		source:  "contour/docs-guides-cert-manager-L358",
		extract: listenersNamed("ingress_http"),
		build: func() []proto.Message {
			return []proto.Message{plainListener("ingress_http", "0.0.0.0", 8080,
				httpConnectionManager("ingress_http", "ingress_http", false))}
		},
	}, {
		file:    "ingress_https.json",
		source:  "contour/docs-guides-cert-manager-L358",
		extract: listenersNamed("ingress_https"),
		build: func() []proto.Message {
			return []proto.Message{tlsListener("ingress_https", "0.0.0.0", 8443, []*listenerv3.FilterChain{
				https("httpbin.davecheney.com", "https/httpbin.davecheney.com", "default/httpbin/df23ae141c"),
			})}
		},
	}, {
		file:    "secret.json",
		source:  "contour/docs-guides-cert-manager-L358",
		extract: section(goldenSecretType),
		build: func() []proto.Message {
			return []proto.Message{tlsCertificateSecret("default/httpbin/df23ae141c",
				listenerTestBytes["certificate_chain"], listenerTestBytes["private_key"])}
		},
	}, {
		file:    "runtime.json",
		source:  "contour/docs-guides-cert-manager-L358",
		extract: section(goldenRuntimeType),
		build:   func() []proto.Message { return []proto.Message{runtimeLayer()} },
	}, {
		// Gateway API listeners enable websocket upgrades.
		file:    "gateway_http.json",
		source:  "gateway-api/conformance-httproute-hostname-intersection",
		extract: listenersNamed("http-80"),
		build: func() []proto.Message {
			return []proto.Message{plainListener("http-80", "0.0.0.0", 8080,
				httpConnectionManagerWith("http-80", "http-80", hcmOptions{websockets: true}))}
		},
	}, {
		// A Gateway HTTPS listener without hostname: SNI "*".
		file:    "gateway_https_wildcard.json",
		source:  "envoy-gateway/gatewayapi-gateway-with-listener-with-valid-tls-configuration",
		extract: listenersNamed("https-443"),
		build: func() []proto.Message {
			return []proto.Message{tlsListener("https-443", "0.0.0.0", 8443, []*listenerv3.FilterChain{
				sniFilterChain("*",
					downstreamTLSContext("envoy-gateway/tls-secret-1/10bac03029", secure, latest, "h2", "http/1.1"),
					httpConnectionManagerWith("https-443", "https-443/*", hcmOptions{secure: true, websockets: true})),
			})}
		},
	}, {
		// TLS termination to a TCP proxy: no ALPN. The tcp_proxy filter is
		// built elsewhere, so only match and transport socket are compared.
		file:   "tcpproxy_tls_chain.json",
		source: "contour/examples-httpproxy-httpproxy-tls-termination",
		extract: func(doc jsonObj) any {
			fc := firstChain(doc, "ingress_https")
			delete(fc, "filters")
			return []any{fc}
		},
		build: func() []proto.Message {
			return []proto.Message{sniFilterChain("tcp.example.com",
				downstreamTLSContext("default/secret/df23ae141c", secure, latest))}
		},
	}, {
		// clientValidation.optionalClientCertificate: require false.
		file:    "client_validation_optional.json",
		source:  "contour/docs-config-tls-termination-L173",
		extract: func(doc jsonObj) any { return []any{firstChain(doc, "ingress_https")} },
		build: func() []proto.Message {
			return clientValidated(downstreamClientValidation{
				CACertificate:             listenerTestBytes["trusted_ca"],
				OptionalClientCertificate: true,
			})
		},
	}, {
		// clientValidation.skipClientCertValidation: ACCEPT_UNTRUSTED.
		file:    "client_validation_skip.json",
		source:  "contour/docs-config-tls-termination-L194",
		extract: func(doc jsonObj) any { return []any{firstChain(doc, "ingress_https")} },
		build: func() []proto.Message {
			return clientValidated(downstreamClientValidation{
				CACertificate:            listenerTestBytes["trusted_ca"],
				SkipClientCertValidation: true,
			})
		},
	}, {
		// clientValidation with a CRL checked for the leaf only.
		file:    "client_validation_crl_leaf.json",
		source:  "contour/docs-config-tls-termination-L248",
		extract: func(doc jsonObj) any { return []any{firstChain(doc, "ingress_https")} },
		build: func() []proto.Message {
			return clientValidated(downstreamClientValidation{
				CACertificate:         listenerTestBytes["trusted_ca"],
				CRL:                   listenerTestBytes["crl"],
				OnlyVerifyLeafCertCRL: true,
			})
		},
	}, {
		// An authorization server on the virtual host: ext_authz before router.
		file:    "ext_authz_chain.json",
		source:  "contour/docs-guides-external-authorization-L318",
		extract: func(doc jsonObj) any { return []any{firstChain(doc, "ingress_https")} },
		build: func() []proto.Message {
			authz := hcmHTTPFilter("envoy.filters.http.ext_authz", &extauthzv3.ExtAuthz{
				Services: &extauthzv3.ExtAuthz_GrpcService{GrpcService: &corev3.GrpcService{
					TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{
						ClusterName: "extension/projectcontour-auth/htpasswd",
						Authority:   "extension.projectcontour-auth.htpasswd",
					}},
				}},
				TransportApiVersion:    corev3.ApiVersion_V3,
				ClearRouteCache:        true,
				StatusOnError:          &typev3.HttpStatus{Code: typev3.StatusCode_Forbidden},
				IncludePeerCertificate: true,
			})
			return []proto.Message{sniFilterChain("local.projectcontour.io",
				downstreamTLSContext("default/ingress-conformance-echo/df23ae141c", secure, latest, "h2", "http/1.1"),
				httpConnectionManagerWith("ingress_https", "https/local.projectcontour.io",
					hcmOptions{secure: true, extraFilters: []*hcmv3.HttpFilter{authz}}))}
		},
	}}
}

// listenersNamed extracts the listeners with the given names, in order.
func listenersNamed(names ...string) func(jsonObj) any {
	return func(doc jsonObj) any {
		var out []any
		for _, name := range names {
			for _, l := range doc[goldenListenerType].([]any) {
				if l.(jsonObj)["name"] == name {
					out = append(out, l)
				}
			}
		}
		return out
	}
}

// section extracts a whole resource list.
func section(typeURL string) func(jsonObj) any {
	return func(doc jsonObj) any { return doc[typeURL] }
}

// firstChain returns the first filter chain of the named listener.
func firstChain(doc jsonObj, listener string) jsonObj {
	for _, l := range listenersNamed(listener)(doc).([]any) {
		return l.(jsonObj)["filter_chains"].([]any)[0].(jsonObj)
	}
	return nil
}

// redactJSON replaces Lua source text with luaPlaceholder and, when
// withBytes, inline certificate bytes with the base64 of listenerTestBytes
// (keyed by the field holding the DataSource). parent is the key v is under.
func redactJSON(v any, parent string, withBytes bool) any {
	switch x := v.(type) {
	case jsonObj:
		out := jsonObj{}
		for k, e := range x {
			switch {
			case k == "inline_string" && parentIsLua(parent):
				out[k] = luaPlaceholder
			case k == "inline_bytes" && withBytes:
				b, ok := listenerTestBytes[parent]
				if !ok {
					panic("no placeholder bytes for " + parent)
				}
				out[k] = base64.StdEncoding.EncodeToString(b)
			default:
				out[k] = redactJSON(e, k, withBytes)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactJSON(e, parent, withBytes)
		}
		return out
	default:
		return v
	}
}

// parentIsLua reports whether a DataSource under field parent holds Lua:
// the Lua filter's default_source_code or one of its source_codes entries.
func parentIsLua(parent string) bool {
	return parent == "default_source_code" || strings.HasSuffix(parent, ".lua")
}

// normalizeLua blanks Lua source text so that only the configuration
// around the scripts is compared.
func normalizeLua(v any) any { return redactJSON(v, "", false) }

// packedMessages returns the messages packed in the Anys directly inside m
// (not those nested in the packed messages themselves).
func packedMessages(t *testing.T, m proto.Message) []proto.Message {
	t.Helper()
	var out []proto.Message
	var walk func(pm protoreflect.Message)
	walk = func(pm protoreflect.Message) {
		if a, ok := pm.Interface().(*anypb.Any); ok {
			inner, err := a.UnmarshalNew()
			if err != nil {
				t.Errorf("unpack %s: %v", a.GetTypeUrl(), err)
				return
			}
			out = append(out, inner)
			return
		}
		pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				if fd.MapValue().Message() != nil {
					v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
						walk(mv.Message())
						return true
					})
				}
			case fd.IsList():
				if fd.Message() != nil {
					for i := 0; i < v.List().Len(); i++ {
						walk(v.List().Get(i).Message())
					}
				}
			case fd.Message() != nil:
				walk(v.Message())
			}
			return true
		})
	}
	walk(m.ProtoReflect())
	return out
}

// toJSONValue marshals messages as Contour's expected files do (protojson,
// proto field names) and decodes them to plain JSON values.
func toJSONValue(t *testing.T, msgs []proto.Message) any {
	t.Helper()
	var list []any
	for _, m := range msgs {
		b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if err != nil {
			t.Fatalf("marshal %s: %v", proto.MessageName(m), err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		list = append(list, v)
	}
	return normalizeLua(list)
}

func prettyJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// goldenFile is the on-disk form of a golden fragment.
type goldenFile struct {
	Source   string `json:"source"`
	Note     string `json:"note"`
	Fragment any    `json:"fragment"`
}

const goldenNote = "Fragment of Contour's expected.envoy.json for the source case; " +
	"Lua source text and certificate bytes are replaced by placeholders."

func writeListenerGolden(t *testing.T, g listenerGolden) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(*listenerCasesDir, g.source, "expected.envoy.json"))
	if err != nil {
		t.Fatalf("-update-listener-golden: %v", err)
	}
	var doc jsonObj
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	out := goldenFile{Source: g.source, Note: goldenNote, Fragment: redactJSON(g.extract(doc), "", true)}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(listenerGoldenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(listenerGoldenDir, g.file), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readListenerGolden(t *testing.T, file string) goldenFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(listenerGoldenDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return g
}

// TestEnvoyListenerGolden compares each builder's output with the fragment
// of Contour's output it must reproduce.
func TestEnvoyListenerGolden(t *testing.T) {
	for _, g := range listenerGoldens() {
		t.Run(strings.TrimSuffix(g.file, ".json"), func(t *testing.T) {
			if *updateListenerGolden {
				writeListenerGolden(t, g)
			}
			want := readListenerGolden(t, g.file)
			got := toJSONValue(t, g.build())
			if !reflect.DeepEqual(normalizeLua(want.Fragment), got) {
				t.Errorf("%s differs from Contour's output (%s)\n--- want\n%s\n--- got\n%s",
					g.file, want.Source, prettyJSON(want.Fragment), prettyJSON(got))
			}
		})
	}
}

// TestEnvoyListenerGoldenRedacted guards the rule that golden files carry
// neither Lua text nor certificate material.
func TestEnvoyListenerGoldenRedacted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(listenerGoldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(listenerGoldens()) {
		t.Errorf("%d golden files, %d goldens defined", len(files), len(listenerGoldens()))
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"envoy_on_request", "envoy_on_response", "BEGIN CERT", "LS0tLS1CRUdJT"} {
			if bytes.Contains(raw, []byte(bad)) {
				t.Errorf("%s contains %q", f, bad)
			}
		}
	}
}

// validatable is implemented by every go-control-plane message.
type validatable interface{ ValidateAll() error }

// validateDeep runs protoc-gen-validate rules on m and on every message
// packed in an Any inside it (ValidateAll does not look inside Anys).
func validateDeep(t *testing.T, m proto.Message, where string) {
	t.Helper()
	if v, ok := m.(validatable); ok {
		if err := v.ValidateAll(); err != nil {
			t.Errorf("%s (%s): %v", where, proto.MessageName(m), err)
		}
	}
	for _, inner := range packedMessages(t, m) {
		validateDeep(t, inner, where+" > "+string(proto.MessageName(inner)))
	}
}

func TestEnvoyListenerValidateAll(t *testing.T) {
	for _, g := range listenerGoldens() {
		for i, m := range g.build() {
			validateDeep(t, m, fmt.Sprintf("%s[%d]", g.file, i))
		}
	}
	validateDeep(t, plainListener("empty", "0.0.0.0", 8080), "plainListener without filters")
}
