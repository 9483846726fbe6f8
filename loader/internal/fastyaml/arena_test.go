package fastyaml

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/contourc/contourc/loader/internal/fastyaml/fastyamltest"
)

// TestArenaReuse parses text after text into one arena, resetting it in
// between as loadYAML releases it, and checks every tree against a parse
// into fresh memory: a node or Content array reused from an earlier,
// larger or differently shaped tree must keep nothing of it.
func TestArenaReuse(t *testing.T) {
	var texts [][]byte
	for _, c := range fastYAMLCases {
		texts = append(texts, []byte(c.text))
	}
	rng := rand.New(rand.NewSource(7))
	for range 2000 {
		texts = append(texts, structuredYAML(rng))
	}
	texts = append(texts, fastyamltest.ScaleCorpus(3))
	rng.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })

	arena := &Arena{}
	reused := 0
	for i, text := range texts {
		if arena.nextSlab < len(arena.slabs) {
			reused++
		}
		arena.Reset()
		got, ok := Parse(text, "", arena)
		want, wantOK := Parse(text, "", nil)
		if ok != wantOK || len(got) != len(want) {
			t.Fatalf("text %d: accepted %v with %d documents in an arena, %v with %d without:\n%s", i, ok, len(got), wantOK, len(want), text)
		}
		for d := range got {
			if diff := fastyamltest.Diff(fmt.Sprintf("text %d doc %d", i, d), got[d], want[d]); diff != "" {
				t.Fatalf("parsed in a used arena, differs at %s\ninput:\n%s", diff, text)
			}
		}
	}
	if reused == 0 {
		t.Fatal("no parse reused the arena's memory: the test checks nothing")
	}
}

// TestArenaKeepsOneChunk checks that an arena holds what the largest chunk
// needed, not the sum of every chunk it served.
func TestArenaKeepsOneChunk(t *testing.T) {
	arena := &Arena{}
	big := fastyamltest.ScaleCorpus(20)
	Parse(big, "", arena)
	slabs, arrays := len(arena.slabs), len(arena.arrays)
	rng := rand.New(rand.NewSource(1))
	for range 500 {
		arena.Reset()
		Parse(structuredYAML(rng), "", arena)
		arena.Reset()
		Parse(big, "", arena)
	}
	if len(arena.slabs) != slabs || len(arena.arrays) != arrays {
		t.Errorf("after 1,000 more chunks the arena holds %d slabs and %d arrays; the largest chunk needed %d and %d",
			len(arena.slabs), len(arena.arrays), slabs, arrays)
	}
}
