package instances

// Translating every instance, and merging the runs' status rows.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// contourIngressController is the spec.controller of Contour's IngressClass.
const contourIngressController = "projectcontour.io/ingress-controller"

// Run is one instance and its translation.
type Run struct {
	translate.Instance
	Result *translate.Result
}

// List names the instances for a message: "a/x (Deployment), b/y (Gateway)".
func List(all []translate.Instance) string {
	names := make([]string, len(all))
	for i, in := range all {
		names[i] = in.Name
		if in.Kind != "" {
			names[i] += " (" + in.Kind + ")"
		}
	}
	return strings.Join(names, ", ")
}

// Objects are the objects instances are found in: the input's and
// the cluster context's (a Contour installed by the platform, its
// ConfigMap).
func Objects(loaded *loader.Result, opts translate.Options) []loader.Object {
	if len(opts.Cluster) == 0 {
		return loaded.Objects
	}
	return append(slices.Clone(loaded.Objects), opts.Cluster...)
}

// ServedByAny says whether one of the instances serves obj by its class.
func ServedByAny(all []translate.Instance) func(any) bool {
	return func(obj any) bool {
		for _, in := range all {
			if in.Serves(obj) {
				return true
			}
		}
		return false
	}
}

// Translate translates objs once per chosen instance, in parallel, and
// returns the runs in instance order and their merged result: with one
// instance its result as it is, with several each status row given its
// instance (see mergeResults). Either way the Ingresses and HTTPProxies no
// instance of all serves get a NotServed row.
func Translate(loaded *loader.Result, chosen, all []translate.Instance) ([]Run, *translate.Result, error) {
	runs := make([]Run, len(chosen))
	errs := make([]error, len(chosen))
	var wg sync.WaitGroup
	for i, in := range chosen {
		wg.Go(func() {
			res, err := translate.Translate(loaded.Objects, in.Options)
			if err != nil && len(all) > 1 {
				err = fmt.Errorf("instance %s: %w", in.Name, err)
			}
			runs[i], errs[i] = Run{Instance: in, Result: res}, err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	var merged *translate.Result
	if len(runs) == 1 {
		merged = runs[0].Result
	} else {
		merged = mergeResults(runs)
	}
	merged.Status = WithNotServed(merged.Status, loaded.Objects, all)
	return runs, merged, nil
}

// mergeResults joins the runs' results: each row of an Ingress or HTTPProxy
// from the instance that serves it, of a Gateway API object from the
// instances that serve a Gateway, of anything else from every instance
// that serves ingress classes; notices once each.
func mergeResults(runs []Run) *translate.Result {
	out := &translate.Result{}
	seen := map[string]bool{}
	for _, r := range runs {
		for _, st := range r.Result.Status {
			if keepRow(st, r) {
				st.Instance = r.Name
				out.Status = append(out.Status, st)
			}
		}
		for _, n := range r.Result.Notices {
			if k := n.String(); !seen[k] {
				seen[k] = true
				out.Notices = append(out.Notices, n)
			}
		}
	}
	sortStatus(out.Status)
	return out
}

// keepRow says whether a status row of run r is the instance's to give.
func keepRow(st translate.ObjectStatus, r Run) bool {
	switch {
	case st.Kind == "Ingress" || st.Kind == "HTTPProxy":
		return st.Ignored == "" // of a class another instance serves, or none
	case strings.HasPrefix(st.APIVersion, "gateway.networking.k8s.io/"):
		return r.Result.Gateway != nil
	}
	return !r.Options.NoIngress
}

// WithNotServed marks the Ingresses and HTTPProxies that no instance serves
// NotServed, with their class: unless their IngressClass is another
// controller's, they were meant for Contour and would silently not be
// routed. An Ingress's "ignored" row becomes NotServed; an HTTPProxy, on
// which Contour writes nothing, gets a row.
func WithNotServed(list []translate.ObjectStatus, objs []loader.Object, all []translate.Instance) []translate.ObjectStatus {
	served := ServedByAny(all)
	others := otherControllersClasses(objs)
	rows := map[string]int{} // "Kind ns/name" of the Ingress rows -> index
	for i, st := range list {
		if st.Kind == "Ingress" {
			rows[st.Namespace+"/"+st.Name] = i
		}
	}
	var added []translate.ObjectStatus
	for _, o := range objs {
		if !translate.IsClassed(o.Obj) || served(o.Obj) {
			continue
		}
		class, ns, name := translate.ClassOf(o.Obj), o.Obj.GetNamespace(), o.Obj.GetName()
		apiVersion := "projectcontour.io/v1"
		if o.Kind == "Ingress" {
			apiVersion = "networking.k8s.io/v1"
		}
		st := translate.ObjectStatus{APIVersion: apiVersion, Kind: o.Kind, Namespace: ns, Name: name, Source: o.Source}
		if whose := others[class]; whose != "" {
			if o.Kind != "Ingress" {
				continue
			}
			st.Ignored = fmt.Sprintf("ingress class %q is another controller's (%s)", class, whose)
		} else {
			st.NotServed = notServedMessage(class, all)
		}
		if o.Kind == "Ingress" {
			st.Findings = []string{}
			if i, ok := rows[ns+"/"+name]; ok {
				if st.NotServed != "" {
					list[i].Ignored, list[i].NotServed, list[i].Instance = "", st.NotServed, ""
				}
				continue
			}
		}
		added = append(added, st)
	}
	if len(added) == 0 {
		return list
	}
	list = append(list, added...)
	sortStatus(list)
	return list
}

// sortStatus sorts status rows by kind, namespace and name, as translate
// lists them, keeping the instance order of an object's rows.
func sortStatus(list []translate.ObjectStatus) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
}

// notServedMessage says which class no instance serves, and what they do.
func notServedMessage(class string, all []translate.Instance) string {
	what := fmt.Sprintf("ingress class %q", class)
	if class == "" {
		what = "no ingress class"
	}
	return fmt.Sprintf("%s: served by no Contour instance of the input (%s)", what, List(all))
}

// otherControllersClasses are the classes of the IngressClasses of the
// input whose controller is not Contour's, each with what says whose it
// is: their objects are another controller's, not Contour's to serve or judge. The default class names
// of the common ingress controllers count as theirs when the input has no
// IngressClass of that name: their charts create it in the cluster, and
// an Ingress of class nginx beside Contour's is no typo of Contour's.
func otherControllersClasses(objs []loader.Object) map[string]string {
	out := map[string]string{}
	defined := map[string]bool{}
	for _, o := range objs {
		if ic, ok := o.Obj.(*networkingv1.IngressClass); ok {
			defined[ic.Name] = true
			if ic.Spec.Controller != contourIngressController {
				out[ic.Name] = "IngressClass " + ic.Name + ": controller " + ic.Spec.Controller
			}
		}
	}
	for class, controller := range wellKnownClasses() {
		if !defined[class] {
			out[class] = "by its name the default class of " + controller + "; the input has no IngressClass " + class
		}
	}
	return out
}

// wellKnownClasses are the IngressClass names the common ingress
// controllers' installations create, with their controllers.
func wellKnownClasses() map[string]string {
	return map[string]string{
		"nginx":                     "k8s.io/ingress-nginx",
		"traefik":                   "traefik.io/ingress-controller",
		"haproxy":                   "haproxy.org/ingress-controller/haproxy",
		"alb":                       "ingress.k8s.aws/alb",
		"gce":                       "k8s.io/ingress-gce",
		"gce-internal":              "k8s.io/ingress-gce",
		"kong":                      "ingress-controllers.konghq.com/kong",
		"istio":                     "istio.io/ingress-controller",
		"cilium":                    "cilium.io/ingress-controller",
		"azure-application-gateway": "azure/application-gateway",
	}
}
