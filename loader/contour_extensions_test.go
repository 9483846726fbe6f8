package loader

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/mainbranch"
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
)

// The fields of Contour's main branch that the published API module lacks
// (loader/mainbranch): decoded from YAML and JSON alike, strictly, with
// defaults, and without making any other unknown field acceptable.

// loadText loads one input given as text, as if read from stdin.
func loadText(text string, opts Options) (*Result, error) {
	opts.Stdin = strings.NewReader(text)
	return Load([]string{"-"}, opts)
}

const extensionsYAML = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: app, namespace: default}
spec:
  virtualhost:
    fqdn: app.example.com
    tls: {secretName: tls}
    authorization:
      extensionRef: {namespace: auth, name: authz}
      serviceType: http
      httpSettings:
        pathPrefix: /check
        allowedAuthorizationHeaders: [{exact: x-user}, {prefix: x-auth-, ignoreCase: true}]
        allowedUpstreamHeaders: [{suffix: -id}, {contains: token}]
    jwtProviders:
    - name: remote
      remoteJWKS: {uri: "https://jwks.example.com/keys"}
    - name: local
      default: true
      localJWKS: {secretName: jwks, key: jwks.json}
  routes:
  - services: [{name: app, port: 80}]
`

// extensionsJSON is extensionsYAML as JSON.
const extensionsJSON = `{
  "apiVersion": "projectcontour.io/v1",
  "kind": "HTTPProxy",
  "metadata": {"name": "app", "namespace": "default"},
  "spec": {
    "virtualhost": {
      "fqdn": "app.example.com",
      "tls": {"secretName": "tls"},
      "authorization": {
        "extensionRef": {"namespace": "auth", "name": "authz"},
        "serviceType": "http",
        "httpSettings": {
          "pathPrefix": "/check",
          "allowedAuthorizationHeaders": [{"exact": "x-user"}, {"prefix": "x-auth-", "ignoreCase": true}],
          "allowedUpstreamHeaders": [{"suffix": "-id"}, {"contains": "token"}]
        }
      },
      "jwtProviders": [
        {"name": "remote", "remoteJWKS": {"uri": "https://jwks.example.com/keys"}},
        {"name": "local", "default": true, "localJWKS": {"secretName": "jwks", "key": "jwks.json"}}
      ]
    },
    "routes": [{"services": [{"name": "app", "port": 80}]}]
  }
}
`

// wantExtensions are the extensions of extensionsYAML; authLine is the
// line of its serviceType (one further down in extensionsJSON).
func wantExtensions(authLine int) *mainbranch.Extensions {
	return &mainbranch.Extensions{
		LocalJWKS: map[int]*mainbranch.LocalJWKS{1: {SecretName: "jwks", Key: "jwks.json"}},
		Authorization: &mainbranch.AuthorizationExtensions{ServiceType: "http", HTTPSettings: &mainbranch.HTTPAuthorizationSettings{
			PathPrefix:                  "/check",
			AllowedAuthorizationHeaders: []mainbranch.AllowedHeader{{Exact: "x-user"}, {Prefix: "x-auth-", IgnoreCase: true}},
			AllowedUpstreamHeaders:      []mainbranch.AllowedHeader{{Suffix: "-id"}, {Contains: "token"}},
		}},
		MainBranchFields: []mainbranch.Field{
			{Source: Source{File: "<stdin>", Line: authLine}, Field: "spec.virtualhost.authorization.serviceType"},
			{Source: Source{File: "<stdin>", Line: authLine + 1}, Field: "spec.virtualhost.authorization.httpSettings"},
			{Source: Source{File: "<stdin>", Line: 20}, Field: "spec.virtualhost.jwtProviders[1].localJWKS"},
		},
	}
}

func TestExtensionsDecodeFromYAMLAndJSON(t *testing.T) {
	for name, tc := range map[string]struct {
		text     string
		authLine int
	}{"yaml": {extensionsYAML, 10}, "json": {extensionsJSON, 11}} {
		t.Run(name, func(t *testing.T) {
			res, err := loadText(tc.text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			o := find(t, res, "HTTPProxy", "default", "app")
			if want := wantExtensions(tc.authLine); !reflect.DeepEqual(o.Extensions, want) {
				t.Errorf("Extensions = %+v, want %+v", o.Extensions, want)
			}
			// The rest decodes as before: the providers are all there.
			p := o.Obj.(*contourv1.HTTPProxy)
			if jps := p.Spec.VirtualHost.JWTProviders; len(jps) != 2 || jps[1].Name != "local" || !jps[1].Default || jps[0].RemoteJWKS.URI == "" {
				t.Errorf("JWT providers = %+v", jps)
			}
			if a := p.Spec.VirtualHost.Authorization; a == nil || a.ExtensionServiceRef.Name != "authz" {
				t.Errorf("authorization = %+v", a)
			}
		})
	}
}

func TestExtensionsDefaults(t *testing.T) {
	tests := []struct {
		name string
		vh   string // spec.virtualhost's keys after fqdn
		want *mainbranch.Extensions
	}{
		{"none", "", nil},
		{"no authorization, remote JWKS only", "jwtProviders: [{name: a, remoteJWKS: {uri: 'https://x/'}}]", nil},
		{"serviceType defaults to grpc", "authorization: {extensionRef: {name: authz}}",
			&mainbranch.Extensions{Authorization: &mainbranch.AuthorizationExtensions{ServiceType: "grpc"}}},
		{"null authorization", "authorization: null", nil},
		{"null localJWKS", "jwtProviders: [{name: a, localJWKS: null}]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p}\nspec:\n  virtualhost:\n    fqdn: p.example.com\n"
			if tt.vh != "" {
				text += "    " + tt.vh + "\n"
			}
			res, err := loadText(text, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Objects[0].Extensions; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Extensions = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestExtensionsContourConfiguration: a ContourConfiguration's globalExtAuth
// has the same fields.
func TestExtensionsContourConfiguration(t *testing.T) {
	res, err := loadText(`apiVersion: projectcontour.io/v1alpha1
