package routetest

import (
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/contourc/contourc/translate"
)

// Config is a translated Envoy configuration indexed for request matching.
// It is read-only once built, so one Config may evaluate requests from
// several goroutines.
type Config struct {
	listeners    []*listenerv3.Listener
	routeConfigs map[string]*routev3.RouteConfiguration
	clusters     map[string]*clusterv3.Cluster
	sources      Sources
}

// New indexes res. sources maps route metadata back to manifests; it may
// be nil, in which case decisions name objects but not their files.
func New(res *translate.Resources, sources Sources) *Config {
	c := &Config{
		listeners:    res.Listeners,
		routeConfigs: make(map[string]*routev3.RouteConfiguration, len(res.RouteConfigs)),
		clusters:     make(map[string]*clusterv3.Cluster, len(res.Clusters)),
		sources:      sources,
	}
	for _, rc := range res.RouteConfigs {
		c.routeConfigs[rc.GetName()] = rc
	}
	for _, cl := range res.Clusters {
		c.clusters[cl.GetName()] = cl
	}
	return c
}
