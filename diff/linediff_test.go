package diff

import (
	"math/rand"
	"strings"
	"testing"
)

// apply rebuilds b from a and an edit script, checking that the script
// walks both sides in order without gaps.
func apply(t *testing.T, a, b []string, edits []edit) []string {
	t.Helper()
	var out []string
	ai, bi := 0, 0
	for _, e := range edits {
		if e.a != ai || e.b != bi {
			t.Fatalf("edit %+v starts at a=%d b=%d, want a=%d b=%d", e, e.a, e.b, ai, bi)
		}
		switch e.op {
		case opEqual:
			for i := 0; i < e.n; i++ {
				if a[ai+i] != b[bi+i] {
					t.Fatalf("edit %+v: a[%d]=%q != b[%d]=%q", e, ai+i, a[ai+i], bi+i, b[bi+i])
				}
			}
			out = append(out, a[ai:ai+e.n]...)
			ai, bi = ai+e.n, bi+e.n
		case opDelete:
			ai += e.n
		case opInsert:
			out = append(out, b[bi:bi+e.n]...)
			bi += e.n
		}
	}
	if ai != len(a) || bi != len(b) {
		t.Fatalf("script ends at a=%d b=%d, want %d %d", ai, bi, len(a), len(b))
	}
	return out
}

// lcsLength is the textbook quadratic LCS, the reference for minimality.
func lcsLength(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestDiffLinesIsShortest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		gen := func() []string {
			n := rng.Intn(25)
			out := make([]string, n)
			for i := range out {
				out[i] = string(rune('a' + rng.Intn(4)))
			}
			return out
		}
		a, b := gen(), gen()
		edits := diffLines(a, b)
		if got := apply(t, a, b, edits); strings.Join(got, "") != strings.Join(b, "") {
			t.Fatalf("%q → %q: script builds %q", a, b, got)
		}
		kept := 0
		for _, e := range edits {
			if e.op == opEqual {
				kept += e.n
			}
		}
		if want := lcsLength(a, b); kept != want {
			t.Fatalf("%q → %q: keeps %d lines, the longest common subsequence has %d", a, b, kept, want)
		}
	}
}

func TestWriteUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	tests := []struct {
		name, new, want string
	}{
		{"equal", old, ""},
		{"one line changed", strings.Replace(old, "g\n", "G\n", 1),
			"--- old\n+++ new\n@@ -4,7 +4,7 @@\n d\n e\n f\n-g\n+G\n h\n i\n j\n"},
		{"two hunks", strings.Replace(strings.Replace(old, "a\n", "", 1), "m\n", "m\nn\n", 1),
			"--- old\n+++ new\n@@ -1,4 +1,3 @@\n-a\n b\n c\n d\n@@ -11,3 +10,4 @@\n k\n l\n m\n+n\n"},
		{"close changes share a hunk", strings.Replace(strings.Replace(old, "c\n", "C\n", 1), "i\n", "I\n", 1),
			"--- old\n+++ new\n@@ -1,12 +1,12 @@\n a\n b\n-c\n+C\n d\n e\n f\n g\n h\n-i\n+I\n j\n k\n l\n"},
		{"from empty", "", "--- old\n+++ new\n@@ -1,13 +0,0 @@\n" + "-" + strings.Join(strings.Split(strings.TrimSuffix(old, "\n"), "\n"), "\n-") + "\n"},
		{"missing final newline", strings.TrimSuffix(old, "\n"),
			"--- old\n+++ new\n@@ -10,4 +10,4 @@\n j\n k\n l\n-m\n+m\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf strings.Builder
			changed, err := WriteUnified(&buf, "old", "new", old, tt.new)
			if err != nil {
				t.Fatal(err)
			}
			if changed != (tt.want != "") {
				t.Errorf("changed = %v", changed)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}
}

// TestDiffLinesBounded checks that unrelated long inputs, where the
// shortest script is expensive to find, still give a correct script fast.
func TestDiffLinesBounded(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	gen := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + rng.Intn(20)))
		}
		return out
	}
	a, b := gen(30000), gen(30000)
	apply(t, a, b, diffLines(a, b))
}
