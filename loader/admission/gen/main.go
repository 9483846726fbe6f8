// Command gen writes crds.json.gz, the CRDs admission embeds, from the
// module cache (see internal/crdgen). Run by `go generate ./loader/admission`.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"

	"github.com/contourc/contourc/loader/admission/internal/crdgen"
)

func main() {
	data, err := crdgen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile("crds.json.gz", buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
