package httpproxy

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"

	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/httpheader"
)

// Header policies of HTTPProxy routes and services: header names are
// canonicalised, literal "%" in values escaped for Envoy, Contour's
// %CONTOUR_*% variables substituted, and a set Host header becomes a host
// rewrite.

// headersPolicy converts a route or service header policy; allowHost says
// whether Host may be set (request headers only).
func headersPolicy(p *contourv1.HeadersPolicy, allowHost bool, dynamic map[string]string) (*dag.HeadersPolicy, error) {
	if p == nil {
		return nil, nil
	}
	out := &dag.HeadersPolicy{}
	set := map[string]string{}
	for _, h := range p.Set {
		key := http.CanonicalHeaderKey(h.Name)
		if _, dup := set[key]; dup {
			return nil, fmt.Errorf("duplicate header addition: %q", key)
		}
		if key == "Host" {
			if !allowHost {
				return nil, fmt.Errorf("rewriting %q header is not supported", key)
			}
			if m := httpheader.HostRewriteValue().FindStringSubmatch(h.Value); m != nil {
				out.HostRewriteHeader = http.CanonicalHeaderKey(strings.TrimSpace(m[1]))
			} else {
				out.HostRewrite = h.Value
			}
			continue
		}
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid set header %q: %v", key, msgs)
		}
		if err := httpheader.ValidValue(key, h.Value); err != nil {
			return nil, err
		}
		set[key] = httpheader.EscapeValue(h.Value, dynamic)
	}
	removed := map[string]bool{}
	for _, name := range p.Remove {
		key := http.CanonicalHeaderKey(name)
		if removed[key] {
			return nil, fmt.Errorf("duplicate header removal: %q", key)
		}
		if msgs := httpheader.NameProblems(key); len(msgs) != 0 {
			return nil, fmt.Errorf("invalid remove header %q: %v", key, msgs)
		}
		removed[key] = true
		out.Remove = append(out.Remove, key)
	}
	sort.Strings(out.Remove)
	if len(set) > 0 {
		out.Set = set
	}
	return out, nil
}
