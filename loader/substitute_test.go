package loader

import (
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
)

const proxyWithVariables = `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata:
  name: web
  namespace: apps
spec:
  virtualhost:
    fqdn: web.${CLUSTER_DOMAIN}
  routes:
  - services:
    - name: web
      port: 80
    timeoutPolicy:
      response: "${WEB_TIMEOUT:=30s}"
`

func loadSubstituted(t *testing.T, text string, s *Substitution) (*Result, error) {
	t.Helper()
	return Load([]string{"-"}, Options{Stdin: strings.NewReader(text), Substitute: s})
}

func mustSubstitution(t *testing.T, vars map[string]string) *Substitution {
	t.Helper()
	s, err := NewSubstitution(vars, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSubstitute checks Flux's substitution rules on a document.
func TestSubstitute(t *testing.T) {
	for _, c := range []struct {
		name       string
		vars       map[string]string
		text       string // replaces proxyWithVariables when set
		fqdn, resp string
		err        string
	}{
		{name: "given", vars: map[string]string{"CLUSTER_DOMAIN": "example.com", "WEB_TIMEOUT": "5s"}, fqdn: "web.example.com", resp: "5s"},
		{name: "default", vars: map[string]string{"CLUSTER_DOMAIN": "example.com"}, fqdn: "web.example.com", resp: "30s"},
		{name: "newlines taken out of values", vars: map[string]string{"CLUSTER_DOMAIN": "example\n.com"}, fqdn: "web.example.com", resp: "30s"},
		{name: "escaped", vars: map[string]string{"CLUSTER_DOMAIN": "example.com"},
			text: strings.Replace(proxyWithVariables, `"${WEB_TIMEOUT:=30s}"`, `"$${WEB_TIMEOUT}"`, 1), fqdn: "web.example.com",
			err: `Invalid value: "${WEB_TIMEOUT}"`},
		{name: "disabled by annotation", vars: map[string]string{"CLUSTER_DOMAIN": "example.com"},
			text: strings.Replace(proxyWithVariables, "  namespace: apps\n", "  namespace: apps\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n", 1),
			err:  `fqdn: Invalid value: "web.${CLUSTER_DOMAIN}"`},
		{name: "no variables: nothing substituted, the hint", vars: nil,
			err: `<stdin>:8: HTTPProxy apps/web: spec.virtualhost.fqdn: Invalid value: "web.${CLUSTER_DOMAIN}"`},
		{name: "a variable not given", vars: map[string]string{"OTHER": "x"},
			err: `hint: ${CLUSTER_DOMAIN} is a Flux variable with no value given (Flux substitutes an empty string); pass --substitute CLUSTER_DOMAIN=...`},
		{name: "bad syntax", vars: map[string]string{"A": "x"}, text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  a: ${A\n",
			err: "<stdin>:1: envsubst error: variable substitution failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := c.text
			if text == "" {
				text = proxyWithVariables
			}
			var s *Substitution
			if c.vars != nil {
				s = mustSubstitution(t, c.vars)
			}
			res, err := loadSubstituted(t, text, s)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := find(t, res, "HTTPProxy", "apps", "web")
			proxy := p.Obj.(*contourv1.HTTPProxy)
			if proxy.Spec.VirtualHost.Fqdn != c.fqdn || proxy.Spec.Routes[0].TimeoutPolicy.Response != c.resp {
				t.Errorf("fqdn %q, response %q; want %q, %q", proxy.Spec.VirtualHost.Fqdn, proxy.Spec.Routes[0].TimeoutPolicy.Response, c.fqdn, c.resp)
			}
			if p.Source.Line != 1 {
				t.Errorf("source line %d, want 1", p.Source.Line)
			}
		})
	}
}

// TestSubstituteHints checks the hint an unsubstituted variable gets, on
// the line of the error, naming every variable without a value.
func TestSubstituteHints(t *testing.T) {
	_, err := loadSubstituted(t, proxyWithVariables, nil)
	if err == nil {
		t.Fatal("loaded")
	}
	msg := err.Error()
	for _, want := range []string{
		"<stdin>:8: HTTPProxy apps/web: spec.virtualhost.fqdn: Invalid value: \"web.${CLUSTER_DOMAIN}\"",
		"; hint: ${CLUSTER_DOMAIN} is a Flux variable; pass --substitute CLUSTER_DOMAIN=...",
		"<stdin>:14: HTTPProxy apps/web: spec.routes[0].timeoutPolicy.response",
		"; hint: ${WEB_TIMEOUT} is a Flux variable; pass --substitute WEB_TIMEOUT=...",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	// An error on a line without a variable gets no hint.
	_, err = loadSubstituted(t, "apiVersion: v1\nkind: Service\nmetadata:\n  name: Bad_Name\n  annotations:\n    a: ${X}\n", nil)
	if err == nil || strings.Contains(err.Error(), "hint") {
		t.Errorf("error %v: a hint for a line without a variable", err)
	}
}

// TestSubstituteKeepsLines checks that objects after a substituted
// document keep their lines.
func TestSubstituteKeepsLines(t *testing.T) {
	text := proxyWithVariables + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: ${NS}\nspec:\n  ports: [{port: 80}]\n"
	res, err := loadSubstituted(t, text, mustSubstitution(t, map[string]string{"CLUSTER_DOMAIN": "example.com", "NS": "apps"}))
	if err != nil {
		t.Fatal(err)
	}
	if svc := find(t, res, "Service", "apps", "web"); svc.Source.Line != 16 {
		t.Errorf("Service at line %d, want 16", svc.Source.Line)
	}
}

// TestSubstituteLeavesTheRest checks that substitution changes nothing but
// the variables, whatever the layout of the stream: comments, markers,
// empty documents, a last line without a newline.
func TestSubstituteLeavesTheRest(t *testing.T) {
	s := mustSubstitution(t, map[string]string{"A": "x"})
	for _, text := range []string{
		"# head\n---\n# only a comment\n---\na: ${B}\n...\n---\nb: 1\n",
		"%YAML 1.2\n---\na: ${B}\n--- |\n  text ${B}\n",
		"a: ${B}",
		"{\"a\": \"${B}\"}\n{\"b\": 1}",
	} {
		got, err := s.Apply("f", []byte(text))
		want := strings.ReplaceAll(text, "${B}", "")
		if err != nil || string(got) != want {
			t.Errorf("apply(%q) = %q, %v; want %q", text, got, err, want)
		}
	}
}

// TestSubstituteStrict checks Flux's strict mode: a variable without a
// value or a default is an error at its line; defaults still apply.
func TestSubstituteStrict(t *testing.T) {
	s, err := NewSubstitution(map[string]string{"OTHER": "x"}, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = loadSubstituted(t, proxyWithVariables, s)
	if err == nil || !strings.Contains(err.Error(), `<stdin>:8: envsubst error: variable substitution failed: variable not set (strict mode): "CLUSTER_DOMAIN"`) {
		t.Errorf("error %v", err)
	}
	s, _ = NewSubstitution(map[string]string{"CLUSTER_DOMAIN": "example.com"}, true)
	if _, err := loadSubstituted(t, proxyWithVariables, s); err != nil {
		t.Errorf("a default in strict mode: %v", err)
	}
}
