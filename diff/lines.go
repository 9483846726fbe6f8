package diff

import (
	"fmt"
	"reflect"
	"strings"
)

// The text and markdown outputs share one layout: sections of lines, each
// line marked like a diff (+ added, - removed, ~ changed, blank for
// details) and indented under what it belongs to.

const (
	markAdd    = '+'
	markRemove = '-'
	markChange = '~'
	markDetail = ' '
)

type line struct {
	mark  byte
	depth int
	text  string
}

type section struct {
	title string
	lines []line
}

var opMarks = map[Op]byte{Added: markAdd, Removed: markRemove, Changed: markChange}

// layout turns a report into sections, problems first.
func layout(r *Report) []section {
	var out []section
	add := func(title string, lines []line) {
		if len(lines) > 0 {
			out = append(out, section{title, lines})
		}
	}
	add("Status", statusLines(r.Status))
	add("Routes", routeLines(r.VirtualHosts))
	add("Listeners", listenerLines(r.Listeners))
	add("Clusters", clusterLines(r.Clusters))
	add("Endpoints", endpointLines(r.Endpoints))
	add("TLS certificates", secretLines(r.Secrets))
	add("Runtime", runtimeLines(r.Runtimes))
	return out
}

func fieldLines(depth int, fields []FieldChange) []line {
	out := make([]line, 0, len(fields))
	for _, f := range fields {
		out = append(out, line{markDetail, depth, fmt.Sprintf("%s: %s → %s", f.Path, orNoneText(f.Old), orNoneText(f.New))})
	}
	return out
}

func orNoneText(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func statusLines(changes []StatusChange) []line {
	var out []line
	for _, c := range changes {
		mark := byte(markChange)
		switch c.Change {
		case BecameInvalid:
			mark = markRemove
		case Recovered:
			mark = markAdd
		}
		text := fmt.Sprintf("%s %s: %s → %s", c.Kind, qualified(c.Namespace, c.Name), orText(c.OldVerdict, "(absent)"), orText(c.NewVerdict, "(absent)"))
		if c.Source != "" {
			text += " at " + c.Source
		}
		out = append(out, line{mark, 0, text})
		for _, r := range c.Reasons {
			out = append(out, line{markDetail, 1, r})
		}
		if c.Change != BecameInvalid {
			for _, r := range c.OldReasons {
				out = append(out, line{markDetail, 1, "was: " + r})
			}
		}
	}
	return out
}

func routeLines(vhosts []VirtualHostChange) []line {
	var out []line
	for _, v := range vhosts {
		out = append(out, line{opMarks[v.Op], 0, vhostTitle(v)})
		out = append(out, fieldLines(1, v.Fields)...)
		if v.OrderChanged {
			out = append(out, line{markDetail, 1, "route order changed (Envoy uses the first route that matches)"})
		}
		for _, rt := range v.Routes {
			out = append(out, line{opMarks[rt.Op], 1, rt.Match + " → " + rt.Action})
			if rt.OldAction != "" {
				out = append(out, line{markDetail, 2, "was: " + rt.OldAction})
			}
			out = append(out, fieldLines(2, rt.Fields)...)
		}
	}
	return out
}

// vhostTitle names a virtual host by listener and host name, and its route
// configuration when its name does not follow from those.
func vhostTitle(v VirtualHostChange) string {
	if v.VirtualHost == "" {
		return strings.TrimSpace(v.Listener + " route configuration " + v.RouteConfig)
	}
	title := v.VirtualHost
	if v.Listener != "" {
		title = v.Listener + " " + title
	}
	// Contour names a route configuration after its listener, or after the
	// TLS listener (or "https") and the host; only other names are told.
	if v.RouteConfig != v.Listener && !strings.HasSuffix(v.RouteConfig, "/"+v.VirtualHost) {
		title += " (route configuration " + v.RouteConfig + ")"
	}
	return title
}

func listenerLines(ls []ListenerChange) []line {
	var out []line
	for _, l := range ls {
		out = append(out, line{opMarks[l.Op], 0, strings.TrimSpace(l.Name + " " + l.Address)})
		out = append(out, fieldLines(1, l.Fields)...)
		for _, fc := range l.FilterChains {
			out = append(out, line{opMarks[fc.Op], 1, "filter chain " + fc.Match})
			out = append(out, fieldLines(2, fc.Fields)...)
		}
	}
	return out
}

func clusterLines(cs []ClusterChange) []line {
	var out []line
	for _, c := range cs {
		text := c.Name
		if c.OldName != "" {
			text += " (was " + c.OldName + ")"
		}
		if c.Op != Changed && c.Summary != "" {
			text += ": " + c.Summary
		}
		out = append(out, line{opMarks[c.Op], 0, text})
		out = append(out, fieldLines(1, c.Fields)...)
	}
	return out
}

func endpointLines(es []EndpointsChange) []line {
	var out []line
	for _, e := range es {
		text := fmt.Sprintf("%s: %s", e.Name, plural(e.NewCount, "endpoint"))
		switch {
		case e.Op == Removed:
			text = fmt.Sprintf("%s: %s", e.Name, plural(e.OldCount, "endpoint"))
		case e.Op == Changed && e.OldCount != e.NewCount:
			text = fmt.Sprintf("%s: %d → %s", e.Name, e.OldCount, plural(e.NewCount, "endpoint"))
		}
		out = append(out, line{opMarks[e.Op], 0, text})
		if e.Op == Changed {
			for _, a := range e.Added {
				out = append(out, line{markAdd, 1, a})
			}
			for _, a := range e.Removed {
				out = append(out, line{markRemove, 1, a})
			}
		}
		out = append(out, fieldLines(1, e.Fields)...)
	}
	return out
}

func secretLines(ss []SecretChange) []line {
	var out []line
	for _, s := range ss {
		text := s.Name + " (" + s.Type + ")"
		if s.OldName != "" {
			text = s.Name + " (" + s.Type + ", was " + s.OldName + ")"
		}
		out = append(out, line{opMarks[s.Op], 0, text})
		// A secret renamed or changed in its settings may keep its
		// certificate: then the certificate is not repeated.
		if s.Op != Changed || !reflect.DeepEqual(s.Old, s.New) {
			if s.Old != nil {
				out = append(out, line{markRemove, 1, s.Old.String()})
			}
			if s.New != nil {
				out = append(out, line{markAdd, 1, s.New.String()})
			}
		}
		if s.OldKey != nil || s.NewKey != nil {
			out = append(out, line{markChange, 1, "private key changed: " + s.OldKey.String() + " → " + s.NewKey.String()})
		}
		out = append(out, fieldLines(1, s.Fields)...)
	}
	return out
}

func runtimeLines(rs []RuntimeChange) []line {
	var out []line
	for _, r := range rs {
		out = append(out, line{opMarks[r.Op], 0, r.Name})
		out = append(out, fieldLines(1, r.Fields)...)
	}
	return out
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
