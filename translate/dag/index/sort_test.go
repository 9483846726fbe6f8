package index

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// CompareQualified and LessQualified order as comparing the joined
// "namespace/name" strings does, including where a namespace holds
// characters that sort before '/' or is a prefix of the other.
func TestLessQualifiedComparesJoinedStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "a-./0z"
	word := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		ns1, n1, ns2, n2 := word(), word(), word(), word()
		want := strings.Compare(ns1+"/"+n1, ns2+"/"+n2)
		if got := CompareQualified(ns1, n1, ns2, n2); got != want {
			t.Fatalf("compareQualified(%q, %q, %q, %q) = %v, want %v", ns1, n1, ns2, n2, got, want)
		}
		if got := LessQualified(ns1, n1, ns2, n2); got != (want < 0) {
			t.Fatalf("lessQualified(%q, %q, %q, %q) = %v, want %v", ns1, n1, ns2, n2, got, want < 0)
		}
	}
}
