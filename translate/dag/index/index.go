package index

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// Index indexes the loaded objects the processors look up, the way
// Contour's KubernetesCache does, including its admission filters (ingress
// class). The processors read its exported lists and maps, and never write
// them: the Memo's next index may be this one patched.
type Index struct {
	services    map[types.NamespacedName]*corev1.Service
	Secrets     map[types.NamespacedName]*corev1.Secret
	slices      map[types.NamespacedName][]*discoveryv1.EndpointSlice // by Service
	delegations map[string][]*contourv1.TLSCertificateDelegation      // by namespace
	Ingresses   []*networkingv1.Ingress                               // ordered by namespace/name
	HTTPProxies []*contourv1.HTTPProxy                                // ordered by namespace/name
	Extensions  []*contourv1alpha1.ExtensionService                   // ordered by namespace/name
	sources     map[objectKey]loader.Source

	HTTPProxyByName map[types.NamespacedName]*contourv1.HTTPProxy
	// HTTPProxyExt are the HTTPProxies' fields that the published API
	// module lacks (localJWKS, serviceType, httpSettings), by name.
	HTTPProxyExt map[types.NamespacedName]*loader.Extensions

	// Gateway API
	Gateways           map[types.NamespacedName]*gatewayv1.Gateway
	GatewayClasses     map[string]*gatewayv1.GatewayClass
	HTTPRoutes         []*gatewayv1.HTTPRoute
	GRPCRoutes         []*gatewayv1.GRPCRoute
	TLSRoutes          []*gatewayv1.TLSRoute
	TCPRoutes          []*gatewayv1.TCPRoute
	ReferenceGrants    []*gatewayv1.ReferenceGrant
	BackendTLSPolicies []*gatewayv1.BackendTLSPolicy
	Namespaces         map[string]*corev1.Namespace
	configMaps         map[types.NamespacedName]*corev1.ConfigMap

	// opts are the configuration's values the index applies.
	opts         Options
	secretChecks secretChecks
	verdicts     *verdicts
	// memoized says the index was made through a Memo, whose callers
	// may replay lookups instead of making them.
	memoized bool
	// routedWithoutEndpoints is set when a lookup found a Service port
	// of a Service without EndpointSlices: only then can a cluster lack
	// endpoints. The cluster's default/kubernetes, in every translation
	// and seldom routed to, made check walk every cluster for nothing.
	routedWithoutEndpoints atomic.Bool
}

// Options are the values of Contour's configuration the index applies.
type Options struct {
	// IngressClassNames are the ingress classes served; none: objects
	// without a class or of class "contour".
	IngressClassNames []string
	// SecretNamespaces are the namespaces whose Secrets Contour sees,
	// sorted, nil for all.
	SecretNamespaces []string
	// ClientCertificate is Envoy's client certificate
	// (tls.envoy-client-certificate), nil when none is configured.
	ClientCertificate *types.NamespacedName
	// ExternalNameServices says whether ExternalName Services may be
	// routed to (enableExternalNameService).
	ExternalNameServices bool
}

type objectKey struct {
	kind string
	name types.NamespacedName
}

// New indexes objs, with no Memo: its Secret verdicts last as long as
// the index.
func New(objs []loader.Object, opts Options) *Index {
	return (*Memo)(nil).Index(objs, opts)
}

// build indexes objs.
func build(objs []loader.Object, opts Options) *Index {
	// Maps sized up front: growing them one rehash at a time was most of
	// building the cache for 20,000 objects.
	n := kindCounts(objs)
	c := &Index{
		services:        make(map[types.NamespacedName]*corev1.Service, n.services),
		Secrets:         make(map[types.NamespacedName]*corev1.Secret, n.secrets),
		slices:          make(map[types.NamespacedName][]*discoveryv1.EndpointSlice, n.slices),
		delegations:     map[string][]*contourv1.TLSCertificateDelegation{},
		HTTPProxyByName: make(map[types.NamespacedName]*contourv1.HTTPProxy, n.httpproxies),
		HTTPProxyExt:    map[types.NamespacedName]*loader.Extensions{},
		Gateways:        map[types.NamespacedName]*gatewayv1.Gateway{},
		GatewayClasses:  map[string]*gatewayv1.GatewayClass{},
		Namespaces:      map[string]*corev1.Namespace{},
		configMaps:      map[types.NamespacedName]*corev1.ConfigMap{},
		opts:            opts,
	}
	visible := visibleFilter(opts.SecretNamespaces)
	// The sources, by far the biggest index, on the other CPU.
	var wg sync.WaitGroup
	wg.Go(func() {
		c.sources = make(map[objectKey]loader.Source, len(objs))
		for _, o := range objs {
			if visible(o) {
				c.sources[objectKey{o.Kind, types.NamespacedName{Namespace: o.Obj.GetNamespace(), Name: o.Obj.GetName()}}] = o.Source
			}
		}
	})
	for _, o := range objs {
		if visible(o) {
			c.insert(o)
		}
	}
	wg.Wait()
	sortByQualifiedName(c.Ingresses)
	sortByQualifiedName(c.HTTPProxies)
	sortByQualifiedName(c.Extensions)
	for _, s := range c.slices {
		sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	}
	return c
}

