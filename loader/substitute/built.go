package substitute

// Flux post-build substitution of the objects of a kustomize build. Flux's
// kustomize-controller builds a kustomization first and then substitutes
// each object it built on its own (fluxcd/pkg/kustomize's
// SubstituteVariables), so a variable in a base is substituted after an
// overlay's patches are merged, and the substitute: disabled label or
// annotation counts on the built object, wherever it was set. Each object
// goes through the same steps as there:
//
//  1. the object's JSON (kyaml's), turned into YAML (sigs.k8s.io/yaml):
//     keys sorted, and quotes only where a YAML reader needs them, so that
//     "${REPLICAS}" in the source is written ${REPLICAS};
//  2. envsubst on that text;
//  3. the text read back as YAML and turned into JSON: a value that reads
//     as a number, a boolean or null after substitution is one
//     (replicas: ${REPLICAS} with REPLICAS=3 is the number 3, whether the
//     source quoted it or not; an empty value is null).
//
// Flux then makes a kustomize resource of the JSON, whose numbers pass
// through float64; contourc reads the JSON as it reads a JSON file, which
// keeps them as written, the same numbers the API server reads.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fluxcd/pkg/envsubst"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Failure is why a built object could not be substituted, in
// Flux's words, with the variables to point at in its source.
type Failure struct {
	Msg  string
	Vars []string
}

func (f *Failure) Error() string { return f.Msg }

// BuiltObject is the JSON of the built object n after substitution, or nil
// when substitution leaves it as it is: s substitutes nothing, n holds no
// $ (Flux's round trip through JSON and YAML would not change what it
// means), or n turns substitution off.
func (s *Substitution) BuiltObject(n *yaml.Node) ([]byte, error) {
	if !s.active() || !holdsDollar(n) || nodeSubstitutionDisabled(n) {
		return nil, nil
	}
	js, err := kyaml.NewRNode(n).MarshalJSON()
	if err != nil {
		return nil, &Failure{Msg: "envsubst error: " + err.Error()}
	}
	text, err := sigsyaml.JSONToYAML(js)
	if err != nil {
		return nil, &Failure{Msg: "envsubst error: " + err.Error()}
	}
	out, err := envsubst.Eval(string(text), s.lookup)
	if err != nil {
		f := &Failure{Msg: "envsubst error: variable substitution failed: " + err.Error()}
		if m := strictMissing().FindStringSubmatch(err.Error()); m != nil {
			f.Vars = []string{m[1]}
		}
		return nil, f
	}
	js, err = sigsyaml.YAMLToJSON([]byte(out))
	if err != nil {
		return nil, yamlFailure(text, err, s)
	}
	return js, nil
}

// lookup is the value of a variable as Flux's envsubst mapping gives it:
// unset ones are the empty string unless strict.
func (s *Substitution) lookup(name string) (string, bool) {
	v, ok := s.vars[name]
	return v, ok || !s.strict
}

// yamlLine is the line go-yaml's errors name: "yaml: line 12: ...".
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlFailure is the error of a substituted object that no longer reads
// as YAML (a value with ": " in a plain scalar). The line go-yaml names is
// one of the text Flux made of the object, which the user never sees: the
// variables on that line (substitution adds no lines, values lose their
// newlines) say instead where it went wrong.
func yamlFailure(text []byte, err error, s *Substitution) error {
	msg := err.Error()
	m := yamlLine().FindStringSubmatch(msg)
	if m == nil {
		return &Failure{Msg: "envsubst error: YAMLToJSON: " + msg}
	}
	n, _ := strconv.Atoi(m[1])
	var vars []string
	for _, ref := range variableRef().FindAllStringSubmatch(string(lineText(text, n)), -1) {
		vars = append(vars, ref[1])
	}
	if len(vars) == 0 {
		return &Failure{Msg: "envsubst error: YAMLToJSON: " + msg}
	}
	refs := make([]string, len(vars))
	for i, v := range vars {
		refs[i] = "${" + v + "}"
	}
	return &Failure{
		Msg:  fmt.Sprintf("envsubst error: YAMLToJSON: yaml: %s (the value substituted for %s)", msg[len(m[0]):], joinNames(refs)),
		Vars: vars,
	}
}

// joinNames is "a", "a and b", "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := names[0]
	for _, n := range names[1 : len(names)-1] {
		out += ", " + n
	}
	return out + " and " + names[len(names)-1]
}

// holdsDollar reports whether a key or value of n holds a $: what envsubst
// acts on (${X}, and $$, which it makes $). Aliases are not followed: what
// they point at is in the tree too.
func holdsDollar(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.ScalarNode {
		return strings.IndexByte(n.Value, '$') >= 0
	}
	for _, c := range n.Content {
		if holdsDollar(c) {
			return true
		}
	}
	return false
}

// nodeSubstitutionDisabled reports whether the object n is labelled or
// annotated kustomize.toolkit.fluxcd.io/substitute: disabled.
func nodeSubstitutionDisabled(n *yaml.Node) bool {
	meta := manifest.MapValue(n, "metadata")
	if meta == nil || meta.Kind != yaml.MappingNode {
		return false
	}
	for _, field := range []string{"labels", "annotations"} {
		m := manifest.MapValue(meta, field)
		if m == nil {
			continue
		}
		if v := manifest.MapValue(m, substituteKey); v != nil && v.Kind == yaml.ScalarNode && v.Value == "disabled" {
			return true
		}
	}
	return false
}
