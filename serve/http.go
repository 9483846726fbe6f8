package serve

// The HTTP endpoints: liveness and readiness for a supervisor or a load
// balancer, Prometheus metrics, and debug views of what is being served.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /debug/xds", s.debugXDS)
	mux.HandleFunc("GET /debug/status", s.debugStatus)
	mux.HandleFunc("GET /debug/reload", s.debugReload)
	mux.HandleFunc("GET /debug/graph", s.debugGraph)
	return mux
}

// readyz is ready once a configuration is being served, and stays ready
// when a later reload fails: Envoys are still served the last good one. A
// reload abandoned at its deadline is different: serve cannot read its
// files, and whatever they now say is not being served, which a supervisor
// should hear about.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	p := s.current.Load()
	last := s.reports.last()
	switch {
	case p == nil:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not ready: no configuration loaded yet")
	case last.Abandoned:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "not ready: %s\nstill serving version %s, perhaps out of date\n", firstOr(last.Errors, "no reason given"), p.snap.version)
	default:
		fmt.Fprintf(w, "ready: serving version %s\n", p.snap.version)
	}
	if !last.OK && !last.Time.IsZero() {
		fmt.Fprintf(w, "the last reload failed with %d error(s); see /debug/reload\n", len(last.Errors))
	}
}

func firstOr(lines []string, none string) string {
	if len(lines) == 0 {
		return none
	}
	return lines[0]
}

// debugXDS shows the served resources as `contourc render -o json` prints
// them, private keys replaced by [REDACTED].
func (s *Server) debugXDS(w http.ResponseWriter, _ *http.Request) {
	p := s.current.Load()
	if p == nil {
		http.Error(w, "no configuration loaded yet", http.StatusServiceUnavailable)
		return
	}
	r, err := redactedResources(p.snap.resources)
	if err != nil {
		http.Error(w, redactText(err.Error()), http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := render.JSON(&buf, r); err != nil {
		http.Error(w, redactText(err.Error()), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Contourc-Version", p.snap.version)
	buf.WriteTo(w)
}

// debugStatus shows the status of each object as `contourc check -o json`
// prints it.
func (s *Server) debugStatus(w http.ResponseWriter, _ *http.Request) {
	p := s.current.Load()
	if p == nil {
		http.Error(w, "no configuration loaded yet", http.StatusServiceUnavailable)
		return
	}
	list := p.status
	if list == nil {
		list = []translate.ObjectStatus{}
	}
	writeJSON(w, list)
}

// debugReload shows how the last reload went, with every error when it
// failed.
func (s *Server) debugReload(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, s.reports.last())
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}
