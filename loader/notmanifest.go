package loader

// Files that are not manifests. A GitOps repository holds more than
// Kubernetes objects: application config, dashboards, Taskfiles, patches,
// Helm templates. Argo CD's directory source ignores a YAML file that does
// not parse as objects; kubectl would refuse it. contourc skips such a file
// whole, with a notice that -v lists, and keeps refusing a broken document
// that says it is an object (has apiVersion and kind).
//
// Only files read as they stand come here: the files a kustomization uses
// are read through its build, whose output holds objects only, and whose
// documents without apiVersion or kind stay errors.

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/walk"
)

// notObject is the error of a document of a file that is no Kubernetes
// object at all. It is an error while the document is read (so that it
// takes no decoding, and is kept with the document's result by the decode
// cache); skipNotManifest turns it into the file's notice.
type notObject struct{ err *Error }

func (n *notObject) Error() string { return n.err.Error() }
func (n *notObject) Unwrap() error { return n.err }

// notAnObject says why the document n is no object, or returns nil: it is
// not a mapping (a JSON patch is a list; a list of objects is an error), it
// has neither apiVersion nor kind (a document with one of them is a broken
// object, an error), or it is a strategic-merge patch directive ($patch:
// delete).
func notAnObject(src Source, n *yaml.Node) error {
	switch {
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0 && manifest.MapValue(n.Content[0], "op") != nil:
		return &notObject{&Error{Source: src, Msg: "a JSON patch (a list of operations)"}}
	case n.Kind == yaml.SequenceNode && looksLikeObjects(n.Content):
		return nil // objects written as a list without a List around them: an error
	case n.Kind != yaml.MappingNode:
		return &notObject{&Error{Source: src, Msg: "expected a Kubernetes object, got " + manifest.DescribeNode(n)}}
	case absent(manifest.MapValue(n, "apiVersion")) && absent(manifest.MapValue(n, "kind")):
		return &notObject{&Error{Source: src, Msg: "no apiVersion and kind"}}
	}
	if p := manifest.MapValue(n, "$patch"); p != nil {
		return &notObject{&Error{Source: src.At(p.Line), Msg: "a strategic-merge patch ($patch)"}}
	}
	return nil
}

// looksLikeObjects reports whether items all say what kind of object
// they are.
func looksLikeObjects(items []*yaml.Node) bool {
	for _, it := range items {
		if absent(manifest.MapValue(it, "apiVersion")) && absent(manifest.MapValue(it, "kind")) {
			return false
		}
	}
	return len(items) > 0
}

// absent reports whether a field is missing, null or empty.
func absent(v *yaml.Node) bool {
	return v == nil || manifest.IsNull(v) || (v.Kind == yaml.ScalarNode && v.Value == "")
}

// skippedByName is the notice for a file that its name alone says is no
// manifest, read only when named on the command line (a directory walk
// skips a chart whole): a Helm chart's Chart.yaml.
func skippedByName(path string) *SkippedFile {
	if filepath.Base(path) == walk.HelmChartFile {
		return &SkippedFile{Path: path, Files: 1, Reason: SkipHelmChart, Detail: "the Chart.yaml of a Helm chart"}
	}
	return nil
}

// skipNotManifest is whole, what the file name with text data gave, or, for
// a file that is not (only) manifests, nothing but its notice:
//   - a Go template: it holds an action ({{ ... }}) in a document that gave
//     an object contourc reads or an error. Actions in the string values of
//     kinds contourc skips (PrometheusRule alerts, Argo CD ApplicationSets)
//     leave the file a manifest;
//   - a ytt template: it holds Carvel ytt annotations or code (a comment
//     starting #@: `#@ load("@ytt:data", "data")`, `key: #@ data.values.x`,
//     `#@overlay/match`), under the same condition: ytt computes the
//     values, and as written they are empty or ytt's defaults;
//   - not objects: one of its documents is no object (notAnObject), or an
//     object holds a strategic-merge patch directive ($patch: delete in a
//     list, $setElementOrder/...), which only patches do. The file as a
//     whole is skipped, since the objects beside such a document are
//     patches or examples rather than objects to apply (a kustomize patch
//     file holds both).
func skipNotManifest(name string, data []byte, whole partResult) partResult {
	notice := func(reason SkipReason, line int, what string) partResult {
		return partResult{file: &SkippedFile{Path: name, Files: 1, Reason: reason, Detail: fmt.Sprintf("line %d: %s", line, what)}}
	}
	if line, action := templateAction(data); line > 0 && templateDecides(data, whole, templateAction) {
		return notice(SkipGoTemplate, line, action)
	}
	if line, code := yttAnnotation(data); line > 0 && templateDecides(data, whole, yttAnnotation) {
		return notice(SkipYttTemplate, line, code)
	}
	for _, err := range whole.errs {
		if no, ok := err.(*notObject); ok {
			return notice(SkipNotObjects, no.err.Source.Line, no.err.Msg)
		}
	}
	for _, err := range whole.errs {
		if e, ok := err.(*Error); ok && isPatchDirective(e.Msg) {
			return notice(SkipNotObjects, e.Source.Line, "a strategic-merge patch ("+lastField(e.Msg)+")")
		}
	}
	return whole
}

