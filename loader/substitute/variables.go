package substitute

// Flux post-build substitution. Flux's kustomize-controller replaces
// ${VAR}, ${VAR:=default} and the other bash forms in each object of a
// build (spec.postBuild.substitute and substituteFrom), with
// github.com/fluxcd/pkg/envsubst, unless the object is labelled or
// annotated kustomize.toolkit.fluxcd.io/substitute: disabled. contourc does
// the same to each document's text of a file read as it stands, before it
// is parsed, so that every line stays where it is in the file and errors
// point at the source. The objects of a kustomize build, whose lines are
// the build's anyway, are substituted after the build, one by one, the
// way Flux does it (built.go).
//
// fluxcd/pkg/kustomize's SubstituteVariables itself cannot be used: it
// works on a kustomize resource, turned to JSON and back, which loses the
// lines, and it links controller-runtime. Its rules are kept: the variable
// names it accepts, newlines taken out of values, substitution only when
// some variable is given, and an unset variable without a default read as
// empty (Flux's default), or, in Flux's strict mode (the controller's
// StrictPostBuildSubstitutions feature gate, fluxcd/pkg/kustomize's
// SubstituteWithStrict), an error.

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/envsubst"
	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// substituteKey is the label or annotation that turns substitution off
// for an object.
const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

// varName is the rule fluxcd/pkg/kustomize checks variable names with.
var varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`) })

// Substitution is a set of variables for Flux's post-build substitution.
type Substitution struct {
	vars   map[string]string
	strict bool
}

// New checks the names of vars as Flux does and returns the
// substitution of their values, with newlines taken out as Flux does.
// Strict makes a variable without a value or a default an error.
func New(vars map[string]string, strict bool) (*Substitution, error) {
	s := &Substitution{vars: make(map[string]string, len(vars)), strict: strict}
	for k, v := range vars {
		if !varName().MatchString(k) {
			return nil, fmt.Errorf("'%s' var name is invalid, must match '%s'", k, varName())
		}
		s.vars[k] = strings.ReplaceAll(v, "\n", "")
	}
	return s, nil
}

// active reports whether s substitutes anything: like Flux, only when some
// variable is given, so that without one ${VAR:=default} stays as it is.
// Over is the substitution of vars (an entry's own, such as a Flux
// Kustomization's postBuild) with s's variables on top, winning, and s's
// strictness: the --substitute flags over what the repository says.
func (s *Substitution) Over(vars map[string]string) (*Substitution, error) {
	all := make(map[string]string, len(vars))
	strict := false
	for k, v := range vars {
		all[k] = v
	}
	if s != nil {
		for k, v := range s.vars {
			all[k] = v
		}
		strict = s.strict
	}
	return New(all, strict)
}

// Empty reports whether s holds no variable.
func (s *Substitution) Empty() bool { return !s.active() }

func (s *Substitution) active() bool { return s != nil && len(s.vars) > 0 }

// Has reports whether s gives name a value.
func (s *Substitution) Has(name string) bool {
	if !s.active() {
		return false
	}
	_, ok := s.vars[name]
	return ok
}

// Apply is data, the text of the file name, with the variables substituted
// in each document that does not turn substitution off. A file that looks
// like JSON is one document.
func (s *Substitution) Apply(name string, data []byte) ([]byte, error) {
	if !s.active() || !bytes.Contains(data, []byte("${")) {
		return data, nil
	}
	chunks := []manifest.Chunk{{Text: data, Line: 1}}
	if !manifest.StartsLikeJSON(data) {
		chunks = manifest.SplitYAMLStream(data)
	}
	out := make([]byte, 0, len(data))
	for _, c := range chunks {
		text, err := s.document(c.Text)
		if err != nil {
			return nil, &manifest.Error{Source: manifest.Source{File: name, Line: c.Line + errorLine(c.Text, err), Doc: c.Index}, Msg: "envsubst error: variable substitution failed: " + err.Error()}
		}
		out = append(out, text...)
	}
	return out, nil
}

// document substitutes the variables in one document's text.
func (s *Substitution) document(text []byte) ([]byte, error) {
	if !bytes.Contains(text, []byte("${")) || substitutionDisabled(text) {
		return text, nil
	}
	v, err := envsubst.Eval(string(text), s.lookup)
	if err != nil {
		return nil, err
	}
	return []byte(v), nil
}

// strictMissing picks the variable out of envsubst's strict-mode error:
// variable not set (strict mode): "NAME".
var strictMissing = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`strict mode\): "([^"]+)"`) })

