package ingress

// The Ingresses' entries in the status list. Contour writes no status on
// an Ingress and only logs what it leaves out of one; contourc lists every
// Ingress with those findings, so that every routing object has a
// verdict.

import (
	"fmt"
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/internal/status"
)

// Statuses lists an entry for each Ingress among objs: its findings
// (none when it is served as written), or, for one of a class Contour
// does not serve, why it is ignored. classNames are the ingress classes
// Contour serves. It reads what Run found, so it comes after Run.
func (p *Processor) Statuses(objs []loader.Object, classNames []string) []status.ObjectStatus {
	var out []status.ObjectStatus
	defaultClass := ""
	for _, o := range objs {
		ing, ok := o.Obj.(*networkingv1.Ingress)
		if !ok {
			continue
		}
		st := status.ObjectStatus{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Namespace: ing.Namespace, Name: ing.Name,
			Source: o.Source, Findings: p.findings[index.NamespacedName(ing)]}
		if st.Findings == nil {
			st.Findings = []string{}
		}
		if class := index.IngressClassOf(ing); !index.MatchesIngressClass(class, classNames) {
			if defaultClass == "" {
				defaultClass = loader.DefaultIngressClass(objs)
			}
			st.Ignored = ignoredClass(class, defaultClass, classNames)
		}
		out = append(out, st)
	}
	return out
}

// ignoredClass says why an Ingress of class is not served.
func ignoredClass(class, defaultClass string, classNames []string) string {
	served := `no class or "contour"`
	if len(classNames) > 0 {
		quoted := make([]string, len(classNames))
		for i, c := range classNames {
			quoted[i] = strconv.Quote(c)
		}
		served = strings.Join(quoted, ", ")
	}
	msg := fmt.Sprintf("ingress class %q is not served (Contour serves %s)", class, served)
	switch class {
	case "":
		msg = fmt.Sprintf("no ingress class: not served (Contour serves %s)", served)
	case defaultClass:
		msg = fmt.Sprintf("ingress class %q, the cluster's default IngressClass, is not served (Contour serves %s)", class, served)
	}
	return msg
}
