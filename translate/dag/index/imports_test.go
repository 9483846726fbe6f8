package index

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingAbove keeps the index below the processors and the
// builders (ARCHITECTURE.md), which all import it: of contourc it may
// import only loader, whose objects it indexes, translate/dag, whose
// values its lookups return, and the shared helpers of internal/. An
// import of translate, or of a processor, would be an import upward.
func TestImportsNothingAbove(t *testing.T) {
	allowed := []string{
		"github.com/contourc/contourc/loader",
		"github.com/contourc/contourc/translate/dag",
	}
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
			if !strings.HasPrefix(path, "github.com/contourc/contourc/") || strings.HasPrefix(path, "github.com/contourc/contourc/internal/") {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || path == a
			}
			if !ok {
				t.Errorf("%s imports %s; the index may import only %v of contourc", name, path, allowed)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
