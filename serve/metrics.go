package serve

// Prometheus metrics, on a registry of the server's own (not the global
// one), so that servers in one process (tests) do not share counters.
// Every label has a small fixed set of values, except the snapshot version,
// of which only the current one is kept.

import (
	"time"

	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	registry *prometheus.Registry

	reloads        prometheus.Counter
	reloadFailures prometheus.Counter
	lastReloadOK   prometheus.Gauge
	lastSuccess    prometheus.Gauge
	reloadDuration prometheus.Histogram
	snapshotInfo   *prometheus.GaugeVec
	streams        *prometheus.GaugeVec
	nacks          *prometheus.CounterVec
	objects        *prometheus.GaugeVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		reloads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contourc_reloads_total",
			Help: "Reloads of the input files attempted, successful or not.",
		}),
		reloadFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "contourc_reload_failures_total",
			Help: "Reloads that failed; the last good configuration was kept.",
		}),
		lastReloadOK: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "contourc_last_reload_successful",
			Help: "1 if the last reload succeeded, 0 if it failed (see the log or /debug/reload).",
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "contourc_last_reload_success_timestamp_seconds",
			Help: "When the last successful reload finished, in seconds since the epoch.",
		}),
		reloadDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "contourc_reload_duration_seconds",
			Help:    "Time to load, translate and validate the input, successful or not.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		snapshotInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contourc_snapshot_info",
			Help: "The version of the configuration being served (1 for the current one only).",
		}, []string{"version"}),
		streams: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contourc_xds_streams",
			Help: "Open xDS streams, by type (ads for aggregated streams) and protocol (sotw or delta).",
		}, []string{"type", "mode"}),
		nacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "contourc_xds_nacks_total",
			Help: "Responses a client rejected (NACKed), by xDS type URL; each is counted, though each client's rejection of a version is logged once.",
		}, []string{"type_url"}),
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "contourc_objects",
			Help: "Objects in the last successful reload, by kind and validity (valid=false: Contour would mark it invalid or not accepted).",
		}, []string{"kind", "valid"}),
	}
	m.registry.MustRegister(m.reloads, m.reloadFailures, m.lastReloadOK, m.lastSuccess,
		m.reloadDuration, m.snapshotInfo, m.streams, m.nacks, m.objects,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Zeros rather than absent series, so dashboards and alerts see them.
	for _, t := range append([]string{"ads"}, typeLabels()...) {
		for _, mode := range []string{"sotw", "delta"} {
			m.streams.WithLabelValues(t, mode)
		}
	}
	for _, t := range servedTypes {
		m.nacks.WithLabelValues(t)
	}
	return m
}

// reloaded records a reload attempt.
func (m *metrics) reloaded(d time.Duration, ok bool) {
	m.reloads.Inc()
	m.reloadDuration.Observe(d.Seconds())
	if !ok {
		m.reloadFailures.Inc()
		m.lastReloadOK.Set(0)
		return
	}
	m.lastReloadOK.Set(1)
	m.lastSuccess.SetToCurrentTime()
}

// serving records the version being served.
func (m *metrics) serving(version string) {
	m.snapshotInfo.Reset()
	m.snapshotInfo.WithLabelValues(version).Set(1)
}

// objectCount is how many objects of a kind a reload read.
type objectCount struct {
	kind  string
	valid bool
	n     int
}

// counted replaces the object counts with those of the last good reload.
func (m *metrics) counted(counts []objectCount) {
	m.objects.Reset()
	for _, c := range counts {
		valid := "true"
		if !c.valid {
			valid = "false"
		}
		m.objects.WithLabelValues(c.kind, valid).Set(float64(c.n))
	}
}

// typeLabel names an xDS type in metrics and logs: "cluster" rather than a
// type URL, "ads" for an aggregated stream (which carries every type).
func typeLabel(typeURL string) string {
	switch typeURL {
	case resourcev3.AnyType:
		return "ads"
	case resourcev3.ListenerType:
		return "listener"
	case resourcev3.RouteType:
		return "route"
	case resourcev3.ClusterType:
		return "cluster"
	case resourcev3.EndpointType:
		return "endpoint"
	case resourcev3.SecretType:
		return "secret"
	case resourcev3.RuntimeType:
		return "runtime"
	}
	return "other"
}

func typeLabels() []string {
	out := make([]string, len(servedTypes))
	for i, t := range servedTypes {
		out[i] = typeLabel(t)
	}
	return out
}
