package jsontext

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

// Every string must read back as the same string, under YAML 1.1 rules
// (go-yaml v2, through sigs.k8s.io/yaml) and YAML 1.2 rules (go-yaml v3).
func TestYAMLStringsReadBack(t *testing.T) {
	tricky := []string{
		"", " ", "a b", "yes", "No", "ON", "off", "y", "N", "true", "False", "null", "Null", "~",
		"NaN", "nan", ".nan", "inf", "-Infinity", ".inf", "1", "-1", "+1", "0x1F", "0o17", "017", "1e3",
		"1_000", "1:20", "12:30:45", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "0.5", ".5", "5.",
		"2s", "0.250s", "1.5s", "127.0.0.1", "10.0.0.256", "1.2.3", "::1", "=", "<<", "-", "- a", "?", ":",
		"a: b", "a:b", "a #b", "#a", "@type", "*", "&a", "!tag", "|", ">", "%x", "'q'", `"q"`, "`x`",
		"[a]", "{a}", "a,b", "a\nb", "a\n", "\n", "a\tb", "a\rb", "\\", `a\"b`, "é", "日本", "\u0085",
		"\u2028", "\ufeff", "\x00", "\x7f", "\U0001F600", "\U0010FFFF", "t=%START_TIME(%s.%3f)%",
		"default/www/80/da39a3ee5e", "/dev/null", "envoy.filters.http.router", "h2", "http/1.1",
		"application/grpc-web+proto", "TLSv1_2", "[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]",
		"LS0tLS1CRUdJTi==", "a=b", "a b c", "a  b", "a #b", "a b ", " a", "yes please", "a - b", "a -b", "_x", "/", "//a", "a.", "a-", "a+",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Anything at all, and then strings close to the plain form.
	for _, alphabet := range []string{"aZy09._/-+=:# ?[]{},&*!|>'\"%@`\\\n\t~<é日\u2028", "aOnNyYe01. _/-#"} {
		runes := []rune(alphabet)
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(8) {
				b.WriteRune(runes[rng.IntN(len(runes))])
			}
			tricky = append(tricky, b.String())
		}
	}
	for _, s := range tricky {
		j, _ := json.Marshal(map[string]string{s: s})
		y, err := ToYAML(j)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var v2 map[string]any
		if err := yaml.Unmarshal(y, &v2); err != nil || len(v2) != 1 || v2[s] != s {
			t.Errorf("YAML 1.1 reads %q back as %#v (%v) from:\n%s", s, v2, err, y)
		}
		var v3 map[string]any
		if err := yamlv3.Unmarshal(y, &v3); err != nil || len(v3) != 1 || v3[s] != s {
			t.Errorf("YAML 1.2 reads %q back as %#v (%v) from:\n%s", s, v3, err, y)
		}
	}
}

func TestYAMLShapes(t *testing.T) {
	tests := []struct{ json, want string }{
		{`{}`, "{}\n"},
		{`{"a":{},"b":[],"c":null,"d":true,"e":-1.5e+21}`, "a: {}\nb: []\nc: null\nd: true\ne: -1.5e+21\n"},
		{`{"a":[1,[],{},[2,[3]],{"b":1,"c":[{"d":2}]}]}`,
			"a:\n- 1\n- []\n- {}\n-\n  - 2\n  -\n    - 3\n- b: 1\n  c:\n  - d: 2\n"},
		{` { "k" :  { "m" : "v" } , "l" : [ "x" ] } `, "k:\n  m: v\nl:\n- x\n"},
	}
	for _, tc := range tests {
		got, err := ToYAML([]byte(tc.json))
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tc.json, got, tc.want)
		}
		assertSameData(t, tc.json, got)
	}
}

func TestYAMLMalformed(t *testing.T) {
	for _, bad := range []string{``, `[]`, `{"a"`, `{"a":}`, `{"a":1 "b":2}`, `{"a":[1 2]}`, `{"a":"b`, `{"`, `{"a":"`, `{"a":["`} {
		if y, err := ToYAML([]byte(bad)); err == nil {
			t.Errorf("%q: no error, got %q", bad, y)
		}
	}
}

