package dag

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Route ordering within a virtual host, as Contour's sorter orders routes
// before handing them to Envoy (first match wins in Envoy):
//
//  1. exact paths, then regexes, then prefixes;
//  2. exact paths: lexicographically greater first;
//  3. regexes and prefixes: longer first, then lexicographically greater
//     first; for equal prefixes a segment prefix precedes a string prefix;
//  4. equal paths: a route matching :method first, then more header
//     conditions, more query conditions, lower priority, then the first
//     differing header/query condition pair.
//
// Contour sorts routes held in a Go map, so routes its comparison considers
// equal come out in random order. contourc first orders routes by their
// condition key, which makes the result deterministic.

// sortKeyedRoutes sorts routes, each with its ConditionsKey (a virtual
// host keys its routes by it), in Envoy match order.
func sortKeyedRoutes(keyed []keyedRoute) {
	for i := range keyed {
		r := keyed[i].route
		// Most routes have one condition or none: nothing to sort, and
		// no sort.Interface to allocate.
		reordered := false
		if len(r.HeaderMatch) > 1 {
			sort.Stable(headerMatchOrder(r.HeaderMatch))
			reordered = true
		}
		if len(r.QueryMatch) > 1 {
			sort.Stable(queryMatchOrder(r.QueryMatch))
			reordered = true
		}
		// Conditions put in order may have changed the route's key.
		if reordered {
			keyed[i].key = ConditionsKey(r)
		}
	}
	slices.SortStableFunc(keyed, func(a, b keyedRoute) int { return strings.Compare(a.key, b.key) })
	sort.Stable(routeOrder(keyed))
}

type keyedRoute struct {
	key   string
	route *Route
}

type routeOrder []keyedRoute

func (s routeOrder) Len() int           { return len(s) }
func (s routeOrder) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s routeOrder) Less(i, j int) bool { return routeLess(s[i].route, s[j].route) }

func routeLess(a, b *Route) bool {
	pa, pb := a.PathMatch, b.PathMatch
	switch {
	case pa.Kind == PathExact && pb.Kind == PathExact:
		if pa.Value != pb.Value {
			return pa.Value > pb.Value
		}
		return conditionsLess(a, b)
	case pa.Kind == PathExact:
		return true
	case pb.Kind == PathExact:
		return false
	case pa.Kind == PathRegex && pb.Kind == PathRegex:
		if c := longerOrGreater(pa.Value, pb.Value); c != 0 {
			return c > 0
		}
		return conditionsLess(a, b)
	case pa.Kind == PathRegex:
		return true
	case pb.Kind == PathRegex:
		return false
	default: // both prefixes
		if c := longerOrGreater(pa.Value, pb.Value); c != 0 {
			return c > 0
		}
		if pa.Kind != pb.Kind {
			return pa.Kind == PathSegmentPrefix
		}
		return conditionsLess(a, b)
	}
}

// longerOrGreater is 1 when a sorts first (longer, or as long and greater),
// -1 when b does, 0 when equal.
func longerOrGreater(a, b string) int {
	switch {
	case len(a) != len(b):
		if len(a) > len(b) {
			return 1
		}
		return -1
	default:
		return strings.Compare(a, b)
	}
}

// conditionsLess orders routes with equal paths by their other conditions.
// Like Contour's, it scans condition pairs and answers true at the first pair
// where a's condition sorts first, so it is not a strict weak order; the
// stable sort over a deterministic input keeps the result reproducible.
func conditionsLess(a, b *Route) bool {
	aMethod, aHeaders := splitMethodMatch(a.HeaderMatch)
	bMethod, bHeaders := splitMethodMatch(b.HeaderMatch)
	switch {
	case aMethod != bMethod:
		return aMethod
	case len(aHeaders) != len(bHeaders):
		return len(aHeaders) > len(bHeaders)
	case len(a.QueryMatch) != len(b.QueryMatch):
		return len(a.QueryMatch) > len(b.QueryMatch)
	case a.Priority != b.Priority:
		return a.Priority < b.Priority
	}
	for i := range aHeaders {
		if headerLess(aHeaders[i], bHeaders[i]) {
			return true
		}
	}
	for i := range a.QueryMatch {
		if queryLess(a.QueryMatch[i], b.QueryMatch[i]) {
			return true
		}
	}
	return false
}

