package diff

import (
	"fmt"
	"strings"
)

// Counts are how many things of one kind were added, removed and changed.
type Counts struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

func (c *Counts) count(op Op) {
	switch op {
	case Added:
		c.Added++
	case Removed:
		c.Removed++
	default:
		c.Changed++
	}
}

func (c Counts) total() int { return c.Added + c.Removed + c.Changed }

// StatusCounts are how many objects became invalid, recovered, or stayed
// invalid for other reasons.
type StatusCounts struct {
	Invalid   int `json:"invalid"`
	Recovered int `json:"recovered"`
	Reasons   int `json:"reasons"`
}

// Summary counts a report's changes by kind. Routes are counted one by one
// (a virtual host added with three routes adds three routes); virtual hosts
// count as changed when their own settings or route order changed.
type Summary struct {
	Status       StatusCounts `json:"status"`
	VirtualHosts Counts       `json:"virtualHosts"`
	Routes       Counts       `json:"routes"`
	Listeners    Counts       `json:"listeners"`
	Clusters     Counts       `json:"clusters"`
	Endpoints    Counts       `json:"endpoints"`
	Secrets      Counts       `json:"secrets"`
	Runtimes     Counts       `json:"runtimes"`
}

// Summarize counts the changes in r.
func Summarize(r *Report) Summary {
	var s Summary
	for _, l := range r.Listeners {
		s.Listeners.count(l.Op)
	}
	for _, v := range r.VirtualHosts {
		if v.Op != Changed || len(v.Fields) > 0 || v.OrderChanged {
			s.VirtualHosts.count(v.Op)
		}
		for _, rt := range v.Routes {
			s.Routes.count(rt.Op)
		}
	}
	for _, c := range r.Clusters {
		s.Clusters.count(c.Op)
	}
	for _, e := range r.Endpoints {
		s.Endpoints.count(e.Op)
	}
	for _, c := range r.Secrets {
		s.Secrets.count(c.Op)
	}
	for _, c := range r.Runtimes {
		s.Runtimes.count(c.Op)
	}
	for _, st := range r.Status {
		switch st.Change {
		case BecameInvalid:
			s.Status.Invalid++
		case Recovered:
			s.Status.Recovered++
		default:
			s.Status.Reasons++
		}
	}
	return s
}

// summaryRow is one kind of resource in a summary.
type summaryRow struct {
	label  string
	counts Counts
}

// rows lists the resource kinds of s in display order, those without
// changes left out.
func (s Summary) rows() []summaryRow {
	all := []summaryRow{
		{"virtual hosts", s.VirtualHosts},
		{"routes", s.Routes},
		{"listeners", s.Listeners},
		{"clusters", s.Clusters},
		{"endpoints", s.Endpoints},
		{"TLS certificates", s.Secrets},
		{"runtime", s.Runtimes},
	}
	var out []summaryRow
	for _, r := range all {
		if r.counts.total() > 0 {
			out = append(out, r)
		}
	}
	return out
}

// statusLine says how object validity changed, "" when it did not.
func (s Summary) statusLine() string {
	var parts []string
	if n := s.Status.Invalid; n > 0 {
		parts = append(parts, plural(n, "object")+" became invalid")
	}
	if n := s.Status.Reasons; n > 0 {
		parts = append(parts, plural(n, "invalid object")+" with new reasons")
	}
	if n := s.Status.Recovered; n > 0 {
		parts = append(parts, plural(n, "object")+" recovered")
	}
	return strings.Join(parts, ", ")
}

// String is the summary in one line, for the end of the text output.
func (s Summary) String() string {
	var parts []string
	if st := s.statusLine(); st != "" {
		parts = append(parts, st)
	}
	for _, r := range s.rows() {
		var ops []string
		for _, op := range []struct {
			n    int
			verb string
		}{{r.counts.Added, "added"}, {r.counts.Removed, "removed"}, {r.counts.Changed, "changed"}} {
			if op.n > 0 {
				ops = append(ops, fmt.Sprintf("%d %s", op.n, op.verb))
			}
		}
		parts = append(parts, r.label+" "+strings.Join(ops, ", "))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
