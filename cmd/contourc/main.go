// Command contourc is Contour without the Kubernetes API server: it reads
// manifests and writes the Envoy configuration Contour would serve for them.
package main

import (
	"os"

	"github.com/contourc/contourc/cmd/contourc/internal/gcpace"
	// Imported for its init: no collection while packages initialise.
	_ "github.com/contourc/contourc/internal/initgc"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	gcpace.DeferFirstCollection()
	os.Exit(runAs(programName(os.Args[0]), os.Args[1:], IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
