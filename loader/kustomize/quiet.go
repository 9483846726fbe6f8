package kustomize

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"sigs.k8s.io/kustomize/api/types"
)

// kustomize prints its deprecation warnings straight to os.Stderr, in the
// middle of contourc's output and unattributed. Builds run with os.Stderr
// pointed at /dev/null (the variable only: the commands hold their own
// streams, and panics go to the file descriptor), and the warnings are
// worked out again from the kustomization files (Build.Deprecations).
var quiet struct {
	mu    sync.Mutex
	users int
	saved *os.File
}

// quietStderr starts a build's silence; the function it returns ends it.
// Concurrent builds share one.
func quietStderr() func() {
	quiet.mu.Lock()
	defer quiet.mu.Unlock()
	if quiet.users == 0 {
		if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
			quiet.saved, os.Stderr = os.Stderr, null
		}
	}
	quiet.users++
	return func() {
		quiet.mu.Lock()
		defer quiet.mu.Unlock()
		quiet.users--
		if quiet.users == 0 && quiet.saved != nil {
			null := os.Stderr
			os.Stderr, quiet.saved = quiet.saved, nil
			null.Close()
		}
	}
}

// Deprecation is a warning kustomize gives about a kustomization file.
type Deprecation struct {
	File string // the kustomization file, absolute
	Msg  string
}

// deprecations are kustomize's warnings about the kustomization files a
// build read, in file order.
func deprecations(read map[string][]byte) []Deprecation {
	var out []Deprecation
	for path, data := range read {
		if !IsKustomizationFile(filepath.Base(path)) {
			continue
		}
		var k types.Kustomization
		if k.Unmarshal(data) != nil {
			continue
		}
		if msgs := k.CheckDeprecatedFields(); msgs != nil {
			for _, m := range *msgs {
				out = append(out, Deprecation{File: path, Msg: trimWarning(m)})
			}
		}
	}
	sortDeprecations(out)
	return out
}

func trimWarning(m string) string {
	for _, p := range []string{"# Warning: ", "Warning: "} {
		if len(m) > len(p) && m[:len(p)] == p {
			return m[len(p):]
		}
	}
	return m
}

func sortDeprecations(d []Deprecation) {
	slices.SortStableFunc(d, func(a, b Deprecation) int { return cmp.Compare(a.File, b.File) })
}
