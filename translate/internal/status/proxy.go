package status

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag/index"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectStatus is the status of one object in the form Contour writes it.
type ObjectStatus struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Status     any    `json:"status"`
	// StandIns are the stand-in objects the status rests on (set by the
	// caller from the standin package's report; never by translate): the
	// status itself stays exactly Contour's.
	StandIns []loader.StandIn `json:"standIns,omitempty"`
	// Findings, for an Ingress, on which Contour writes no status (its
	// Status is nil), are what keeps it from being served as written:
	// the notices about it. Never nil for an Ingress, so that its JSON
	// says "findings": [] when it is served as written; nil otherwise.
	Findings []string `json:"findings,omitzero"`
	// Ignored, for an Ingress Contour does not serve (of another class),
	// says why.
	Ignored string `json:"ignored,omitempty"`
	// NotServed, for an Ingress or HTTPProxy of a class no Contour
	// instance of the input serves, says so with the class (set by the
	// caller, which knows every instance).
	NotServed string `json:"notServed,omitempty"`
	// Instance is the Contour instance whose verdict this is, in a run of
	// several (set by the caller; empty in a run of one, whose output is
	// as before instances existed).
	Instance string        `json:"instance,omitempty"`
	Source   loader.Source `json:"-"`
}

// The status Contour writes on an HTTPProxy: one "Valid" condition carrying
// errors and warnings, plus the legacy currentStatus/description fields.

// Proxy is the status of one HTTPProxy as it is being built.
type Proxy struct {
	Generation int64
	Errors     []Detail
	Warnings   []Detail
	Visited    bool
}

type Detail struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// maxConditionMessage is where Contour truncates condition messages.
const maxConditionMessage = 32760

func (s *Proxy) AddError(errType, reason, format string, args ...any) {
	s.Errors = append(s.Errors, Detail{Type: errType, Status: "True", Reason: reason, Message: truncateMessage(fmt.Sprintf(format, args...))})
}

func (s *Proxy) AddWarning(warnType, reason, format string, args ...any) {
	s.Warnings = append(s.Warnings, Detail{Type: warnType, Status: "True", Reason: reason, Message: truncateMessage(fmt.Sprintf(format, args...))})
}

func (s *Proxy) Valid() bool { return len(s.Errors) == 0 }

func truncateMessage(m string) string {
	if len(m) > maxConditionMessage {
		return m[:maxConditionMessage]
	}
	return m
}

// HTTPProxyStatus is the JSON form of an HTTPProxy's status.
type HTTPProxyStatus struct {
	Conditions    []DetailedCondition `json:"conditions"`
	CurrentStatus string              `json:"currentStatus"`
	Description   string              `json:"description"`
	LoadBalancer  struct{}            `json:"loadBalancer"`
}

// DetailedCondition is Contour's condition with errors and warnings.
type DetailedCondition struct {
	Type               string   `json:"type"`
	Status             string   `json:"status"`
	Reason             string   `json:"reason"`
	Message            string   `json:"message"`
	ObservedGeneration int64    `json:"observedGeneration"`
	Errors             []Detail `json:"errors,omitempty"`
	Warnings           []Detail `json:"warnings,omitempty"`
}

const OrphanMessage = "this HTTPProxy is not part of a delegation chain from a root HTTPProxy"

func (s *Proxy) ToStatus() HTTPProxyStatus {
	cond := DetailedCondition{Type: "Valid", Status: "True", Reason: "Valid", Message: "Valid HTTPProxy", ObservedGeneration: s.Generation, Errors: s.Errors, Warnings: s.Warnings}
	out := HTTPProxyStatus{CurrentStatus: "valid", Description: cond.Message}
	if !s.Valid() {
		cond.Status, cond.Reason, cond.Message = "False", "ErrorPresent", "At least one error present, see Errors for details"
		out.CurrentStatus, out.Description = "invalid", cond.Message
		for _, e := range s.Errors {
			if e.Type == "Orphaned" {
				out.CurrentStatus, out.Description = "orphaned", OrphanMessage
			}
		}
	}
	out.Conditions = []DetailedCondition{cond}
	return out
}

// ExtensionServiceStatus is the JSON form of an ExtensionService's status.
type ExtensionServiceStatus struct {
	Conditions []DetailedCondition `json:"conditions"`
}

func (s *Proxy) ToExtensionServiceStatus() ExtensionServiceStatus {
	cond := DetailedCondition{Type: "Valid", Status: "True", Reason: "Valid", Message: "Valid ExtensionService", ObservedGeneration: s.Generation, Errors: s.Errors, Warnings: s.Warnings}
	if !s.Valid() {
		cond.Status, cond.Reason, cond.Message = "False", "ErrorPresent", "At least one error present, see Errors for details"
	}
	return ExtensionServiceStatus{Conditions: []DetailedCondition{cond}}
}

// Key identifies an object that gets status.
type Key struct {
	Kind string
	Name types.NamespacedName
}

// Map holds the status of every HTTPProxy and ExtensionService in one
// translation.
type Map map[Key]*Proxy

func (ss Map) ForProxy(name types.NamespacedName) *Proxy {
	return ss[Key{"HTTPProxy", name}]
}

// ObjectStatuses lists the statuses ordered by kind, namespace and name.
func (ss Map) ObjectStatuses(c *index.Index) []ObjectStatus {
	keys := ss.orderedKeys(c)
	out := make([]ObjectStatus, 0, len(keys))
	for _, k := range keys {
		o := ObjectStatus{Kind: k.Kind, Namespace: k.Name.Namespace, Name: k.Name.Name, Source: c.Source(k.Kind, k.Name)}
		switch k.Kind {
		case "HTTPProxy":
			o.APIVersion, o.Status = "projectcontour.io/v1", ss[k].ToStatus()
		case "ExtensionService":
			o.APIVersion, o.Status = "projectcontour.io/v1alpha1", ss[k].ToExtensionServiceStatus()
		}
		out = append(out, o)
	}
	return out
}

// orderedKeys lists the statuses' keys ordered by kind, namespace and
// name. The cache lists its ExtensionServices and HTTPProxies in that
// order already, and every status is one of theirs, so the keys are taken
// from there (sorting 5,000 keys took 7 ms of every translation); should
// a status be another's, or the order another, they are sorted.
func (ss Map) orderedKeys(c *index.Index) []Key {
	keys := make([]Key, 0, len(ss))
	for _, e := range c.Extensions {
		if k := (Key{"ExtensionService", index.NamespacedName(e)}); ss[k] != nil {
			keys = append(keys, k)
		}
	}
	for _, p := range c.HTTPProxies {
		if k := (Key{"HTTPProxy", index.NamespacedName(p)}); ss[k] != nil {
			keys = append(keys, k)
		}
	}
	if len(keys) == len(ss) && slices.IsSortedFunc(keys, compareStatusKeys) {
		return keys
	}
	keys = keys[:0]
	for k := range ss {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareStatusKeys)
	return keys
}

// compareStatusKeys orders keys by kind, then namespace and name.
func compareStatusKeys(a, b Key) int {
	if a.Kind != b.Kind {
		return strings.Compare(a.Kind, b.Kind)
	}
	return index.CompareQualified(a.Name.Namespace, a.Name.Name, b.Name.Namespace, b.Name.Name)
}