kind: ContourConfiguration
metadata: {name: contour, namespace: projectcontour}
spec:
  globalExtAuth:
    extensionRef: {namespace: auth, name: authz}
    serviceType: http
    httpSettings: {pathPrefix: /auth}
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := &mainbranch.Extensions{
		Authorization: &mainbranch.AuthorizationExtensions{ServiceType: "http", HTTPSettings: &mainbranch.HTTPAuthorizationSettings{PathPrefix: "/auth"}},
		MainBranchFields: []mainbranch.Field{
			{Source: Source{File: "<stdin>", Line: 7}, Field: "spec.globalExtAuth.serviceType"},
			{Source: Source{File: "<stdin>", Line: 8}, Field: "spec.globalExtAuth.httpSettings"},
		},
	}
	if got := res.Objects[0].Extensions; !reflect.DeepEqual(got, want) {
		t.Errorf("Extensions = %+v, want %+v", got, want)
	}
}

// TestExtensionErrors: the extension fields are decoded as strictly as the
// rest, and taking them out leaves every other unknown field an error, at
// its line.
func TestExtensionErrors(t *testing.T) {
	const head = "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: p}\nspec:\n  virtualhost:\n    fqdn: p.example.com\n"
	tests := []struct {
		name string
		vh   string // from line 7 on
		line int
		want string
	}{
		{"unknown field next to localJWKS", "    jwtProviders:\n    - name: a\n      localJWKS: {secretName: s, key: k}\n      remoteJWKSURI: x\n",
			10, `HTTPProxy default/p: unknown field "spec.virtualhost.jwtProviders[0].remoteJWKSURI"`},
		{"unknown field inside localJWKS", "    jwtProviders:\n    - name: a\n      localJWKS:\n        secretName: s\n        key: k\n        namespace: other\n",
			12, `unknown field "spec.virtualhost.jwtProviders[0].localJWKS.namespace"`},
		{"localJWKS without key", "    jwtProviders:\n    - name: a\n    - name: b\n      localJWKS:\n        secretName: s\n",
			10, `spec.virtualhost.jwtProviders[1].localJWKS.key: Required value`},
		{"localJWKS with an empty secret name", "    jwtProviders:\n    - name: a\n      localJWKS: {secretName: '', key: k}\n",
			9, `spec.virtualhost.jwtProviders[0].localJWKS.secretName: Invalid value: "": spec.virtualhost.jwtProviders[0].localJWKS.secretName in body should be at least 1 chars long`},
		{"localJWKS twice", "    jwtProviders:\n    - name: a\n      localJWKS: {secretName: s, key: k}\n      localJWKS: {secretName: s, key: k}\n",
			10, `duplicate field "spec.virtualhost.jwtProviders[0].localJWKS"`},
		{"unknown serviceType", "    authorization:\n      extensionRef: {name: authz}\n      serviceType: rest\n",
			9, `spec.virtualhost.authorization.serviceType: Unsupported value: "rest": supported values: "http", "grpc"`},
		{"unknown field next to serviceType", "    authorization:\n      serviceType: http\n      failClosed: true\n",
			9, `unknown field "spec.virtualhost.authorization.failClosed"`},
		{"unknown field in httpSettings", "    authorization:\n      serviceType: http\n      httpSettings:\n        allowedHeaders: [{exact: x}]\n",
			10, `unknown field "spec.virtualhost.authorization.httpSettings.allowedHeaders"`},
		{"regex matcher", "    authorization:\n      serviceType: http\n      httpSettings:\n        allowedUpstreamHeaders:\n        - regex: x-.*\n",
			11, `unknown field "spec.virtualhost.authorization.httpSettings.allowedUpstreamHeaders[0].regex"`},
		{"wrong type in httpSettings", "    authorization:\n      serviceType: http\n      httpSettings: {pathPrefix: [a]}\n",
			9, `spec.virtualhost.authorization.httpSettings.pathPrefix: Invalid value: "array": spec.virtualhost.authorization.httpSettings.pathPrefix in body must be of type string: "array"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadText(head+tt.vh, Options{})
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			if prefix := "<stdin>:" + strconv.Itoa(tt.line) + ": "; !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want %q...%q", err, prefix, tt.want)
			}
		})
	}
}

// TestExtensionErrorsJSON: in JSON too, an unknown field next to localJWKS
// is refused at its line.
func TestExtensionErrorsJSON(t *testing.T) {
	text := strings.Replace(extensionsJSON, `"default": true,`, `"default": true, "jwks": {},`, 1)
	_, err := loadText(text, Options{})
	want := `<stdin>:20: HTTPProxy default/app: unknown field "spec.virtualhost.jwtProviders[1].jwks"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestExtensionsThroughAliases: the tree is never edited in place, so an
// authorization server shared through a YAML anchor keeps its serviceType
// in every object using it.
func TestExtensionsThroughAliases(t *testing.T) {
	res, err := loadText(`apiVersion: v1
kind: List
items:
- apiVersion: projectcontour.io/v1
  kind: HTTPProxy
  metadata: {name: a}
  spec:
    virtualhost:
      fqdn: a.example.com
      authorization: &auth {extensionRef: {name: authz}, serviceType: http, httpSettings: {pathPrefix: /x}}
- apiVersion: projectcontour.io/v1
  kind: HTTPProxy
  metadata: {name: b}
  spec:
    virtualhost:
      fqdn: b.example.com
      authorization: *auth
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		a := find(t, res, "HTTPProxy", "default", name).Extensions.AuthorizationOf()
		if !a.HTTP() || a.Settings().PathPrefix != "/x" {
			t.Errorf("%s: authorization extensions %+v", name, a)
		}
	}
}

// TestExtensionsFromCache: objects handed out again by a Cache keep their
// extensions.
func TestExtensionsFromCache(t *testing.T) {
	cache := NewCache()
	for i := 0; i < 2; i++ {
		res, err := loadText(extensionsYAML, Options{Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Objects[0].Extensions; !reflect.DeepEqual(got, wantExtensions(10)) {
			t.Errorf("load %d: Extensions = %+v", i, got)
		}
	}
	if cache.Hits() != 1 {
		t.Errorf("cache hits = %d, want 1", cache.Hits())
	}
}
