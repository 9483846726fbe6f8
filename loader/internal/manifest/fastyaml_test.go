package manifest

// The fast YAML parser (internal/fastyaml) on the chunks the loader cuts
// manifests into: the differential test on the corpus and the repository's
// files, and the hook by which parseYAMLChunk uses it.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contourc/contourc/loader/internal/fastyaml"
	"github.com/contourc/contourc/loader/internal/fastyaml/fastyamltest"
)

// Tests see the fast parser's bugs as panics rather than as silent
// fallbacks to yaml.v3.
func init() { fastyaml.Strict = true }

// checkFastYAML compares the fast parser with yaml.v3 on text and reports
// whether the fast parser accepted it.
func checkFastYAML(t testing.TB, name string, text []byte) bool {
	t.Helper()
	got, ok := fastyaml.Parse(text, "", nil)
	return fastyamltest.Compare(t, name, text, got, ok)
}

// TestFastYAMLHook checks that parseYAMLChunk takes the fast parser's
// documents when it accepts a chunk, moved to the chunk's lines, and still
// reports yaml.v3's errors, at the right line, when it does not.
func TestFastYAMLHook(t *testing.T) {
	for _, text := range []string{"a: 1\n---\nb: [2]\n", "a: b: c\n", "a: 1\n"} {
		c := Chunk{Text: []byte(text), Line: 7, Index: 2}
		docs, err := ParseYAMLChunk("f.yaml", c, NewLimits(0, 0), nil)
		if _, ok := fastyaml.Parse(c.Text, "", nil); ok != (err == nil) {
			t.Errorf("%q: fast parser ok=%v, parse error %v", text, ok, err)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "f.yaml:7") {
				t.Errorf("%q: error %v does not point at the chunk's first line", text, err)
			}
			continue
		}
		if len(docs) == 0 || docs[0].Root.Line != 7 || docs[0].Index != 2 {
			t.Errorf("%q: documents %+v do not carry the chunk's lines", text, docs)
		}
	}
}

// sharedCorpusDir is where the project's conformance corpus lives when it
// is available; the tests here skip without it.
const sharedCorpusDir = "/work/shared"

// corpusDirs are the directories whose YAML and JSON files the
// differential tests parse both ways.
func corpusDirs() []string {
	dirs := []string{
		filepath.Join(sharedCorpusDir, "conformance"),
		filepath.Join(sharedCorpusDir, "conformance-bad"),
		filepath.Join("..", "..", "testdata"), // loader's
		filepath.Join("..", "..", "..", "testdata"),
		filepath.Join("..", "..", "..", "examples"),
	}
	// More, such as a scalegen output directory, can be named here.
	if extra := os.Getenv("FASTYAML_CORPUS"); extra != "" {
		dirs = append(dirs, filepath.SplitList(extra)...)
	}
	return dirs
}

// corpusFiles lists the manifests under dir, none if it does not exist.
func corpusFiles(t *testing.T, dir string) []string {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return files
}

// acceptance counts chunks the fast parser accepts.
type acceptance struct{ accepted, total int }

func (a acceptance) String() string {
	if a.total == 0 {
		return "no chunks"
	}
	return fmt.Sprintf("%d of %d chunks (%.1f%%)", a.accepted, a.total, 100*float64(a.accepted)/float64(a.total))
}

// checkStream compares both parsers on a whole stream, as
// LoadContourConfig parses it, and on each chunk, as Load does, counting
// the chunks in acc when it is not nil.
func checkStream(t *testing.T, name string, data []byte, acc *acceptance) {
	checkFastYAML(t, name, data)
	for _, c := range SplitYAMLStream(data) {
		accepted := checkFastYAML(t, fmt.Sprintf("%s:%d", name, c.Line), c.Text)
		if acc != nil {
			acc.total++
			if accepted {
				acc.accepted++
			}
		}
	}
}

// TestFastYAMLCorpus compares the fast parser with yaml.v3 on every
// manifest of the corpus and the repository, chunk by chunk as the loader
// parses them.
func TestFastYAMLCorpus(t *testing.T) {
	for _, dir := range corpusDirs() {
		files := corpusFiles(t, dir)
		if len(files) == 0 {
			t.Logf("%s: no manifests", dir)
			continue
		}
		var acc acceptance
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			checkFastYAML(t, file+" (raw)", data)
			// JSON files are checked too, but normally go to the JSON
			// parser: the acceptance rate is that of YAML files.
			count := &acc
			if filepath.Ext(file) == ".json" {
				count = nil
			}
			if data, err = NormalizeText(file, data); err == nil {
				checkStream(t, file, data, count)
			}
		}
		t.Logf("%s: %d files, fast parser accepts %v of YAML files", dir, len(files), acc)
		if dir == filepath.Join(sharedCorpusDir, "conformance") && acc.accepted*10 < acc.total*9 {
			t.Errorf("%s: the fast parser accepts only %v", dir, acc)
		}
	}
}

// TestFastYAMLGenerated compares the parsers on manifests shaped like the
// scale corpus (../shared/tools/scalegen) and the benchmark's, all of which
// the fast parser must accept.
func TestFastYAMLGenerated(t *testing.T) {
	var acc acceptance
	checkStream(t, "scale corpus", fastyamltest.ScaleCorpus(20), &acc)
	checkStream(t, "bench corpus", fastyamltest.BenchCorpus(20), &acc)
	if acc.accepted != acc.total {
		t.Errorf("the fast parser accepts only %v", acc)
	}
}

// BenchmarkParseChunks parses the chunks of the benchmark corpus with
// each parser.
func BenchmarkParseChunks(b *testing.B) {
	data := fastyamltest.BenchCorpus(1000)
	chunks := SplitYAMLStream(data)
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range chunks {
				if _, ok := fastyaml.Parse(c.Text, "", nil); !ok {
					b.Fatal("refused")
				}
			}
		}
	})
	// As Load parses: into the memory of the previous chunk's tree.
	b.Run("fast-arena", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		arena := &fastyaml.Arena{}
		for b.Loop() {
			for _, c := range chunks {
				arena.Reset()
				if _, ok := fastyaml.Parse(c.Text, "", arena); !ok {
					b.Fatal("refused")
				}
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range chunks {
				if _, err := fastyamltest.V3Documents(c.Text); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