func splitMethodMatch(hs []HeaderMatch) (hasMethod bool, rest []HeaderMatch) {
	rest = make([]HeaderMatch, 0, len(hs))
	for _, h := range hs {
		if h.Name == ":method" {
			hasMethod = true
			continue
		}
		rest = append(rest, h)
	}
	return hasMethod, rest
}

type headerMatchOrder []HeaderMatch

func (s headerMatchOrder) Len() int           { return len(s) }
func (s headerMatchOrder) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s headerMatchOrder) Less(i, j int) bool { return headerLess(s[i], s[j]) }

// headerTypeRank is a header match type's place in Contour's order:
// exact (and any unknown type) first, then regex, contains, present.
func headerTypeRank(t HeaderMatchType) int {
	switch t {
	case HeaderRegex:
		return 1
	case HeaderContains:
		return 2
	case HeaderPresent:
		return 3
	}
	return 0
}

// headerLess orders header conditions by name, then type (exact, regex,
// contains, present), then value, then non-inverted first.
func headerLess(a, b HeaderMatch) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if ra, rb := headerTypeRank(a.Type), headerTypeRank(b.Type); ra != rb {
		return ra < rb
	}
	if a.Type != HeaderPresent && a.Value != b.Value {
		return a.Value < b.Value
	}
	return !a.Invert && b.Invert
}

type queryMatchOrder []QueryMatch

func (s queryMatchOrder) Len() int           { return len(s) }
func (s queryMatchOrder) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s queryMatchOrder) Less(i, j int) bool { return queryLess(s[i], s[j]) }

// queryTypeRank is a query match type's place in Contour's order: exact
// (and any unknown type) first, then regex, prefix, suffix, contains,
// present.
func queryTypeRank(t string) int {
	switch t {
	case "regex":
		return 1
	case "prefix":
		return 2
	case "suffix":
		return 3
	case "contains":
		return 4
	case "present":
		return 5
	}
	return 0
}

// queryLess orders query conditions by name, type, value, then
// case-sensitive first.
func queryLess(a, b QueryMatch) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if ra, rb := queryTypeRank(a.Type), queryTypeRank(b.Type); ra != rb {
		return ra < rb
	}
	if a.Type == "present" {
		return false
	}
	if a.Value != b.Value {
		return a.Value < b.Value
	}
	return !a.IgnoreCase && b.IgnoreCase
}

// ConditionsKey identifies a route's match conditions: two routes with the
// same key on one virtual host are the same route to Contour, and the later
// one replaces the earlier.
func ConditionsKey(r *Route) string {
	var b strings.Builder
	b.Grow(8 + len(r.PathMatch.Value) + 64*(len(r.HeaderMatch)+len(r.QueryMatch)))
	b.WriteString(strconv.Itoa(int(r.PathMatch.Kind)))
	b.WriteByte(':')
	b.WriteString(r.PathMatch.Value)
	for _, h := range r.HeaderMatch {
		writeAll(&b, ",header:", h.Name, "=", h.Value, "&", string(h.Type),
			"&invert=", strconv.FormatBool(h.Invert),
			"&ignorecase=", strconv.FormatBool(h.IgnoreCase),
			"&missing=", strconv.FormatBool(h.TreatMissingAsEmpty))
	}
	for _, q := range r.QueryMatch {
		writeAll(&b, ",query:", q.Name, "=", q.Value, "&", q.Type,
			"&ignorecase=", strconv.FormatBool(q.IgnoreCase))
	}
	return b.String()
}

func writeAll(b *strings.Builder, parts ...string) {
	for _, p := range parts {
		b.WriteString(p)
	}
}
