package manifest

import (
	"testing"

	"github.com/contourc/contourc/loader/internal/fastyaml/fastyamltest"
)

// TestViewChunks checks that each chunk's string view is its text, also
// for a stream that starts inside its buffer (after a byte order mark),
// and that views parse as copies do.
func TestViewChunks(t *testing.T) {
	stream := "\xef\xbb\xbf" + "a: 1\n---\nb: [x, y]\n...\n# only a comment\n---\nc: {d: e}\n"
	data, err := NormalizeText("f.yaml", []byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	chunks := SplitYAMLStream(data)
	ViewChunks(chunks, data)
	if len(chunks) != 3 {
		t.Fatalf("%d chunks, want 3", len(chunks))
	}
	for i, c := range chunks {
		if c.src != string(c.Text) {
			t.Errorf("chunk %d: view %q, text %q", i, c.src, c.Text)
		}
		viewed, err1 := ParseYAMLChunk("f.yaml", c, NewLimits(0, 0), nil)
		copied, err2 := ParseYAMLChunk("f.yaml", Chunk{Text: c.Text, Line: c.Line, Index: c.Index}, NewLimits(0, 0), nil)
		if err1 != nil || err2 != nil || len(viewed) != len(copied) {
			t.Fatalf("chunk %d: %d documents (%v) from the view, %d (%v) from a copy", i, len(viewed), err1, len(copied), err2)
		}
		for d := range viewed {
			if diff := fastyamltest.Diff("doc", viewed[d].Root, copied[d].Root); diff != "" {
				t.Errorf("chunk %d: the view parses differently at %s", i, diff)
			}
		}
	}
	if chunks[0].src != "a: 1\n" {
		t.Errorf("first chunk %q, want the text after the byte order mark", chunks[0].src)
	}
}
