package manifest

import "slices"

// SkipReason says why Load left a file out.
type SkipReason string

// The reasons a file is left out, in the order a summary lists them.
const (
	// SkipNotObjects: a YAML or JSON file with a document that is no
	// Kubernetes object (application config, a dashboard, a patch).
	SkipNotObjects SkipReason = "not Kubernetes objects"
	// SkipGoTemplate: a file holding Go template actions ({{ ... }}),
	// which only a template engine turns into manifests.
	SkipGoTemplate SkipReason = "Go template"
	// SkipYttTemplate: a file holding Carvel ytt annotations or code
	// (#@ comments), which only ytt turns into manifests.
	SkipYttTemplate SkipReason = "ytt template"
	// SkipHelmChart: the files of a directory holding a Chart.yaml.
	SkipHelmChart SkipReason = "Helm chart"
	// SkipExcluded: what an --exclude pattern left out. The user asked
	// for it, so it is listed (-v) but not counted as skipped.
	SkipExcluded SkipReason = "excluded"
)

// reasonOrder is the order of the reasons in summaries; reasons added
// later (kustomize's) come after these, by name.
var reasonOrder = []SkipReason{SkipNotObjects, SkipGoTemplate, SkipYttTemplate, SkipHelmChart}

// SkippedFile is a file, or a directory of files, that Load did not read.
type SkippedFile struct {
	// Path is the file, or the directory (ending in a separator), as
	// found from the paths given.
	Path string
	// Files is how many manifest files (.yaml, .yml, .json) it holds: 1
	// for a file.
	Files  int
	Reason SkipReason
	// Detail says what decided it: the document and line that is no
	// object, the template action, the pattern that excluded it.
	Detail string
}

// Counted reports whether f is among the files a summary counts as
// skipped: all but those the user excluded.
func (f SkippedFile) Counted() bool { return f.Reason != SkipExcluded }

// SkipCount is how many files were skipped for one reason.
type SkipCount struct {
	Reason SkipReason
	Files  int
}

// CountSkipped adds up the counted files of skipped by reason, in a stable
// order, for the one line render and check end with.
func CountSkipped(skipped []SkippedFile) (total int, by []SkipCount) {
	n := map[SkipReason]int{}
	for _, f := range skipped {
		if f.Counted() {
			n[f.Reason] += f.Files
			total += f.Files
		}
	}
	for _, r := range reasonOrder {
		if n[r] > 0 {
			by = append(by, SkipCount{r, n[r]})
			delete(n, r)
		}
	}
	rest := make([]SkipReason, 0, len(n))
	for r := range n {
		if n[r] > 0 {
			rest = append(rest, r)
		}
	}
	slices.Sort(rest)
	for _, r := range rest {
		by = append(by, SkipCount{r, n[r]})
	}
	return total, by
}
