package instances

import (
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

func proxy(name, class string) loader.Object {
	return loader.Object{Kind: "HTTPProxy", Obj: &contourv1.HTTPProxy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: name},
		Spec:       contourv1.HTTPProxySpec{IngressClassName: class},
	}}
}

// An HTTPProxy of a class no instance serves gets a NotServed row naming
// the instances; one an instance serves, or one of another controller's
// class, gets none.
func TestWithNotServed(t *testing.T) {
	all := []translate.Instance{{Name: "projectcontour/contour", Kind: "Deployment", Options: translate.Options{IngressClassNames: []string{"a"}}}}
	other := loader.Object{Kind: "IngressClass", Obj: &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec:       networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"},
	}}
	objs := []loader.Object{proxy("served", "a"), proxy("lost", "b"), proxy("nginx", "nginx"), other}
	got := WithNotServed(nil, objs, all)
	var rows []string
	for _, st := range got {
		rows = append(rows, st.Kind+" "+st.Namespace+"/"+st.Name+": "+st.NotServed)
	}
	want := `HTTPProxy web/lost: ingress class "b": served by no Contour instance of the input (projectcontour/contour (Deployment))`
	if strings.Join(rows, "\n") != want {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), want)
	}
}

// Merged runs keep each Ingress and HTTPProxy row from the instance that
// serves it (its row not Ignored), naming the instance, and each notice
// once.
func TestMergeResults(t *testing.T) {
	row := func(name, ignored string) translate.ObjectStatus {
		return translate.ObjectStatus{Kind: "HTTPProxy", Namespace: "web", Name: name, Ignored: ignored}
	}
	notice := translate.Notice{Msg: "the same notice"}
	runs := []Run{
		{Instance: translate.Instance{Name: "b"}, Result: &translate.Result{Status: []translate.ObjectStatus{row("x", ""), row("y", "another class")}, Notices: []translate.Notice{notice}}},
		{Instance: translate.Instance{Name: "a"}, Result: &translate.Result{Status: []translate.ObjectStatus{row("x", "another class"), row("y", "")}, Notices: []translate.Notice{notice}}},
	}
	got := mergeResults(runs)
	var rows []string
	for _, st := range got.Status {
		rows = append(rows, st.Name+" by "+st.Instance)
	}
	if strings.Join(rows, ", ") != "x by b, y by a" || len(got.Notices) != 1 {
		t.Errorf("rows %q, %d notices; want x by b, y by a and one notice", rows, len(got.Notices))
	}
}

// An Ingress of a common controller's default class, with no IngressClass
// of that name in the input, is that controller's (ignored, not
// NotServed); an IngressClass of the input decides over the name, and a
// class of another name is still NotServed.
func TestWellKnownClasses(t *testing.T) {
	all := []translate.Instance{{Name: "projectcontour/contour", Kind: "Deployment", Options: translate.Options{IngressClassNames: []string{"contour"}}}}
	ingress := func(name, class string) loader.Object {
		return loader.Object{Kind: "Ingress", Obj: &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: name},
			Spec:       networkingv1.IngressSpec{IngressClassName: &class},
		}}
	}
	ours := loader.Object{Kind: "IngressClass", Obj: &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "traefik"},
		Spec:       networkingv1.IngressClassSpec{Controller: "projectcontour.io/ingress-controller"},
	}}
	objs := []loader.Object{ingress("n", "nginx"), ingress("t", "traefik"), ingress("typo", "contuor"), ours}
	got := map[string]string{}
	for _, st := range WithNotServed(nil, objs, all) {
		got[st.Name] = st.Ignored + "|" + st.NotServed
	}
	if !strings.HasPrefix(got["n"], `ingress class "nginx" is another controller's (by its name the default class of k8s.io/ingress-nginx; the input has no IngressClass nginx)|`) {
		t.Errorf("nginx: %q", got["n"])
	}
	for _, name := range []string{"t", "typo"} {
		if !strings.Contains(got[name], "|ingress class") || !strings.Contains(got[name], "served by no Contour instance") {
			t.Errorf("%s: %q, want NotServed", name, got[name])
		}
	}
}
