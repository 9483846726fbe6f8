package routetest

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Compare checks a decision against a case's expectations and returns one
// message per mismatch, empty when the case passes.
func Compare(c Case, d *Decision) []string {
	e := c.Expect
	var out []string
	fail := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	if r := e.Route; r != nil {
		if msg := compareRoute(*r, d.Source, filepath.Dir(c.File)); msg != "" {
			fail("route: %s", msg)
		}
	}
	if acts := e.actions(); len(acts) == 1 && acts[0] != d.Action.Kind() {
		fail("action: want %s, got %s", acts[0], d.Action)
	} else {
		out = append(out, compareAction(e, d.Action)...)
	}
	out = append(out, compareForwarding(e, d)...)
	if e.RequestHeaders != nil {
		out = append(out, compareHeaders("requestHeaders", *e.RequestHeaders, d.RequestHeaders)...)
	}
	if e.ResponseHeaders != nil {
		out = append(out, compareHeaders("responseHeaders", *e.ResponseHeaders, d.ResponseHeaders)...)
	}
	if e.ExtAuthz != "" && e.ExtAuthz != d.ExtAuthz {
		fail("extAuthz: want %s, got %s", e.ExtAuthz, orNone(d.ExtAuthz))
	}
	if e.IPFilter != "" {
		got := "none"
		if d.IPFilter != nil {
			got = d.IPFilter.Verdict
		}
		if got != e.IPFilter {
			fail("ipFilter: want %s, got %s", e.IPFilter, got)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func compareRoute(want RouteExpect, got *Source, testDir string) string {
	if got == nil {
		return fmt.Sprintf("want %s, got no route", describeRouteExpect(want))
	}
	ok := (want.Kind == "" || strings.EqualFold(want.Kind, got.Kind)) &&
		(want.Namespace == "" || want.Namespace == got.Namespace) &&
		(want.Name == "" || want.Name == got.Name) &&
		(want.File == "" || sameFile(want.File, got.File, testDir)) &&
		(want.Line == 0 || want.Line == got.Line)
	if ok {
		return ""
	}
	return fmt.Sprintf("want %s, got %s", describeRouteExpect(want), got)
}

// describeRouteExpect says what a route expectation asks for, with "*"
// for what it leaves open: "HTTPProxy */www (proxy.yaml)".
func describeRouteExpect(r RouteExpect) string {
	var parts []string
	if r.Kind != "" {
		parts = append(parts, r.Kind)
	}
	if r.Namespace != "" || r.Name != "" {
		parts = append(parts, orAny(r.Namespace)+"/"+orAny(r.Name))
	}
	s := strings.Join(parts, " ")
	if s == "" {
		s = "a route"
	}
	switch {
	case r.File != "" && r.Line != 0:
		s += fmt.Sprintf(" (%s:%d)", r.File, r.Line)
	case r.File != "":
		s += " (" + r.File + ")"
	case r.Line != 0:
		s += fmt.Sprintf(" (line %d)", r.Line)
	}
	return s
}

func orAny(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// sameFile compares an expected file name with a source's: the same path
// from the working directory or from the test file's directory, or the
// same trailing path elements ("kuard.yaml" names examples/kuard.yaml).
func sameFile(want, got, testDir string) bool {
	if got == "" {
		return false
	}
	w, g := filepath.Clean(want), filepath.Clean(got)
	if w == g || filepath.Join(testDir, want) == g {
		return true
	}
	if aw, err := filepath.Abs(w); err == nil {
		if ag, err := filepath.Abs(g); err == nil && aw == ag {
			return true
		}
	}
	sep := string(filepath.Separator)
	return !filepath.IsAbs(w) && strings.HasSuffix(g, sep+w)
}

func compareAction(e Expect, a Action) []string {
	var out []string
	switch {
	case e.Cluster != nil && a.Cluster != nil:
		if !clusterMatches(*e.Cluster, *a.Cluster) {
			out = append(out, fmt.Sprintf("cluster: want %s, got %s", describeClusterExpect(*e.Cluster), a.Cluster))
		}
	case e.TCPProxy != nil && a.TCPProxy != nil:
		if a.TCPProxy.Cluster == nil || !clusterMatches(*e.TCPProxy, *a.TCPProxy.Cluster) {
			out = append(out, fmt.Sprintf("tcpProxy: want %s, got %s", describeClusterExpect(*e.TCPProxy), a))
		}
	case e.WeightedClusters != nil && a.WeightedClusters != nil:
		if msg := compareWeighted(e.WeightedClusters, a.WeightedClusters); msg != "" {
			out = append(out, "weightedClusters: "+msg)
		}
	case e.Redirect != nil && a.Redirect != nil:
		if e.Redirect.Status != 0 && e.Redirect.Status != a.Redirect.Status {
			out = append(out, fmt.Sprintf("redirect: want status %d, got %d", e.Redirect.Status, a.Redirect.Status))
		}
		if e.Redirect.Location != "" && e.Redirect.Location != a.Redirect.Location {
			out = append(out, fmt.Sprintf("redirect: want location %s, got %s", e.Redirect.Location, a.Redirect.Location))
		}
	case e.DirectResponse != nil && a.DirectResponse != nil:
		if e.DirectResponse.Status != 0 && e.DirectResponse.Status != a.DirectResponse.Status {
			out = append(out, fmt.Sprintf("directResponse: want status %d, got %d", e.DirectResponse.Status, a.DirectResponse.Status))
		}
		if e.DirectResponse.Body != nil && *e.DirectResponse.Body != a.DirectResponse.Body {
			out = append(out, fmt.Sprintf("directResponse: want body %q, got %q", *e.DirectResponse.Body, a.DirectResponse.Body))
		}
	}
	return out
}

// clusterMatches compares the given parts of a cluster expectation. A
// port matches by number or by the Service port's name.
func clusterMatches(want ClusterExpect, got ClusterRef) bool {
	if want.Name != "" && want.Name != got.Name {
		return false
	}
	if want.Service == "" {
		return true
	}
	ns, name, _ := strings.Cut(want.Service, "/")
	var gotNS, gotName string
	switch {
	case got.Service != nil:
		gotNS, gotName = got.Service.Namespace, got.Service.Name
	case got.ExtensionService != nil:
		gotNS, gotName = got.ExtensionService.Namespace, got.ExtensionService.Name
	default:
		return false
	}
	if ns != gotNS || name != gotName {
		return false
	}
	switch {
	case want.Port.IsZero():
		return true
	case got.Service == nil:
		return false
	case want.Port.Name != "":
		return want.Port.Name == got.Service.PortName
	}
	return want.Port.Number == got.Service.Port
}

func describeClusterExpect(c ClusterExpect) string {
	var parts []string
	if c.Service != "" {
		s := "Service " + c.Service
		if !c.Port.IsZero() {
			s += " port " + c.Port.String()
		}
		parts = append(parts, s)
	}
	if c.Name != "" {
		parts = append(parts, "cluster "+c.Name)
	}
	if c.Percent != nil {
		parts = append(parts, formatPercent(*c.Percent)+"%")
	}
	return strings.Join(parts, " ")
}

// compareWeighted wants the same clusters with the same shares (when
// given), in any order. Clusters with no share (weight 0) may be left out.
func compareWeighted(want []ClusterExpect, got []WeightedCluster) string {
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if used[i] || !clusterMatches(w, g.ClusterRef) {
				continue
			}
			if w.Percent != nil && math.Abs(*w.Percent-g.Percent) > percentTolerance {
				continue
			}
			used[i], found = true, true
			break
		}
		if !found {
			return fmt.Sprintf("want %s among %s", describeClusterExpect(w), weightedString(got))
		}
	}
	for i, g := range got {
		if !used[i] && g.Weight > 0 {
			return fmt.Sprintf("unexpected %s %s%% in %s", g.ClusterRef, formatPercent(g.Percent), weightedString(got))
		}
	}
	return ""
}

func compareForwarding(e Expect, d *Decision) []string {
	var out []string
	f := d.Forwarding
	need := e.UpstreamPath != nil || e.HostRewrite != nil || e.Timeout != "" || e.IdleTimeout != "" || e.Retry != nil || e.Mirrors != nil
	if !need {
		return nil
	}
	if f == nil {
		return []string{fmt.Sprintf("forwarding: the request is not forwarded (%s)", d.Action)}
	}
	if e.UpstreamPath != nil && *e.UpstreamPath != f.UpstreamPath {
		out = append(out, fmt.Sprintf("upstreamPath: want %s, got %s", *e.UpstreamPath, f.UpstreamPath))
	}
	if e.HostRewrite != nil && *e.HostRewrite != f.HostRewrite {
		out = append(out, fmt.Sprintf("hostRewrite: want %q, got %q", *e.HostRewrite, f.HostRewrite))
	}
	if e.Timeout != "" && !sameDuration(e.Timeout, f.Timeout) {
		out = append(out, fmt.Sprintf("timeout: want %s, got %s", e.Timeout, f.Timeout))
	}
	if e.IdleTimeout != "" && !sameDuration(e.IdleTimeout, f.IdleTimeout) {
		out = append(out, fmt.Sprintf("idleTimeout: want %s, got %s", e.IdleTimeout, orNone(f.IdleTimeout)))
	}
	if r := e.Retry; r != nil {
		switch {
		case f.Retry == nil:
			out = append(out, "retry: want a retry policy, got none")
		default:
			if r.RetryOn != nil && *r.RetryOn != f.Retry.RetryOn {
				out = append(out, fmt.Sprintf("retry.retryOn: want %q, got %q", *r.RetryOn, f.Retry.RetryOn))
			}
			if r.NumRetries != nil && uint32(*r.NumRetries) != f.Retry.NumRetries {
				out = append(out, fmt.Sprintf("retry.numRetries: want %d, got %d", *r.NumRetries, f.Retry.NumRetries))
			}
			if r.PerTryTimeout != "" && !sameDuration(r.PerTryTimeout, f.Retry.PerTryTimeout) {
				out = append(out, fmt.Sprintf("retry.perTryTimeout: want %s, got %s", r.PerTryTimeout, orNone(f.Retry.PerTryTimeout)))
			}
		}
	}
	if e.Mirrors != nil {
		got := make([]WeightedCluster, len(f.Mirrors))
		for i, m := range f.Mirrors {
			got[i] = WeightedCluster{ClusterRef: m.ClusterRef, Weight: 1, Percent: m.Percent}
		}
		if msg := compareWeighted(e.Mirrors, got); msg != "" {
			out = append(out, "mirrors: "+msg)
		}
	}
	return out
}

func sameDuration(want, got string) bool {
	w, err1 := time.ParseDuration(want)
	g, err2 := time.ParseDuration(got)
	return err1 == nil && err2 == nil && w == g
}

func compareHeaders(field string, want HeadersExpect, got *HeaderChanges) []string {
	if got == nil {
		got = &HeaderChanges{}
	}
	var out []string
	names := make([]string, 0, len(want.Set))
	for n := range want.Set {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v := want.Set[n]
		found := false
		var values []string
		for _, s := range got.Set {
			if strings.EqualFold(s.Name, n) {
				values = append(values, s.Value)
				found = found || s.Value == v
			}
		}
		if !found {
			if values == nil {
				out = append(out, fmt.Sprintf("%s: want %s set to %q, got not set", field, n, v))
			} else {
				out = append(out, fmt.Sprintf("%s: want %s set to %q, got %q", field, n, v, values))
			}
		}
	}
	for _, n := range want.Remove {
		if !slices.ContainsFunc(got.Remove, func(r string) bool { return strings.EqualFold(r, n) }) {
			out = append(out, fmt.Sprintf("%s: want %s removed, got removed %v", field, n, got.Remove))
		}
	}
	return out
}
