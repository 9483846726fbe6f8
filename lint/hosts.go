package lint

import (
	"fmt"
	"slices"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/contourc/contourc/loader"
)

// CTC1101: an FQDN claimed twice. Contour marks every HTTPProxy claiming
// an FQDN another root HTTPProxy claims invalid, so the whole host (and
// every HTTPProxy the roots include) stops being served; an Ingress for
// the same host mixes its routes into the HTTPProxy's, a later route
// replacing an earlier one with the same path. Each claimant gets a
// finding naming the others.

func hostRules(in *input) []Finding {
	claims := map[string][]*loader.Object{}
	var hosts []string
	claim := func(host string, o *loader.Object) {
		host = strings.ToLower(host)
		if host == "" || slices.Contains(claims[host], o) {
			return
		}
		if claims[host] == nil {
			hosts = append(hosts, host)
		}
		claims[host] = append(claims[host], o)
	}
	for _, o := range in.index.ofKind("HTTPProxy") {
		if vh := o.Obj.(*contourv1.HTTPProxy).Spec.VirtualHost; vh != nil {
			claim(vh.Fqdn, o)
		}
	}
	for _, o := range in.index.ofKind("Ingress") {
		if !in.served(o) {
			continue
		}
		for _, r := range o.Obj.(*networkingv1.Ingress).Spec.Rules {
			claim(r.Host, o)
		}
	}
	var out []Finding
	for _, host := range hosts {
		objs := claims[host]
		proxies := 0
		for _, o := range objs {
			if o.Kind == "HTTPProxy" {
				proxies++
			}
		}
		if proxies == 0 || len(objs) < 2 {
			continue // Ingresses sharing a host is ordinary
		}
		effect := "all of them are invalid and " + host + " is not served at all, nor anything they include"
		if proxies == 1 {
			effect = "their routes for " + host + " are merged, a later one replacing an earlier one with the same match"
		}
		for _, o := range objs {
			var others []Object
			var names []string
			for _, other := range objs {
				if other != o {
					others = append(others, objectOf(other))
					names = append(names, objectOf(other).String())
				}
			}
			out = append(out, finding(ruleFQDNConflict, o, fmt.Sprintf("FQDN %s is also claimed by %s: %s",
				host, strings.Join(names, ", "), effect), others...))
		}
	}
	return out
}

// served says whether Contour serves Ingress o (it is of Contour's class),
// from its translated status.
func (in *input) served(o *loader.Object) bool {
	if in.servedIngresses == nil {
		in.servedIngresses = map[Object]bool{}
		for _, st := range in.res.Status {
			if st.Kind == "Ingress" && st.Ignored == "" {
				in.servedIngresses[Object{Kind: st.Kind, Namespace: st.Namespace, Name: st.Name}] = true
			}
		}
	}
	return in.servedIngresses[objectOf(o)]
}
