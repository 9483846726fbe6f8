package httpproxy

import (
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The state the include walk carries down an include chain, kept so that
// each step costs time and memory for what it adds, not for the depth it
// is at: a chain 4,000 deep copied its list of ancestors and of conditions
// at every step, and merged every route's conditions from the top, which
// took 76 s and 1.6 GB (issue 23).

// includePath is the chain of HTTPProxies from a root to the one being
// visited, for Contour's cycle check: an HTTPProxy included by one of its
// own descendants is an IncludeCreatesCycle. The same HTTPProxy reached
// twice along different branches is no cycle, and is visited twice, as in
// Contour.
type includePath struct {
	names []types.NamespacedName
	on    map[types.NamespacedName]bool
}

// contains reports whether key is on the path: a set lookup, where
// scanning the path made a chain's walk quadratic in its depth.
func (p *includePath) contains(key types.NamespacedName) bool { return p.on[key] }

// push adds key, which is not on the path, at its end.
func (p *includePath) push(key types.NamespacedName) {
	if p.on == nil {
		p.on = map[types.NamespacedName]bool{}
	}
	p.names = append(p.names, key)
	p.on[key] = true
}

// pop takes the last HTTPProxy off the path, when its visit is over.
func (p *includePath) pop() {
	last := len(p.names) - 1
	delete(p.on, p.names[last])
	p.names = p.names[:last]
}

// cycle is Contour's description of the cycle closed by including key
// again: the path, then key.
func (p *includePath) cycle(key types.NamespacedName) string {
	var b strings.Builder
	for _, v := range p.names {
		b.WriteString(v.String())
		b.WriteString(" -> ")
	}
	b.WriteString(key.String())
	return b.String()
}

// includeConditions are the conditions of the includes from a root down
// to the proxy being visited, with the path prefixes already joined:
// includes may only have prefix, header and query conditions (exact and
// regex paths are refused on them), so joining the prefixes as the chain
// grows gives the path every merge of the whole chain would give, once
// per step instead of once per route, from the top.
type includeConditions struct {
	prefix string                     // the chain's prefix conditions, concatenated
	others []contourv1.MatchCondition // its header and query conditions, parents first
}

// with is c extended by the conditions of one more include. c is not
// changed: its siblings' includes extend it too.
func (c includeConditions) with(conds []contourv1.MatchCondition) includeConditions {
	out := includeConditions{prefix: c.prefix, others: c.others}
	copied := false
	for _, cond := range conds {
		out.prefix += cond.Prefix
		if cond.Header == nil && cond.QueryParameter == nil {
			continue
		}
		if !copied {
			// Copied before appending, so that siblings do not share
			// (and overwrite) one backing array.
			out.others = append(make([]contourv1.MatchCondition, 0, len(c.others)+len(conds)), c.others...)
			copied = true
		}
		cond.Prefix = "" // counted in prefix already
		out.others = append(out.others, cond)
	}
	return out
}

// conditions are the chain's conditions followed by a route's own, for
// the merges and checks of one route: the joined prefix stands for the
// chain's prefix conditions.
func (c includeConditions) conditions(own []contourv1.MatchCondition) []contourv1.MatchCondition {
	out := make([]contourv1.MatchCondition, 0, 1+len(c.others)+len(own))
	if c.prefix != "" {
		out = append(out, contourv1.MatchCondition{Prefix: c.prefix})
	}
	out = append(out, c.others...)
	return append(out, own...)
}
