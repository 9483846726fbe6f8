package lint

import (
	"fmt"

	"github.com/contourc/contourc/translate"
)

// The Gateway API rules, read from the status Contour would write on the
// served Gateway and its routes (a Gateway contourc does not serve has
// none): CTC1501, a route a parentRef of which attaches to no listener
// (no listener of that name or port, hostnames that intersect none, a
// namespace the listener does not allow); CTC1502, a listener no route
// attaches to, when routes attach to its other listeners (a Gateway no
// route of the input attaches to has its routes elsewhere); CTC1503, a backendRef to another namespace without the
// ReferenceGrant that allows it.

// unattached says whether a reason of Accepted: False means the parentRef
// found no listener to attach to.
func unattached(reason string) bool {
	switch reason {
	case "NoMatchingParent", "NotAllowedByListeners", "NoMatchingListenerHostname":
		return true
	}
	return false
}

func gatewayRules(in *input) []Finding {
	var out []Finding
	for _, st := range in.res.Status {
		o := in.index.get(st.Kind, st.Namespace, st.Name)
		if o == nil {
			continue
		}
		switch s := st.Status.(type) {
		case translate.GatewayStatus:
			if !someAttached(s.Listeners) {
				// No route in the input attaches to the Gateway at
				// all: its routes live elsewhere (the Gateway is a
				// platform team's, the routes each team's).
				continue
			}
			for _, l := range s.Listeners {
				if l.AttachedRoutes == 0 {
					out = append(out, finding(ruleListenerUnused, o, fmt.Sprintf("listener %s has no route attached", l.Name)))
				}
			}
		case translate.RouteStatus:
			for _, p := range s.Parents {
				for _, c := range p.Conditions {
					switch {
					case c.Type == "Accepted" && c.Status == "False" && unattached(c.Reason):
						out = append(out, finding(ruleRouteUnattached, o, fmt.Sprintf("parentRef %s attaches to no listener: %s", parentName(p, st.Namespace), c.Message)))
					case c.Type == "ResolvedRefs" && c.Status == "False" && c.Reason == "RefNotPermitted":
						out = append(out, finding(ruleRefNotPermitted, o, c.Message+": add a ReferenceGrant in the backend's namespace that allows "+st.Kind+"s from namespace "+st.Namespace))
					}
				}
			}
		}
	}
	return out
}

func someAttached(ls []*translate.ListenerStatus) bool {
	for _, l := range ls {
		if l.AttachedRoutes > 0 {
			return true
		}
	}
	return false
}

func parentName(p *translate.RouteParentStatus, ns string) string {
	return translate.ParentRefName(p, ns)
}
