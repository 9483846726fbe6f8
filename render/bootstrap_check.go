package render

// Checking a static bootstrap in one pass per resource, on every CPU.
//
// A bootstrap of thousands of virtual hosts has one listener with thousands
// of filter chains, each with its own connection manager holding its route
// table inline. The static check and the reference check both need to
// unpack those typed configs; doing both, and the validation of each unit,
// in one walk unpacks each once, and walking the filter chains as separate
// jobs spreads the one big listener over the CPUs.

import (
	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/presence"
	"github.com/contourc/contourc/render/internal/protowalk"
)

// staticCheck is one unit of checking: a resource, or one filter chain of
// a listener (at is then the step from the listener to it).
type staticCheck struct {
	kind, name string
	m          proto.Message
	at         *protowalk.Step
}

// checkStaticResources runs, for every static resource, Envoy's validation
// rules when validateUnits is set (outside typed configs, which
// BuildBootstrap validated before inlining), CheckStatic's rules and
// CheckBootstrapReferences' rules, and returns the problems in resource
// order: for each resource its first validation or static error, or else
// every dangling reference.
func checkStaticResources(sr *bootstrapv3.Bootstrap_StaticResources, decoded *protowalk.Decoded, validateUnits bool) []error {
	clusters, err1 := uniqueNames("cluster", sr.GetClusters(), (*clusterv3.Cluster).GetName)
	secrets, err2 := uniqueNames("secret", sr.GetSecrets(), (*tlsv3.Secret).GetName)
	_, err3 := uniqueNames("listener", sr.GetListeners(), (*listenerv3.Listener).GetName)
	if errs := nonNil([]error{err1, err2, err3}); len(errs) > 0 {
		return errs
	}
	rc := &refChecker{clusters: clusters, secrets: secrets}

	var checks []staticCheck
	for _, l := range sr.GetListeners() {
		checks = append(checks, listenerChecks(l)...)
	}
	for _, c := range sr.GetClusters() {
		checks = append(checks, staticCheck{kind: "cluster", name: c.GetName(), m: c})
	}
	for _, s := range sr.GetSecrets() {
		checks = append(checks, staticCheck{kind: "secret", name: s.GetName(), m: s})
	}
	found := make([][]error, len(checks))
	par.Workers(len(checks), func() func(int) {
		memo := map[string][]byte{} // typed configs this worker found clean
		return func(i int) { found[i] = checkOne(checks[i], rc, memo, decoded, validateUnits) }
	})
	var errs []error
	for _, f := range found {
		errs = append(errs, f...)
	}
	return errs
}

// listenerChecks splits a listener into its filter chains and the rest.
func listenerChecks(l *listenerv3.Listener) []staticCheck {
	chainsField := l.ProtoReflect().Descriptor().Fields().ByName("filter_chains")
	// The listener without its chains is a message of its own, checked
	// first; the chains are checked as parts of it.
	rest := listenerWithoutChains(l)
	checks := []staticCheck{{kind: "listener", name: l.GetName(), m: rest}}
	for i, fc := range l.GetFilterChains() {
		checks = append(checks, staticCheck{kind: "listener", name: l.GetName(), m: fc,
			at: &protowalk.Step{Field: chainsField, Index: i, Elem: fc.ProtoReflect()}})
	}
	return checks
}

// checkTargets are the message types the static and reference checks look
// at (checkStaticMessage, refChecker.dangling): the walk need not go where
// none can be.
var checkTargets = presence.NewTargets(
	&bootstrapv3.Bootstrap{}, &corev3.ConfigSource{}, &hcmv3.HttpConnectionManager{}, &clusterv3.Cluster{},
	&tlsv3.SdsSecretConfig{}, &bootstrapv3.RuntimeLayer{},
	&routev3.RouteAction{}, &routev3.WeightedCluster_ClusterWeight{}, &routev3.RouteAction_RequestMirrorPolicy{},
	&tcpproxyv3.TcpProxy{}, &tcpproxyv3.TcpProxy_WeightedCluster_ClusterWeight{},
	&corev3.GrpcService_EnvoyGrpc{}, &corev3.HttpUri{},
)

// checkOne walks one unit once with all three checks.
func checkOne(c staticCheck, rc *refChecker, memo map[string][]byte, decoded *protowalk.Decoded, validate bool) []error {
	fail := func(err error) []error { return []error{&ResourceError{Kind: c.kind, Name: c.name, Err: err}} }
	if err := validateUnit(c, validate); err != nil {
		return fail(err)
	}
	var refs []error
	// Typed configs are not validated again here: BuildBootstrap validated
	// every resource, typed configs included, before inlining, and
	// inlining keeps them valid (it swaps an RDS subscription for the
	// validated route table, drops SDS config sources, and gives EDS
	// clusters their validated endpoints). The unit itself is validated
	// above, for what inlining changed outside typed configs.
	w := &protowalk.Walker{Memo: memo, Faults: func() int { return len(refs) }, Targets: checkTargets, Decoded: decoded}
	w.Visit = func(m protoreflect.Message) (bool, error) {
		if _, err := checkStaticMessage(m); err != nil {
			return false, err
		}
		for _, err := range rc.dangling(m) {
			refs = append(refs, &ResourceError{Kind: c.kind, Name: c.name, Err: w.Fail(err)})
		}
		return false, nil
	}
	var err error
	if c.at != nil {
		_, err = w.Enter(*c.at, c.m.ProtoReflect())
	} else {
		_, err = w.Walk(c.m.ProtoReflect())
	}
	if err != nil {
		return fail(err)
	}
	return refs
}

// validateUnit runs Envoy's rules on the unit itself, when asked, naming
// the filter chain it is.
func validateUnit(c staticCheck, validate bool) error {
	if !validate {
		return nil
	}
	err := protowalk.ValidateOne(c.m)
	if err != nil && c.at != nil {
		err = protowalk.ErrorAt(*c.at, err)
	}
	return err
}
