package routetest

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Result is the outcome of one case.
type Result struct {
	Case     Case
	Decision *Decision
	// Failures are the expectations the decision did not meet.
	Failures []string
	// Err is set when the request could not be evaluated at all.
	Err error
}

// Passed reports whether the case met every expectation.
func (r Result) Passed() bool { return r.Err == nil && len(r.Failures) == 0 }

// Run evaluates every case.
func Run(cfg *Config, cases []Case) []Result {
	out := make([]Result, len(cases))
	for i, c := range cases {
		out[i].Case = c
		d, err := cfg.Evaluate(c.Request)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Decision = d
		out[i].Failures = Compare(c, d)
	}
	return out
}

// Count returns how many cases passed and failed.
func Count(results []Result) (passed, failed int) {
	for _, r := range results {
		if r.Passed() {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// WriteText reports like `go test`: a line per case, and under a failed
// case what was expected, what happened and the route that won. verbose
// adds the decision of passing cases too.
func WriteText(w io.Writer, results []Result, verbose bool) error {
	ew := &errWriter{w: w}
	for _, r := range results {
		if r.Passed() {
			ew.printf("--- PASS: %s\n", r.Case.Name)
			if verbose {
				ew.printf("    %s\n", Summary(r.Decision))
			}
			continue
		}
		ew.printf("--- FAIL: %s (%s)\n", r.Case.Name, r.Case.Location())
		if r.Err != nil {
			ew.printf("    error: %v\n", r.Err)
			continue
		}
		for _, f := range r.Failures {
			ew.printf("    %s\n", f)
		}
		ew.printf("    decision: %s\n", Summary(r.Decision))
		for _, n := range r.Decision.Notes {
			ew.printf("    note: %s\n", n)
		}
	}
	passed, failed := Count(results)
	if failed > 0 {
		ew.printf("FAIL: %d of %d case(s) failed\n", failed, passed+failed)
	} else {
		ew.printf("PASS: %d case(s)\n", passed)
	}
	return ew.err
}

// jsonReport is WriteJSON's document.
type jsonReport struct {
	Passed   int          `json:"passed"`
	Failed   int          `json:"failed"`
	Cases    []jsonResult `json:"cases"`
	Coverage *Coverage    `json:"coverage,omitempty"`
}

type jsonResult struct {
	Name     string    `json:"name"`
	File     string    `json:"file"`
	Line     int       `json:"line"`
	Passed   bool      `json:"passed"`
	Failures []string  `json:"failures,omitempty"`
	Error    string    `json:"error,omitempty"`
	Expect   Expect    `json:"expect"`
	Decision *Decision `json:"decision,omitempty"`
}

// WriteJSON reports every case with its expectations and decision, and
// the coverage when cov is not nil.
func WriteJSON(w io.Writer, results []Result, cov *Coverage) error {
	rep := jsonReport{Cases: []jsonResult{}, Coverage: cov}
	rep.Passed, rep.Failed = Count(results)
	for _, r := range results {
		jr := jsonResult{
			Name: r.Case.Name, File: r.Case.File, Line: r.Case.Line, Passed: r.Passed(),
			Failures: r.Failures, Expect: r.Case.Expect, Decision: r.Decision,
		}
		if r.Err != nil {
			jr.Error = r.Err.Error()
		}
		rep.Cases = append(rep.Cases, jr)
	}
	return writeJSON(w, rep)
}

// writeJSON writes v indented, without escaping <, > and & (file names
// such as <stdin> and "->" in messages stay readable).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteDecisionJSON writes one decision as JSON, for `contourc explain`.
func WriteDecisionJSON(w io.Writer, d *Decision) error {
	return writeJSON(w, d)
}

// JUnit XML, the subset CI systems read: one testsuite per test file.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit reports in JUnit XML, with the coverage as a last test suite
// when cov is not nil.
func WriteJUnit(w io.Writer, results []Result, cov *Coverage) error {
	doc := junitSuites{Name: "contourc test"}
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.Case.File]
		if !ok {
			i = len(doc.Suites)
			index[r.Case.File] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: r.Case.File})
		}
		s := &doc.Suites[i]
		jc := junitCase{Name: r.Case.Name, Classname: r.Case.File, File: r.Case.File, Line: r.Case.Line}
		s.Tests++
		doc.Tests++
		switch {
		case r.Err != nil:
			jc.Error = &junitProblem{Message: r.Err.Error(), Type: "error", Text: r.Err.Error()}
			s.Errors++
			doc.Errors++
		case len(r.Failures) > 0:
			text := strings.Join(r.Failures, "\n") + "\ndecision: " + Summary(r.Decision)
			jc.Failure = &junitProblem{Message: r.Failures[0], Type: "mismatch", Text: text}
			s.Failures++
			doc.Failures++
		default:
			jc.SystemOut = Summary(r.Decision)
		}
		s.Cases = append(s.Cases, jc)
	}
	if cov != nil {
		cs := junitCoverage(cov)
		doc.Suites = append(doc.Suites, cs)
		doc.Tests += cs.Tests
		doc.Failures += cs.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
