package config

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNothingAbove keeps config below the processors and the Envoy
// builders (ARCHITECTURE.md), which read its Settings: of translate it may
// import only translate/dag (the values settings are made of), or the split
// would import upward.
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
			if path == "github.com/contourc/contourc/translate" || strings.HasPrefix(path, "github.com/contourc/contourc/translate/") && path != "github.com/contourc/contourc/translate/dag" {
				t.Errorf("%s imports %s; config may import only translate/dag of translate", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
