package routetest

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Coverage says which routes the test cases reached: for each virtual
// host of each route configuration, the routes that no case's request was
// decided by. A route is reached when it is the one Envoy chose for some
// case (the first match in the virtual host's order), so a route that an
// earlier one always shadows stays unreached however many cases try it.
type Coverage struct {
	Routes  int `json:"routes"`
	Reached int `json:"reached"`
	// Percent is Reached/Routes, rounded down to one decimal so that a
	// report never says 100.0 while a route is left; 100 without routes.
	Percent float64 `json:"percent"`
	// Minimum is --min-coverage, when given.
	Minimum *float64 `json:"minimum,omitempty"`
	// VirtualHosts are in the route configurations' name order, then in
	// the order of each configuration's virtual hosts.
	VirtualHosts []VirtualHostCoverage `json:"virtualHosts"`
}

// VirtualHostCoverage is the coverage of one virtual host's routes.
type VirtualHostCoverage struct {
	RouteConfig string  `json:"routeConfig"`
	VirtualHost string  `json:"virtualHost"`
	Routes      int     `json:"routes"`
	Reached     int     `json:"reached"`
	Percent     float64 `json:"percent"`
	// Unreached are the routes no case reached, in Envoy's order.
	Unreached []UnreachedRoute `json:"unreached,omitempty"`
}

// UnreachedRoute is a route no case reached.
type UnreachedRoute struct {
	Index  int     `json:"index"`
	Match  string  `json:"match"`
	Source *Source `json:"source,omitempty"`
}

func (u UnreachedRoute) String() string {
	s := fmt.Sprintf("route #%d (%s)", u.Index, u.Match)
	if u.Source != nil {
		s += " of " + u.Source.String()
	}
	return s
}

// routeKey names one route of one virtual host of one route configuration.
type routeKey struct {
	routeConfig, virtualHost string
	index                    int
}

// Coverage works out which of the configuration's routes the results
// reached.
func (c *Config) Coverage(results []Result) *Coverage {
	reached := map[routeKey]bool{}
	for _, r := range results {
		if d := r.Decision; d != nil && d.RouteIndex >= 0 {
			reached[routeKey{d.RouteConfig, d.VirtualHost, d.RouteIndex}] = true
		}
	}
	names := make([]string, 0, len(c.routeConfigs))
	for name := range c.routeConfigs {
		names = append(names, name)
	}
	slices.Sort(names)
	cov := &Coverage{VirtualHosts: []VirtualHostCoverage{}}
	for _, name := range names {
		for _, vh := range c.routeConfigs[name].GetVirtualHosts() {
			if len(vh.GetRoutes()) == 0 {
				continue
			}
			v := VirtualHostCoverage{RouteConfig: name, VirtualHost: vh.GetName(), Routes: len(vh.GetRoutes())}
			for i, route := range vh.GetRoutes() {
				if reached[routeKey{name, vh.GetName(), i}] {
					v.Reached++
					continue
				}
				v.Unreached = append(v.Unreached, UnreachedRoute{Index: i, Match: describeMatch(route.GetMatch()), Source: c.routeSource(route.GetMetadata())})
			}
			v.Percent = percent(v.Reached, v.Routes)
			cov.Routes += v.Routes
			cov.Reached += v.Reached
			cov.VirtualHosts = append(cov.VirtualHosts, v)
		}
	}
	cov.Percent = percent(cov.Reached, cov.Routes)
	return cov
}

// percent is part of whole in percent, rounded down to one decimal.
func percent(part, whole int) float64 {
	if whole == 0 {
		return 100
	}
	return math.Floor(float64(part)*1000/float64(whole)) / 10
}

// Below reports whether the coverage is under min percent, compared
// exactly (not on the rounded Percent).
func (cov *Coverage) Below(min float64) bool {
	return float64(cov.Reached)*100 < min*float64(cov.Routes)
}

// WriteCoverageText writes the coverage after WriteText's report: the
// total, then each virtual host with the routes no case reached.
func WriteCoverageText(w io.Writer, cov *Coverage) error {
	ew := &errWriter{w: w}
	ew.printf("coverage: %d of %d route(s) reached (%.1f%%)\n", cov.Reached, cov.Routes, cov.Percent)
	for _, v := range cov.VirtualHosts {
		ew.printf("  %s %s: %d of %d (%.1f%%)\n", v.RouteConfig, v.VirtualHost, v.Reached, v.Routes, v.Percent)
		for _, u := range v.Unreached {
			ew.printf("    not reached: %s\n", u)
		}
	}
	if cov.Minimum != nil && cov.Below(*cov.Minimum) {
		ew.printf("FAIL: coverage %.1f%% is below --min-coverage %g%%\n", cov.Percent, *cov.Minimum)
	}
	return ew.err
}

// junitCoverage is coverage as a JUnit test suite: one case per virtual
// host, which lists its unreached routes, and with --min-coverage one case
// that fails when the total is below it.
func junitCoverage(cov *Coverage) junitSuite {
	s := junitSuite{Name: "route coverage", Properties: &junitProperties{Items: []junitProperty{
		{Name: "routes", Value: fmt.Sprint(cov.Routes)},
		{Name: "reached", Value: fmt.Sprint(cov.Reached)},
		{Name: "percent", Value: fmt.Sprintf("%.1f", cov.Percent)},
	}}}
	for _, v := range cov.VirtualHosts {
		jc := junitCase{Name: v.RouteConfig + " " + v.VirtualHost, Classname: "route coverage"}
		var lines []string
		lines = append(lines, fmt.Sprintf("%d of %d route(s) reached (%.1f%%)", v.Reached, v.Routes, v.Percent))
		for _, u := range v.Unreached {
			lines = append(lines, "not reached: "+u.String())
		}
		jc.SystemOut = strings.Join(lines, "\n")
		s.Cases = append(s.Cases, jc)
		s.Tests++
	}
	if cov.Minimum != nil {
		jc := junitCase{Name: fmt.Sprintf("min-coverage %g%%", *cov.Minimum), Classname: "route coverage"}
		if cov.Below(*cov.Minimum) {
			msg := fmt.Sprintf("coverage %.1f%% is below --min-coverage %g%%", cov.Percent, *cov.Minimum)
			jc.Failure = &junitProblem{Message: msg, Type: "coverage", Text: msg}
			s.Failures++
		}
		s.Cases = append(s.Cases, jc)
		s.Tests++
	}
	return s
}

type junitProperties struct {
	Items []junitProperty `xml:"property"`
}

type junitProperty struct {
	XMLName xml.Name `xml:"property"`
	Name    string   `xml:"name,attr"`
	Value   string   `xml:"value,attr"`
}

// Merge is the coverage of several configurations taken together (one
// per Contour instance), each virtual host's route configuration prefixed
// with its configuration's name.
func Merge(names []string, covs []*Coverage) *Coverage {
	out := &Coverage{VirtualHosts: []VirtualHostCoverage{}}
	for i, c := range covs {
		for _, v := range c.VirtualHosts {
			v.RouteConfig = names[i] + " " + v.RouteConfig
			out.VirtualHosts = append(out.VirtualHosts, v)
		}
		out.Routes += c.Routes
		out.Reached += c.Reached
	}
	out.Percent = percent(out.Reached, out.Routes)
	return out
}
