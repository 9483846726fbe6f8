package loader

import (
	"fmt"
	"strings"
)

// disposition is what the loader does with a raw object.
type disposition int

const (
	consume disposition = iota // decode it into its kind's Go type
	skip                       // not something Contour reads: count it
	reject                     // a removed API or unserved version: error
)

// classify decides, from apiVersion and kind alone, what to do with an
// object. Kinds are matched by group and kind, so a Gateway of another
// group (istio's, say) is skipped, not mistaken for a Gateway API one; a
// kind or version the API server does not serve in a group contourc reads
// is refused (kinds_other.go).
//
// A refusal comes with the key at fault: "kind" for a kind the group does
// not have, "apiVersion" otherwise.
func classify(raw rawObject) (disposition, *kindSpec, string, string) {
	group, version := splitAPIVersion(raw.apiVersion)
	if msg, ok := removedKinds[groupKind{group, raw.kind}]; ok {
		return reject, nil, msg, "apiVersion"
	}
	if msg, ok := removedKinds[groupKind{group, "*"}]; ok {
		return reject, nil, msg, "apiVersion"
	}
	spec := kindsByGroupKind[groupKind{group, raw.kind}]
	switch {
	case spec == nil && (!readGroups[group] || isOtherKind(raw.apiVersion, raw.kind)):
		return skip, nil, "", ""
	case spec == nil:
		msg, versionAtFault := noMatches(raw.apiVersion, raw.kind)
		if versionAtFault {
			return reject, nil, msg, "apiVersion"
		}
		return reject, nil, msg, "kind"
	}
	if !spec.serves(version) {
		return reject, spec, unservedMessage(raw, spec), "apiVersion"
	}
	return consume, spec, "", ""
}

func unservedMessage(raw rawObject, spec *kindSpec) string {
	served := make([]string, len(spec.Served))
	for i, v := range spec.Served {
		served[i] = joinAPIVersion(spec.Group, v)
	}
	msg := fmt.Sprintf("no matches for kind %q in version %q", spec.Kind, raw.apiVersion)
	if hint := versionHints[raw.apiVersion+"/"+raw.kind]; hint != "" {
		msg += " (" + hint + ")"
	}
	return msg + "; use " + strings.Join(served, " or ")
}
