package ignore

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	type probe struct {
		path  string
		dir   bool
		want  bool
		notes string
	}
	cases := []struct {
		patterns []string
		probes   []probe
	}{
		{[]string{"*.secret.yaml"}, []probe{
			{path: "a.secret.yaml", want: true},
			{path: "apps/web/a.secret.yaml", want: true, notes: "no slash: any depth"},
			{path: "apps/a.yaml", want: false},
			{path: "a.secret.yaml.bak", want: false},
		}},
		{[]string{"secrets"}, []probe{
			{path: "secrets", dir: true, want: true},
			{path: "secrets", want: true, notes: "a file of that name too"},
			{path: "apps/secrets", dir: true, want: true},
			{path: "secrets2", dir: true, want: false},
		}},
		{[]string{"secrets/"}, []probe{
			{path: "secrets", dir: true, want: true},
			{path: "secrets", want: false, notes: "trailing slash: directories only"},
			{path: "apps/secrets", dir: true, want: true, notes: "no other slash: any depth"},
		}},
		{[]string{"/secrets"}, []probe{
			{path: "secrets", dir: true, want: true},
			{path: "apps/secrets", dir: true, want: false, notes: "leading slash anchors"},
		}},
		{[]string{"apps/secrets"}, []probe{
			{path: "apps/secrets", dir: true, want: true},
			{path: "x/apps/secrets", dir: true, want: false, notes: "a middle slash anchors"},
		}},
		{[]string{"apps/*.yaml"}, []probe{
			{path: "apps/a.yaml", want: true},
			{path: "apps/web/a.yaml", want: false, notes: "* does not cross /"},
		}},
		{[]string{"**/charts"}, []probe{
			{path: "charts", dir: true, want: true, notes: "leading **/ matches at the top too"},
			{path: "a/b/charts", dir: true, want: true},
		}},
		{[]string{"apps/**"}, []probe{
			{path: "apps", dir: true, want: false, notes: "trailing /** is what is inside, not the directory"},
			{path: "apps/a.yaml", want: true},
			{path: "apps/x/y/a.yaml", want: true},
		}},
		{[]string{"a/**/b.yaml"}, []probe{
			{path: "a/b.yaml", want: true, notes: "/**/ matches zero directories"},
			{path: "a/x/b.yaml", want: true},
			{path: "a/x/y/b.yaml", want: true},
			{path: "b.yaml", want: false},
		}},
		{[]string{"a**b.yaml"}, []probe{
			{path: "axxb.yaml", want: true, notes: "** inside a segment is *"},
			{path: "a/b.yaml", want: false},
		}},
		{[]string{"*.yaml", "!keep.yaml"}, []probe{
			{path: "drop.yaml", want: true},
			{path: "keep.yaml", want: false, notes: "negation re-includes"},
			{path: "sub/keep.yaml", want: false},
		}},
		{[]string{"!keep.yaml", "*.yaml"}, []probe{
			{path: "keep.yaml", want: true, notes: "the last matching pattern decides"},
		}},
		{[]string{"apps/*", "!apps/web"}, []probe{
			{path: "apps/db", dir: true, want: true},
			{path: "apps/web", dir: true, want: false},
		}},
		{[]string{"file[0-9].yaml", "x[!a].yaml", "?.json"}, []probe{
			{path: "file1.yaml", want: true},
			{path: "filex.yaml", want: false},
			{path: "xb.yaml", want: true},
			{path: "xa.yaml", want: false, notes: "[!...] negates a class"},
			{path: "a.json", want: true},
			{path: "ab.json", want: false},
		}},
		{[]string{`\!important.yaml`, `\#x.yaml`, "trailing.yaml   "}, []probe{
			{path: "!important.yaml", want: true, notes: "escaped !"},
			{path: "#x.yaml", want: true, notes: "escaped #"},
			{path: "trailing.yaml", want: true, notes: "trailing spaces ignored"},
		}},
	}
	for _, c := range cases {
		m, err := Compile(c.patterns)
		if err != nil {
			t.Fatalf("%q: %v", c.patterns, err)
		}
		for _, p := range c.probes {
			got, _ := m.Match(p.path, p.dir)
			if got != p.want {
				t.Errorf("patterns %q, path %q (dir %v): excluded %v, want %v %s", c.patterns, p.path, p.dir, got, p.want, p.notes)
			}
		}
	}
}

func TestMatchSaysWhichPattern(t *testing.T) {
	m, err := Compile([]string{"*.yaml", "!keep.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, p := m.Match("drop.yaml", false); !ok || p != "*.yaml" {
		t.Errorf("got %v %q", ok, p)
	}
	if ok, p := m.Match("keep.yaml", false); ok || p != "!keep.yaml" {
		t.Errorf("got %v %q", ok, p)
	}
	if ok, p := m.Match("x.json", false); ok || p != "" {
		t.Errorf("got %v %q", ok, p)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{"", "empty pattern"},
		{"   ", "empty pattern"},
		{"#x", "comment"},
		{"/", "matches nothing"},
		{"!", "matches nothing"},
		{"a[b", "malformed"},
	} {
		_, err := Compile([]string{"ok", c.pattern})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--exclude") {
			t.Errorf("%q: error %v, want one containing %q", c.pattern, err, c.want)
		}
	}
}

func TestEmptyMatcher(t *testing.T) {
	var m *Matcher
	if ok, _ := m.Match("a.yaml", false); ok || !m.Empty() {
		t.Error("a nil Matcher matches")
	}
}
