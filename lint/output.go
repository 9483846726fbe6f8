package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// The output formats of findings. github is the command's (it shares
// check's annotation writer).

// WriteTable writes one line per finding for people.
func WriteTable(w io.Writer, fs []Finding) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tRULE\tSOURCE\tOBJECT\tMESSAGE")
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Severity, f.Rule, orDash(f.Source.String()), f.Object, f.Message)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// jsonFinding is a finding as -o json writes it.
type jsonFinding struct {
	Finding
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Via  string `json:"via,omitempty"`
}

// WriteJSON writes the findings as a JSON array ([] when none).
func WriteJSON(w io.Writer, fs []Finding) error {
	out := make([]jsonFinding, len(fs))
	for i, f := range fs {
		r, _ := RuleByID(f.Rule)
		out[i] = jsonFinding{Finding: f, Name: r.Name, File: f.Source.File, Line: f.Source.Line, Via: f.Source.Via}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// DocsURL is where a rule's page is published.
func DocsURL(id string) string {
	return "https://github.com/contourc/contourc/blob/main/docs/lint/" + id + ".md"
}

// sarifLevel is SARIF's name for a severity.
func sarifLevel(s Severity) string {
	if s == Info {
		return "note"
	}
	return s.String()
}

// The SARIF 2.1.0 log (OASIS), the part code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifMessage `json:"shortDescription"`
		HelpURI              string       `json:"helpUri"`
		DefaultConfiguration struct {
			Level string `json:"level"`
		} `json:"defaultConfiguration"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations"`
	}
	sarifPhysical struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region *sarifRegion `json:"region,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
)

// WriteSARIF writes a SARIF 2.1.0 log of one run with every rule (so that
// code scanning knows the rules of findings that went away) and the
// findings, each on its file and line and named by its object.
func WriteSARIF(w io.Writer, fs []Finding) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "contourc", InformationURI: "https://github.com/contourc/contourc"}}, Results: []sarifResult{}}
	index := map[string]int{}
	for i, r := range rules {
		sr := sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifMessage{Text: r.Summary}, HelpURI: DocsURL(r.ID)}
		sr.DefaultConfiguration.Level = sarifLevel(r.Severity)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
		index[r.ID] = i
	}
	for _, f := range fs {
		loc := sarifLocation{LogicalLocations: []sarifLogical{{FullyQualifiedName: f.Object.String(), Kind: "object"}}}
		if f.Source.File != "" && f.Source.File != "<stdin>" {
			p := &sarifPhysical{}
			p.ArtifactLocation.URI = fileURI(f.Source.File)
			if f.Source.Line > 0 {
				p.Region = &sarifRegion{StartLine: f.Source.Line}
			}
			loc.PhysicalLocation = p
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
			Message: sarifMessage{Text: f.Object.String() + ": " + f.Message}, Locations: []sarifLocation{loc}})
	}
	b, err := json.MarshalIndent(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// fileURI is a path as a URI reference: relative paths stay relative (to
// the repository, as code scanning resolves them), with / separators and
// the characters a URI cannot hold escaped.
func fileURI(path string) string {
	return slashPathURI(filepath.ToSlash(path), filepath.IsAbs(path))
}

// slashPathURI is fileURI of a /-separated path. An absolute one is a file
// URI with an empty authority (RFC 8089): file:///C:/x for Windows' C:\x,
// whose drive letter would otherwise be read as the URI's host.
func slashPathURI(p string, abs bool) string {
	u := &url.URL{Path: strings.TrimPrefix(p, "./")}
	if abs {
		u.Scheme = "file"
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path
		}
	}
	return u.String()
}
