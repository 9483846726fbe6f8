package httpheader

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestHeaderNameProblems checks the fast header name check against the
// API machinery's: the same answer and messages for every name.
func TestHeaderNameProblems(t *testing.T) {
	names := []string{"", "X-Header", "x-route", "Cache-Control", "a", "-", "0", "X_Header", "X Header", "X:H",
		"Ünïcode", "x\x00y", "x-é", "tab\t", "~", "a.b"}
	for c := 0; c < 256; c++ {
		names = append(names, "X"+string(rune(c)), string([]byte{byte(c)}))
	}
	for _, name := range names {
		if got, want := NameProblems(name), validation.IsHTTPHeaderName(name); !slices.Equal(got, want) {
			t.Errorf("NameProblems(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestValidValue checks that the characters Envoy refuses in a header
// value are refused, naming the header, and that others pass.
func TestValidValue(t *testing.T) {
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"", true}, {"text/html; charset=utf-8", true}, {"tab\tok", true}, {"%REQ(x)%", true},
		{"a\x00b", false}, {"a\rb", false}, {"a\nb", false},
	} {
		err := ValidValue("X-Name", tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("ValidValue(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), `"X-Name"`) {
			t.Errorf("ValidValue(%q) = %v, does not name the header", tt.value, err)
		}
	}
}

// TestEscapeValue checks Contour's escaping of header values: a literal
// "%" doubled, Contour's variables substituted, Envoy's allowed variables
// and %REQ(...)% left for Envoy.
func TestEscapeValue(t *testing.T) {
	dynamic := map[string]string{"CONTOUR_NAMESPACE": "default", "CONTOUR_SERVICE_NAME": "kuard"}
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"100%", "100%%"},
		{"%CONTOUR_NAMESPACE%/%CONTOUR_SERVICE_NAME%", "default/kuard"},
		{"%HOSTNAME%", "%HOSTNAME%"},
		{"%NOT_A_VARIABLE%", "%%NOT_A_VARIABLE%%"},
		{"%REQ(X-Forwarded-For)%", "%REQ(X-Forwarded-For)%"},
		{"%REQ(:authority?x-host):10%", "%REQ(:authority?x-host):10%"},
	} {
		if got := EscapeValue(tt.in, dynamic); got != tt.want {
			t.Errorf("EscapeValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := EscapeValue("%CONTOUR_NAMESPACE%", nil); got != "%%CONTOUR_NAMESPACE%%" {
		t.Errorf("EscapeValue without variables = %q, want the name escaped", got)
	}
}
