package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Package initialisation runs without a collection (internal/initgc): the
// validation libraries allocate past the runtime's first heap goal while
// they initialise. The test binary, which links them too, is run again
// with the collector tracing and no test to run.
func TestNoCollectionDuringInit(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the collector is the user's")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "gc ") {
			t.Errorf("a collection before any test ran: %s", line)
		}
	}
}
