package fastyaml

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/internal/fastyaml/fastyamltest"
)

// Tests see the fast parser's bugs as panics rather than as silent
// fallbacks to yaml.v3.
func init() { Strict = true }

// checkFastYAML compares the fast parser with yaml.v3 on text and reports
// whether the fast parser accepted it.
func checkFastYAML(t testing.TB, name string, text []byte) bool {
	t.Helper()
	got, ok := Parse(text, "", nil)
	return fastyamltest.Compare(t, name, text, got, ok)
}

// fastYAMLCases are small inputs around the edges of the subset. Those the
// fast parser accepts must match yaml.v3; mustAccept says which of them it
// is expected to accept, so that the subset does not shrink unnoticed.
var fastYAMLCases = []struct {
	text       string
	mustAccept bool
}{
	{"", true},
	{"# only a comment\n", true},
	{"a: 1\n", true},
	{"a: 1", true},
	{"a:\n", true},
	{"a:", true},
	{"a:   \nb: 2\n", true},
	{"a: b\nc:\n  d: e\n  f:\n  - 1\n  - two\n", true},
	{"a:\n- x\n- y\nb: 1\n", true},
	{"- a\n- b: c\n  d: e\n- - f\n  - g\n-\n- \n-   h: 1\n    i: 2\n", true},
	{"-\n  a: 1\n- # c\n  b: 2\n", true},
	{"---\na: 1\n", true},
	{"---\n", true},
	{"---", true},
	{"--- # comment\na: 1\n...\n", true},
	{"---\n---\na: 1\n---\n", true},
	{"a: 1\n---\nb: 2\n", true},
	{"a: 1\n...\n---\nb: 2\n...\n...\n", true},
	{"---\n...\n", true},
	{"# head\n\n---\n# c\napiVersion: v1 # trailing\n\n\nkind: x\n# foot\n", true},
	{"  a: 1\n  b: 2\n", true},
	{"a: 'x'\nb: \"y\"\nc: 'it''s'\nd: \"tab\\there \\\"q\\\" \\\\ \\x41\\u00e9\\U0001F600\"\n", true},
	{"'a': 1\n\"b c\": 2\n\"\": 3\n", true},
	{"a: [1, b, 'c', \"d\"]\nb: []\nc: {}\nd: {x: 1, 'y': [2, 3], z: {w: v}}\n", true},
	{"a: {\"x\":1,\"y\":\"z\"}\n", true},
	{"- [a, b]\n- {a: b}\n", true},
	{"[a, b]\n", true},
	{"{a: b}\n", true},
	{"a: |\n  line1\n  line2\nb: 1\n", true},
	{"a: |-\n  line1\n\n  line2\n\n\nb: >\n  folded\n  text\n\n  para\n   indented\n  back\nc: >+\n  keep\n\n", true},
	{"a: |\n", true},
	{"a: |", true},
	{"a: |2\n   x\n  y\n", true},
	{"a: |+\n\n", true},
	{"- |\n  x\n- >-\n   y\n   z\n", true},
	{"a: | # comment\n  x\n# not content\n", true},
	{"a: |\n  x\n\n# c\n\nb: 1\n", true},
	{"key: value with spaces   # and a comment\n", true},
	{"url: http://x.y/z?q=1#frag\nport: 8080\nweight: -1\nratio: 0.5\nsci: 1e3\nhex: 0x1F\noct: 0o17\nbin: 0b101\nunder: 1_000\ninf: .inf\nnan: .NaN\nyes: yes\non: on\nt: true\nn: null\ntilde: ~\ndate: 2024-01-02\nts: 2024-01-02T03:04:05Z\nver: 1.2.3\nneg: -0b11\nbig: 123456789012345678901234567890\n", true},
	{"<<: {a: 1}\n", true},
	{"a: b:c\nd: e#f\ng: -h\ni: ?j\nk: :l\n", true},
	{"a[0]: x\n\"x\" : y\nz : w\n", true},
	{"é: ü\nkey: 'ñ' # comment\nx: {a: é, b: ü}\n", true},
	{"a: 'x\ty'\nb: \"\tz\t\"\nc: d # e\tf\n#\tg\n", true},
	{"|2\n   x\n  y\n", true},
	{"key: " + strings.Repeat("v", 5000) + "\n" + strings.Repeat("k", 900) + ": x\n", true},
	{strings.Repeat("k", 1100) + ": x\n", false},
	{"a: [" + strings.Repeat("é, ", 3000) + "ü]\n", true},
	{strings.Repeat("- ", 100) + "x\n", true},
	{strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + "\n", false},
	{"a: \"\\/\"\n", false},
	{"a: &x 1\nb: *x\n", false},
	{"a: !!str 1\n", false},
	{"? a\n: b\n", false},
	{"a: b\n  c\n", false},
	{"a: 'multi\n  line'\n", false},
	{"a:\tb\n", false},
	{"\ta: b\n", false},
	{"a: b: c\n", false},
	{"a: - b\n", false},
	{"a: [b,\n  c]\n", false},
	{"%YAML 1.2\n---\na: 1\n", false},
	{"a: 1\nb: 2\n c: 3\n", false},
	{"a:\n  b: 1\n c: 2\n", false},
	{"- a\nb: 1\n", false},
	{"a: 1\n- b\n", false},
	{"...\na: 1\n", false},
	{"a: 1\n...\nb: 2\n", false},
	{"a: [b, ]\n", false},
	{"a: {b}\n", false},
	{"a: \"unterminated\n", false},
	{"a: |0\n  x\n", false},
	{"a: |x\n", false},
	{"a: 1\r\nb: 2\r\n", false},
	{"\ufeffa: 1\n", false},
	{"a: \"\\q\"\n", false},
}

