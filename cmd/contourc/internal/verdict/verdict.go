package verdict

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/contourc/contourc/translate"
)

// Verdict sums up the status Contour writes on one object: a word for the
// table, whether the object is fine, and the problems behind the word.
type Verdict struct {
	Word    string
	OK      bool
	Reasons []string
}

// Condition types whose True status reports a problem. Every other condition
// type Contour and Gateway API use (Accepted, Programmed, ResolvedRefs,
// Valid...) reports a problem when it is not True.
var negativeConditions = map[string]bool{
	"Conflicted":           true,
	"PartiallyInvalid":     true,
	"OverlappingTLSConfig": true,
}

// Of is the verdict on one object of the status list: an
// Ingress's from its findings, since Contour writes no status on it;
// any other's from its status (OfStatus).
func Of(st translate.ObjectStatus) Verdict {
	if st.NotServed != "" {
		// Meant for Contour (no other controller's class), routed by none.
		return Verdict{Word: "NotServed", Reasons: []string{st.NotServed}}
	}
	if st.Findings == nil {
		return OfStatus(st.Status)
	}
	switch {
	case st.Ignored != "":
		// Another controller's: not Contour's to judge.
		return Verdict{Word: "ignored", OK: true, Reasons: []string{st.Ignored}}
	case len(st.Findings) > 0:
		// Not served as written (a TLS entry, a path left out).
		return Verdict{Word: "invalid", Reasons: slices.Clone(st.Findings)}
	}
	return Verdict{Word: "valid", OK: true}
}

// OfStatus derives a verdict from a status in any form that marshals to
// the JSON Contour writes. Two shapes exist: HTTPProxy-like statuses carry
// Contour's own currentStatus (valid, invalid, orphaned); Gateway API-like
// statuses carry only conditions, possibly nested per listener, parent or
// ancestor.
func OfStatus(status any) Verdict {
	// translate's own HTTPProxy status, read as it is: a JSON round trip
	// per object was a tenth of check at 5,000 of them.
	switch s := status.(type) {
	case translate.HTTPProxyStatus:
		return httpProxyVerdict(s)
	case translate.RouteStatus:
		return routeVerdict(s)
	}
	return verdictOfJSON(status)
}

// verdictOfJSON is OfStatus read from the status's JSON form.
func verdictOfJSON(status any) Verdict {
	m, ok := asMap(status)
	if !ok {
		return Verdict{Word: "unknown", OK: true}
	}
	if current, ok := m["currentStatus"].(string); ok {
		return proxyVerdict(current, m)
	}
	return conditionsVerdict(m)
}

