package loader

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/contourc/contourc/loader/helmchart"
	"github.com/contourc/contourc/loader/walk"
)

// helmcharts.go: a Helm chart directory given as a path is rendered the
// way `helm template` renders it (package helmchart) and its documents
// are decoded like a file's, each at the template it came from. A chart
// met while walking a directory is not rendered (loader/walk skips it,
// with a notice that says how to render it): which values and release a
// chart is installed with is not in the chart, and a chart a Flux
// HelmRelease or an Argo CD Application installs is rendered through them.

// chartPaths takes out of paths the directories that hold a chart.
func chartPaths(paths []string) (plain, charts []string) {
	for _, p := range paths {
		if p != walk.StdinPath && isDir(p) && helmchart.IsChart(p) {
			charts = append(charts, p)
			continue
		}
		plain = append(plain, p)
	}
	return plain, charts
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// helmOptions are the options a chart is rendered with: Options.Helm, in
// the load's namespace unless it names its own.
func (o Options) helmOptions() helmchart.Options {
	var h helmchart.Options
	if o.Helm != nil {
		h = *o.Helm
	}
	if h.Namespace == "" {
		h.Namespace = o.Namespace
	}
	return h
}

// loadCharts renders and decodes the charts, one part each.
func loadCharts(charts []string, opts Options) ([]partResult, []Warning, []RenderedChart) {
	parts := make([]partResult, len(charts))
	warnings := make([][]Warning, len(charts))
	rendered := make([]RenderedChart, len(charts))
	forEachParallel(len(charts), func(i int) { parts[i], warnings[i], rendered[i] = loadChart(charts[i], opts) })
	var all []Warning
	for _, w := range warnings {
		all = append(all, w...)
	}
	return parts, all, rendered
}

// loadChart renders one chart given as a path.
func loadChart(dir string, opts Options) (partResult, []Warning, RenderedChart) {
	hopts := opts.helmOptions()
	via := fmt.Sprintf("chart %s, release %s/%s", filepath.ToSlash(dir), hopts.ReleaseNamespace(), hopts.Release())
	p, w, chart := renderChart(dir, hopts, via, opts)
	return p, w, RenderedChart{Dir: dir, Via: via, Chart: chart, Objects: len(p.objs) - countWorkloads(p.objs)}
}

// countWorkloads counts the workloads among objs: kept for finding Contour
// instances, they are not among the objects a run says it uses.
func countWorkloads(objs []Object) int {
	n := 0
	for _, o := range objs {
		if isWorkloadObject(o) {
			n++
		}
	}
	return n
}

// renderChart renders the chart in dir with hopts and decodes it; via is
// what each object's Source says it came through (a HelmRelease or an
// Argo CD Application following a chart says so here). The objects are in
// the release namespace when they name none, as helm install -n puts them;
// an object that names its own namespace keeps it, as Helm creates it
// there (its kube client defaults the namespace and does not require it,
// unlike kubectl apply -n, which refuses such an object).
//
// It returns the chart's name-version too.
func renderChart(dir string, hopts helmchart.Options, via string, opts Options) (partResult, []Warning, string) {
	r, err := helmchart.RenderChart(dir, hopts)
	if err != nil {
		return partResult{errs: []error{&Error{Source: Source{File: filepath.ToSlash(dir)}, Msg: "helm template failed: " + err.Error()}}}, nil, ""
	}
	var warnings []Warning
	for _, s := range r.Skipped {
		warnings = append(warnings, Warning{Source: Source{File: filepath.ToSlash(dir)},
			Msg: via + ": left out dependency " + s.Name + ": " + s.Reason, Skipped: true})
	}
	docOpts := opts
	docOpts.Namespace, docOpts.keepOwnNamespace = hopts.ReleaseNamespace(), true
	docOpts.Cache = nil // rendered text is decoded afresh each load
	p := partResult{skipped: map[string]int{}}
	parts := make([]partResult, len(r.Manifests))
	forEachParallel(len(parts), func(i int) { parts[i] = decodeManifest(r.Manifests[i], via, docOpts) })
	p.objs, p.errs = mergeParts(parts, p.skipped)
	p.sorted = sortedKeyed(p.objs)
	return p, warnings, r.Chart
}

// decodeManifest decodes one rendered document at its template: lines
// count from where the document starts in the template.
func decodeManifest(m helmchart.Manifest, via string, opts Options) partResult {
	p := partResult{skipped: map[string]int{}}
	objs, errs := loadFileText(m.File, m.Content, opts, p.skipped)
	shift := func(s Source) Source {
		s.Via = via
		if s.Line > 0 && m.Line > 1 {
			s.Line += m.Line - 1
		}
		return s
	}
	for i := range objs {
		objs[i].Source = shift(objs[i].Source)
	}
	for _, err := range errs {
		if e, ok := err.(*Error); ok {
			e.Source = shift(e.Source)
		}
	}
	p.objs, p.errs = objs, errs
	return p
}
