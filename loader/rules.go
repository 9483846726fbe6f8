package loader

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The API server applies CRD schema defaults and validates enums, patterns
// and ranges before a controller ever sees an object. Contour's code relies
// on that (a redirect status code is always one of five values, a missing
// retry count means 1), so the loader does the same.
//
// Kubebuilder markers sit on Go struct fields ("+kubebuilder:default=Same"
// on RouteNamespaces.From), and one Go type is used at many places in a
// schema, so rules here are keyed by Go type and JSON field name, exactly
// like the markers. The decoder applies them wherever the type appears.

// fieldKey names one JSON field of one Go struct type.
type fieldKey struct {
	owner reflect.Type
	name  string
}

// fieldRule is what a CRD schema says about one field beyond its type.
type fieldRule struct {
	def      *yaml.Node // default when the field is absent or null
	required bool
	checks   []check
}

// check validates a decoded value, returning "" when it is fine or what is
// wrong. Pointers are dereferenced before a check sees them and nil
// pointers are not checked.
type check func(v reflect.Value) string

var (
	fieldRules = map[fieldKey]*fieldRule{}
	typeChecks = map[reflect.Type][]check{}
)

func ruleFor(sample any, field string) *fieldRule {
	k := fieldKey{reflect.TypeOf(sample), field}
	r := fieldRules[k]
	if r == nil {
		r = &fieldRule{}
		fieldRules[k] = r
	}
	return r
}

// defaultField records a "+kubebuilder:default" marker: value is the
// default as YAML, as written in the marker.
func defaultField(sample any, field, value string) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(value), &doc); err != nil || len(doc.Content) == 0 {
		panic(fmt.Sprintf("loader: bad default %q for %T.%s: %v", value, sample, field, err))
	}
	ruleFor(sample, field).def = doc.Content[0]
}

// requireFields records fields the schema lists as required.
func requireFields(sample any, fields ...string) {
	for _, f := range fields {
		ruleFor(sample, f).required = true
	}
}

// checkField attaches validation to one field of a struct.
func checkField(sample any, field string, checks ...check) {
	r := ruleFor(sample, field)
	r.checks = append(r.checks, checks...)
}

// checkType attaches validation to every value of a (named) type, as a
// marker on a type declaration does.
func checkType(sample any, checks ...check) {
	t := reflect.TypeOf(sample)
	typeChecks[t] = append(typeChecks[t], checks...)
}

// runChecks applies checks to v, returning the first problem.
func runChecks(v reflect.Value, checks []check) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	for _, c := range checks {
		if msg := c(v); msg != "" {
			return msg
		}
	}
	return ""
}

// oneOf is an enum: the value, printed, must be one of values.
func oneOf(values ...any) check {
	allowed := make(map[string]bool, len(values))
	quoted := make([]string, len(values))
	for i, x := range values {
		s := fmt.Sprint(x)
		allowed[s] = true
		if _, ok := x.(string); ok {
			quoted[i] = fmt.Sprintf("%q", s)
		} else {
			quoted[i] = s
		}
	}
	list := strings.Join(quoted, ", ")
	return func(v reflect.Value) string {
		s := fmt.Sprint(v.Interface())
		if allowed[s] {
			return ""
		}
		return fmt.Sprintf("unsupported value %s: must be one of %s", printable(v), list)
	}
}

// patterns are those of every matches rule, for a test to compile.
var patterns []string

// matches is a "+kubebuilder:validation:Pattern" on a string. The pattern
// is compiled on first use: compiling every rule's at start-up cost each
// run a few milliseconds, more than a small input takes to load.
func matches(pattern string) check {
	patterns = append(patterns, pattern)
	m := &matcher{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })}
	return func(v reflect.Value) string {
		if v.Kind() != reflect.String || m.match(v.String()) {
			return ""
		}
		return fmt.Sprintf("invalid value %q: must match the regular expression %s", v.String(), pattern)
	}
}

// maxRemembered bounds the values a matcher remembers.
const maxRemembered = 4096

// matcher is a pattern that remembers whether the values it was asked
// about match: manifests repeat the same durations and header names
// thousands of times, and a regular expression takes a microsecond a
// value.
type matcher struct {
	re   func() *regexp.Regexp
	mu   sync.RWMutex
	seen map[string]bool
}

func (m *matcher) match(s string) bool {
	m.mu.RLock()
	ok, known := m.seen[s]
	m.mu.RUnlock()
	if known {
		return ok
	}
	ok = m.re().MatchString(s)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	if len(m.seen) < maxRemembered {
		// A copy: s is part of a file's text, which must not be kept
		// alive for it.
		m.seen[strings.Clone(s)] = ok
	}
	return ok
}

// between is Minimum and Maximum on an integer.
func between(lo, hi int64) check {
	return func(v reflect.Value) string {
		n, ok := intOf(v)
		if !ok || (n >= lo && n <= hi) {
			return ""
		}
		return fmt.Sprintf("invalid value %d: must be between %d and %d", n, lo, hi)
	}
}

// atLeast is Minimum on an integer.
func atLeast(lo int64) check {
	return func(v reflect.Value) string {
		n, ok := intOf(v)
		if !ok || n >= lo {
			return ""
		}
		return fmt.Sprintf("invalid value %d: must be at least %d", n, lo)
	}
}

// lengthBetween is MinLength and MaxLength on a string, or MinItems and
// MaxItems on a list.
func lengthBetween(lo, hi int) check {
	return func(v reflect.Value) string {
		if v.Kind() != reflect.String && v.Kind() != reflect.Slice && v.Kind() != reflect.Map {
			return ""
		}
		n := v.Len()
		switch {
		case n < lo && lo == 1:
			return "must not be empty"
		case n < lo:
			return fmt.Sprintf("has %d %s, must have at least %d", n, unit(v), lo)
		case n > hi:
			return fmt.Sprintf("has %d %s, must have at most %d", n, unit(v), hi)
		}
		return ""
	}
}

// maxLen stands for "no maximum" in lengthBetween.
const maxLen = 1 << 30

// nonEmpty is MinLength=1 or MinItems=1.
func nonEmpty() check { return lengthBetween(1, maxLen) }

// each applies checks to every item of a list.
func each(checks ...check) check {
	return func(v reflect.Value) string {
		if v.Kind() != reflect.Slice {
			return ""
		}
		for i := 0; i < v.Len(); i++ {
			if msg := runChecks(v.Index(i), checks); msg != "" {
				return fmt.Sprintf("[%d]: %s", i, msg)
			}
		}
		return ""
	}
}

func unit(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return "characters"
	}
	return "items"
}

func intOf(v reflect.Value) (int64, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint()), true
	}
	return 0, false
}

func printable(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	return fmt.Sprint(v.Interface())
}
