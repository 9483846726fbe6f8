package fastyaml

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestIsYAMLStyleFloat checks the hand-written matcher against the
// regular expression of yaml.v3 it replaces.
func TestIsYAMLStyleFloat(t *testing.T) {
	re := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	rng := rand.New(rand.NewSource(4))
	const alphabet = "+-.eE0123456789x_"
	for i := 0; i < 200000; i++ {
		b := make([]byte, rng.Intn(8))
		for j := range b {
			b[j] = alphabet[rng.Intn(len(alphabet))]
		}
		if s := string(b); isYAMLStyleFloat(s) != re.MatchString(s) {
			t.Fatalf("isYAMLStyleFloat(%q) = %v, the regular expression says %v", s, isYAMLStyleFloat(s), re.MatchString(s))
		}
	}
}

// TestResolvePlainTag compares the tags the fast parser gives plain
// scalars with yaml.v3's, on random number-like, bool-like and null-like
// strings.
func TestResolvePlainTag(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	compared := 0
	pieces := []string{"0", "1", "7", "9", "+", "-", ".", "_", "e", "E", "x", "o", "b", "a", "f", ":", "T", "Z", " ",
		"inf", "nan", "Inf", "NaN", "true", "no", "null", "~", "2024", "-01", "-1", "0b", "0o", "0x", "1e", "<<"}
	for i := 0; i < 100000; i++ {
		var b strings.Builder
		for j := rng.Intn(5); j >= 0; j-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		var doc yaml.Node
		if yaml.Unmarshal([]byte("k: "+s+"\n"), &doc) != nil || len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 {
			continue
		}
		v := doc.Content[0].Content[1]
		if v.Kind != yaml.ScalarNode || v.Style != 0 || v.Value != s {
			continue
		}
		compared++
		if got := resolvePlainTag(s); got != v.Tag {
			t.Fatalf("resolvePlainTag(%q) = %s, yaml.v3 says %s", s, got, v.Tag)
		}
	}
	t.Logf("compared %d plain scalars", compared)
}

// TestCommonNumberTag checks the shortcut for integers and dotted digits
// against yaml.v3 on the shapes it decides and those next to them.
func TestCommonNumberTag(t *testing.T) {
	// Random ones too, starting as numbers do, with letters numbers can
	// and cannot hold.
	rng := rand.New(rand.NewSource(5))
	var random []string
	const start, rest = "0123456789-+", "0123456789smhMiGxXoObBeE.-+_:fnaIN"
	for range 3000 {
		b := []byte{start[rng.Intn(len(start))]}
		for range rng.Intn(6) {
			b = append(b, rest[rng.Intn(len(rest))])
		}
		// Only those that are a plain scalar as a mapping's value.
		var doc yaml.Node
		if yaml.Unmarshal([]byte("k: "+string(b)+"\n"), &doc) == nil && doc.Content[0].Content[1].Kind == yaml.ScalarNode &&
			doc.Content[0].Content[1].Style == 0 && doc.Content[0].Content[1].Value == string(b) {
			random = append(random, string(b))
		}
	}
	if len(random) < 1000 {
		t.Fatalf("only %d random scalars", len(random))
	}
	for _, s := range append(random, []string{"0", "7", "80", "-1", "+42", "-0", "012", "089", "0.5", "1.", "10.0.0.1", "1.2.3",
		"1..2", "..", "-1.2.3", "+10.0.0.1", "123456789012345678", "1234567890123456789", "12345678901234567890",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551615",
		"18446744073709551616", "1_000", "0x1f", "1e3", "2024-01-02", "1:30", "+", "-5.5.5",
		"30s", "5m", "100ms", "1h", "64Mi", "2Gi", "-5s", "+1h", "0s", "0x10", "0X10", "0o17", "0O17", "0b11", "0B11",
		"1E3", "1e", "2Nan", "1inf", "0xff", "0XAB", "0xbee", "-0xff", "1.5s", "1h30m", "5s_", "1_0s", "12ab", "0xg", "1ms.", "1s-2"}...) {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte("k: "+s+"\n"), &doc); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want := doc.Content[0].Content[1].Tag
		if got := resolvePlainTag(s); got != want {
			t.Errorf("resolvePlainTag(%q) = %s, yaml.v3 says %s", s, got, want)
		}
	}
}
