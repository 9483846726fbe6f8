package standin

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/loader"
)

// Options say which stand-ins to make.
type Options struct {
	// Disabled turns stand-ins off (--no-stand-ins): the Secrets the
	// sources stand for count as absent. SOPS Secrets are still
	// recognised, and never decoded.
	Disabled bool
	// Assume are the Secrets that exist only in the cluster
	// (--assume-secret).
	Assume []Assumed
	// Cache, when set, keeps the certificates made from one Apply to the
	// next (serve's reloads).
	Cache *Cache
	// Cluster are the objects the cluster has beside the input
	// (--cluster-context): a real Secret there needs no stand-in.
	Cluster []loader.Object
	// Served, when set, says whether Contour serves an object (an Ingress
	// or HTTPProxy of another class it ignores): the references of those
	// it does not serve need no stand-in. Nil: every object is served.
	Served func(obj any) bool
	// Configured are the Secrets Contour's configuration names (its
	// fallback certificate, Envoy's client certificate): stood for like
	// the others, they are referred to by the objects that rest on them.
	Configured []ConfiguredSecret
}

// Assumed is one --assume-secret NS/NAME[:TARGETNS,...].
type Assumed struct {
	Namespace, Name string
	// Delegate are the namespaces (or "*") the Secret is assumed to be
	// delegated to by a TLSCertificateDelegation.
	Delegate []string
}

// ParseAssumed reads the value of --assume-secret.
func ParseAssumed(s string) (Assumed, error) {
	ref, targets, hasTargets := strings.Cut(s, ":")
	ns, name, ok := strings.Cut(ref, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return Assumed{}, fmt.Errorf("--assume-secret %q: want NAMESPACE/NAME[:TARGETNAMESPACE,...]", s)
	}
	a := Assumed{Namespace: ns, Name: name}
	for _, msg := range append(validation.IsDNS1123Label(ns), validation.IsDNS1123Subdomain(name)...) {
		return Assumed{}, fmt.Errorf("--assume-secret %q: %s", s, msg)
	}
	if hasTargets {
		for _, t := range strings.Split(targets, ",") {
			if t = strings.TrimSpace(t); t == "" {
				continue
			}
			if t != "*" {
				if msgs := validation.IsDNS1123Label(t); len(msgs) > 0 {
					return Assumed{}, fmt.Errorf("--assume-secret %q: namespace %q: %s", s, t, msgs[0])
				}
			}
			a.Delegate = append(a.Delegate, t)
		}
		if len(a.Delegate) == 0 {
			return Assumed{}, fmt.Errorf("--assume-secret %q: no namespace after ':'", s)
		}
	}
	return a, nil
}

// Report says which stand-ins Apply made and which objects refer to them.
type Report struct {
	// StandIns are the stand-ins made, sorted by namespace and name.
	StandIns []loader.StandIn
	// ByObject are, for each object referring to a stand-in, the
	// stand-ins it refers to.
	ByObject map[Ref][]loader.StandIn
}

// Of is the stand-ins the object kind ns/name refers to.
func (r *Report) Of(kind, ns, name string) []loader.StandIn {
	if r == nil {
		return nil
	}
	return r.ByObject[Ref{kind, ns, name}]
}

// The keys Contour reads a CA certificate and a revocation list from.
const (
	caKey  = "ca.crt"
	crlKey = "crl.pem"
)

// AnnotationStandIn is set on every stand-in object, saying what it
// stands for.
const AnnotationStandIn = "contourc.io/stand-in"

