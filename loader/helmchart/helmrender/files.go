package helmrender

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/contourc/contourc/loader/helmchart"
)

// fileMap turns the names helm's engine gives templates
// ("web/charts/db/templates/svc.yaml") into the files they come from
// ("charts/web/charts/db/templates/svc.yaml"), for Manifest.File and for
// error messages.
type fileMap struct {
	// byFile is each template's file, keyed by the template itself:
	// dependency processing copies aliased subcharts, but the copies share
	// their templates.
	byFile map[*chart.File]string
	// byName is filled once the dependencies are processed.
	byName map[string]string
	// source is each template's text by name, for docLines.
	source map[string]string
	// local are the subcharts added from file:// dependencies, and their
	// directories.
	local map[*chart.Chart]string
}

// record notes the files of c, loaded from dir, and of its subcharts.
func (m *fileMap) record(c *chart.Chart, dir string) {
	if m.byFile == nil {
		m.byFile = map[*chart.File]string{}
	}
	for _, t := range c.Templates {
		m.byFile[t] = filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(t.Name)))
	}
	sub := subchartDirs(dir)
	for _, d := range c.Dependencies() {
		if d.Metadata == nil {
			continue
		}
		where, ok := m.local[d]
		if !ok {
			where, ok = sub[d.Metadata.Name]
		}
		if !ok {
			where = filepath.Join(dir, "charts", d.Metadata.Name)
		}
		m.record(d, where)
	}
}

// subchartDirs finds where dir's subcharts are: the directories of
// charts/ by the name in their Chart.yaml, and archives by file name.
func subchartDirs(dir string) map[string]string {
	out := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(dir, "charts"))
	if err != nil {
		return out
	}
	for _, e := range entries {
		p := filepath.Join(dir, "charts", e.Name())
		if e.IsDir() {
			if md, err := chartutil.LoadChartfile(filepath.Join(p, "Chart.yaml")); err == nil {
				if _, seen := out[md.Name]; !seen {
					out[md.Name] = p
				}
			}
			continue
		}
		// An archive is named NAME-VERSION.tgz by helm package; its
		// templates are reported at the archive.
		if base, ok := strings.CutSuffix(e.Name(), ".tgz"); ok {
			if i := strings.LastIndex(base, "-"); i > 0 {
				if _, seen := out[base[:i]]; !seen {
					out[base[:i]] = p + ":" + base[:i]
				}
			}
		}
	}
	return out
}

// index names the templates of the processed chart c.
func (m *fileMap) index(c *chart.Chart) {
	if m.byName == nil {
		m.byName = map[string]string{}
		m.source = map[string]string{}
	}
	for _, t := range c.Templates {
		name := chartFile(c, t.Name)
		if f, ok := m.byFile[t]; ok {
			m.byName[name] = f
		}
		m.source[name] = string(t.Data)
	}
	for _, d := range c.Dependencies() {
		m.index(d)
	}
}

// diskPath is the file of the chart file helm names name; name itself when
// unknown.
func (m *fileMap) diskPath(name string) string {
	if f, ok := m.byName[name]; ok {
		return f
	}
	return name
}

// manifest is one rendered document of template name.
func (m *fileMap) manifest(name, content string, lines *docLines) helmchart.Manifest {
	return helmchart.Manifest{
		Template: name,
		File:     m.diskPath(name),
		Line:     lines.next(name),
		Content:  []byte(content),
	}
}

// rewrite replaces template names in a helm error by their files, longest
// first so that a subchart's name is not taken for its parent's.
func (m *fileMap) rewrite(msg string) string {
	names := make([]string, 0, len(m.byName))
	for n := range m.byName {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	const mark = "\x00"
	for _, n := range names {
		// Marked while replacing, so that no replaced path is matched again.
		msg = strings.ReplaceAll(msg, n, mark+m.byName[n]+mark)
	}
	return strings.ReplaceAll(msg, mark, "")
}

// docLines hands out, for each template, the line of its source where its
// next rendered document starts.
type docLines struct {
	starts map[string][]int
	taken  map[string]int
}

// newDocLines maps the documents of each rendered template to their
// source when the template has as many documents as its output: a template
// that repeats a document in a loop, or leaves one out in an if, is
// reported at its first document.
func newDocLines(rendered map[string]string, files *fileMap) *docLines {
	l := &docLines{starts: map[string][]int{}, taken: map[string]int{}}
	for name, out := range rendered {
		src := sourceDocStarts(files.source[name])
		if len(src) > 0 && len(src) == countDocs(out) {
			l.starts[name] = src
		} else if len(src) > 0 {
			l.starts[name] = src[:1]
		}
	}
	return l
}

func (l *docLines) next(name string) int {
	s := l.starts[name]
	if len(s) == 0 {
		return 1
	}
	i := l.taken[name]
	l.taken[name] = i + 1
	if i >= len(s) {
		return s[0]
	}
	return s[i]
}

// sourceDocStarts are the lines where a template's documents start: its
// first line that is not blank, and the first one after each "---" that
// more lines follow (a comment is part of the document, as helm keeps it).
func sourceDocStarts(src string) []int {
	var starts []int
	open := true // a new document starts at the next line with content
	for i, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "---"):
			open = true
		case t == "":
		case open:
			starts = append(starts, i+1)
			open = false
		}
	}
	return starts
}

// countDocs counts the documents with content in rendered YAML.
func countDocs(out string) int {
	return len(sourceDocStarts(out))
}
