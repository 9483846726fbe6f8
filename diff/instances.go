package diff

// Instances: a repository with several Contour instances is compared
// instance by instance, each paired with the instance of the same name on
// the other side; one that only one side has is added or removed whole.

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// InstanceReport is the comparison of one Contour instance of either side.
type InstanceReport struct {
	// Name is the instance's name (NS/NAME); "" for the objects no
	// instance serves, whose status alone is compared.
	Name string `json:"name"`
	// Op is Added or Removed when only one side has the instance, ""
	// when both do.
	Op Op `json:"op,omitempty"`
	*Report
}

// Empty reports whether nothing changed in the instance: it is on both
// sides and its comparison is empty.
func (r InstanceReport) Empty() bool { return r.Op == "" && r.Report.Empty() }

// Title heads the instance's section: "instance NS/NAME (added)".
func (r InstanceReport) Title() string {
	if r.Name == "" {
		return "objects no Contour instance serves"
	}
	t := "instance " + r.Name
	if r.Op != "" {
		t += " (" + string(r.Op) + ")"
	}
	return t
}

// Summary is the instance's one-line summary.
func (r InstanceReport) Summary() string {
	if s := Summarize(r.Report).String(); s != "" {
		return s
	}
	return "no change to its Envoy configuration"
}

// ChangedInstances keeps the instances in which something changed.
func ChangedInstances(list []InstanceReport) []InstanceReport {
	var out []InstanceReport
	for _, r := range list {
		if !r.Empty() {
			out = append(out, r)
		}
	}
	return out
}

// WriteTextInstances writes each changed instance as WriteText does, under
// a heading naming it; nothing when nothing changed.
func WriteTextInstances(w io.Writer, list []InstanceReport, colour bool) error {
	bw := bufio.NewWriter(w)
	for i, r := range ChangedInstances(list) {
		if i > 0 {
			bw.WriteByte('\n')
		}
		writeStyled(bw, "=== "+r.Title()+" ===", ansiBold, colour)
		bw.WriteByte('\n')
		if r.Report.Empty() {
			bw.WriteString("\nSummary: " + r.Summary() + "\n")
			continue
		}
		bw.WriteByte('\n')
		if err := WriteText(bw, r.Report, colour); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteMarkdownInstances writes one comment with a section per changed
// instance, each as WriteMarkdown writes a report.
func WriteMarkdownInstances(w io.Writer, list []InstanceReport) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("### contourc diff\n\n")
	changed := ChangedInstances(list)
	if len(changed) == 0 {
		bw.WriteString("No change to the Envoy configuration or to the status of any object.\n")
		return bw.Flush()
	}
	for _, r := range changed {
		bw.WriteString("#### " + capitalize(r.Title()) + "\n\n")
		if r.Report.Empty() {
			bw.WriteString(capitalize(r.Summary()) + ".\n\n")
			continue
		}
		writeMarkdownBody(bw, r.Report)
	}
	return bw.Flush()
}

// jsonInstance is one instance of the document WriteJSONInstances writes.
type jsonInstance struct {
	Name string `json:"name"`
	Op   Op     `json:"op,omitempty"`
	jsonReport
}

// WriteJSONInstances writes {"changed", "instances": [...]}, each instance
// (changed or not) as WriteJSON writes a report, with its name and op.
func WriteJSONInstances(w io.Writer, list []InstanceReport) error {
	doc := struct {
		Changed   bool           `json:"changed"`
		Instances []jsonInstance `json:"instances"`
	}{Changed: len(ChangedInstances(list)) > 0, Instances: []jsonInstance{}}
	for _, r := range list {
		doc.Instances = append(doc.Instances, jsonInstance{Name: r.Name, Op: r.Op, jsonReport: newJSONReport(r.Report, !r.Empty())})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// SummarizeInstances is the one-line summary of the changed instances:
// "instance a/b: 1 route added; instance c/d (removed): ...".
func SummarizeInstances(list []InstanceReport) string {
	var parts []string
	for _, r := range ChangedInstances(list) {
		parts = append(parts, r.Title()+": "+r.Summary())
	}
	return strings.Join(parts, "; ")
}