// errorLine is how many lines into text the variable of a strict-mode
// error is first referenced, so that the error points at it; 0 otherwise.
func errorLine(text []byte, err error) int {
	m := strictMissing().FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	return max(firstReference(text, m[1:]), 0)
}

// firstReference is how many lines into text one of the variables names is
// first referenced (not escaped as $${X}), or -1.
func firstReference(text []byte, names []string) int {
	for _, loc := range variableRef().FindAllSubmatchIndex(text, -1) {
		dollars := bytes.IndexByte(text[loc[0]:loc[1]], '{')
		if dollars%2 == 1 && slices.Contains(names, string(text[loc[2]:loc[3]])) {
			return bytes.Count(text[:loc[0]], []byte("\n"))
		}
	}
	return -1
}

// ReferenceLine is the line of the file text where one of the variables
// names is first referenced in the document that starts at line doc
// (the line of its first key), or doc when it references none.
func ReferenceLine(text []byte, doc int, names []string) int {
	chunks := []manifest.Chunk{{Text: text, Line: 1}}
	if !manifest.StartsLikeJSON(text) {
		chunks = manifest.SplitYAMLStream(text)
	}
	for i, c := range chunks {
		if i+1 < len(chunks) && chunks[i+1].Line <= doc {
			continue
		}
		if n := firstReference(c.Text, names); n >= 0 {
			return c.Line + n
		}
		break
	}
	return doc
}

// substitutionDisabled reports whether the object in text is labelled or
// annotated kustomize.toolkit.fluxcd.io/substitute: disabled.
func substitutionDisabled(text []byte) bool {
	if !bytes.Contains(text, []byte(substituteKey)) {
		return false
	}
	var obj struct {
		Metadata struct {
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
	}
	if yaml.Unmarshal(text, &obj) != nil {
		return false
	}
	return obj.Metadata.Labels[substituteKey] == "disabled" || obj.Metadata.Annotations[substituteKey] == "disabled"
}

// variableRef finds ${NAME...} references; a $$ before one escapes it.
// The second group is the operator of a form with a default
// (${X:=d}, ${X:-d}, ${X=d}, ${X-d}).
var variableRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$+\{([_a-zA-Z][_a-zA-Z0-9]*)(:?[-=])?`) })

// HintVariables adds to each error a hint naming the Flux variables that
// did not get a value on the error's line (or in its message): most likely
// what made the value invalid. source is the file's text before
// substitution. The errors are replaced, not changed: the decode cache
// may hand the same ones out again.
func HintVariables(errs []error, source []byte, s *Substitution) {
	if len(errs) == 0 || !bytes.Contains(source, []byte("${")) {
		return
	}
	for i, err := range errs {
		if e, ok := err.(*manifest.Error); ok {
			errs[i] = HintError(e, source, s)
		}
	}
}

// HintError is e with the hint of hintVariables, when it needs one; source
// is the text, before substitution, of the file e names (nil when there is
// none, as for a generated object: the message alone is looked at).
func HintError(e *manifest.Error, source []byte, s *Substitution) *manifest.Error {
	names := unsetVariables(e.Msg, s)
	for _, n := range unsetVariables(string(lineText(source, e.Source.Line)), s) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return e
	}
	c := *e
	c.Msg += "; hint: " + variableHint(names, s)
	return &c
}

// unsetVariables are the names of the variables referenced in text that s
// gives no value.
func unsetVariables(text string, s *Substitution) []string {
	var names []string
	for _, m := range variableRef().FindAllStringSubmatch(text, -1) {
		dollars := strings.IndexByte(m[0], '{')
		switch {
		case dollars%2 == 0: // $${X} is the text ${X}
		case s.Has(m[1]) || (m[2] != "" && s.active()): // given, or its default was
		case !slices.Contains(names, m[1]):
			names = append(names, m[1])
		}
	}
	return names
}

// variableHint words the hint for names.
func variableHint(names []string, s *Substitution) string {
	refs := make([]string, len(names))
	flags := make([]string, len(names))
	for i, n := range names {
		refs[i] = "${" + n + "}"
		flags[i] = "--substitute " + n + "=..."
	}
	is := " is a Flux variable"
	if len(names) > 1 {
		is = " are Flux variables"
	}
	given := ""
	if s.active() {
		given = " with no value given (Flux substitutes an empty string)"
	}
	return strings.Join(refs, ", ") + is + given + "; pass " + strings.Join(flags, " ")
}

// lineText is line n (1-based) of data, without its newline.
func lineText(data []byte, n int) []byte {
	for l := 1; n > 0 && len(data) > 0; l++ {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if l == n {
			return line
		}
		data = rest
	}
	return nil
}