func TestFastYAMLCases(t *testing.T) {
	for i, c := range fastYAMLCases {
		accepted := checkFastYAML(t, fmt.Sprintf("case %d", i), []byte(c.text))
		if c.mustAccept && !accepted {
			t.Errorf("case %d: the fast parser refuses %q", i, c.text)
		}
	}
}

// TestFastYAMLRandom compares the parsers on random streams of
// manifest-like lines: indentation, keys, entries, scalars of every kind,
// comments and markers thrown together, so that many are invalid or
// outside the subset and the boundary between accepting and falling back
// gets exercised as much as the trees.
func TestFastYAMLRandom(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	rng := rand.New(rand.NewSource(1))
	accepted := 0
	for i := 0; i < n; i++ {
		text := randomYAML(rng)
		if checkFastYAML(t, fmt.Sprintf("random %d", i), text) {
			accepted++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("fast parser accepted %d of %d random inputs", accepted, n)
}

// randomYAML builds a random stream out of plausible manifest lines.
func randomYAML(rng *rand.Rand) []byte {
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	values := []string{
		"x", "a b", "8080", "-1", "0.5", "1e3", "0x1F", "0o17", "0b101", "1_000", "true", "True", "no", "on",
		"null", "~", ".inf", "-.inf", ".nan", "2024-01-02", "2024-01-02T03:04:05Z", "1.2.3", "<<", "-x", ":x", "?x",
		"a:b", "a#b", "a # c", "'q'", "'it''s'", "''", `"d"`, `"e\tf\u00e9"`, `"\x41"`, `"\q"`, `"\/"`, `""`,
		"[a, b]", "[]", "{}", "{a: 1, b: [2]}", `{"a":1}`, "[a, [b, {c: d}]]", "[a,b,]", "{a}", "[a: b]",
		"é", "&a x", "*a", "!!str x", "? x", "@x", "`x", "x\t", "'unterminated", `"multi`, "a: b", "- a", "%x",
		"|", "|-", "|+", ">", ">-", ">+", "|2", "|-1", "| # c", "|x", "|0",
	}
	keys := []string{"a", "b", "key", "apiVersion", "'q k'", `"dq"`, "a b", "k[0]", "1", "true", "null", "<<", "é", "-k", ":k", "x y "}
	var b strings.Builder
	lines := 1 + rng.Intn(12)
	for i := 0; i < lines; i++ {
		indent := strings.Repeat(" ", []int{0, 0, 2, 2, 4, 1, 3, 6}[rng.Intn(8)])
		switch rng.Intn(16) {
		case 0:
			b.WriteString(pick("", "  ", "# comment", "  # indented", "---", "...", "--- # c", "--- x", "---x", "\t", " \t"))
		case 1, 2, 3:
			b.WriteString(indent + pick(keys...) + ":" + pick("", " ", "  "))
		case 4, 5, 6, 7:
			b.WriteString(indent + pick(keys...) + pick(": ", ":  ", " : ", ":\t") + pick(values...))
		case 8, 9:
			b.WriteString(indent + pick("- ", "-  ", "-", "- - ") + pick(values...))
		case 10, 11:
			b.WriteString(indent + pick("- ", "- - ", "-   ") + pick(keys...) + ": " + pick(values...))
		case 12:
			b.WriteString(indent + pick("-", "- ", "- # c"))
		case 13:
			b.WriteString(indent + pick(values...))
		default:
			// Block scalar content.
			b.WriteString(indent + pick("  text", "    more", "   x", "", "  ", "      deep", "\ttab", "  # hash", "  é"))
		}
		if rng.Intn(8) == 0 {
			b.WriteString(pick(" # c", "#c", " ", "\t# c"))
		}
		if i < lines-1 || rng.Intn(4) > 0 {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// TestFastYAMLStructured compares the parsers on random but mostly valid
// manifests: nested block mappings and sequences in all their forms, with
// every kind of scalar, comments and blank lines anywhere, and now and
// then one line damaged.
func TestFastYAMLStructured(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	rng := rand.New(rand.NewSource(3))
	accepted := 0
	for i := 0; i < n; i++ {
		text := structuredYAML(rng)
		if checkFastYAML(t, fmt.Sprintf("structured %d", i), text) {
			accepted++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("fast parser accepted %d of %d structured inputs", accepted, n)
}

// TestFastYAMLBlockScalars compares the parsers on random block scalars,
// the part of the fast parser that is a port of yaml.v3's scanner rather
// than a subset of it: every header, in every context, with content lines
// of mixed indentation, blank lines with and without spaces, tabs, and the
// text after them.
func TestFastYAMLBlockScalars(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	accepted, n := 0, 20000
	for i := 0; i < n; i++ {
		var b strings.Builder
		b.WriteString(pick("", "---\n", "a: 1\n", "- x\n"))
		ctx := pick("k: ", "- ", "- k: ", "  - ", "k:\n  ", "- - ", "", "  k: ", "k:\n- ")
		b.WriteString(ctx)
		b.WriteString(pick("|", ">"))
		b.WriteString(pick("", "", "-", "+", "1", "2", "3", "-2", "+1", "2-"))
		b.WriteString(pick("", "", " # c", "#c", "  ", "\t# c", " x"))
		for j := rng.Intn(6); j >= 0; j-- {
			b.WriteString("\n")
			b.WriteString(strings.Repeat(" ", rng.Intn(7)))
			b.WriteString(pick("text", "more  text", "", "", " lead", "\ttab", "# hash", "é", "k: v", "- d", "---"))
		}
		b.WriteString(pick("", "\n", "\n\n", "\n  \n", "\nb: 2\n", "\n  b: 2\n", "\n- y\n", "\n...\n", "\n---\nc: 3\n"))
		if checkFastYAML(t, fmt.Sprintf("block scalar %d", i), []byte(b.String())) {
			accepted++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("fast parser accepted %d of %d", accepted, n)
}

// yamlGen writes a random YAML stream.
type yamlGen struct {
	rng   *rand.Rand
	lines []string
}

func (g *yamlGen) pick(s ...string) string { return s[g.rng.Intn(len(s))] }

// structuredYAML builds one random stream of one to three documents.
func structuredYAML(rng *rand.Rand) []byte {
	g := &yamlGen{rng: rng}
	docs := 1 + rng.Intn(3)
	for d := 0; d < docs; d++ {
		if d > 0 || rng.Intn(3) == 0 {
			g.lines = append(g.lines, g.pick("---", "--- # c", "---"))
		}
		g.junk(0)
		if rng.Intn(3) == 0 {
			g.seq(g.rng.Intn(2)*2, 0)
		} else {
			g.mapping(g.rng.Intn(2)*g.rng.Intn(3), 0, "")
		}
		if rng.Intn(5) == 0 {
			g.lines = append(g.lines, "...")
		}
	}
	if rng.Intn(4) == 0 {
		g.damage()
	}
	text := strings.Join(g.lines, "\n")
	if rng.Intn(4) > 0 {
		text += "\n"
	}
	return []byte(text)
}

// junk adds blank and comment lines now and then.
func (g *yamlGen) junk(indent int) {
	for g.rng.Intn(6) == 0 {
		g.lines = append(g.lines, g.pick("", "  ", "# c", strings.Repeat(" ", g.rng.Intn(indent+3))+"# c"))
	}
}

// damage changes one line a little.
func (g *yamlGen) damage() {
	i := g.rng.Intn(len(g.lines))
	l := g.lines[i]
	switch g.rng.Intn(5) {
	case 0:
		l = " " + l
	case 1:
		l = strings.TrimPrefix(l, " ")
	case 2:
		if len(l) > 0 {
			j := g.rng.Intn(len(l))
			l = l[:j] + g.pick(":", " ", "#", "\t", "'", "\"", "-", "[", "{", "}", ",", "é", "|") + l[j:]
		}
	case 3:
		l = l + g.pick(":", " x", " #", ": y", "'")
	default:
		g.lines = append(g.lines[:i], g.lines[i+1:]...)
		return
	}
	g.lines[i] = l
}

var genKeys = []string{"a", "name", "apiVersion", "kind", "metadata", "spec", "x-y", "a b", "'q'", `"dq"`, "1", "true", "é", "k.io/v", "<<", "~"}

var genScalars = []string{
	"x", "hello world", "80", "-1", "0.5", "1e3", "0x1F", "0o17", "0b101", "1_000", "+12", "true", "False", "yes", "on",
	"null", "~", ".inf", "-.Inf", ".nan", "2024-01-02", "2024-01-02T03:04:05Z", "2024-1-2 3:04:05", "1.2.3", "-x", ":x", "?x",
	"a:b", "a#b", "http://h/p?q#f", "'q'", "'it''s'", "''", `"d"`, `"e\\tf\\u00e9 \\"q\\""`, `"\\x41\\N\\_"`, `""`,
	"[a, b]", "[]", "{}", "{a: 1, b: [2, 3]}", `{"a":1,"b":"c"}`, "[a, [b, {c: d}]]", "[1, -2, 'x y', \"z\"]",
	"é ü", "@x", "<<", "a  b", "0", "-0", "007", "1:20", "12e", "._1", ".5",
}

// scalar is an inline value.
func (g *yamlGen) scalar() string {
	s := g.pick(genScalars...)
	if g.rng.Intn(6) == 0 {
		s += g.pick(" # c", "   ", "  # c: d")
	}
	return s
}

// blockScalar adds a block scalar's header (after prefix) and content.
func (g *yamlGen) blockScalar(prefix string, indent int) {
	g.lines = append(g.lines, prefix+g.pick("|", "|-", "|+", ">", ">-", ">+", "|2", "| # c", ">1-"))
	in := indent + 1 + g.rng.Intn(3)
	for n := g.rng.Intn(5); n >= 0; n-- {
		extra := ""
		if g.rng.Intn(4) == 0 {
			extra = strings.Repeat(" ", 1+g.rng.Intn(2))
		}
		g.lines = append(g.lines, g.pick(strings.Repeat(" ", in)+extra+g.pick("text", "more text", "# not a comment", "a: b", "- c", "\ttab"), "", strings.Repeat(" ", g.rng.Intn(in+2))))
	}
}

// value adds a mapping value after "key:" at the given indentation.
func (g *yamlGen) value(prefix string, indent, depth int) {
	r := g.rng.Intn(10)
	if depth > 4 {
		r = 0
	}
	switch r {
	case 0, 1, 2, 3:
		g.lines = append(g.lines, prefix+" "+g.scalar())
	case 4:
		g.blockScalar(prefix+" ", indent)
	case 5:
		g.lines = append(g.lines, prefix+g.pick("", " ", " # c"))
	case 6, 7:
		g.lines = append(g.lines, prefix+g.pick("", " # c"))
		g.junk(indent)
		g.mapping(indent+1+g.rng.Intn(3), depth+1, "")
	default:
		g.lines = append(g.lines, prefix+g.pick("", " # c"))
		g.junk(indent)
		g.seq(indent+g.rng.Intn(2)*(1+g.rng.Intn(2)), depth+1)
	}
}

// mapping adds a block mapping at indent; the first key goes after first
// (a sequence entry's "- ") when it is not empty.
func (g *yamlGen) mapping(indent, depth int, first string) {
	for i, n := 0, 1+g.rng.Intn(4); i < n; i++ {
		prefix := strings.Repeat(" ", indent)
		if i == 0 && first != "" {
			prefix = first
		}
		g.value(prefix+g.pick(genKeys...)+g.pick(":", ":", ":", " :"), indent, depth)
		g.junk(indent)
	}
}

// seq adds a block sequence at indent.
func (g *yamlGen) seq(indent, depth int) {
	for i, n := 0, 1+g.rng.Intn(4); i < n; i++ {
		dash := strings.Repeat(" ", indent) + g.pick("- ", "- ", "-   ")
		r := g.rng.Intn(11)
		if depth > 4 {
			r = 0
		}
		switch r {
		case 0, 1, 2:
			g.lines = append(g.lines, dash+g.scalar())
		case 3:
			g.blockScalar(dash, indent)
		case 4:
			g.lines = append(g.lines, strings.TrimRight(dash, " ")+g.pick("", " # c"))
		case 5, 6, 7:
			g.mapping(len(dash), depth+1, dash)
		case 8:
			g.lines = append(g.lines, strings.TrimRight(dash, " ")+g.pick("", " # c"))
			g.mapping(indent+1+g.rng.Intn(3), depth+1, "")
		case 9:
			// "- - x": a compact nested sequence.
			g.lines = append(g.lines, dash+"- "+g.scalar())
			if g.rng.Intn(2) == 0 {
				g.lines = append(g.lines, strings.Repeat(" ", len(dash))+"- "+g.scalar())
			}
		default:
			g.lines = append(g.lines, strings.TrimRight(dash, " ")+g.pick("", " # c"))
			g.seq(indent+1+g.rng.Intn(3), depth+1)
		}
		g.junk(indent)
	}
}

// FuzzFastYAML checks that whatever the fast parser accepts, yaml.v3
// accepts too, with the same trees.
func FuzzFastYAML(f *testing.F) {
	for _, c := range fastYAMLCases {
		f.Add([]byte(c.text))
	}
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 20; i++ {
		f.Add(randomYAML(rng))
		f.Add(structuredYAML(rng))
	}
	f.Add(fastyamltest.ScaleCorpus(1))
	f.Add(fastyamltest.BenchCorpus(1))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastYAML(t, "fuzz input", data)
	})
}
