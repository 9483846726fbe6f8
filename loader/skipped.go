package loader

import (
	"slices"
	"strings"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// What Load left out, and why, is typed in loader/internal/manifest (the
// walk and the build of kustomizations both leave files out); these names
// are the loader's API for it.
type (
	// SkipReason says why Load left a file out.
	SkipReason = manifest.SkipReason
	// SkippedFile is a file, or a directory of files, that Load did not
	// read.
	SkippedFile = manifest.SkippedFile
	// SkipCount is how many files were skipped for one reason.
	SkipCount = manifest.SkipCount
)

// The reasons a file is left out (manifest.SkipNotObjects...).
const (
	SkipNotObjects  = manifest.SkipNotObjects
	SkipGoTemplate  = manifest.SkipGoTemplate
	SkipYttTemplate = manifest.SkipYttTemplate
	SkipHelmChart   = manifest.SkipHelmChart
	SkipExcluded    = manifest.SkipExcluded
)

// CountSkipped adds up the counted files of skipped by reason, in a stable
// order, for the one line render and check end with.
func CountSkipped(skipped []SkippedFile) (total int, by []SkipCount) {
	return manifest.CountSkipped(skipped)
}

// skippedFiles is what the walk left out and the files that turned out not
// to be manifests, in path order.
func skippedFiles(walked []SkippedFile, parts []partResult) []SkippedFile {
	out := slices.Clone(walked)
	for _, p := range parts {
		if p.file != nil {
			out = append(out, *p.file)
		}
	}
	slices.SortStableFunc(out, func(a, b SkippedFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}
