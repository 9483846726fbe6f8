package importtest

import "testing"

// TestInTrees checks that a tree allows its own package and those below it,
// and not a sibling that merely shares its name's prefix.
func TestInTrees(t *testing.T) {
	trees := []string{"/translate/dag", "/loader"}
	for _, tt := range []struct {
		path string
		want bool
	}{
		{Module + "/translate/dag", true},
		{Module + "/translate/dag/index", true},
		{Module + "/loader", true},
		{Module + "/loader/engines", true},
		{Module + "/translate/dagger", false},
		{Module + "/translate", false},
		{Module + "/translate/config", false},
	} {
		if got := inTrees(tt.path, trees); got != tt.want {
			t.Errorf("inTrees(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
