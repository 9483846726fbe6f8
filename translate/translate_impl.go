package translate

import (
	"fmt"
	"sort"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"

	"github.com/contourc/contourc/loader"
)

// The listeners of `contour serve` with no configuration file.
const (
	httpListenerName  = "ingress_http"
	httpsListenerName = "ingress_https"
)

func defaultListeners(d *DAG) {
	d.addListener(&Listener{Name: httpListenerName, Protocol: "http", Address: "0.0.0.0", Port: 8080, RouteConfigName: "ingress_http"})
	d.addListener(&Listener{Name: httpsListenerName, Protocol: "https", Address: "0.0.0.0", Port: 8443, RouteConfigName: "https"})
}

// buildResources walks the DAG into Envoy resources.
func buildResources(d *DAG, c *cache, opts Options, notices *[]Notice) Resources {
	r := Resources{
		Listeners:    listeners(d),
		RouteConfigs: routeConfigurations(d),
		Secrets:      secrets(d),
		Runtimes:     []*runtimev3.Runtime{runtimeLayer()},
	}
	claSeen := map[string]bool{}
	for _, dc := range referencedClusters(d) {
		svc := dc.Upstream
		if !hasEndpoints(c, svc) {
			msg := "has no endpoints in the input: its cluster " + clusterName(dc) + " has no hosts"
			if opts.UpstreamDNS != "" {
				msg = "has no endpoints in the input: resolving it by DNS as " + dnsTarget(svc, opts.UpstreamDNS)
			} else {
				msg += " (use --upstream-dns to resolve it by DNS)"
			}
			*notices = append(*notices, Notice{Source: c.source("Service", namespacedName(svcObject{svc})), Kind: "Service", Name: svc.Namespace + "/" + svc.Name, Msg: fmt.Sprintf("port %d %s", svc.Port.Port, msg)})
			if opts.UpstreamDNS != "" {
				r.Clusters = append(r.Clusters, cluster(dc, opts.UpstreamDNS))
				continue
			}
		}
		r.Clusters = append(r.Clusters, cluster(dc, ""))
		if name := endpointsName(svc); !claSeen[name] {
			claSeen[name] = true
			r.Endpoints = append(r.Endpoints, loadAssignment(svc, c.slices[namespacedName(svcObject{svc})]))
		}
	}
	// Every valid extension is published, used or not.
	for _, e := range d.sortedExtensions() {
		r.Clusters = append(r.Clusters, extensionCluster(e))
		r.Endpoints = append(r.Endpoints, extensionLoadAssignment(e, c))
	}
	for _, jc := range jwksClusters(d) {
		r.Clusters = append(r.Clusters, dnsNameCluster(jc))
	}
	sortByName(r.Clusters, func(c *clusterv3.Cluster) string { return c.Name })
	sortByName(r.Endpoints, func(e *endpointv3.ClusterLoadAssignment) string { return e.ClusterName })
	return r
}

func translate(objs []loader.Object, opts Options) (*Result, error) {
	opts = withConfig(opts)
	c := newCache(objs, opts)
	d := newDAG()
	gw, err := gatewayOf(c, opts.Gateway, opts.GatewayController)
	if err != nil {
		return nil, err
	}
	res := &Result{Notices: configNotices(opts.Config)}
	if gw != nil {
		addGatewayListeners(d, gw)
		name := namespacedName(gw)
		res.Gateway = &name
	} else {
		defaultListeners(d)
	}
	(&ingressProcessor{dag: d, cache: c, notices: &res.Notices}).run()
	status := statuses{}
	extensions := &extensionProcessor{cache: c, status: status}
	extensions.run()
	d.extensions = extensions.clusters
	(&httpProxyProcessor{dag: d, cache: c, status: status, rootNamespaces: opts.RootNamespaces,
		disablePermitInsecure: opts.Config != nil && opts.Config.DisablePermitInsecure}).run()
	res.Status = status.objectStatuses(c)
	if gw != nil {
		gs := &gatewayStatuses{routes: map[statusKey]*routeStatus{}}
		(&gatewayProcessor{dag: d, cache: c, status: gs, gateway: gw}).run()
		res.Status = append(res.Status, gs.objectStatuses(c)...)
		sort.SliceStable(res.Status, func(i, j int) bool {
			a, b := res.Status[i], res.Status[j]
			if a.Kind != b.Kind {
				return a.Kind < b.Kind
			}
			return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
		})
	}
	res.Resources = buildResources(d, c, opts, &res.Notices)
	sort.SliceStable(res.Notices, func(i, j int) bool { return res.Notices[i].String() < res.Notices[j].String() })
	return res, nil
}
