// Command contourc-helm renders Helm charts for contourc. contourc runs it
// when a chart is to be rendered, so that contourc itself does not link
// Helm and every other run starts without Helm's package initialisation
// (see loader/helmchart). It reads one JSON request on stdin and writes one
// JSON answer on stdout; it is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/contourc/contourc/loader/helmchart"
	"github.com/contourc/contourc/loader/helmchart/helmrender"
)

func main() {
	if err := helmchart.ServeHelper(os.Stdin, os.Stdout, helmrender.Render); err != nil {
		fmt.Fprintln(os.Stderr, "contourc-helm:", err)
		os.Exit(1)
	}
}
