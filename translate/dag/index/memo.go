package index

import (
	"slices"
	"sort"
	"sync/atomic"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// Memo is the object index's part of translate's Memo: what one
// translation's index leaves for the next. It holds the verdicts of
// Secret validations, by the Secret's content: checking 5,000 serving
// certificates (parsing them) took 80 ms of CPU in every reload at 5,000
// HTTPProxies, though a one-file change changes none of them. It also
// holds the last index with the objects it indexes, which the next one
// patches. Its zero value is ready to use; a nil *Memo keeps nothing.
type Memo struct {
	verdicts verdicts
	// objects is the last translation's object index, which the next
	// patches; patchedIndexes counts the times it was patched, for tests.
	objects        *indexedObjects
	patchedIndexes atomic.Int64
}

// Index starts a translation of objs: it returns their index, the last
// translation's patched when it can, and drops the Secret verdicts of the
// translation before the last. With a nil Memo it is New(objs, opts).
func (m *Memo) Index(objs []loader.Object, opts Options) *Index {
	c := m.objectIndex(objs, opts)
	c.memoized = m != nil
	c.verdicts = m.begin()
	return c
}

// begin starts a translation's verdicts: in m, or, without a Memo, its
// own for its length. While the objects are the last ones patched, the
// verdicts on the Secrets still there are kept (verdicts.begin).
func (m *Memo) begin() *verdicts {
	if m == nil {
		v := &verdicts{}
		v.begin(nil)
		return v
	}
	var kept *indexedObjects
	if m.objects != nil && m.objects.patched {
		kept = m.objects
	}
	m.verdicts.begin(kept)
	return &m.verdicts
}

// Objects are the objects of the index m keeps for the next translation
// to patch, nil when it keeps none.
func (m *Memo) Objects() []loader.Object {
	if m == nil || m.objects == nil {
		return nil
	}
	return m.objects.objs
}

// Patching the object index.
//
// Building the index hashes every object's name into a map or two: 12-14
// ms at every reload of 5,000 HTTPProxies (20,000 objects), though a
// one-file change changes a few. So the Memo keeps the index with the
// objects it indexes, and the next translation patches it with the
// objects that differ: the loader's cache hands unchanged objects out
// again as the same values, so comparing the two lists in step is a
// pointer comparison per object.
//
// Both lists must be in the loader's order (kind, namespace, name, each
// key once), which says which side of a difference is the removed object
// and which the added one; a list in any other order, a large change, or
// other options, build the index anew. The maps are patched, and so are
// the lists build sorts by qualified name (HTTPProxies, Ingresses,
// ExtensionServices); the lists it keeps in the objects' order (Gateway
// API routes...) are listed again from the objects when their kind
// changed. The result is the index build builds (memo_test.go
// compares them).

// indexedObjects is an index with the objects and options it indexes.
type indexedObjects struct {
	objs []loader.Object
	opts Options
	c    *Index
	// patched says c is the last translation's index patched, without
	// the objects removed.
	patched bool
	removed []loader.Object
}

// A change of more than one object in patchedShare, and more than
// patchedAnyway objects, is indexed anew, which is then the cheaper.
const (
	patchedShare  = 8
	patchedAnyway = 64
)

// objectIndex returns build(objs, opts), patching the one the last
// translation built when it can.
func (m *Memo) objectIndex(objs []loader.Object, opts Options) *Index {
	if m == nil {
		return build(objs, opts)
	}
	next := &indexedObjects{objs: objs, opts: opts}
	last := m.objects
	m.objects = nil
	if last != nil && last.sameOptions(next) {
		if removed, added, ok := objectChanges(last.objs, objs); ok {
			if n := len(removed) + len(added); n <= patchedAnyway || n*patchedShare <= len(objs) {
				next.c = last.c.patched(objs, removed, added, opts)
				next.patched, next.removed = true, removed
				m.patchedIndexes.Add(1)
				m.objects = next
				return next.c
			}
			m.objects = next // in order, though changed too much
		}
	} else if InLoaderOrder(objs) {
		m.objects = next
	}
	next.c = build(objs, opts)
	return next.c
}

// sameOptions says whether x and y index the same objects alike: the
// other options change lookups, not the index.
func (x *indexedObjects) sameOptions(y *indexedObjects) bool {
	return slices.Equal(x.opts.IngressClassNames, y.opts.IngressClassNames) && slices.Equal(x.opts.SecretNamespaces, y.opts.SecretNamespaces)
}

// InLoaderOrder says whether objs are in the loader's order, each key once.
func InLoaderOrder(objs []loader.Object) bool {
	for i := 1; i < len(objs); i++ {
		if loader.Compare(objs[i-1], objs[i]) >= 0 {
			return false
		}
	}
	return true
}

// objectChanges returns the objects of prev not in cur and those of cur
// not in prev, both lists in the loader's order, given that prev is. An
// object whose key is in both but which differs is removed and added. ok
// says whether cur is in the loader's order too: the objects in both are
// in prev's order, so only the added ones need checking against their
// neighbours.
func objectChanges(prev, cur []loader.Object) (removed, added []loader.Object, ok bool) {
	var addedAt []int
	i, j := 0, 0
	for i < len(prev) && j < len(cur) {
		if prev[i] == cur[j] {
			i, j = i+1, j+1
			continue
		}
		switch c := loader.Compare(prev[i], cur[j]); {
		case c < 0:
			removed = append(removed, prev[i])
			i++
		case c > 0:
			added, addedAt = append(added, cur[j]), append(addedAt, j)
			j++
		default:
			removed, added, addedAt = append(removed, prev[i]), append(added, cur[j]), append(addedAt, j)
			i, j = i+1, j+1
		}
	}
	removed = append(removed, prev[i:]...)
	for ; j < len(cur); j++ {
		added, addedAt = append(added, cur[j]), append(addedAt, j)
	}
	for _, j := range addedAt {
		if (j > 0 && loader.Compare(cur[j-1], cur[j]) >= 0) || (j+1 < len(cur) && loader.Compare(cur[j], cur[j+1]) >= 0) {
			return nil, nil, false
		}
	}
	return removed, added, true
}

// patched returns the index of objs, which are the objects c indexes
// without removed and with added, under opts, which index them as c's
// did. It takes c's maps over, which c's translation no longer reads.
func (c *Index) patched(objs, removed, added []loader.Object, opts Options) *Index {
	visible := visibleFilter(opts.SecretNamespaces)
	next := &Index{
		services: c.services, Secrets: c.Secrets, slices: c.slices, delegations: c.delegations,
		Ingresses: c.Ingresses, HTTPProxies: c.HTTPProxies, Extensions: c.Extensions,
		sources: c.sources, opts: opts,
		HTTPProxyByName: c.HTTPProxyByName, HTTPProxyExt: c.HTTPProxyExt,
		Gateways: c.Gateways, GatewayClasses: c.GatewayClasses,
		HTTPRoutes: c.HTTPRoutes, GRPCRoutes: c.GRPCRoutes, TLSRoutes: c.TLSRoutes, TCPRoutes: c.TCPRoutes,
		ReferenceGrants: c.ReferenceGrants, BackendTLSPolicies: c.BackendTLSPolicies,
		Namespaces: c.Namespaces, configMaps: c.configMaps,
	}
	var relisted [numLists]bool
	var gone sortedLists
	// The added objects of the sorted lists go through insert, which
	// admits them (and indexes HTTPProxies by name) as build does, into
	// lists of their own that are then sorted in.
	fresh := &Index{opts: next.opts, HTTPProxyByName: next.HTTPProxyByName, HTTPProxyExt: next.HTTPProxyExt}
	touchedServices := map[types.NamespacedName]bool{}
	for _, o := range removed {
		delete(next.sources, objectKey{o.Kind, NamespacedName(o.Obj)})
		switch l := listOf(o); l {
		case sortedList:
			gone.remove(next, o)
		case notListed:
			next.unindex(o, touchedServices)
		default:
			relisted[l] = true
		}
	}
	for _, o := range added {
		if !visible(o) {
			continue
		}
		next.sources[objectKey{o.Kind, NamespacedName(o.Obj)}] = o.Source
		switch l := listOf(o); l {
		case sortedList:
			fresh.insert(o)
		case notListed:
			next.index(o, touchedServices)
		default:
			relisted[l] = true
		}
	}
	next.HTTPProxies = patchSorted(next.HTTPProxies, gone.proxies, fresh.HTTPProxies)
	next.Ingresses = patchSorted(next.Ingresses, gone.ingresses, fresh.Ingresses)
	next.Extensions = patchSorted(next.Extensions, gone.extensions, fresh.Extensions)
	next.relist(objs, relisted)
	for name := range touchedServices {
		eps := next.slices[name]
		sort.Slice(eps, func(i, j int) bool { return eps[i].Name < eps[j].Name })
	}
	return next
}

// sortedLists are the objects removed from the lists build sorts by
// qualified name, which are patched: relisting them sorted 5,000
// HTTPProxies again at every reload that changed one.
type sortedLists struct {
	proxies    []*contourv1.HTTPProxy
	ingresses  []*networkingv1.Ingress
	extensions []*contourv1alpha1.ExtensionService
}

// remove records that o, of a sorted list's kind, is gone, and unindexes
// an HTTPProxy's name.
func (sl *sortedLists) remove(c *Index, o loader.Object) {
	switch obj := o.Obj.(type) {
	case *contourv1.HTTPProxy:
		sl.proxies = append(sl.proxies, obj)
		name := NamespacedName(obj)
		deleteIf(c.HTTPProxyByName, name, obj)
		deleteIf(c.HTTPProxyExt, name, o.Extensions)
	case *networkingv1.Ingress:
		sl.ingresses = append(sl.ingresses, obj)
	case *contourv1alpha1.ExtensionService:
		sl.extensions = append(sl.extensions, obj)
	}
}

// patchSorted returns list, sorted by qualified name, without the
// objects removed and with those added, as a new slice: list may be the
// previous index's.
func patchSorted[T interface {
	comparable
	metav1.Object
}](list, removed, added []T) []T {
	if len(removed) == 0 && len(added) == 0 {
		return list
	}
	out := make([]T, 0, len(list)+len(added))
	for _, x := range list {
		if !slices.Contains(removed, x) {
			out = append(out, x)
		}
	}
	if len(out)+len(added) == 0 {
		return nil // as build lists none
	}
	if len(added) > patchedInserts {
		out = append(out, added...)
		sortByQualifiedName(out)
		return out
	}
	for _, a := range added {
		at, _ := slices.BinarySearchFunc(out, a, func(x, a T) int {
			return CompareQualified(x.GetNamespace(), x.GetName(), a.GetNamespace(), a.GetName())
		})
		out = slices.Insert(out, at, a)
	}
	return out
}

// patchedInserts is how many objects patchSorted inserts one by one; more
// are sorted in.
const patchedInserts = 32

// listID names a list of objects the index keeps in the objects' order
// (for TLSCertificateDelegations, lists by namespace), which patched
// lists again rather than patching; sortedList stands for the lists sorted
// by qualified name, which it patches, and notListed for the kinds kept in
// maps only.
type listID int

const (
	notListed listID = iota
	sortedList
	delegationList
	httpRouteList
	grpcRouteList
	tlsRouteList
	tcpRouteList
	referenceGrantList
	backendTLSPolicyList
	numLists
)

// listOf is the list o is kept in.
func listOf(o loader.Object) listID {
	switch o.Obj.(type) {
	case *contourv1.HTTPProxy, *networkingv1.Ingress, *contourv1alpha1.ExtensionService:
		return sortedList
	case *contourv1.TLSCertificateDelegation:
		return delegationList
	case *gatewayv1.HTTPRoute:
		return httpRouteList
	case *gatewayv1.GRPCRoute:
		return grpcRouteList
	case *gatewayv1.TLSRoute:
		return tlsRouteList
	case *gatewayv1.TCPRoute:
		return tcpRouteList
	case *gatewayv1.ReferenceGrant:
		return referenceGrantList
	case *gatewayv1.BackendTLSPolicy:
		return backendTLSPolicyList
	}
	return notListed
}

// index adds o, of a kind kept in maps only, as insert does; touched
// collects the Services whose EndpointSlices changed.
func (c *Index) index(o loader.Object, touched map[types.NamespacedName]bool) {
	if eps, ok := o.Obj.(*discoveryv1.EndpointSlice); ok {
		if svc := eps.Labels[discoveryv1.LabelServiceName]; svc != "" {
			key := types.NamespacedName{Namespace: eps.Namespace, Name: svc}
			// Clipped, so that appending copies: the list may be
			// the previous index's.
			c.slices[key] = append(slices.Clip(c.slices[key]), eps)
			touched[key] = true
		}
	} else {
		c.insert(o)
	}
}

// unindex removes o, of a kind kept in maps only.
func (c *Index) unindex(o loader.Object, touched map[types.NamespacedName]bool) {
	name := NamespacedName(o.Obj)
	switch obj := o.Obj.(type) {
	case *corev1.Service:
		deleteIf(c.services, name, obj)
	case *corev1.Secret:
		deleteIf(c.Secrets, name, obj)
	case *discoveryv1.EndpointSlice:
		svc := obj.Labels[discoveryv1.LabelServiceName]
		if svc == "" {
			return
		}
		key := types.NamespacedName{Namespace: obj.Namespace, Name: svc}
		rest := slices.DeleteFunc(slices.Clone(c.slices[key]), func(e *discoveryv1.EndpointSlice) bool { return e == obj })
		if len(rest) == 0 {
			delete(c.slices, key)
		} else {
			c.slices[key] = rest
		}
		touched[key] = true
	case *gatewayv1.Gateway:
		deleteIf(c.Gateways, name, obj)
	case *gatewayv1.GatewayClass:
		deleteIf(c.GatewayClasses, obj.Name, obj)
	case *corev1.Namespace:
		deleteIf(c.Namespaces, obj.Name, obj)
	case *corev1.ConfigMap:
		deleteIf(c.configMaps, name, obj)
	}
}

// deleteIf deletes m[k] when it is v.
func deleteIf[K, V comparable](m map[K]V, k K, v V) {
	if m[k] == v {
		delete(m, k)
	}
}

// relist lists the objects of the lists marked again, as build lists
// them: in the objects' order.
func (c *Index) relist(objs []loader.Object, lists [numLists]bool) {
	if lists == ([numLists]bool{}) {
		return
	}
	if lists[delegationList] {
		c.delegations = map[string][]*contourv1.TLSCertificateDelegation{}
	}
	if lists[httpRouteList] {
		c.HTTPRoutes = nil
	}
	if lists[grpcRouteList] {
		c.GRPCRoutes = nil
	}
	if lists[tlsRouteList] {
		c.TLSRoutes = nil
	}
	if lists[tcpRouteList] {
		c.TCPRoutes = nil
	}
	if lists[referenceGrantList] {
		c.ReferenceGrants = nil
	}
	if lists[backendTLSPolicyList] {
		c.BackendTLSPolicies = nil
	}
	for _, o := range objs {
		if lists[listOf(o)] {
			c.insert(o)
		}
	}
}