// assertSameData checks that YAML y reads back (under YAML 1.2) as the data
// in JSON j.
func assertSameData(t *testing.T, j string, y []byte) {
	t.Helper()
	var fromJSON, fromYAML any
	if err := json.Unmarshal([]byte(j), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yamlv3.Unmarshal(y, &fromYAML); err != nil {
		t.Fatalf("%v:\n%s", err, y)
	}
	// Through JSON once more, so YAML's ints and JSON's float64s compare.
	b, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	var normalized any
	if err := json.Unmarshal(b, &normalized); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, normalized) {
		t.Errorf("YAML reads back as %v, want %v", normalized, fromJSON)
	}
}

// unquoteJSON decodes what it takes exactly as encoding/json does, and
// leaves the rest to it.
func TestUnquoteJSON(t *testing.T) {
	for _, raw := range []string{
		`""`, `"plain"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u0001\u001f\u007f"`, `"é\n"`,
		`"\u00e9"`, `"\u2028"`, `"\ud83d\ude00"`, `"\x"`, `"\u00zz"`, `"\u00"`, `"trailing\\"`,
	} {
		var want string
		wantErr := json.Unmarshal([]byte(raw), &want)
		got, ok := unquoteJSON([]byte(raw))
		switch {
		case ok && wantErr != nil:
			t.Errorf("%s: decoded %q, encoding/json refuses it: %v", raw, got, wantErr)
		case ok && got != want:
			t.Errorf("%s: decoded %q, want %q", raw, got, want)
		}
	}
	// What the encoder writes is all taken.
	for _, raw := range []string{`"local function f()\n  return 1\nend\n"`, `"tab\there"`} {
		if _, ok := unquoteJSON([]byte(raw)); !ok {
			t.Errorf("%s: left to encoding/json", raw)
		}
	}
}

// appendQuoted copies runs of plain ASCII at once; it must write what
// escaping rune by rune writes, for any bytes.
func TestAppendQuotedMatchesRuneByRune(t *testing.T) {
	runeByRune := func(s string) []byte {
		dst := []byte{'"'}
		for _, r := range s {
			dst = appendQuotedRune(dst, r)
		}
		return append(dst, '"')
	}
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", " ", "\"", "\\", "\n", "\t", "\r", "\x00", "\x7f", "é", "\u2028", "\ufeff", "\U0001F600", "\xff", "\xe2\x80", "-----BEGIN"}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := appendQuoted(nil, s), runeByRune(s); !bytes.Equal(got, want) {
			t.Fatalf("appendQuoted(%q) = %q, want %q", s, got, want)
		}
	}
}

// A JSON string quotedAlike admits is copied as it is: it must be what
// decoding it and writing the YAML string gives.
func TestQuotedAlikeCopiesWhatQuotingWrites(t *testing.T) {
	pieces := []string{"a", "Z", " ", "-", "#", ":", `\"`, `\\`, `\n`, `\t`, `\r`, `\b`, `\f`, `\/`,
		`\u0001`, `\u007f`, "é", "\u2028", "\x01", "\x7f"}
	rng := rand.New(rand.NewPCG(3, 4))
	admitted := 0
	for range 20000 {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
		raw := []byte(b.String())
		if !json.Valid(raw) || !quotedAlike(raw) {
			continue
		}
		admitted++
		s, err := decodeJSONString(raw)
		if err != nil {
			t.Fatal(err)
		}
		if want := appendYAMLString(nil, s); !bytes.Equal(raw, want) {
			t.Fatalf("%s: copied, but quoting writes %s", raw, want)
		}
	}
	if admitted < 1000 {
		t.Fatalf("only %d strings admitted", admitted)
	}
	for _, raw := range []string{`"plain"`, `""`, `"a\bb"`, `"a\/b"`, `"a\u0001"`, "\"\x01\\n\"", `"é\n"`} {
		if quotedAlike([]byte(raw)) {
			t.Errorf("%s admitted", raw)
		}
	}
}
