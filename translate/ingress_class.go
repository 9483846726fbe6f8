package translate

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/contourc/contourc/translate/dag/index"
)

// ServesClass reports whether Contour, run with o, serves obj by its
// ingress class: an Ingress or HTTPProxy of another class it ignores;
// objects of other kinds have no class.
func (o Options) ServesClass(obj any) bool {
	if o.NoIngress && IsClassed(obj) {
		return false
	}
	switch x := obj.(type) {
	case *networkingv1.Ingress:
		return index.MatchesIngressClass(index.IngressClassOf(x), o.IngressClassNames)
	case *contourv1.HTTPProxy:
		return index.MatchesIngressClass(index.HTTPProxyClassOf(x), o.IngressClassNames)
	}
	return true
}

// IsClassed reports whether obj is of a kind Contour serves by ingress
// class: an Ingress or an HTTPProxy.
func IsClassed(obj any) bool {
	switch obj.(type) {
	case *networkingv1.Ingress, *contourv1.HTTPProxy:
		return true
	}
	return false
}

// ClassOf is the ingress class of an Ingress or HTTPProxy ("" for none).
func ClassOf(obj any) string {
	switch x := obj.(type) {
	case *networkingv1.Ingress:
		return index.IngressClassOf(x)
	case *contourv1.HTTPProxy:
		return index.HTTPProxyClassOf(x)
	}
	return ""
}

// noIngressClass is the class list of Options.NoIngress: a name no object
// can be given (a NUL byte), so that every Ingress and HTTPProxy is of
// another class, through the same paths as a configured class.
var noIngressClass = []string{"\x00none"}