// counts are how many objects of the most numerous kinds there are.
type counts struct{ services, secrets, slices, httpproxies int }

func kindCounts(objs []loader.Object) counts {
	var n counts
	for _, o := range objs {
		switch o.Obj.(type) {
		case *corev1.Service:
			n.services++
		case *corev1.Secret:
			n.secrets++
		case *discoveryv1.EndpointSlice:
			n.slices++
		case *contourv1.HTTPProxy:
			n.httpproxies++
		}
	}
	return n
}

// visibleFilter says which objects the index holds: all but the Secrets
// of namespaces Contour does not watch (Options.SecretNamespaces).
func visibleFilter(namespaces []string) func(loader.Object) bool {
	if namespaces == nil {
		return func(loader.Object) bool { return true }
	}
	return func(o loader.Object) bool {
		_, isSecret := o.Obj.(*corev1.Secret)
		return !isSecret || slices.Contains(namespaces, o.Obj.GetNamespace())
	}
}

func (c *Index) insert(o loader.Object) {
	switch obj := o.Obj.(type) {
	case *corev1.Service:
		c.services[NamespacedName(obj)] = obj
	case *corev1.Secret:
		c.Secrets[NamespacedName(obj)] = obj
	case *discoveryv1.EndpointSlice:
		svc := obj.Labels[discoveryv1.LabelServiceName]
		if svc != "" {
			key := types.NamespacedName{Namespace: obj.Namespace, Name: svc}
			c.slices[key] = append(c.slices[key], obj)
		}
	case *contourv1.TLSCertificateDelegation:
		c.delegations[obj.Namespace] = append(c.delegations[obj.Namespace], obj)
	case *contourv1.HTTPProxy:
		if MatchesIngressClass(HTTPProxyClassOf(obj), c.opts.IngressClassNames) {
			c.HTTPProxies = append(c.HTTPProxies, obj)
			c.HTTPProxyByName[NamespacedName(obj)] = obj
			if o.Extensions != nil {
				c.HTTPProxyExt[NamespacedName(obj)] = o.Extensions
			}
		}
	case *contourv1alpha1.ExtensionService:
		c.Extensions = append(c.Extensions, obj)
	case *gatewayv1.Gateway:
		c.Gateways[NamespacedName(obj)] = obj
	case *gatewayv1.GatewayClass:
		c.GatewayClasses[obj.Name] = obj
	case *gatewayv1.HTTPRoute:
		c.HTTPRoutes = append(c.HTTPRoutes, obj)
	case *gatewayv1.GRPCRoute:
		c.GRPCRoutes = append(c.GRPCRoutes, obj)
	case *gatewayv1.TLSRoute:
		c.TLSRoutes = append(c.TLSRoutes, obj)
	case *gatewayv1.TCPRoute:
		c.TCPRoutes = append(c.TCPRoutes, obj)
	case *gatewayv1.ReferenceGrant:
		c.ReferenceGrants = append(c.ReferenceGrants, obj)
	case *gatewayv1.BackendTLSPolicy:
		c.BackendTLSPolicies = append(c.BackendTLSPolicies, obj)
	case *corev1.Namespace:
		c.Namespaces[obj.Name] = obj
	case *corev1.ConfigMap:
		c.configMaps[NamespacedName(obj)] = obj
	case *networkingv1.Ingress:
		if MatchesIngressClass(IngressClassOf(obj), c.opts.IngressClassNames) {
			c.Ingresses = append(c.Ingresses, obj)
		}
	}
}

// HTTPProxyExtensions returns the extension fields of an HTTPProxy, nil
// when it has none (its accessors accept nil).
func (c *Index) HTTPProxyExtensions(proxy *contourv1.HTTPProxy) *loader.Extensions {
	return c.HTTPProxyExt[NamespacedName(proxy)]
}

// Source returns where an object came from.
func (c *Index) Source(kind string, name types.NamespacedName) loader.Source {
	return c.sources[objectKey{kind, name}]
}

// NamespacedObject is anything with a namespace and a name.
type NamespacedObject interface {
	GetNamespace() string
	GetName() string
}

// NamespacedName is o's namespace and name.
func NamespacedName(o NamespacedObject) types.NamespacedName {
	return types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}
