// Package lint finds routing mistakes Contour accepts without a word: a
// route that can never match, an FQDN two objects claim, a certificate
// that does not cover its host or is about to expire, a Service port that
// does not exist, annotations of other ingress controllers, Gateway API
// routes and listeners that attach to nothing. Each rule has a stable ID
// (CTC1001...), a severity and a page under docs/lint/; findings can be
// suppressed by ID on an object (AnnotationDisable), in the repository
// config file or on the command line.
//
// Rules whose answer depends on Envoy's order (which route wins) read the
// translated DAG (translate.Result); the others read the loaded objects.
// One file per family of rules: routes.go, hosts.go, certs.go,
// services.go, annotations.go, gateway.go.
package lint

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// AnnotationDisable on an object lists rule IDs (comma-separated) not to
// report on it.
const AnnotationDisable = "contourc.dev/lint-disable"

// Severity of a finding, most severe first.
type Severity int

const (
	Error Severity = iota
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// ParseSeverity reads error, warning or info.
func ParseSeverity(s string) (Severity, bool) {
	for _, v := range []Severity{Error, Warning, Info} {
		if v.String() == s {
			return v, true
		}
	}
	return 0, false
}

// MarshalText writes the severity's name (JSON output).
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Rule describes one rule.
type Rule struct {
	ID       string
	Name     string // kebab-case, for people: route-shadowed
	Severity Severity
	Summary  string // one line: what it finds
}

// Rules are all rules, by ID.
func Rules() []Rule { return slices.Clone(rules) }

var rules = []Rule{
	{ruleShadowed, "route-shadowed", Error, "a route can never match: an earlier route in Envoy's order matches every request it would"},
	{ruleDuplicate, "route-duplicate", Error, "two routes of a virtual host have the same match: Contour keeps one and drops the other without a word"},
	{ruleFQDNConflict, "fqdn-conflict", Error, "an FQDN is claimed by several HTTPProxies, or by an HTTPProxy and an Ingress"},
	{ruleCertName, "cert-name-mismatch", Error, "a virtual host's certificate does not cover its name"},
	{ruleCertExpiring, "cert-expiring", Warning, "a virtual host's certificate expires soon (--cert-expiry-days)"},
	{ruleCertExpired, "cert-expired", Error, "a virtual host's certificate has expired, or is not valid yet"},
	{ruleCertKey, "cert-key-mismatch", Error, "a TLS Secret's private key does not belong to its certificate"},
	{rulePortMissing, "service-port-missing", Error, "a route sends to a Service port the Service does not have"},
	{ruleZeroWeights, "weights-all-zero", Warning, "every Service of a route has weight 0"},
	{ruleMirrorSelf, "mirror-to-self", Warning, "a route mirrors requests to a Service it already sends them to"},
	{ruleForeignAnnotation, "foreign-annotation", Warning, "an Ingress Contour serves carries an annotation of another ingress controller, which Contour ignores"},
	{ruleRouteUnattached, "gateway-route-unattached", Warning, "a Gateway API route attaches to no listener of the Gateway"},
	{ruleListenerUnused, "gateway-listener-unused", Info, "a Gateway listener has no route attached"},
	{ruleRefNotPermitted, "gateway-reference-grant-missing", Error, "a backendRef to another namespace has no ReferenceGrant allowing it"},
}

const (
	ruleShadowed          = "CTC1001"
	ruleDuplicate         = "CTC1002"
	ruleFQDNConflict      = "CTC1101"
	ruleCertName          = "CTC1201"
	ruleCertExpiring      = "CTC1202"
	ruleCertExpired       = "CTC1203"
	ruleCertKey           = "CTC1204"
	rulePortMissing       = "CTC1301"
	ruleZeroWeights       = "CTC1302"
	ruleMirrorSelf        = "CTC1303"
	ruleForeignAnnotation = "CTC1401"
	ruleRouteUnattached   = "CTC1501"
	ruleListenerUnused    = "CTC1502"
	ruleRefNotPermitted   = "CTC1503"
)

// RuleByID looks a rule up.
func RuleByID(id string) (Rule, bool) {
	i := slices.IndexFunc(rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, false
	}
	return rules[i], true
}

// Object names the object a finding is on.
type Object struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (o Object) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// Finding is one problem found.
type Finding struct {
	Rule     string        `json:"rule"`
	Severity Severity      `json:"severity"`
	Object   Object        `json:"object"`
	Source   loader.Source `json:"-"`
	Message  string        `json:"message"`
	// Related are the other objects the finding is about (the route
	// that wins, the other claimants of an FQDN).
	Related []Object `json:"related,omitempty"`
}

// Options change what the rules report.
type Options struct {
	// Now is the time certificates are checked against: the caller's
	// clock, given once, so that a run is reproducible with --now.
	Now time.Time
	// CertExpiryDays is how soon an expiry is reported (CTC1202).
	CertExpiryDays int
	// Disable are rule IDs not to run.
	Disable []string
}

// DefaultCertExpiryDays is --cert-expiry-days's default: three weeks,
// enough to notice a renewal that failed.
const DefaultCertExpiryDays = 21

// input is what every rule reads.
type input struct {
	objs  []loader.Object
	res   *translate.Result
	opts  Options
	index *index
	// servedIngresses are the Ingresses of Contour's class (served).
	servedIngresses map[Object]bool
}

// Run applies every rule not disabled to objs and their translation res,
// and returns the findings not suppressed, ordered by file, line, rule and
// message: the same whatever the order of objs.
func Run(objs []loader.Object, res *translate.Result, opts Options) []Finding {
	in := &input{objs: objs, res: res, opts: opts, index: newIndex(objs)}
	var out []Finding
	for _, check := range []func(*input) []Finding{
		routeRules, hostRules, certRules, serviceRules, annotationRules, gatewayRules,
	} {
		out = append(out, check(in)...)
	}
	out = slices.DeleteFunc(out, func(f Finding) bool { return in.suppressed(f) })
	sortFindings(out)
	return slices.CompactFunc(out, func(a, b Finding) bool { return compareFindings(a, b) == 0 })
}

func sortFindings(fs []Finding) { slices.SortFunc(fs, compareFindings) }

func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Source.File, b.Source.File),
		cmp.Compare(a.Source.Line, b.Source.Line),
		cmp.Compare(a.Source.Via, b.Source.Via),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Object.String(), b.Object.String()),
		cmp.Compare(a.Message, b.Message),
	)
}