// Apply adds to res the stand-ins its objects need: a Secret for each one
// referred to by an HTTPProxy, Ingress or Gateway, or configured
// (Options.Configured) for objects that rest on it, that is absent from
// the input but stood for by a secret source, a cert-manager shim
// annotation or --assume-secret; and the delegations --assume-secret asks
// for.
// Stand-ins nothing refers to are not made: they would change nothing
// Contour serves. An input without any of these costs one pass over its
// Ingresses' and Gateways' annotations.
func Apply(res *loader.Result, opts Options) (*Report, error) {
	defer opts.Cache.end()
	report := &Report{ByObject: map[Ref][]loader.StandIn{}}
	if opts.Disabled {
		return report, nil
	}
	wants, err := gatherWants(res, opts)
	if err != nil || len(wants) == 0 {
		return report, err
	}
	wanted := map[Ref]bool{}
	for _, w := range wants {
		wanted[w.secret] = true
	}
	refs := references(res.Objects, wanted, opts.Served, wantedConfigured(opts.Configured, wanted))
	present := presentSecrets(res.Objects, wanted)
	for r := range presentSecrets(opts.Cluster, wanted) {
		present[r] = true
	}
	chosen := chooseWants(wants, refs, present)
	objs := make([]loader.Object, len(chosen))
	errs := make([]error, len(chosen))
	par.ForEach(len(chosen), func(i int) { objs[i], errs[i] = makeSecret(chosen[i], refs, opts.Cache) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	objs = append(objs, delegations(opts.Assume)...)
	for i, w := range chosen {
		s := loader.StandIn{Kind: "Secret", Namespace: w.secret.Namespace, Name: w.secret.Name, For: w.forWhat}
		report.StandIns = append(report.StandIns, s)
		for _, r := range refs {
			if r.secret == chosen[i].secret && !slices.Contains(report.ByObject[r.from], s) {
				report.ByObject[r.from] = append(report.ByObject[r.from], s)
			}
		}
	}
	res.Objects = merge(res.Objects, objs)
	return report, nil
}

// gatherWants lists every Secret stood for, in a stable order.
func gatherWants(res *loader.Result, opts Options) ([]want, error) {
	var wants []want
	var errs []error
	for _, o := range res.SecretSources {
		w, err := sourceWant(o)
		if err != nil {
			errs = append(errs, objectError(o, err))
			continue
		}
		wants = append(wants, w)
	}
	shim, shimErrs := shimWants(res.Objects)
	wants = append(wants, shim...)
	errs = append(errs, shimErrs...)
	for _, a := range opts.Assume {
		wants = append(wants, want{
			secret: Ref{"Secret", a.Namespace, a.Name}, secretType: corev1.SecretTypeTLS,
			forWhat: "--assume-secret", source: loader.Source{File: "--assume-secret"}, rank: rankAssumed,
		})
	}
	return wants, errors.Join(errs...)
}

// presentSecrets are the Secrets of wanted the input holds.
func presentSecrets(objs []loader.Object, wanted map[Ref]bool) map[Ref]bool {
	out := map[Ref]bool{}
	for _, o := range objs {
		if s, ok := o.Obj.(*corev1.Secret); ok && wanted[Ref{"Secret", s.Namespace, s.Name}] {
			out[Ref{"Secret", s.Namespace, s.Name}] = true
		}
	}
	return out
}

// chooseWants keeps, for each Secret absent from the input and referred
// to, the want of the best rank (then the first by source), sorted by
// Secret.
func chooseWants(wants []want, refs []reference, present map[Ref]bool) []want {
	referred := map[Ref]bool{}
	for _, r := range refs {
		referred[r.secret] = true
	}
	best := map[Ref]want{}
	for _, w := range wants {
		if present[w.secret] || !referred[w.secret] {
			continue
		}
		if b, ok := best[w.secret]; !ok || w.rank < b.rank || (w.rank == b.rank && w.forWhat < b.forWhat) {
			best[w.secret] = w
		}
	}
	out := make([]want, 0, len(best))
	for _, w := range best {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b want) int {
		return strings.Compare(a.secret.Namespace+"/"+a.secret.Name, b.secret.Namespace+"/"+b.secret.Name)
	})
	return out
}

// makeSecret makes the stand-in Secret of w. A certificate without names
// of its own is for the host names of the objects referring to it; ca.crt
// and crl.pem are the namespace's stand-in CA and its empty revocation
// list. Other keys hold a placeholder: Contour reads none.
func makeSecret(w want, refs []reference, cache *Cache) (loader.Object, error) {
	identity := "Secret/" + w.secret.Namespace + "/" + w.secret.Name + "/" + w.forWhat
	data := map[string][]byte{}
	needCert := w.secretType == corev1.SecretTypeTLS || w.cert != nil
	for _, k := range w.keys {
		switch k {
		case corev1.TLSCertKey, corev1.TLSPrivateKeyKey:
			needCert = true
		case caKey, crlKey:
		default:
			data[k] = []byte(Organization)
		}
	}
	if needCert {
		req := certRequest{dnsNames: hostsOf(refs, w.secret)}
		if w.cert != nil {
			req = *w.cert
		}
		pair, err := cache.cert(identity, req)
		if err != nil {
			return loader.Object{}, &loader.Error{Source: w.source, Msg: fmt.Sprintf("stand-in Secret %s/%s for %s: %v", w.secret.Namespace, w.secret.Name, w.forWhat, err)}
		}
		data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey] = pair.cert, pair.key
	}
	if ca, crl := slices.Contains(w.keys, caKey), slices.Contains(w.keys, crlKey); ca || crl {
		caPEM, crlPEM, err := cache.ca(w.secret.Namespace, crl)
		if err != nil {
			return loader.Object{}, err
		}
		if ca {
			data[caKey] = caPEM
		}
		if crl {
			data[crlKey] = crlPEM
		}
	}
	secret := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: w.secret.Name, Namespace: w.secret.Namespace, Generation: 1,
			Annotations: map[string]string{AnnotationStandIn: w.forWhat},
		},
		Type: w.secretType,
		Data: data,
	}
	return loader.Object{Kind: "Secret", Source: w.source, Obj: secret, APIVersion: "v1", StandIn: w.forWhat}, nil
}

