package translate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contourc/contourc/translate/dag/index"
	"k8s.io/apimachinery/pkg/types"
)

// The status Contour writes on an HTTPProxy: one "Valid" condition carrying
// errors and warnings, plus the legacy currentStatus/description fields.

// proxyStatus is the status of one HTTPProxy as it is being built.
type proxyStatus struct {
	generation int64
	errors     []conditionDetail
	warnings   []conditionDetail
	visited    bool
}

type conditionDetail struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// maxConditionMessage is where Contour truncates condition messages.
const maxConditionMessage = 32760

func (s *proxyStatus) addError(errType, reason, format string, args ...any) {
	s.errors = append(s.errors, conditionDetail{Type: errType, Status: "True", Reason: reason, Message: truncateMessage(fmt.Sprintf(format, args...))})
}

func (s *proxyStatus) addWarning(warnType, reason, format string, args ...any) {
	s.warnings = append(s.warnings, conditionDetail{Type: warnType, Status: "True", Reason: reason, Message: truncateMessage(fmt.Sprintf(format, args...))})
}

func (s *proxyStatus) valid() bool { return len(s.errors) == 0 }

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
	Type               string            `json:"type"`
	Status             string            `json:"status"`
	Reason             string            `json:"reason"`
	Message            string            `json:"message"`
	ObservedGeneration int64             `json:"observedGeneration"`
	Errors             []conditionDetail `json:"errors,omitempty"`
	Warnings           []conditionDetail `json:"warnings,omitempty"`
}

const orphanMessage = "this HTTPProxy is not part of a delegation chain from a root HTTPProxy"

func (s *proxyStatus) toStatus() HTTPProxyStatus {
	cond := DetailedCondition{Type: "Valid", Status: "True", Reason: "Valid", Message: "Valid HTTPProxy", ObservedGeneration: s.generation, Errors: s.errors, Warnings: s.warnings}
	out := HTTPProxyStatus{CurrentStatus: "valid", Description: cond.Message}
	if !s.valid() {
		cond.Status, cond.Reason, cond.Message = "False", "ErrorPresent", "At least one error present, see Errors for details"
		out.CurrentStatus, out.Description = "invalid", cond.Message
		for _, e := range s.errors {
			if e.Type == "Orphaned" {
				out.CurrentStatus, out.Description = "orphaned", orphanMessage
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

func (s *proxyStatus) toExtensionServiceStatus() ExtensionServiceStatus {
	cond := DetailedCondition{Type: "Valid", Status: "True", Reason: "Valid", Message: "Valid ExtensionService", ObservedGeneration: s.generation, Errors: s.errors, Warnings: s.warnings}
	if !s.valid() {
		cond.Status, cond.Reason, cond.Message = "False", "ErrorPresent", "At least one error present, see Errors for details"
	}
	return ExtensionServiceStatus{Conditions: []DetailedCondition{cond}}
}

// statusKey identifies an object that gets status.
type statusKey struct {
	kind string
	name types.NamespacedName
}

// statuses holds the status of every HTTPProxy and ExtensionService in one
// translation.
type statuses map[statusKey]*proxyStatus

func (ss statuses) forProxy(name types.NamespacedName) *proxyStatus {
	return ss[statusKey{"HTTPProxy", name}]
}

// objectStatuses lists the statuses ordered by kind, namespace and name.
func (ss statuses) objectStatuses(c *index.Index) []ObjectStatus {
	keys := ss.orderedKeys(c)
	out := make([]ObjectStatus, 0, len(keys))
	for _, k := range keys {
		o := ObjectStatus{Kind: k.kind, Namespace: k.name.Namespace, Name: k.name.Name, Source: c.Source(k.kind, k.name)}
		switch k.kind {
		case "HTTPProxy":
			o.APIVersion, o.Status = "projectcontour.io/v1", ss[k].toStatus()
		case "ExtensionService":
			o.APIVersion, o.Status = "projectcontour.io/v1alpha1", ss[k].toExtensionServiceStatus()
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
func (ss statuses) orderedKeys(c *index.Index) []statusKey {
	keys := make([]statusKey, 0, len(ss))
	for _, e := range c.Extensions {
		if k := (statusKey{"ExtensionService", index.NamespacedName(e)}); ss[k] != nil {
			keys = append(keys, k)
		}
	}
	for _, p := range c.HTTPProxies {
		if k := (statusKey{"HTTPProxy", index.NamespacedName(p)}); ss[k] != nil {
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
func compareStatusKeys(a, b statusKey) int {
	if a.kind != b.kind {
		return strings.Compare(a.kind, b.kind)
	}
	return index.CompareQualified(a.name.Namespace, a.name.Name, b.name.Namespace, b.name.Name)
}
