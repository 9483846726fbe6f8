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
	"fmt"
	"strings"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"

	"github.com/contourc/contourc/translate"
)

// ConfigSource says how served resources refer to other xDS resources.
type ConfigSource string

const (
	// ConfigSourceADS makes every reference to Contour's xDS cluster
	// {ads: {}, resource_api_version: V3} instead, for an Envoy bootstrapped by
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

// forConfigSource adapts r, in place, to the Envoys that mode is for. The
// config sources themselves are translate's: serve has it build them for
// ADS in the first place (translate.Options.ADS), which its tests hold for
// every reference in every typed config. Rewriting them here as well cost a
// walk through every listener and cluster, unpacking their typed configs:
// 50 ms of each reload at 5,000 HTTPProxies.
func forConfigSource(r *translate.Resources, mode ConfigSource) {
	if mode == ConfigSourceADS {
		r.Listeners = withoutListener(r.Listeners, adminListenerName)
	}
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
