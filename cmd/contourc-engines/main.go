// Command contourc-engines runs, for contourc, the engines contourc does
// not link so that every other run starts without their package
// initialisation: Helm's template engine (charts given as paths, Flux
// HelmReleases) and Flux's kustomization generator (Flux Kustomizations).
// contourc starts it when it first needs one and talks JSON lines with it
// over stdin and stdout (loader/engines); it is not meant to be run by
// hand.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/contourc/contourc/loader/engines"
	_ "github.com/contourc/contourc/loader/flux/fluxgen"
	_ "github.com/contourc/contourc/loader/helmchart/helmrender"
)

// version is set by make build (-X main.version), as contourc's.
var version = ""

func main() {
	if err := engines.Serve(os.Stdin, os.Stdout, buildVersion(), engines.Registered()); err != nil {
		fmt.Fprintln(os.Stderr, engines.Name+":", err)
		os.Exit(1)
	}
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		return info.Main.Version
	}
	return "dev"
}
