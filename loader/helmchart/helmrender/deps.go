package helmrender

import (
	"fmt"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/contourc/contourc/loader/helmchart"
)

// vendorLocalDependencies adds to c the dependencies of Chart.yaml that
// charts/ lacks but that are in the repository (repository "file://PATH"),
// as `helm dependency build` would copy them, and lists the others, which
// only a download would bring: helm template refuses the chart then
// (pkg/action CheckDependencies); contourc renders the rest and says what
// it left out. Subcharts are checked the same way.
// Each chart added is noted in dirs with its directory.
func vendorLocalDependencies(c *chart.Chart, dir string, dirs map[*chart.Chart]string) []helmchart.Skipped {
	var skipped []helmchart.Skipped
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	for _, dep := range c.Metadata.Dependencies {
		if have[dep.Name] {
			continue
		}
		name := dep.Name
		if dep.Alias != "" {
			name = dep.Alias
		}
		local, ok := strings.CutPrefix(dep.Repository, "file://")
		if !ok {
			skipped = append(skipped, helmchart.Skipped{Name: name, Reason: remoteReason(c, dep)})
			continue
		}
		if !filepath.IsAbs(local) {
			local = filepath.Join(dir, local)
		}
		sub, err := loader.Load(local)
		if err != nil {
			skipped = append(skipped, helmchart.Skipped{Name: name, Reason: fmt.Sprintf("dependency %s: %v", dep.Repository, err)})
			continue
		}
		c.AddDependency(sub)
		dirs[sub] = local
		have[dep.Name] = true
	}
	for _, d := range c.Dependencies() {
		sub, ok := dirs[d]
		if !ok {
			sub = filepath.Join(dir, "charts", d.Name())
		}
		for _, s := range vendorLocalDependencies(d, sub, dirs) {
			s.Name = d.Name() + "/" + s.Name
			skipped = append(skipped, s)
		}
	}
	return skipped
}

func remoteReason(c *chart.Chart, dep *chart.Dependency) string {
	from := "with no repository"
	if dep.Repository != "" {
		from = "from a remote repository " + dep.Repository
	}
	return fmt.Sprintf("chart %s %s %s is not in %s/charts/ (helm dependency build would download it; contourc does not)",
		dep.Name, dep.Version, from, c.Name())
}
