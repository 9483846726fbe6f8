// Package translate turns loaded objects into Contour's DAG and the DAG into
// the Envoy resources Contour would serve, plus the status Contour would
// write on each object.
//
// It is the public entry (Translate, Options, Result, Memo) and the order of
// the steps; the steps are its subpackages: translate/config resolves the
// settings, translate/dag/index indexes the objects, translate/ingress,
// translate/httpproxy and translate/gatewayapi write the DAG
// (translate/dag) and the status, and translate/envoy builds the Envoy
// resources from the frozen DAG.
package translate

import (
	contourv1alpha1 "github.com/projectcontour/contour/apis/projectcontour/v1alpha1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/internal/status"
)

// Options are the Contour settings that change translation. Zero values mean
// `contour serve` with no configuration file.
type Options struct {
	// IngressClassNames, when set, are the only ingress classes served
	// (Contour's --ingress-class-name, comma-separated).
	IngressClassNames []string
	// RootNamespaces restricts where root HTTPProxies may live.
	RootNamespaces []string
	// Gateway is the Gateway to serve (Contour's gateway.gatewayRef).
	// Without it, the one Gateway whose GatewayClass names
	// GatewayController is served; with several that is an error, with none
	// Gateway API objects are ignored, as in Contour.
	Gateway *types.NamespacedName
	// RequireGateway makes a Gateway that is not among the objects an
	// error (contourc's --gateway); without it, as in Contour, nothing is
	// served for it (diff, one of whose sides may not have it yet).
	RequireGateway bool
	// GatewayController is the controllerName of the GatewayClasses whose
	// Gateway is served by default; empty means
	// "projectcontour.io/gateway-controller".
	GatewayController string
	// Config is Contour's configuration file, when given. Settings given
	// as options (Gateway) override it, as Contour's flags do.
	Config *loader.ContourConfig
	// ContourConfiguration names a projectcontour.io/v1alpha1
	// ContourConfiguration among the inputs whose spec is the
	// configuration instead (Contour's --contour-config-name). Exclusive
	// with Config. With neither, a `contour` ConfigMap among the inputs
	// holding contour.yaml is the configuration file.
	ContourConfiguration *types.NamespacedName
	// ConfigMap, when set without Config and ContourConfiguration, is the
	// ConfigMap whose key is the configuration file (an instance's
	// --config-path), instead of the `contour` ConfigMap among the inputs.
	ConfigMap *config.ConfigMapRef
	// RuntimeSettings, when set without the others, is the configuration:
	// the runtimeSettings of the ContourDeployment of a Gateway, which the
	// Gateway provisioner makes the ContourConfiguration of its Contour.
	RuntimeSettings *contourv1alpha1.ContourConfigurationSpec
	// AddedInstances are instances whose install is not in the input
	// (.contourc.yaml's instances:), added to those Instances finds.
	AddedInstances []AddedInstance
	// NoIngress serves no Ingress and no HTTPProxy, whatever their class:
	// a Gateway's instance (see Instances).
	NoIngress bool
	// NoDefaultGateway serves no Gateway when Gateway is not set (and the
	// configuration names none), rather than the only one of the
	// controller: a run of several instances gives each Gateway its own.
	NoDefaultGateway bool
	// Flags are the `contour serve` flags that change Envoy's
	// configuration; given ones override the configuration file.
	Flags ServeFlags
	// UpstreamDNS, when non-empty, makes clusters of Services that have no
	// endpoints in the input STRICT_DNS clusters resolving
	// <svc>.<ns>.svc.<UpstreamDNS>:<port>.
	UpstreamDNS string
	// StatusOnly skips building Envoy resources: Result.Resources is
	// empty, while status and notices are as always (contourc check).
	StatusOnly bool
	// Memo, when set, lets this translation reuse work of the previous
	// one given the same Memo (see Memo). It changes no result.
	Memo *Memo
	// Cluster are objects the cluster has that the input does not
	// (contourc's --cluster-context, --assume-service, default/kubernetes),
	// in the loader's order: used in translation like the input's, an
	// input object of the same kind, namespace and name winning (with a
	// notice), and never given a status in Result.Status, which is the
	// input's. They must not be modified afterwards either.
	Cluster []loader.Object
	// ADS makes the resources refer to one another (RDS, EDS, SDS) with
	// {ads: {}} config sources, for an Envoy whose bootstrap gives it one
	// aggregated xDS stream (contourc bootstrap), instead of Contour's
	// api_config_source to the "contour" cluster.
	ADS bool
	// rootsInOrder and httpRoutesInOrder, for tests that compare the
	// two, process the HTTPProxy roots and the HTTPRoutes one after the
	// other, as Contour does, rather than on every CPU first (httpproxy's
	// rootsApart, gatewayapi's convertAhead).
	rootsInOrder, httpRoutesInOrder bool
}

// ServeFlags are the `contour serve` flags that change Envoy's
// configuration (translate/config resolves them); an alias, so that callers
// keep writing translate.ServeFlags.
type ServeFlags = config.ServeFlags

// Result is the outcome of one translation.
type Result struct {
	Resources Resources
	// Status is what Contour would write on each object that carries status
	// (HTTPProxy, ExtensionService, Gateway API objects), and an entry for
	// every Ingress (ObjectStatus.Findings), sorted by kind/namespace/name.
	Status []ObjectStatus
	// Gateway is the Gateway served, nil when none is.
	Gateway *types.NamespacedName
	// Notices are things a user should know that are not errors in any
	// object, e.g. a Service with no endpoints in the input.
	Notices []Notice
	// dag is the DAG the resources were built from, for the read-only
	// views of routing.go (contourc lint).
	dag *dag.DAG
}

// ObjectStatus is the status of one object in the form Contour writes it
// (defined in translate/internal/status, where the processors write it).
type ObjectStatus = status.ObjectStatus

// Notice is an informational message tied to an object (defined in
// translate/internal/status, where the processors write it).
type Notice = status.Notice

// Translate builds the DAG from objs and the Envoy resources from the DAG.
// The result does not depend on the order of objs.
func Translate(objs []loader.Object, opts Options) (*Result, error) {
	return translate(objs, opts)
}
