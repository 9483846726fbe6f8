package routetest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteExplain prints a decision step by step for a person debugging a
// route: each step of the match, every route tried and why it did or did
// not match, then the action and what goes with it.
func WriteExplain(w io.Writer, d *Decision) error {
	ew := &errWriter{w: w}
	ew.printf("%-13s %s\n", "request:", describeRequest(d.Request))
	for _, s := range d.Steps {
		ew.printf("%-13s %s\n", s.Stage+":", s.Message)
	}
	if len(d.Routes) > 0 {
		ew.printf("routes (in order, the first match wins):\n")
		tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
		for _, r := range d.Routes {
			verdict := "no"
			if r.Matched {
				verdict = "MATCH"
			}
			src := "-"
			if r.Source != nil {
				src = r.Source.String()
			}
			reason := r.Reason
			if reason == "" {
				reason = "-"
			}
			fmt.Fprintf(tw, "  #%d\t%s\t%s\t%s\t%s\n", r.Index, verdict, r.Match, reason, src)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	ew.printf("%-13s %s\n", "action:", d.Action)
	for _, line := range detailLines(d) {
		ew.printf("  %s\n", line)
	}
	for _, n := range d.Notes {
		ew.printf("%-13s %s\n", "note:", n)
	}
	return ew.err
}

// Summary is a decision on one line: where the request went and why.
func Summary(d *Decision) string {
	var parts []string
	if d.Listener != "" {
		parts = append(parts, "listener "+d.Listener)
	}
	if d.VirtualHost != "" {
		parts = append(parts, "virtual host "+d.VirtualHost)
	}
	if d.RouteIndex >= 0 {
		r := fmt.Sprintf("route #%d", d.RouteIndex)
		if d.Source != nil {
			r += " of " + d.Source.String()
		}
		parts = append(parts, r)
	}
	parts = append(parts, d.Action.String())
	return strings.Join(parts, " -> ")
}

func describeRequest(r Request) string {
	s := fmt.Sprintf("%s %s://%s%s", r.Method, r.Scheme, r.Authority, r.Path)
	var extra []string
	if r.Listener != "" {
		extra = append(extra, "listener "+r.Listener)
	}
	if r.Port != 0 {
		extra = append(extra, fmt.Sprintf("port %d", r.Port))
	}
	switch {
	case r.SNI == nil:
	case *r.SNI == "":
		extra = append(extra, "no SNI")
	default:
		extra = append(extra, fmt.Sprintf("SNI %q", *r.SNI))
	}
	for _, h := range r.Headers {
		extra = append(extra, fmt.Sprintf("%s: %s", h.Name, h.Value))
	}
	if r.SourceAddress != "" {
		extra = append(extra, "from "+r.SourceAddress)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// detailLines are the particulars of the action: rewrites, timeouts,
// retries, mirrors, header changes, authorization.
func detailLines(d *Decision) []string {
	var out []string
	if f := d.Forwarding; f != nil {
		out = append(out, "upstream path: "+f.UpstreamPath)
		if f.PrefixRewrite != nil {
			out = append(out, fmt.Sprintf("prefix rewrite: %q", *f.PrefixRewrite))
		}
		if f.RegexRewrite != nil {
			out = append(out, fmt.Sprintf("regex rewrite: %q -> %q", f.RegexRewrite.Pattern, f.RegexRewrite.Substitution))
		}
		if f.HostRewrite != "" {
			out = append(out, "host rewrite: "+f.HostRewrite)
		}
		out = append(out, "timeout: "+f.Timeout)
		if f.IdleTimeout != "" {
			out = append(out, "idle timeout: "+f.IdleTimeout)
		}
		if r := f.Retry; r != nil {
			s := fmt.Sprintf("retry: on %q, %d time(s)", r.RetryOn, r.NumRetries)
			if r.PerTryTimeout != "" {
				s += ", per try timeout " + r.PerTryTimeout
			}
			if len(r.RetriableStatusCodes) > 0 {
				s += fmt.Sprintf(", status codes %v", r.RetriableStatusCodes)
			}
			out = append(out, s)
		}
		for _, m := range f.Mirrors {
			out = append(out, fmt.Sprintf("mirror: %s%% to %s", formatPercent(m.Percent), m.ClusterRef))
		}
		if len(f.Upgrades) > 0 {
			out = append(out, "upgrades: "+strings.Join(f.Upgrades, ", "))
		}
	}
	out = append(out, headerLines("request", d.RequestHeaders)...)
	out = append(out, headerLines("response", d.ResponseHeaders)...)
	if d.ExtAuthz != "" {
		out = append(out, "external authorization: "+d.ExtAuthz)
	}
	if f := d.IPFilter; f != nil {
		out = append(out, fmt.Sprintf("IP filter: %s %s: %s", f.Action, strings.Join(f.CIDRs, ", "), f.Verdict))
	}
	return out
}

func headerLines(dir string, h *HeaderChanges) []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, s := range h.Set {
		out = append(out, fmt.Sprintf("%s header set: %s: %s (%s, %s)", dir, s.Name, s.Value, s.From, strings.ToLower(s.Append)))
	}
	for _, r := range h.Remove {
		out = append(out, fmt.Sprintf("%s header removed: %s", dir, r))
	}
	return out
}

// errWriter keeps the first write error so that printing code stays flat.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
