package translate

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestHeaderNameProblems checks the fast header name check against the
// API machinery's: the same answer and messages for every name.
func TestHeaderNameProblems(t *testing.T) {
	names := []string{"", "X-Header", "x-route", "Cache-Control", "a", "-", "0", "X_Header", "X Header", "X:H",
		"Ünïcode", "x\x00y", "x-é", "tab\t", "~", "a.b"}
	for c := 0; c < 256; c++ {
		names = append(names, "X"+string(rune(c)), string([]byte{byte(c)}))
	}
	for _, name := range names {
		if got, want := headerNameProblems(name), validation.IsHTTPHeaderName(name); !slices.Equal(got, want) {
			t.Errorf("headerNameProblems(%q) = %q, want %q", name, got, want)
		}
	}
}
