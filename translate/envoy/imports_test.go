package envoy

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingAbove keeps envoy below translate (ARCHITECTURE.md):
// translate calls the builders, so envoy may import of contourc only the
// packages beneath the processors (the DAG, its index, the configuration)
// and the shared helpers of internal/, or the split would import upward.
func TestImportsNothingAbove(t *testing.T) {
	allowed := []string{
		"github.com/contourc/contourc/internal/",
		"github.com/contourc/contourc/translate/dag",
		"github.com/contourc/contourc/translate/config",
		"github.com/contourc/contourc/translate/internal/",
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
			if !strings.HasPrefix(path, "github.com/contourc/contourc/") {
				continue
			}
			ok := false
			for _, a := range allowed {
				if path == strings.TrimSuffix(a, "/") || strings.HasPrefix(path, strings.TrimSuffix(a, "/")+"/") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s imports %s; envoy may import only translate/dag, translate/config, translate/internal and internal/", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
