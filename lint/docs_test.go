package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulePages: every rule has its page, titled with its ID, name and
// severity, with the four parts, and a row in docs/lint.md; no page is left
// of a rule that is gone.
func TestRulePages(t *testing.T) {
	docs := filepath.Join("..", "docs")
	index, err := os.ReadFile(filepath.Join(docs, "lint.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		page, err := os.ReadFile(filepath.Join(docs, "lint", r.ID+".md"))
		if err != nil {
			t.Errorf("%s: no page: %v", r.ID, err)
			continue
		}
		title := "# " + r.ID + " " + r.Name + " (" + r.Severity.String() + ")\n"
		if !strings.HasPrefix(string(page), title) {
			t.Errorf("%s: page does not start with %q", r.ID, title)
		}
		for _, part := range []string{"**What.**", "**Why.**", "**How to fix.**", "**Example.**"} {
			if !strings.Contains(string(page), part) {
				t.Errorf("%s: page lacks %s", r.ID, part)
			}
		}
		row := "| [" + r.ID + "](lint/" + r.ID + ".md) | " + r.Name + " | " + r.Severity.String() + " |"
		if !strings.Contains(string(index), row) {
			t.Errorf("docs/lint.md lacks the row %q", row)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(docs, "lint", "*.md"))
	for _, p := range pages {
		if _, ok := RuleByID(strings.TrimSuffix(filepath.Base(p), ".md")); !ok {
			t.Errorf("%s: no such rule", p)
		}
	}
}
