package loader

import (
	"slices"
	"strings"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader/builtin"
	"github.com/contourc/contourc/loader/mainbranch"
)

// KindInfo describes one kind the loader consumes.
type KindInfo struct {
	Group string // "" for the core group
	Kind  string
	// Version is the internal version: the one of the Go type objects of
	// this kind are decoded into, and the apiVersion their TypeMeta says.
	Version string
	// Served lists every version accepted in input. Gateway API versions
	// all have the same shape, so each is read straight into the internal
	// version's Go type.
	Served     []string
	Namespaced bool
	// New returns a pointer to an empty object of the internal version.
	New func() metav1.Object
}

// APIVersion is the internal version's apiVersion, e.g. "networking.k8s.io/v1".
func (k KindInfo) APIVersion() string {
	return joinAPIVersion(k.Group, k.Version)
}

// kindSpec is a KindInfo plus what the loader does with objects of the kind
// after decoding them.
type kindSpec struct {
	KindInfo
	validName func(string) []string // metadata.name rule of the API server
	finish    func(metav1.Object)   // API server defaulting beyond the schema's (loader/builtin)
	// validate is the API server's validation of a built-in kind on
	// create, beyond metadata (validate_*.go); it sees the defaulted
	// object and returns nil for a valid one.
	validate func(metav1.Object) field.ErrorList
	// detach takes out the fields the Go type lacks (loader/mainbranch).
	detach mainbranch.DetachFunc
	// crd is true for kinds a CustomResourceDefinition defines: the API
	// server admits them with the CRD's schema (admit.go).
	crd bool
}

const (
	gatewayGroup = "gateway.networking.k8s.io"
	contourGroup = "projectcontour.io"
)

// kinds is the table of consumed kinds: adding a kind is adding a line.
// Kinds not in it are skipped (and counted), except the removed APIs of
// removedKinds, which are errors.
var kinds = []kindSpec{
	validated(core("Service", true, func() metav1.Object { return &corev1.Service{} }, builtin.ServiceName, builtin.FinishService), builtin.ValidateService),
	validated(core("Secret", true, func() metav1.Object { return &corev1.Secret{} }, builtin.SubdomainName, builtin.FinishSecret), builtin.ValidateSecret),
	validated(core("ConfigMap", true, func() metav1.Object { return &corev1.ConfigMap{} }, builtin.SubdomainName, nil), builtin.ValidateConfigMap),
	core("Namespace", false, func() metav1.Object { return &corev1.Namespace{} }, lowerCase(validation.IsDNS1123Label, builtin.DNS1123Label), builtin.FinishNamespace),
	validated(core("Endpoints", true, func() metav1.Object { return &corev1.Endpoints{} }, builtin.SubdomainName, nil), builtin.ValidateEndpoints),
	validated(kind("discovery.k8s.io", "EndpointSlice", "v1", nil, func() metav1.Object { return &discoveryv1.EndpointSlice{} }), builtin.ValidateEndpointSlice),
	validated(kind("networking.k8s.io", "Ingress", "v1", nil, func() metav1.Object { return &networkingv1.Ingress{} }), builtin.ValidateIngress),
	// IngressClasses are read for the API server's DefaultIngressClass
	// admission (ingressclass.go); Contour itself does not watch them.
	clusterScoped(kind("networking.k8s.io", "IngressClass", "v1", nil, func() metav1.Object { return &networkingv1.IngressClass{} })),

	withExtensions(kind(contourGroup, "HTTPProxy", "v1", nil, func() metav1.Object { return &contourv1.HTTPProxy{} }), mainbranch.DetachHTTPProxyExtensions),
	kind(contourGroup, "TLSCertificateDelegation", "v1", nil, func() metav1.Object { return &contourv1.TLSCertificateDelegation{} }),
	kind(contourGroup, "ExtensionService", "v1alpha1", nil, func() metav1.Object { return &contourv1alpha1.ExtensionService{} }),
	withExtensions(kind(contourGroup, "ContourConfiguration", "v1alpha1", nil, func() metav1.Object { return &contourv1alpha1.ContourConfiguration{} }), mainbranch.DetachContourConfigurationExtensions),

	// Older Gateway API versions that the v1.6 CRDs no longer serve
	// (GRPCRoute and ReferenceGrant v1alpha2, BackendTLSPolicy v1alpha2)
	// are still accepted: manifests written for older releases use them
	// with the same shape, and Contour reads them as the version it
	// watches.
	clusterScoped(kind(gatewayGroup, "GatewayClass", "v1", []string{"v1beta1"}, func() metav1.Object { return &gatewayv1.GatewayClass{} })),
	kind(gatewayGroup, "Gateway", "v1", []string{"v1beta1"}, func() metav1.Object { return &gatewayv1.Gateway{} }),
	kind(gatewayGroup, "HTTPRoute", "v1", []string{"v1beta1"}, func() metav1.Object { return &gatewayv1.HTTPRoute{} }),
	kind(gatewayGroup, "GRPCRoute", "v1", []string{"v1alpha2"}, func() metav1.Object { return &gatewayv1.GRPCRoute{} }),
	kind(gatewayGroup, "TLSRoute", "v1", []string{"v1alpha3", "v1alpha2"}, func() metav1.Object { return &gatewayv1.TLSRoute{} }),
	kind(gatewayGroup, "TCPRoute", "v1", []string{"v1alpha2"}, func() metav1.Object { return &gatewayv1.TCPRoute{} }),
	kind(gatewayGroup, "ReferenceGrant", "v1", []string{"v1beta1", "v1alpha2"}, func() metav1.Object { return &gatewayv1.ReferenceGrant{} }),
	kind(gatewayGroup, "BackendTLSPolicy", "v1", []string{"v1alpha3", "v1alpha2"}, func() metav1.Object { return &gatewayv1.BackendTLSPolicy{} }),
	kind(gatewayGroup, "ListenerSet", "v1", nil, func() metav1.Object { return &gatewayv1.ListenerSet{} }),
}

