package serve

// Which xDS transport the served resources tell Envoy to use for the
// resources they refer to.
//
// translate produces exactly what Contour serves: every RDS, EDS and SDS
// reference is a ConfigSource with an api_config_source (GRPC, cluster
// "contour"), because Contour's bootstrap gives Envoy no ADS stream and
// Envoy opens one stream per subscription. An Envoy bootstrapped by
// `contourc bootstrap` talks ADS instead, and needs those references to say
// {ads: {}} so that it asks for them on its one aggregated stream; left as
// they are, it would open per-type streams to a "contour" cluster on top of
// ADS, which works but defeats the point of ADS (one ordered stream) and
// breaks the make-before-break ordering ADS gives.

import (
	"bytes"
	"fmt"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/contourc/contourc/translate"
)

// ConfigSource says how served resources refer to other xDS resources.
type ConfigSource string

const (
	// ConfigSourceADS rewrites every reference to Contour's xDS cluster into
	// {ads: {}, resource_api_version: V3}, for an Envoy bootstrapped by
	// `contourc bootstrap`, and leaves out Contour's envoy-admin listener,
	// whose address that bootstrap gives to Envoy's admin interface itself.
	ConfigSourceADS ConfigSource = "ads"
	// ConfigSourceContour serves the resources exactly as Contour does, for
	// an Envoy bootstrapped by `contour bootstrap`.
	ConfigSourceContour ConfigSource = "contour"
)

// ParseConfigSource reads a --xds-config-source value.
func ParseConfigSource(s string) (ConfigSource, error) {
	switch c := ConfigSource(strings.ToLower(s)); c {
	case ConfigSourceADS, ConfigSourceContour:
		return c, nil
	}
	return "", fmt.Errorf("invalid xDS config source %q: want ads or contour", s)
}

// xdsClusterName is the bootstrap cluster Contour's config sources point at.
const xdsClusterName = "contour"

// adminListenerName is Contour's listener proxying a safe subset of Envoy's
// admin interface; it listens where contourc's bootstraps put the admin
// interface itself (render does the same in its static bootstrap).
const adminListenerName = "envoy-admin"

// forConfigSource adapts r, in place, to the Envoys that mode is for.
// serve has translate build ADS config sources in the first place
// (translate.Options.ADS); the rewrite stays for anything that still points
// at Contour's cluster.
//
// translate puts config sources in listeners (RDS in HTTP connection
// managers, SDS in TLS contexts) and clusters (EDS, SDS), so only those are
// walked: route configurations are the bulk of a large configuration. A
// config source left elsewhere would still work, as a per-type stream to
// the "contour" cluster every contourc bootstrap has.
func forConfigSource(r *translate.Resources, mode ConfigSource) error {
	if mode != ConfigSourceADS {
		return nil
	}
	r.Listeners = withoutListener(r.Listeners, adminListenerName)
	for _, l := range r.Listeners {
		if err := useADS(l); err != nil {
			return fmt.Errorf("listener %q: %w", l.GetName(), err)
		}
	}
	for _, c := range r.Clusters {
		if err := useADS(c); err != nil {
			return fmt.Errorf("cluster %q: %w", c.GetName(), err)
		}
	}
	return nil
}

// contourBytes is in the serialized form of any message holding a config
// source that points at Contour's cluster, however deeply nested: protobuf
// embeds strings and sub-messages as they are. It is the cluster name as
// EnvoyGrpc's field 1 (tag 0x0a, length 7), so that other mentions of
// "contour" (the Lua filters' comments, say) do not make the walk unpack a
// typed config for nothing.
var contourBytes = append([]byte{0x0a, byte(len(xdsClusterName))}, xdsClusterName...)

func useADS(m proto.Message) error {
	w := walker{
		visit: toADS,
		skip:  func(a *anypb.Any) bool { return !bytes.Contains(a.GetValue(), contourBytes) },
	}
	_, err := w.message(m.ProtoReflect())
	return err
}

// toADS turns a ConfigSource that points at Contour's xDS cluster into an
// ADS one, keeping its other settings (resource API version, initial fetch
// timeout). Config sources for anything else are left alone.
func toADS(m protoreflect.Message) bool {
	cs, ok := m.Interface().(*corev3.ConfigSource)
	if !ok || !pointsAtContour(cs.GetApiConfigSource()) {
		return false
	}
	cs.ConfigSourceSpecifier = &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}
	cs.ResourceApiVersion = corev3.ApiVersion_V3
	return true
}

func pointsAtContour(api *corev3.ApiConfigSource) bool {
	if api == nil {
		return false
	}
	for _, g := range api.GetGrpcServices() {
		if g.GetEnvoyGrpc().GetClusterName() == xdsClusterName {
			return true
		}
	}
	return false
}

func withoutListener(ls []*listenerv3.Listener, name string) []*listenerv3.Listener {
	out := ls[:0:0]
	for _, l := range ls {
		if l.GetName() != name {
			out = append(out, l)
		}
	}
	return out
}
