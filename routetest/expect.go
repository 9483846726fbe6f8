package routetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Expect is what a case expects of the decision. Every field is optional;
// only what is given is checked. At most one action (cluster,
// weightedClusters, redirect, directResponse, noMatch, denied, tcpProxy)
// may be given.
type Expect struct {
	Route            *RouteExpect          `yaml:"route" json:"route,omitempty"`
	Cluster          *ClusterExpect        `yaml:"cluster" json:"cluster,omitempty"`
	WeightedClusters []ClusterExpect       `yaml:"weightedClusters" json:"weightedClusters,omitempty"`
	Redirect         *RedirectExpect       `yaml:"redirect" json:"redirect,omitempty"`
	DirectResponse   *DirectResponseExpect `yaml:"directResponse" json:"directResponse,omitempty"`
	NoMatch          bool                  `yaml:"noMatch" json:"noMatch,omitempty"`
	Denied           bool                  `yaml:"denied" json:"denied,omitempty"`
	TCPProxy         *ClusterExpect        `yaml:"tcpProxy" json:"tcpProxy,omitempty"`
	RequestHeaders   *HeadersExpect        `yaml:"requestHeaders" json:"requestHeaders,omitempty"`
	ResponseHeaders  *HeadersExpect        `yaml:"responseHeaders" json:"responseHeaders,omitempty"`
	UpstreamPath     *string               `yaml:"upstreamPath" json:"upstreamPath,omitempty"`
	HostRewrite      *string               `yaml:"hostRewrite" json:"hostRewrite,omitempty"`
	Timeout          string                `yaml:"timeout" json:"timeout,omitempty"`
	IdleTimeout      string                `yaml:"idleTimeout" json:"idleTimeout,omitempty"`
	Retry            *RetryExpect          `yaml:"retry" json:"retry,omitempty"`
	Mirrors          []ClusterExpect       `yaml:"mirrors" json:"mirrors,omitempty"`
	ExtAuthz         string                `yaml:"extAuthz" json:"extAuthz,omitempty"`
	IPFilter         string                `yaml:"ipFilter" json:"ipFilter,omitempty"`
}

// RouteExpect names the object the chosen route should come from.
type RouteExpect struct {
	Kind      string `yaml:"kind" json:"kind,omitempty"`
	Namespace string `yaml:"namespace" json:"namespace,omitempty"`
	Name      string `yaml:"name" json:"name,omitempty"`
	File      string `yaml:"file" json:"file,omitempty"`
	Line      int    `yaml:"line" json:"line,omitempty"`
}

// ClusterExpect names a cluster by Envoy name or by Service and port.
type ClusterExpect struct {
	Name    string   `yaml:"name" json:"name,omitempty"`
	Service string   `yaml:"service" json:"service,omitempty"` // namespace/name
	Port    PortRef  `yaml:"port" json:"port,omitzero"`
	Percent *float64 `yaml:"percent" json:"percent,omitempty"`
}

// RedirectExpect is an expected redirect.
type RedirectExpect struct {
	Status   int    `yaml:"status" json:"status,omitempty"`
	Location string `yaml:"location" json:"location,omitempty"`
}

// DirectResponseExpect is an expected direct response.
type DirectResponseExpect struct {
	Status int     `yaml:"status" json:"status,omitempty"`
	Body   *string `yaml:"body" json:"body,omitempty"`
}

// HeadersExpect lists headers that must be set (with these values) and
// removed; other changes are allowed.
type HeadersExpect struct {
	Set    map[string]string `yaml:"set" json:"set,omitempty"`
	Remove []string          `yaml:"remove" json:"remove,omitempty"`
}

// RetryExpect is an expected retry policy.
type RetryExpect struct {
	RetryOn       *string `yaml:"retryOn" json:"retryOn,omitempty"`
	NumRetries    *int    `yaml:"numRetries" json:"numRetries,omitempty"`
	PerTryTimeout string  `yaml:"perTryTimeout" json:"perTryTimeout,omitempty"`
}

// percentTolerance absorbs rounding in written percentages (33.33).
const percentTolerance = 0.01

