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
	return mux
}

// readyz is ready once a configuration is being served, and stays ready
// when a later reload fails: Envoys are still served the last good one.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	p := s.current.Load()
	last := s.reports.last()
	if p == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not ready: no configuration loaded yet")
	} else {
		fmt.Fprintf(w, "ready: serving version %s\n", p.snap.version)
	}
	if !last.OK && !last.Time.IsZero() {
		fmt.Fprintf(w, "the last reload failed with %d error(s); see /debug/reload\n", len(last.Errors))
	}
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
