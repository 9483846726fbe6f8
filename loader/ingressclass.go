package loader

// The API server's DefaultIngressClass admission, which needs every
// IngressClass and so runs on a load's objects together (and on those of
// the cluster context with them), not on each as it is decoded.

import (
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
)

// DefaultIngressClass is the IngressClass the DefaultIngressClass
// admission plugin gives class-less Ingresses, "" when none is marked
// default: of those annotated ingressclass.kubernetes.io/is-default-class
// "true", the newest, and of equally new ones (manifests carry no
// creationTimestamp) the first by name, as the plugin chooses since
// Kubernetes 1.28.
func DefaultIngressClass(objs []Object) string {
	var best *networkingv1.IngressClass
	for _, o := range objs {
		class, ok := o.Obj.(*networkingv1.IngressClass)
		if !ok || class.Annotations[networkingv1.AnnotationIsDefaultIngressClass] != "true" {
			continue
		}
		if best == nil || class.CreationTimestamp.After(best.CreationTimestamp.Time) ||
			(class.CreationTimestamp.Equal(&best.CreationTimestamp) && class.Name < best.Name) {
			best = class
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

// AdmitDefaultIngressClass sets spec.ingressClassName of the Ingresses
// that name no class, neither in spec nor in the kubernetes.io annotation,
// to the default IngressClass among objs, as the admission plugin does on
// create. The objects are not changed: the Ingresses given a class are
// copies, in a new slice, so that the loader's cache keeps what the files
// say (the kubernetes.io annotation is the one the plugin knows; Contour's
// own projectcontour.io/ingress.class still wins over the class set). Without a default class objs is returned as it is.
func AdmitDefaultIngressClass(objs []Object) []Object {
	class := DefaultIngressClass(objs)
	if class == "" {
		return objs
	}
	var out []Object
	for i, o := range objs {
		ing, ok := o.Obj.(*networkingv1.Ingress)
		if !ok || ing.Spec.IngressClassName != nil {
			continue
		}
		if _, annotated := ing.Annotations[ingressClassAnnotation]; annotated {
			continue
		}
		if out == nil {
			out = slices.Clone(objs)
		}
		admitted := *ing
		admitted.Spec.IngressClassName = &class
		out[i].Obj = &admitted
	}
	if out == nil {
		return objs
	}
	return out
}
