package loader

import (
	"fmt"
	"slices"
	"strings"
)

// The groups contourc reads are the groups of the kinds table. In them,
// the API server knows every kind and version it serves, and refuses
// anything else: `kubectl apply` of a projectcontour.io/v1 HttpProxy fails
// with `no matches for kind "HttpProxy" in version "projectcontour.io/v1"`.
// Skipping such an object would drop its routes without a word, so it is
// an error here too. Kinds of other groups (apps, rbac, istio's
// networking.istio.io...) are not contourc's business and stay skipped.

// readGroups are the API groups of the consumed kinds ("" is core).
var readGroups = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range kinds {
		m[k.Group] = true
	}
	return m
}()

// otherKinds are, by apiVersion, the kinds the API server serves in the
// read groups that contourc does not consume: they are skipped (and
// counted), not refused. Objects only, not their Lists (split.go reads
// Lists) or option types. kinds_other_test.go checks the table against the
// types the pinned API modules register.
var otherKinds = map[string][]string{
	"v1": {
		"Binding", "ComponentStatus", "Event", "LimitRange", "Node",
		"PersistentVolume", "PersistentVolumeClaim", "Pod", "PodTemplate",
		"ReplicationController", "ResourceQuota", "ServiceAccount",
	},
	"networking.k8s.io/v1":               {"IPAddress", "NetworkPolicy", "ServiceCIDR"},
	"networking.k8s.io/v1beta1":          {"IPAddress", "ServiceCIDR"},
	"gateway.networking.k8s.io/v1":       {"UDPRoute"},
	"gateway.networking.k8s.io/v1alpha2": {"UDPRoute"},
	"projectcontour.io/v1alpha1":         {"ContourDeployment"},
}

// isOtherKind reports whether kind is served in apiVersion but not consumed.
func isOtherKind(apiVersion, kind string) bool {
	return slices.Contains(otherKinds[apiVersion], kind)
}

// noMatches is kubectl's refusal of a kind or version its API server does
// not serve, with a hint when the kind is a known one misspelt (only in
// case or plural: HttpProxy, ingress, HTTPRoutes) or written with a
// version that does not serve it; versionAtFault says it is the latter.
func noMatches(apiVersion, kind string) (msg string, versionAtFault bool) {
	msg = fmt.Sprintf("no matches for kind %q in version %q", kind, apiVersion)
	group, _ := splitAPIVersion(apiVersion)
	known := knownKinds(group)
	if versions, ok := known[kind]; ok {
		return msg + "; " + kind + " is served as " + strings.Join(versions, " or "), true
	}
	for _, name := range sortedKeys(known) {
		if sameKindName(kind, name) {
			return msg + fmt.Sprintf("; did you mean %q?", name), false
		}
	}
	return msg, false
}

// knownKinds maps the kinds the API server serves in group to their
// apiVersions. Only built for an error.
func knownKinds(group string) map[string][]string {
	out := map[string][]string{}
	for i := range kinds {
		if k := &kinds[i]; k.Group == group {
			for _, v := range k.Served {
				out[k.Kind] = append(out[k.Kind], joinAPIVersion(group, v))
			}
		}
	}
	for _, apiVersion := range sortedKeys(otherKinds) {
		if g, _ := splitAPIVersion(apiVersion); g == group {
			for _, kind := range otherKinds[apiVersion] {
				out[kind] = append(out[kind], apiVersion)
			}
		}
	}
	return out
}

// sameKindName reports whether written is name in another case, or one of
// name's plurals (what `kubectl get` takes, and so what people write).
func sameKindName(written, name string) bool {
	w, n := strings.ToLower(written), strings.ToLower(name)
	if w == n || w == n+"s" || w == n+"es" {
		return true
	}
	return strings.HasSuffix(n, "y") && w == n[:len(n)-1]+"ies"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
