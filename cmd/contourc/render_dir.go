package main

// render --output-dir: one file per Contour instance, DIR/<instance>.<ext>
// (DIR/NS/NAME.yaml), written as a set: every file is rendered into a
// staging directory inside DIR first, and only when all of them are there
// are they moved into place, so that a failure writes nothing.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/translate"
)

// writeInstanceFiles renders each run's resources with write into
// dir/<name>.<ext>.
func writeInstanceFiles(dir, ext string, runs []instances.Run, write func(io.Writer, *translate.Resources) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(dir, ".contourc-render-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	rel := make([]string, len(runs))
	for i, r := range runs {
		rel[i] = filepath.FromSlash(r.Name) + "." + ext
		if err := writeStaged(filepath.Join(stage, rel[i]), func(w io.Writer) error { return write(w, &r.Result.Resources) }); err != nil {
			return fmt.Errorf("instance %s: %w", r.Name, err)
		}
	}
	for _, p := range rel {
		target := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(stage, p), target); err != nil {
			return err
		}
	}
	return nil
}

// writeStaged writes one file of the set, readable by its owner only: it
// may hold private keys.
func writeStaged(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, privatePerm)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
