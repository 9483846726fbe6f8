package index

import (
	"slices"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultIngressClass is the class Contour serves when none is configured.
const DefaultIngressClass = "contour"

// annotationIngressClass returns the class from the projectcontour.io or
// kubernetes.io annotation; the Contour one wins when both are present.
func annotationIngressClass(o metav1.Object) string {
	a := o.GetAnnotations()
	if class, ok := a["projectcontour.io/ingress.class"]; ok {
		return class
	}
	return a["kubernetes.io/ingress.class"]
}

// IngressClassOf is an Ingress's class: a non-empty annotation wins over
// spec.ingressClassName.
func IngressClassOf(ing *networkingv1.Ingress) string {
	if class := annotationIngressClass(ing); class != "" {
		return class
	}
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName
	}
	return ""
}

// HTTPProxyClassOf is an HTTPProxy's class: a non-empty annotation wins
// over spec.ingressClassName.
func HTTPProxyClassOf(proxy *contourv1.HTTPProxy) string {
	if class := annotationIngressClass(proxy); class != "" {
		return class
	}
	return proxy.Spec.IngressClassName
}

// MatchesIngressClass says whether an object of class is served: with no
// configured classes, objects without a class or of class "contour"; else
// exactly the configured ones.
func MatchesIngressClass(class string, configured []string) bool {
	if len(configured) == 0 {
		return class == "" || class == DefaultIngressClass
	}
	return slices.Contains(configured, class)
}
