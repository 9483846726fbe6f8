package loader

import (
	"fmt"
	"math/rand"
	"testing"
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
	texts = append(texts, scaleCorpus(3))
	rng.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })

	arena := &nodeArena{}
	reused := 0
	for i, text := range texts {
		if arena.nextSlab < len(arena.slabs) {
			reused++
		}
		arena.reset()
		got, ok := fastParseYAML(text, "", arena)
		want, wantOK := fastParseYAML(text, "", nil)
		if ok != wantOK || len(got) != len(want) {
			t.Fatalf("text %d: accepted %v with %d documents in an arena, %v with %d without:\n%s", i, ok, len(got), wantOK, len(want), text)
		}
		for d := range got {
			if diff := diffNodes(fmt.Sprintf("text %d doc %d", i, d), got[d], want[d]); diff != "" {
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
	arena := &nodeArena{}
	big := scaleCorpus(20)
	fastParseYAML(big, "", arena)
	slabs, arrays := len(arena.slabs), len(arena.arrays)
	rng := rand.New(rand.NewSource(1))
	for range 500 {
		arena.reset()
		fastParseYAML(structuredYAML(rng), "", arena)
		arena.reset()
		fastParseYAML(big, "", arena)
	}
	if len(arena.slabs) != slabs || len(arena.arrays) != arrays {
		t.Errorf("after 1,000 more chunks the arena holds %d slabs and %d arrays; the largest chunk needed %d and %d",
			len(arena.slabs), len(arena.arrays), slabs, arrays)
	}
}