// patchDirectives are the keys of strategic-merge patch directives, which
// no object has: strict decoding calls one inside an object an unknown
// field, and that makes the object's file a patch file.
var patchDirectives = []string{"$patch", "$setElementOrder/", "$retainKeys", "$deleteFromPrimitiveList/"}

// isPatchDirective reports whether msg is the unknown-field error of a
// patch directive.
func isPatchDirective(msg string) bool {
	if !strings.HasPrefix(msg, "unknown field ") {
		return false
	}
	f := lastField(msg)
	for _, d := range patchDirectives {
		if strings.HasPrefix(f, d) {
			return true
		}
	}
	return false
}

// lastField is the last part of the field path an unknown-field error
// quotes: unknown field "spec.routes[0].$patch" is $patch.
func lastField(msg string) string {
	path := strings.Trim(strings.TrimPrefix(msg, "unknown field "), `"`)
	if i := strings.LastIndexAny(path, ".]"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// maxActionShown bounds the template action a notice quotes.
const maxActionShown = 60

// templateAction finds the first Go template action in data: "{{" and "}}"
// after it on the same line. It returns the action's line and text, or 0.
func templateAction(data []byte) (int, string) {
	open := bytes.Index(data, []byte("{{"))
	for open >= 0 {
		lineEnd := bytes.IndexByte(data[open:], '\n')
		if lineEnd < 0 {
			lineEnd = len(data) - open
		}
		if end := bytes.Index(data[open:open+lineEnd], []byte("}}")); end >= 0 {
			action := string(data[open : open+end+2])
			if len(action) > maxActionShown {
				action = action[:maxActionShown-3] + "..."
			}
			return 1 + bytes.Count(data[:open], []byte("\n")), action
		}
		next := bytes.Index(data[open+lineEnd:], []byte("{{"))
		if next < 0 {
			break
		}
		open += lineEnd + next
	}
	return 0, ""
}

// yttAnnotation finds the first ytt annotation or code line in data: a
// YAML comment (at the start of a line or after a space) that starts
// with #@, as ytt reads it. It returns its line and text, or 0.
func yttAnnotation(data []byte) (int, string) {
	for i := bytes.Index(data, []byte("#@")); i >= 0; {
		if i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n' {
			end := bytes.IndexByte(data[i:], '\n')
			if end < 0 {
				end = len(data) - i
			}
			code := strings.TrimRight(string(data[i:i+end]), " \t\r")
			if len(code) > maxActionShown {
				code = code[:maxActionShown-3] + "..."
			}
			return 1 + bytes.Count(data[:i], []byte("\n")), code
		}
		next := bytes.Index(data[i+2:], []byte("#@"))
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return 0, ""
}

// templateDecides reports whether the template actions of data, as find
// finds them, are in a document that gave an object or an error other
// than being no object (see skipNotManifest). A file read as JSON is one
// unit.
func templateDecides(data []byte, whole partResult, find func([]byte) (int, string)) bool {
	var errs []error // a document that is no object is skipped as such
	for _, err := range whole.errs {
		if _, no := err.(*notObject); !no {
			errs = append(errs, err)
		}
	}
	if manifest.StartsLikeJSON(data) {
		return len(whole.objs) > 0 || len(errs) > 0
	}
	templated := map[int]bool{}
	for _, c := range manifest.SplitYAMLStream(data) {
		if line, _ := find(c.Text); line > 0 {
			templated[c.Index] = true
		}
	}
	for _, o := range whole.objs {
		// GitOps objects are kept for their followers only, and their
		// string values hold templates of their own (an ApplicationSet's
		// {{number}}): they leave the file a manifest, as when they were
		// skipped.
		if templated[o.Source.Doc] && !IsGitOps(o) {
			return true
		}
	}
	for _, err := range errs {
		var e *Error
		if !errors.As(err, &e) || templated[e.Source.Doc] {
			return true
		}
	}
	return false
}
