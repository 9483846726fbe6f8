// Package render writes translated Envoy resources in the formats users
// consume: the xDS resources as JSON, and a static Envoy bootstrap.
package render

import (
	"errors"
	"io"

	"github.com/contourc/contourc/translate"
)

// JSON writes the xDS resources as one JSON object keyed by type URL, each
// value the name-sorted list of resources in protojson form.
func JSON(w io.Writer, r *translate.Resources) error {
	return errors.New("render: not implemented yet")
}

// Bootstrap writes a static Envoy bootstrap (YAML) holding every resource
// inline, runnable with `envoy -c`.
func Bootstrap(w io.Writer, r *translate.Resources) error {
	return errors.New("render: not implemented yet")
}