// suppressed says whether f's rule is disabled by the options or by the
// annotation of the object it is on.
func (in *input) suppressed(f Finding) bool {
	if slices.Contains(in.opts.Disable, f.Rule) {
		return true
	}
	o := in.index.object(f.Object)
	if o == nil {
		return false
	}
	return slices.Contains(DisabledBy(o.Obj.GetAnnotations()), f.Rule)
}

// DisabledBy are the rule IDs an object's annotations disable.
func DisabledBy(annotations map[string]string) []string {
	v, ok := annotations[AnnotationDisable]
	if !ok {
		return nil
	}
	var ids []string
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// AtOrAbove counts the findings at least as severe as s.
func AtOrAbove(fs []Finding, s Severity) int {
	n := 0
	for _, f := range fs {
		if f.Severity <= s {
			n++
		}
	}
	return n
}

// finding makes a finding of rule on the loaded object o.
func finding(rule string, o *loader.Object, msg string, related ...Object) Finding {
	r, _ := RuleByID(rule)
	return Finding{Rule: rule, Severity: r.Severity, Object: objectOf(o), Source: o.Source, Message: msg, Related: related}
}

func objectOf(o *loader.Object) Object {
	return Object{Kind: o.Kind, Namespace: o.Obj.GetNamespace(), Name: o.Obj.GetName()}
}
