package render

// The check that everything a static bootstrap refers to by name is in it.

import (
	"errors"
	"fmt"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/render/internal/protowalk"
)

// CheckBootstrapReferences returns an error unless every name b's listeners
// and clusters refer to is defined in b.static_resources: the clusters of
// routes (cluster, weighted_clusters, request mirrors), of TCP proxies, of
// Envoy gRPC services and HTTP URIs, and the secrets of TLS contexts. Envoy
// refuses a static bootstrap that breaks this (an inline route_config
// validates its clusters; a static SDS name must be a static secret), and
// refuses duplicate listener, cluster or secret names, which are errors here
// too. Typed configs are searched as well.
func CheckBootstrapReferences(b *bootstrapv3.Bootstrap) error {
	sr := b.GetStaticResources()
	var errs []error
	clusters, err := uniqueNames("cluster", sr.GetClusters(), (*clusterv3.Cluster).GetName)
	errs = append(errs, err)
	secrets, err := uniqueNames("secret", sr.GetSecrets(), (*tlsv3.Secret).GetName)
	errs = append(errs, err)
	_, err = uniqueNames("listener", sr.GetListeners(), (*listenerv3.Listener).GetName)
	errs = append(errs, err)

	rc := &refChecker{clusters: clusters, secrets: secrets}
	for _, l := range sr.GetListeners() {
		errs = append(errs, rc.check("listener", l.GetName(), l)...)
	}
	for _, c := range sr.GetClusters() {
		errs = append(errs, rc.check("cluster", c.GetName(), c)...)
	}
	return joinFirst(nonNil(errs))
}

// uniqueNames returns the set of names of items, and an error if one repeats.
func uniqueNames[T any](kind string, items []T, name func(T) string) (map[string]bool, error) {
	set := make(map[string]bool, len(items))
	var errs []error
	for _, it := range items {
		n := name(it)
		if set[n] {
			errs = append(errs, fmt.Errorf("%s %q is defined more than once", kind, n))
		}
		set[n] = true
	}
	return set, errors.Join(errs...)
}

// refChecker collects every dangling reference in a resource, not just the
// first, since one missing cluster is usually routed to from many places.
type refChecker struct {
	clusters, secrets map[string]bool
	memo              map[string][]byte // typed configs found clean
}

func (rc *refChecker) check(kind, name string, m proto.Message) []error {
	var errs []error
	if rc.memo == nil {
		rc.memo = map[string][]byte{}
	}
	w := &protowalk.Walker{Memo: rc.memo, Faults: func() int { return len(errs) }}
	w.Visit = func(m protoreflect.Message) (bool, error) {
		for _, err := range rc.dangling(m) {
			// w.fail adds the path to the reference.
			errs = append(errs, &ResourceError{Kind: kind, Name: name, Err: w.Fail(err)})
		}
		return false, nil
	}
	if _, err := w.Walk(m.ProtoReflect()); err != nil {
		errs = append(errs, &ResourceError{Kind: kind, Name: name, Err: err})
	}
	return errs
}

// dangling returns an error for each reference in m to a missing cluster or
// secret. Empty names are skipped: they mean another field (cluster_header,
// a weighted_clusters list) holds the reference, and validation catches a
// reference that is missing altogether.
func (rc *refChecker) dangling(m protoreflect.Message) []error {
	var errs []error
	cluster := func(field, n string) {
		if n != "" && !rc.clusters[n] {
			errs = append(errs, fmt.Errorf("%s refers to unknown cluster %q", field, n))
		}
	}
	switch msg := m.Interface().(type) {
	case *routev3.RouteAction:
		cluster("route", msg.GetCluster())
	case *routev3.WeightedCluster_ClusterWeight:
		cluster("weighted cluster", msg.GetName())
	case *routev3.RouteAction_RequestMirrorPolicy:
		cluster("request mirror", msg.GetCluster())
	case *tcpproxyv3.TcpProxy:
		cluster("tcp_proxy", msg.GetCluster())
	case *tcpproxyv3.TcpProxy_WeightedCluster_ClusterWeight:
		cluster("tcp_proxy weighted cluster", msg.GetName())
	case *corev3.GrpcService_EnvoyGrpc:
		cluster("envoy_grpc", msg.GetClusterName())
	case *corev3.HttpUri:
		cluster("http_uri", msg.GetCluster())
	case *tlsv3.SdsSecretConfig:
		if n := msg.GetName(); n != "" && !rc.secrets[n] {
			errs = append(errs, fmt.Errorf("unknown secret %q", n))
		}
	}
	return errs
}

func nonNil(errs []error) []error {
	out := errs[:0]
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}
