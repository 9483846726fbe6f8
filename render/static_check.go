package render

// The check that a bootstrap needs no control plane.

import (
	"errors"
	"fmt"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/render/internal/protowalk"
)

// CheckStatic returns an error naming the first place in b, typed configs
// included, that would make Envoy ask a control plane for configuration:
// dynamic_resources, any ConfigSource, an HCM's rds or scoped_routes, an EDS
// cluster, an SDS config source or an RTDS layer. In contourc's bootstrap
// such a reference would point at the "contour" xDS cluster, which does not
// exist there, and Envoy would refuse to start.
func CheckStatic(b *bootstrapv3.Bootstrap) error {
	// The check only fails, never rewrites, so each distinct typed config
	// is checked once.
	w := &protowalk.Walker{Visit: checkStaticMessage, Memo: map[string][]byte{}}
	_, err := w.Walk(b.ProtoReflect())
	return err
}

func checkStaticMessage(m protoreflect.Message) (bool, error) {
	switch msg := m.Interface().(type) {
	case *bootstrapv3.Bootstrap:
		if msg.GetDynamicResources() != nil {
			return false, errors.New("dynamic_resources is set")
		}
	case *corev3.ConfigSource:
		return false, errors.New("xDS config source")
	case *hcmv3.HttpConnectionManager:
		if msg.GetRds() != nil || msg.GetScopedRoutes() != nil {
			return false, fmt.Errorf("http_connection_manager %q has no inline route_config", msg.GetStatPrefix())
		}
	case *clusterv3.Cluster:
		if msg.GetType() == clusterv3.Cluster_EDS || msg.GetEdsClusterConfig() != nil {
			return false, fmt.Errorf("cluster %q uses EDS", msg.GetName())
		}
	case *tlsv3.SdsSecretConfig:
		if msg.GetSdsConfig() != nil {
			return false, fmt.Errorf("secret %q is fetched over SDS", msg.GetName())
		}
	case *bootstrapv3.RuntimeLayer:
		if msg.GetRtdsLayer() != nil {
			return false, fmt.Errorf("runtime layer %q uses RTDS", msg.GetName())
		}
	}
	return false, nil
}
