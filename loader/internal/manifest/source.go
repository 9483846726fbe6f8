package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Source says where an object was read from.
type Source struct {
	File string // path as given (or "<stdin>")
	Line int    // 1-based line where the object's mapping starts: its first key in YAML, its "{" in JSON (for List items, the item's)
	Doc  int    // 0-based index of the YAML document (or JSON value) in the file; a List's items share the List's
	// Via is the kustomization directory an object was built through
	// (see loader/kustomizations.go), "" for objects read as they are. File and
	// Line are then the file and document the object came from, before
	// the kustomization transformed it.
	Via string
	// Entry, for an object a GitOps entry point built (loader/follow), is
	// that entry: a Flux Kustomization, an Argo CD Application. nil for
	// objects read as the walk found them.
	Entry *EntryOrigin
}

func (s Source) String() string {
	at := s.File
	if s.Line > 0 {
		at = fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	if s.Via != "" {
		at += " (via " + s.Via + ")"
	}
	if s.Entry != nil {
		at = s.Entry.String() + " → " + at
	}
	return at
}

// At is s moved to another line of the same document.
func (s Source) At(line int) Source {
	if line > 0 {
		s.Line = line
	}
	return s
}

// Error is a problem with one input, pointing at the file, line and object.
type Error struct {
	Source    Source
	Kind      string // may be empty when the kind is unknown
	Namespace string
	Name      string
	Msg       string
}

func (e *Error) Error() string {
	obj := ""
	switch {
	case e.Kind != "" && e.Name != "" && e.Namespace != "":
		obj = fmt.Sprintf("%s %s/%s: ", e.Kind, e.Namespace, e.Name)
	case e.Kind != "" && e.Name != "":
		obj = fmt.Sprintf("%s %s: ", e.Kind, e.Name)
	case e.Kind != "":
		obj = e.Kind + ": "
	}
	return fmt.Sprintf("%s: %s%s", e.Source, obj, e.Msg)
}

// EntryOrigin is the entry point an object was built through.
type EntryOrigin struct {
	Source                Source
	Kind, Namespace, Name string
}

func (e *EntryOrigin) String() string {
	return e.Source.String() + " " + e.Kind + " " + Qualified(e.Namespace, e.Name)
}

// Qualified names an object as kubectl does: namespace/name, or name alone
// for a cluster-scoped one.
func Qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// DescribeFSError says what went wrong with a path without repeating it:
// the path is already in the Error's Source.
func DescribeFSError(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file or directory"
	case os.IsPermission(err):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