// asMap returns status as decoded JSON, whatever Go type it has.
func asMap(status any) (map[string]any, bool) {
	if m, ok := status.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(status)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// proxyVerdict reads an HTTPProxy or ExtensionService style status: the
// errors and warnings Contour attaches to its conditions are the reasons.
func proxyVerdict(current string, m map[string]any) Verdict {
	v := Verdict{Word: current, OK: current == "valid"}
	for _, c := range objects(m["conditions"]) {
		for _, e := range objects(c["errors"]) {
			v.Reasons = append(v.Reasons, describe(e))
		}
		for _, w := range objects(c["warnings"]) {
			v.Reasons = append(v.Reasons, "warning "+describe(w))
		}
	}
	if !v.OK && len(v.Reasons) == 0 {
		if d, _ := m["description"].(string); d != "" {
			v.Reasons = append(v.Reasons, d)
		}
	}
	return v
}

// httpProxyVerdict is proxyVerdict on translate's type.
func httpProxyVerdict(s translate.HTTPProxyStatus) Verdict {
	v := Verdict{Word: s.CurrentStatus, OK: s.CurrentStatus == "valid"}
	for _, c := range s.Conditions {
		for _, e := range c.Errors {
			v.Reasons = append(v.Reasons, describeParts(e.Type, e.Reason, e.Message))
		}
		for _, w := range c.Warnings {
			v.Reasons = append(v.Reasons, "warning "+describeParts(w.Type, w.Reason, w.Message))
		}
	}
	if !v.OK && len(v.Reasons) == 0 && s.Description != "" {
		v.Reasons = append(v.Reasons, s.Description)
	}
	return v
}

// routeVerdict is conditionsVerdict on translate's route status type.
func routeVerdict(s translate.RouteStatus) Verdict {
	var j conditionJudge
	for _, p := range s.Parents {
		name := p.ParentRef.Name
		if ns := p.ParentRef.Namespace; ns != nil && *ns != "" {
			name = *ns + "/" + name
		}
		where := "parent: "
		if name != "" {
			where = "parent " + name + ": "
		}
		for _, c := range p.Conditions {
			j.judge(where, c.Type, c.Status, c.Reason, c.Message)
		}
	}
	return j.verdict()
}

// conditionJudge sums up conditions as conditionsVerdict does.
type conditionJudge struct {
	seen, bad []string // condition types
	reasons   []string
}

func (j *conditionJudge) judge(where, typ, status, reason, msg string) {
	if (status == "True") == negativeConditions[typ] {
		j.bad = append(j.bad, typ)
		j.reasons = append(j.reasons, where+typ+"="+status+" "+describeParts(typ, reason, msg))
	} else {
		j.seen = append(j.seen, typ)
	}
}

// conditionsVerdict reads a Gateway API style status: every condition, at
// any depth, must be in its good state.
func conditionsVerdict(m map[string]any) Verdict {
	var j conditionJudge
	var walk func(obj map[string]any, where string)
	walk = func(obj map[string]any, where string) {
		for _, c := range objects(obj["conditions"]) {
			typ, _ := c["type"].(string)
			st, _ := c["status"].(string)
			reason, _ := c["reason"].(string)
			msg, _ := c["message"].(string)
			j.judge(where, typ, st, reason, msg)
		}
		for key, val := range obj {
			if key == "conditions" {
				continue
			}
			for _, item := range objects(val) {
				walk(item, label(key, item))
			}
		}
	}
	walk(m, "")
	return j.verdict()
}

func (j *conditionJudge) verdict() Verdict {
	seen, bad, reasons := j.seen, j.bad, j.reasons
	if len(seen)+len(bad) == 0 {
		return Verdict{Word: "unknown", OK: true}
	}
	// conditionsVerdict meets nested lists in map order, which is random.
	slices.Sort(reasons)
	switch {
	case slices.Contains(bad, "Accepted"):
		return Verdict{Word: "NotAccepted", Reasons: reasons}
	case slices.Contains(bad, "Programmed"):
		return Verdict{Word: "NotProgrammed", Reasons: reasons}
	case len(bad) > 0:
		return Verdict{Word: "invalid", Reasons: reasons}
	case slices.Contains(seen, "Programmed"):
		return Verdict{Word: "Programmed", OK: true}
	case slices.Contains(seen, "Accepted"):
		return Verdict{Word: "Accepted", OK: true}
	default:
		return Verdict{Word: "valid", OK: true}
	}
}

// label names an item of a nested status list for a reason: "listener
// https: ", "parent ns/gateway: ", "ancestor ns/gateway: ".
func label(listKey string, item map[string]any) string {
	singular := strings.TrimSuffix(listKey, "s")
	ref, _ := item[singular+"Ref"].(map[string]any)
	if ref == nil {
		ref = item
	}
	name, _ := ref["name"].(string)
	if name == "" {
		return singular + ": "
	}
	if ns, _ := ref["namespace"].(string); ns != "" {
		name = ns + "/" + name
	}
	return singular + " " + name + ": "
}

// describe renders a condition-like object as "Reason: message".
func describe(c map[string]any) string {
	typ, _ := c["type"].(string)
	reason, _ := c["reason"].(string)
	msg, _ := c["message"].(string)
	return describeParts(typ, reason, msg)
}

// describeParts is describe on a condition's fields.
func describeParts(typ, reason, msg string) string {
	if reason == "" {
		reason = typ
	}
	msg = strings.Join(strings.Fields(msg), " ") // one line, for tables
	if msg == "" {
		return reason
	}
	return reason + ": " + msg
}

// objects returns the JSON objects in a list value, skipping anything else.
func objects(v any) []map[string]any {
	list, _ := v.([]any)
	var out []map[string]any
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// String is the verdict as one line: "invalid: reason; reason".
func (v Verdict) String() string {
	if len(v.Reasons) == 0 {
		return v.Word
	}
	return fmt.Sprintf("%s: %s", v.Word, strings.Join(v.Reasons, "; "))
}

// Warnings are the reasons of a verdict that are warnings: a valid
// HTTPProxy's status may carry some (see proxyVerdict).
func (v Verdict) Warnings() []string {
	var out []string
	for _, r := range v.Reasons {
		if w, ok := strings.CutPrefix(r, "warning "); ok {
			out = append(out, w)
		}
	}
	return out
}
