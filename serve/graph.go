package serve

// /debug/graph: the page `contourc graph -o html` writes, for the
// configuration being served.

import (
	"bytes"
	"net/http"

	"github.com/contourc/contourc/render/graph"
	"github.com/contourc/contourc/translate"
)

// graphFacts are what the graph needs beyond the served resources and
// status: the loaded objects' sources, includes and parents, and the
// notices (Services without endpoints), kept from the reload since the
// objects themselves are not.
type graphFacts struct {
	objects *graph.Objects
	notices []translate.Notice
}

// debugGraph draws the served configuration as a self-contained HTML page.
// Its sources are text, not links: the files are on serve's machine, not
// where the browser could open them.
func (s *Server) debugGraph(w http.ResponseWriter, _ *http.Request) {
	p := s.current.Load()
	if p == nil {
		http.Error(w, "no configuration loaded yet", http.StatusServiceUnavailable)
		return
	}
	g := graph.Build(graph.Input{Resources: p.snap.resources, Status: p.status, Notices: p.graph.notices, Objects: p.graph.objects})
	var buf bytes.Buffer
	if err := graph.WriteHTML(&buf, g, graph.HTMLOptions{Title: "contourc serve: version " + p.snap.version, NoLinks: true}); err != nil {
		http.Error(w, redactText(err.Error()), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Contourc-Version", p.snap.version)
	buf.WriteTo(w)
}