func (p PortRef) MarshalJSON() ([]byte, error) {
	if p.Name != "" {
		return json.Marshal(p.Name)
	}
	return json.Marshal(p.Number)
}

// actions lists the action expectations that are set.
func (e Expect) actions() []string {
	var set []string
	add := func(ok bool, name string) {
		if ok {
			set = append(set, name)
		}
	}
	add(e.Cluster != nil, "cluster")
	add(e.WeightedClusters != nil, "weightedClusters")
	add(e.Redirect != nil, "redirect")
	add(e.DirectResponse != nil, "directResponse")
	add(e.NoMatch, "noMatch")
	add(e.Denied, "denied")
	add(e.TCPProxy != nil, "tcpProxy")
	return set
}

// check validates the expectations themselves.
func (e Expect) check() []string {
	var errs []string
	acts := e.actions()
	if len(acts) > 1 {
		errs = append(errs, fmt.Sprintf("expect has several actions (%s): give one", strings.Join(acts, ", ")))
	}
	if len(acts) == 0 && e.Route == nil && e.RequestHeaders == nil && e.ResponseHeaders == nil && e.UpstreamPath == nil &&
		e.HostRewrite == nil && e.Timeout == "" && e.IdleTimeout == "" && e.Retry == nil && e.Mirrors == nil && e.ExtAuthz == "" && e.IPFilter == "" {
		errs = append(errs, "expect is empty: say what should happen")
	}
	if e.NoMatch && e.Route != nil {
		errs = append(errs, "expect has both noMatch and route")
	}
	checkCluster := func(where string, c ClusterExpect, percent bool) {
		if c.Name == "" && c.Service == "" {
			errs = append(errs, where+": give name or service")
		}
		if c.Service != "" {
			if ns, n, ok := strings.Cut(c.Service, "/"); !ok || ns == "" || n == "" || strings.Contains(n, "/") {
				errs = append(errs, fmt.Sprintf("%s.service %q: want namespace/name", where, c.Service))
			}
		}
		if c.Percent != nil && !percent {
			errs = append(errs, where+".percent is only for weightedClusters and mirrors")
		}
	}
	if e.Cluster != nil {
		checkCluster("expect.cluster", *e.Cluster, false)
	}
	if e.TCPProxy != nil {
		checkCluster("expect.tcpProxy", *e.TCPProxy, false)
	}
	for i, c := range e.WeightedClusters {
		checkCluster(fmt.Sprintf("expect.weightedClusters[%d]", i), c, true)
	}
	for i, c := range e.Mirrors {
		checkCluster(fmt.Sprintf("expect.mirrors[%d]", i), c, true)
	}
	if e.Redirect != nil && e.Redirect.Status != 0 && !slices.Contains([]int{301, 302, 303, 307, 308}, e.Redirect.Status) {
		errs = append(errs, fmt.Sprintf("expect.redirect.status %d is not a redirect status", e.Redirect.Status))
	}
	for _, d := range []struct{ name, value string }{
		{"timeout", e.Timeout}, {"idleTimeout", e.IdleTimeout}, {"retry.perTryTimeout", e.retryPerTry()},
	} {
		if d.value == "" {
			continue
		}
		if _, err := time.ParseDuration(d.value); err != nil {
			errs = append(errs, fmt.Sprintf("expect.%s %q is not a duration (like 30s or 1m30s)", d.name, d.value))
		}
	}
	if e.ExtAuthz != "" && e.ExtAuthz != "enabled" && e.ExtAuthz != "disabled" {
		errs = append(errs, fmt.Sprintf("expect.extAuthz %q: want enabled or disabled", e.ExtAuthz))
	}
	if e.IPFilter != "" && !slices.Contains([]string{"allowed", "denied", "unknown", "none"}, e.IPFilter) {
		errs = append(errs, fmt.Sprintf("expect.ipFilter %q: want allowed, denied, unknown or none", e.IPFilter))
	}
	return errs
}

func (e Expect) retryPerTry() string {
	if e.Retry == nil {
		return ""
	}
	return e.Retry.PerTryTimeout
}
