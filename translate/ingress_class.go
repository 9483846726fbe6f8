package translate

import (
	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultIngressClass is the class Contour serves when none is configured.
const defaultIngressClass = "contour"

// annotationIngressClass returns the class from the projectcontour.io or
// kubernetes.io annotation; the Contour one wins when both are present.
func annotationIngressClass(o metav1.Object) string {
	a := o.GetAnnotations()
	if class, ok := a["projectcontour.io/ingress.class"]; ok {
		return class
	}
	return a["kubernetes.io/ingress.class"]
}

// ingressClassOf is an Ingress's class: a non-empty annotation wins over
// spec.ingressClassName.
func ingressClassOf(ing *networkingv1.Ingress) string {
	if class := annotationIngressClass(ing); class != "" {
		return class
	}
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName
	}
	return ""
}

// httpProxyClassOf is an HTTPProxy's class: a non-empty annotation wins
// over spec.ingressClassName.
func httpProxyClassOf(proxy *contourv1.HTTPProxy) string {
	if class := annotationIngressClass(proxy); class != "" {
		return class
	}
	return proxy.Spec.IngressClassName
}

// ServesClass reports whether Contour, run with o, serves obj by its
// ingress class: an Ingress or HTTPProxy of another class it ignores;
// objects of other kinds have no class.
func (o Options) ServesClass(obj any) bool {
	if o.NoIngress && IsClassed(obj) {
		return false
	}
	switch x := obj.(type) {
	case *networkingv1.Ingress:
		return matchesIngressClass(ingressClassOf(x), o.IngressClassNames)
	case *contourv1.HTTPProxy:
		return matchesIngressClass(httpProxyClassOf(x), o.IngressClassNames)
	}
	return true
}

// matchesIngressClass says whether an object of class is served: with no
// configured classes, objects without a class or of class "contour"; else
// exactly the configured ones.
func matchesIngressClass(class string, configured []string) bool {
	if len(configured) == 0 {
		return class == "" || class == defaultIngressClass
	}
	return slices.Contains(configured, class)
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
		return ingressClassOf(x)
	case *contourv1.HTTPProxy:
		return httpProxyClassOf(x)
	}
	return ""
}

// noIngressClass is the class list of Options.NoIngress: a name no object
// can be given (a NUL byte), so that every Ingress and HTTPProxy is of
// another class, through the same paths as a configured class.
var noIngressClass = []string{"\x00none"}
