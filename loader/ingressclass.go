package loader

// The API server's DefaultIngressClass admission, which needs every
// IngressClass and so runs on a load's objects together (and on those of
// the cluster context with them), not on each as it is decoded.

import (
	"slices"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/contourc/contourc/loader/builtin"
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

// Admitted remembers the Ingresses AdmitDefaultIngressClass gave a class,
// so that the next call hands out the same copies for the same Ingresses
// (a caller translating again and again, serve, tells objects apart by
// identity). It keeps only the last call's. The zero value is ready.
type Admitted struct {
	last map[admittedKey]*networkingv1.Ingress
}

type admittedKey struct {
	ing   *networkingv1.Ingress
	class string
}

// AdmitDefaultIngressClass sets spec.ingressClassName of the Ingresses
// that name no class, neither in spec nor in the kubernetes.io annotation,
// to the default IngressClass among objs, as the admission plugin does on
// create. The objects are not changed: the Ingresses given a class are
// copies, in a new slice, so that the loader's cache keeps what the files
// say (the kubernetes.io annotation is the one the plugin knows; Contour's
// own projectcontour.io/ingress.class still wins over the class set). Without a default class objs is returned as it is.
func AdmitDefaultIngressClass(objs []Object) []Object {
	return (*Admitted)(nil).AdmitDefaultIngressClass(objs)
}

// AdmitDefaultIngressClass is the function of that name, handing out the
// copies of the last call again for the same Ingresses; a nil a keeps
// none.
func (a *Admitted) AdmitDefaultIngressClass(objs []Object) []Object {
	class := DefaultIngressClass(objs)
	var next map[admittedKey]*networkingv1.Ingress
	defer func() {
		if a != nil {
			a.last = next
		}
	}()
	if class == "" {
		return objs
	}
	var out []Object
	for i, o := range objs {
		ing, ok := o.Obj.(*networkingv1.Ingress)
		if !ok || ing.Spec.IngressClassName != nil {
			continue
		}
		if _, annotated := ing.Annotations[builtin.IngressClassAnnotation]; annotated {
			continue
		}
		if out == nil {
			out = slices.Clone(objs)
		}
		key := admittedKey{ing, class}
		admitted := a.copyOf(key)
		if admitted == nil {
			c := *ing
			c.Spec.IngressClassName = &class
			admitted = &c
		}
		if a != nil {
			if next == nil {
				next = map[admittedKey]*networkingv1.Ingress{}
			}
			next[key] = admitted
		}
		out[i].Obj = admitted
	}
	if out == nil {
		return objs
	}
	return out
}

func (a *Admitted) copyOf(k admittedKey) *networkingv1.Ingress {
	if a == nil {
		return nil
	}
	return a.last[k]
}