// delegations are the TLSCertificateDelegations --assume-secret asks for,
// one per Secret, named after it.
func delegations(assumed []Assumed) []loader.Object {
	var out []loader.Object
	for _, a := range assumed {
		if len(a.Delegate) == 0 {
			continue
		}
		d := &contourv1.TLSCertificateDelegation{
			TypeMeta: metav1.TypeMeta{APIVersion: "projectcontour.io/v1", Kind: "TLSCertificateDelegation"},
			ObjectMeta: metav1.ObjectMeta{
				Name: "contourc-stand-in-" + a.Name, Namespace: a.Namespace, Generation: 1,
				Annotations: map[string]string{AnnotationStandIn: "--assume-secret"},
			},
			Spec: contourv1.TLSCertificateDelegationSpec{Delegations: []contourv1.CertificateDelegation{
				{SecretName: a.Name, TargetNamespaces: slices.Clone(a.Delegate)},
			}},
		}
		out = append(out, loader.Object{Kind: "TLSCertificateDelegation", Source: loader.Source{File: "--assume-secret"}, Obj: d, APIVersion: "projectcontour.io/v1", StandIn: "--assume-secret"})
	}
	return out
}

// merge adds objs to sorted, keeping loader's order.
func merge(sorted, objs []loader.Object) []loader.Object {
	if len(objs) == 0 {
		return sorted
	}
	slices.SortStableFunc(objs, loader.Compare)
	out := make([]loader.Object, 0, len(sorted)+len(objs))
	i, j := 0, 0
	for i < len(sorted) && j < len(objs) {
		if loader.Compare(objs[j], sorted[i]) < 0 {
			out = append(out, objs[j])
			j++
		} else {
			out = append(out, sorted[i])
			i++
		}
	}
	out = append(out, sorted[i:]...)
	return append(out, objs[j:]...)
}