// removedKinds are APIs that no longer exist, keyed by group and kind ("*"
// for any kind of the group). Skipping them silently would hide the routes
// they define, so they are errors.
var removedKinds = map[groupKind]string{
	{"extensions", "Ingress"}:              "extensions/v1beta1 Ingress was removed in Kubernetes 1.22; use networking.k8s.io/v1",
	{"contour.heptio.com", "IngressRoute"}: "IngressRoute was removed from Contour; use HTTPProxy (projectcontour.io/v1)",
	{contourGroup, "IngressRoute"}:         "IngressRoute was removed from Contour; use HTTPProxy (projectcontour.io/v1)",
	{"contour.heptio.com", "*"}:            "the contour.heptio.com API group was removed from Contour; use projectcontour.io/v1",
}

// versionHints explain the versions of consumed kinds that are refused.
var versionHints = map[string]string{
	"networking.k8s.io/v1beta1/Ingress":      "removed in Kubernetes 1.22",
	"discovery.k8s.io/v1beta1/EndpointSlice": "removed in Kubernetes 1.25",
	"projectcontour.io/v1alpha1/HTTPProxy":   "HTTPProxy has only ever been projectcontour.io/v1",
}

type groupKind struct{ group, kind string }

// Kinds lists the kinds Load consumes. Endpoints are read but never
// returned: they come out as the EndpointSlices mirrored from them.
func Kinds() []KindInfo {
	out := make([]KindInfo, len(kinds))
	for i, k := range kinds {
		out[i] = k.KindInfo
		out[i].Served = slices.Clone(k.Served)
	}
	return out
}

// kindsByGroupKind indexes kinds.
var kindsByGroupKind = func() map[groupKind]*kindSpec {
	m := make(map[groupKind]*kindSpec, len(kinds))
	for i := range kinds {
		m[groupKind{kinds[i].Group, kinds[i].Kind}] = &kinds[i]
	}
	return m
}()

func core(name string, namespaced bool, newObj func() metav1.Object, validName func(string) []string, finish func(metav1.Object)) kindSpec {
	k := kind("", name, "v1", nil, newObj)
	k.Namespaced = namespaced
	k.validName = validName
	k.finish = finish
	return k
}

// kind declares a namespaced kind whose names are DNS-1123 subdomains (in
// any case, see anyCase), the API server's rule for custom resources and
// most built-in kinds.
func kind(group, name, version string, older []string, newObj func() metav1.Object) kindSpec {
	return kindSpec{
		KindInfo: KindInfo{
			Group:      group,
			Kind:       name,
			Version:    version,
			Served:     append([]string{version}, older...),
			Namespaced: true,
			New:        newObj,
		},
		validName: builtin.SubdomainName,
		crd:       group == gatewayGroup || group == contourGroup,
	}
}

// lowerCase is rule as the API server has it, with its quick scan tried
// first.
func lowerCase(rule func(string) []string, accept func(s string, upper bool) bool) func(string) []string {
	return func(name string) []string {
		if accept(name, false) {
			return nil
		}
		return rule(name)
	}
}

// withExtensions gives a kind the fields of Contour's main branch that its
// Go type lacks.
func withExtensions(k kindSpec, detach mainbranch.DetachFunc) kindSpec {
	k.detach = detach
	return k
}

// validated gives a kind the API server's validation beyond metadata.
func validated(k kindSpec, validate func(metav1.Object) field.ErrorList) kindSpec {
	k.validate = validate
	return k
}

func clusterScoped(k kindSpec) kindSpec {
	k.Namespaced = false
	return k
}

func (k *kindSpec) serves(version string) bool {
	return slices.Contains(k.Served, version)
}

// splitAPIVersion splits "group/version" ("v1" for the core group).
func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

func joinAPIVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}
