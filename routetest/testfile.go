package routetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Test files carry this apiVersion and kind (both optional) so that a test
// file sitting among manifests is skipped by `contourc render`, like any
// kind Contour does not read.
const (
	TestAPIVersion = "contourc/v1alpha1"
	TestKind       = "RouteTest"
)

// File is a parsed test file.
type File struct {
	Path  string
	Cases []Case
}

// Case is one request and what should become of it.
type Case struct {
	Name    string
	File    string
	Line    int
	Request Request
	Expect  Expect
}

// Location is "file:line" of the case.
func (c Case) Location() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// fileSpec, caseSpec and requestSpec are the YAML form; see
// docs/route-tests.schema.json.
type fileSpec struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Tests      []caseSpec `yaml:"tests"`
}

type caseSpec struct {
	Name    string      `yaml:"name"`
	Request requestSpec `yaml:"request"`
	Expect  Expect      `yaml:"expect"`
}

type requestSpec struct {
	Scheme        string                `yaml:"scheme"`
	Listener      string                `yaml:"listener"`
	Port          int                   `yaml:"port"`
	Authority     string                `yaml:"authority"`
	Method        string                `yaml:"method"`
	Path          string                `yaml:"path"`
	Headers       map[string]stringList `yaml:"headers"`
	SNI           *string               `yaml:"sni"`
	SourceAddress string                `yaml:"sourceAddress"`
}

// stringList is a header value: one string, or a list for a header sent
// several times.
type stringList []string

func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*s = stringList{n.Value}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*s = list
		return nil
	}
	return fmt.Errorf("line %d: a header value is a string or a list of strings", n.Line)
}

// ReadFile reads and checks a test file.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes a test file strictly: unknown fields, wrong types and
// inconsistent expectations are errors naming the file and line.
func Parse(path string, data []byte) (*File, error) {
	var spec fileSpec
	var errs []error
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&spec); err != nil {
		var te *yaml.TypeError
		switch {
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%s: empty test file", path)
		case !errors.As(err, &te):
			return nil, yamlError(path, err)
		}
		// Unknown fields and wrong types: yaml decodes the rest anyway, so
		// the other problems of the file are reported along with these.
		errs = append(errs, yamlError(path, err))
	}
	// A manifest passed as a test file: say so rather than list its fields.
	if spec.APIVersion != "" && spec.APIVersion != TestAPIVersion || spec.Kind != "" && spec.Kind != TestKind {
		return nil, fmt.Errorf("%s: apiVersion %q, kind %q: not a route test file (want apiVersion %s, kind %s)", path, spec.APIVersion, spec.Kind, TestAPIVersion, TestKind)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: a test file holds one YAML document", path)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(path, err)
	}
	if len(spec.Tests) == 0 {
		errs = append(errs, fmt.Errorf("%s:1: no tests (a test file is a mapping with a list under tests:)", path))
	}
	lines := caseLines(&root)
	f := &File{Path: path}
	seen := map[string]int{}
	for i, cs := range spec.Tests {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		c := Case{Name: cs.Name, File: path, Line: line, Request: cs.Request.request(), Expect: cs.Expect}
		at := fmt.Sprintf("%s:%d", path, line)
		if c.Name == "" {
			errs = append(errs, fmt.Errorf("%s: test #%d has no name", at, i+1))
		} else if prev, dup := seen[c.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: test %q: name already used at line %d", at, c.Name, prev))
		} else {
			seen[c.Name] = line
		}
		for _, e := range checkCase(c) {
			errs = append(errs, fmt.Errorf("%s: test %q: %s", at, c.Name, e))
		}
		f.Cases = append(f.Cases, c)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// caseLines finds the line of each item under the top-level tests: key.
func caseLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "tests" {
			var lines []int
			for _, item := range m.Content[i+1].Content {
				lines = append(lines, item.Line)
			}
			return lines
		}
	}
	return nil
}

var unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field (\S+) not found in type (.+)$`) })

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:yaml: )?line (\d+): (.*)$`) })

// typeNames turns yaml's Go type names into the test file's words.
var typeNames = strings.NewReplacer(
	"routetest.fileSpec", "the test file",
	"routetest.caseSpec", "a test",
	"routetest.requestSpec", "request",
	"routetest.Expect", "expect",
	"routetest.RouteExpect", "expect.route",
	"routetest.ClusterExpect", "a cluster expectation",
	"routetest.RedirectExpect", "expect.redirect",
	"routetest.DirectResponseExpect", "expect.directResponse",
	"routetest.HeadersExpect", "a header expectation",
	"routetest.RetryExpect", "expect.retry",
	"routetest.", "",
)

// yamlError rewrites yaml's errors ("line 7: field x not found in type
// ...") as "file:7: ..." lines, one per problem.
func yamlError(path string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var errs []error
	for _, m := range msgs {
		m = unknownField().ReplaceAllString(typeNames.Replace(m), `unknown field "$1" in $2`)
		if sub := yamlLine().FindStringSubmatch(m); sub != nil {
			errs = append(errs, fmt.Errorf("%s:%s: %s", path, sub[1], sub[2]))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s", path, strings.TrimPrefix(m, "yaml: ")))
	}
	return errors.Join(errs...)
}

// request turns the YAML request into a Request; headers are sorted by
// name so that runs are reproducible (a YAML mapping has no order).
func (r requestSpec) request() Request {
	out := Request{
		Scheme: r.Scheme, Listener: r.Listener, Port: r.Port, Authority: r.Authority,
		Method: r.Method, Path: r.Path, SNI: r.SNI, SourceAddress: r.SourceAddress,
	}
	names := make([]string, 0, len(r.Headers))
	for n := range r.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range r.Headers[n] {
			out.Headers = append(out.Headers, Header{Name: n, Value: v})
		}
	}
	return out
}

// checkCase finds what the strict decoder cannot: missing and conflicting
// fields, malformed values.
func checkCase(c Case) []string {
	var errs []string
	r := c.Request
	if r.Authority == "" {
		errs = append(errs, "request.authority is required")
	}
	if r.Path != "" && !strings.HasPrefix(r.Path, "/") {
		errs = append(errs, fmt.Sprintf("request.path %q does not start with /", r.Path))
	}
	if r.Scheme != "" && r.Scheme != "http" && r.Scheme != "https" {
		errs = append(errs, fmt.Sprintf("request.scheme %q: want http or https", r.Scheme))
	}
	if r.Port < 0 || r.Port > 65535 {
		errs = append(errs, fmt.Sprintf("request.port %d is out of range", r.Port))
	}
	if r.SourceAddress != "" {
		if _, err := netip.ParseAddr(r.SourceAddress); err != nil {
			errs = append(errs, fmt.Sprintf("request.sourceAddress: source address %q is not an IP address", r.SourceAddress))
		}
	}
	for _, h := range r.Headers {
		if h.Name == "" || strings.HasPrefix(h.Name, ":") || strings.EqualFold(h.Name, "host") {
			errs = append(errs, fmt.Sprintf("request.headers: %q: set the authority (Host), method and path as such, not as headers", h.Name))
		}
	}
	return append(errs, c.Expect.check()...)
}

// PortRef is a Service port by number or by name.
type PortRef struct {
	Number int
	Name   string
}

func (p *PortRef) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a port is a number or a port name", n.Line)
	}
	if num, err := strconv.Atoi(n.Value); err == nil {
		p.Number = num
		return nil
	}
	p.Name = n.Value
	return nil
}

func (p PortRef) String() string {
	if p.Name != "" {
		return p.Name
	}
	return strconv.Itoa(p.Number)
}

// IsZero lets an absent port be told from port 0.
func (p PortRef) IsZero() bool { return p.Number == 0 && p.Name == "" }
