package builtin

import (
	"math/rand/v2"
	"strings"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nameCandidates are strings near the edges of the name rules: their
// characters, lengths around the limits, dots, dashes and slashes at
// either end.
func nameCandidates() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "az09AZ-._/ é*"
	out := []string{"", "a", "-", "a-", "-a", "a.b", "a..b", ".a", "a.", "A", "0a", "a_b", "x/y", "/y", "x/", "a/b/c",
		"*.a", "*", "*.", "*.*.a", "a.*.b", "a--b", "http", "123", strings.Repeat("a", 15), strings.Repeat("a", 16),
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a"}
	for range 20000 {
		n := rng.IntN(12)
		if rng.IntN(20) == 0 {
			n = 60 + rng.IntN(8)
		}
		var b strings.Builder
		for range n {
			b.WriteString(string([]rune(alphabet)[rng.IntN(len([]rune(alphabet)))]))
		}
		out = append(out, b.String())
	}
	return out
}

// The quick scans accept exactly what apimachinery's rules accept.
func TestQuickNameRulesAgreeWithAPIMachinery(t *testing.T) {
	ok := func(errs []string) bool { return len(errs) == 0 }
	rules := []struct {
		name  string
		quick func(string) bool
		rule  func(string) bool
	}{
		{"DNS-1123 label", func(s string) bool { return DNS1123Label(s, false) }, func(s string) bool { return ok(validation.IsDNS1123Label(s)) }},
		{"DNS-1123 subdomain", func(s string) bool { return dns1123Subdomain(s, false) }, func(s string) bool { return ok(validation.IsDNS1123Subdomain(s)) }},
		{"DNS-1035 label", func(s string) bool { return dns1035Label(s, false) }, func(s string) bool { return ok(validation.IsDNS1035Label(s)) }},
		{"any-case subdomain", func(s string) bool { return dns1123Subdomain(s, true) }, func(s string) bool { return ok(validation.IsDNS1123Subdomain(strings.ToLower(s))) }},
		{"any-case DNS-1035 label", func(s string) bool { return dns1035Label(s, true) }, func(s string) bool { return ok(validation.IsDNS1035Label(strings.ToLower(s))) }},
		{"wildcard subdomain", wildcardSubdomain, func(s string) bool { return ok(validation.IsWildcardDNS1123Subdomain(s)) }},
		{"config key", configKey, func(s string) bool { return ok(validation.IsConfigMapKey(s)) }},
		{"port name", portName, func(s string) bool { return ok(validation.IsValidPortName(s)) }},
		{"qualified name", qualifiedName, func(s string) bool { return ok(validation.IsQualifiedName(s)) }},
		{"annotation key", func(s string) bool { return PlainAnnotations(map[string]string{s: "v"}) },
			func(s string) bool {
				return len(apivalidation.ValidateAnnotations(map[string]string{s: "v"}, field.NewPath("annotations"))) == 0
			}},
		{"label value", func(s string) bool { return PlainLabels(map[string]string{"k": s}) }, func(s string) bool { return ok(validation.IsValidLabelValue(s)) }},
		{"label key", func(s string) bool { return PlainLabels(map[string]string{s: "v"}) },
			func(s string) bool {
				return len(metav1validation.ValidateLabels(map[string]string{s: "v"}, field.NewPath("labels"))) == 0
			}},
	}
	for _, r := range rules {
		accepted := 0
		for _, s := range nameCandidates() {
			quick, rule := r.quick(s), r.rule(s)
			if quick && !rule {
				t.Errorf("%s: the scan accepts %q, which apimachinery refuses", r.name, s)
			}
			if rule && !quick && !strings.ContainsRune(s, 'é') {
				t.Errorf("%s: the scan leaves %q to apimachinery, which accepts it", r.name, s)
			}
			if quick {
				accepted++
			}
		}
		if accepted == 0 {
			t.Errorf("%s: no candidate was accepted: the test checks nothing", r.name)
		}
	}
}
