package loader

import (
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ingressClassObject(name string, isDefault string, created time.Time) Object {
	c := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
	if isDefault != "" {
		c.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: isDefault}
	}
	return Object{Kind: "IngressClass", Obj: c}
}

// TestDefaultIngressClass checks which class the admission plugin takes
// as the default: of those annotated "true", the newest, then by name.
func TestDefaultIngressClass(t *testing.T) {
	old, recent := time.Unix(1000, 0), time.Unix(2000, 0)
	for _, tt := range []struct {
		name    string
		classes []Object
		want    string
	}{
		{"none", nil, ""},
		{"not annotated", []Object{ingressClassObject("a", "", old)}, ""},
		{"annotated other than true", []Object{ingressClassObject("a", "True", old)}, ""},
		{"one", []Object{ingressClassObject("nginx", "", old), ingressClassObject("contour", "true", old)}, "contour"},
		{"the newest of several", []Object{ingressClassObject("a", "true", old), ingressClassObject("b", "true", recent)}, "b"},
		{"equally new: the first by name", []Object{ingressClassObject("b", "true", old), ingressClassObject("a", "true", old)}, "a"},
	} {
		if got := DefaultIngressClass(tt.classes); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAdmitDefaultIngressClass checks that only Ingresses naming no class
// in spec or in the kubernetes.io annotation get the default, in copies.
func TestAdmitDefaultIngressClass(t *testing.T) {
	other := "other"
	ing := func(name string, class *string, annotations map[string]string) Object {
		return Object{Kind: "Ingress", Obj: &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: name, Annotations: annotations},
			Spec:       networkingv1.IngressSpec{IngressClassName: class},
		}}
	}
	objs := []Object{
		ing("annotated", nil, map[string]string{"kubernetes.io/ingress.class": "nginx"}),
		ing("classless", nil, nil),
		ing("contour-annotated", nil, map[string]string{"projectcontour.io/ingress.class": "contour"}),
		ing("named", &other, nil),
		ingressClassObject("external", "true", time.Time{}),
	}
	got := AdmitDefaultIngressClass(objs)
	want := map[string]string{"annotated": "", "classless": "external", "contour-annotated": "external", "named": "other"}
	for i, o := range got[:4] {
		class := ""
		if c := o.Obj.(*networkingv1.Ingress).Spec.IngressClassName; c != nil {
			class = *c
		}
		if class != want[o.Obj.GetName()] {
			t.Errorf("%s: class %q, want %q", o.Obj.GetName(), class, want[o.Obj.GetName()])
		}
		if objs[i].Obj.GetName() == "classless" && objs[i].Obj.(*networkingv1.Ingress).Spec.IngressClassName != nil {
			t.Errorf("the loaded Ingress was changed")
		}
	}
	if same := AdmitDefaultIngressClass(objs[:4]); &same[0] != &objs[0] {
		t.Errorf("without a default class the objects were copied")
	}
}

// TestAdmittedHandsOutTheSameCopies checks that an Admitted gives the
// same copy of an unchanged Ingress from one call to the next, and a new
// one when the default class changes.
func TestAdmittedHandsOutTheSameCopies(t *testing.T) {
	ing := Object{Kind: "Ingress", Obj: &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "a"}}}
	a := &Admitted{}
	first := a.AdmitDefaultIngressClass([]Object{ing, ingressClassObject("x", "true", time.Time{})})
	again := a.AdmitDefaultIngressClass([]Object{ing, ingressClassObject("x", "true", time.Time{})})
	if first[0].Obj != again[0].Obj || first[0].Obj == ing.Obj {
		t.Errorf("not the same copy again")
	}
	other := a.AdmitDefaultIngressClass([]Object{ing, ingressClassObject("y", "true", time.Time{})})
	if other[0].Obj == first[0].Obj || *other[0].Obj.(*networkingv1.Ingress).Spec.IngressClassName != "y" {
		t.Errorf("the copy of another class was handed out again")
	}
}
