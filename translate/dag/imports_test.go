package dag

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingAbove keeps dag the lowest layer of translate
// (ARCHITECTURE.md): the processors and the Envoy builders import it, so it
// may import no package of contourc but the shared helpers of internal/
// (internal/par, which freezing uses), or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/contourc/contourc/") && !strings.HasPrefix(path, "github.com/contourc/contourc/internal/") {
				t.Errorf("%s imports %s; dag must not import other packages of contourc", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
