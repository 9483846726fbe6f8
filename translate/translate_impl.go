package translate

import (
	"fmt"
	"sort"
	"sync"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/envoy"
	"github.com/contourc/contourc/translate/gatewayapi"
	"github.com/contourc/contourc/translate/httpproxy"
	"github.com/contourc/contourc/translate/ingress"
	"github.com/contourc/contourc/translate/internal/status"
)

// The listeners of `contour serve` with no configuration file.
const (
	httpListenerName  = config.HTTPListenerName
	httpsListenerName = config.HTTPSListenerName
)

func defaultListeners(d *dag.DAG) { defaultListenersFor(d, config.Defaults(), 0) }

// defaultListenersFor adds ingress_http and ingress_https on the
// configured addresses and ports, with room for about hosts virtual hosts
// each.
func defaultListenersFor(d *dag.DAG, s *config.Settings, hosts int) {
	d.AddListener(&dag.Listener{Name: httpListenerName, Protocol: "http", Address: s.HTTPAddress, Port: s.HTTPPort, RouteConfigName: "ingress_http"}).SizeFor(hosts)
	d.AddListener(&dag.Listener{Name: httpsListenerName, Protocol: "https", Address: s.HTTPSAddress, Port: s.HTTPSPort, RouteConfigName: "https"}).SizeFor(hosts)
}

// buildResources walks the DAG into Envoy resources.
func buildResources(d *dag.DAG, c *index.Index, opts Options, notices *[]Notice) Resources {
	return buildResourcesWith(d, c, opts, config.Defaults(), notices)
}

// noticeMissingEndpoints tells the user that the Service behind cluster dc,
// not an ExternalName, has no endpoints in the input.
func noticeMissingEndpoints(dc *dag.Cluster, c *index.Index, opts Options, notices *[]Notice) {
	svc := dc.Upstream
	msg := "has no endpoints in the input: its cluster " + dag.ClusterName(dc) + " has no hosts"
	if opts.UpstreamDNS != "" {
		msg = "has no endpoints in the input: resolving it by DNS as " + envoy.DNSTarget(svc, opts.UpstreamDNS)
	} else {
		msg += " (use --upstream-dns to resolve it by DNS)"
	}
	*notices = append(*notices, Notice{Source: c.Source("Service", index.NamespacedName(svcObject{svc})), Kind: "Service", Name: svc.Namespace + "/" + svc.Name, Msg: fmt.Sprintf("port %d %s", svc.Port.Port, msg)})
}

// svcObject names a DAG Service as an object, for the index's Source.
type svcObject struct{ s *dag.Service }

func (o svcObject) GetNamespace() string { return o.s.Namespace }
func (o svcObject) GetName() string      { return o.s.Name }

// buildResourcesWith is buildResources with the configuration's settings;
// with Options.StatusOnly it only finds the notices building them gives.
func buildResourcesWith(d *dag.DAG, c *index.Index, opts Options, s *config.Settings, notices *[]Notice) Resources {
	if opts.StatusOnly {
		// Only the notices: a cluster's name (a hash of its settings)
		// is worked out only when its Service has no endpoints. The
		// notices are sorted afterwards, so the order here is free.
		if !c.SomeServiceWithoutEndpoints() {
			// The common case, where walking every route's clusters
			// for nothing was a tenth of check's translation.
			return Resources{}
		}
		seen := map[string]bool{}
		envoy.EachClusterInAnyOrder(d, func(dc *dag.Cluster) {
			if svc := dc.Upstream; svc.ExternalName != "" || envoy.HasEndpoints(c, svc) {
				return
			}
			if name := dag.ClusterName(dc); !seen[name] {
				seen[name] = true
				noticeMissingEndpoints(dc, c, opts, notices)
			}
		})
		return Resources{}
	}
	var dagListeners []string
	for _, l := range d.SortedListeners() {
		dagListeners = append(dagListeners, l.Name)
	}
	r := Resources{Runtimes: []*runtimev3.Runtime{envoy.RuntimeLayerFor(s, dagListeners)}}
	// The resource types only read the DAG: build them side by side, on
	// every CPU, the clusters here.
	d.Freeze()
	opts.Memo.proxyMemo().Frozen()
	var wg sync.WaitGroup
	built := opts.Memo.reuse(s)
	if opts.Memo == nil {
		r.Unpacked = &Unpacked{}
	}
	wg.Go(func() { r.Listeners = envoy.ListenersFor(d, s, built, r.Unpacked) })
	wg.Go(func() { r.RouteConfigs = envoy.RouteConfigurations(d, built) })
	wg.Go(func() {
		r.Secrets = append(envoy.Secrets(d, built), envoy.MetricsSecrets(s.Metrics)...)
		index.SortByName(r.Secrets, func(s *tlsv3.Secret) string { return s.Name })
	})
	claSeen := map[string]bool{}
	for _, dc := range envoy.ReferencedClusters(d) {
		svc := dc.Upstream
		if svc.ExternalName != "" {
			// Envoy resolves the external name itself: no endpoints.
			r.Clusters = append(r.Clusters, built.Cluster(dc, "", s))
			continue
		}
		eps := c.EndpointSlices(svc)
		if len(eps) == 0 {
			noticeMissingEndpoints(dc, c, opts, notices)
			if opts.UpstreamDNS != "" {
				r.Clusters = append(r.Clusters, built.Cluster(dc, opts.UpstreamDNS, s))
				continue
			}
		}
		r.Clusters = append(r.Clusters, built.Cluster(dc, "", s))
		if name := dag.EndpointsName(svc); !claSeen[name] {
			claSeen[name] = true
			r.Endpoints = append(r.Endpoints, built.Assignment(svc, eps))
		}
	}
	// Every valid extension is published, used or not.
	for _, e := range d.SortedExtensions() {
		r.Clusters = append(r.Clusters, envoy.ExtensionClusterWith(e, s))
		r.Endpoints = append(r.Endpoints, envoy.ExtensionLoadAssignment(e, c))
	}
	for _, jc := range dag.JWKSClusters(d) {
		r.Clusters = append(r.Clusters, envoy.DNSNameClusterWith(jc, s))
	}
	index.SortByName(r.Clusters, func(c *clusterv3.Cluster) string { return c.Name })
	index.SortByName(r.Endpoints, func(e *endpointv3.ClusterLoadAssignment) string { return e.ClusterName })
	wg.Wait()
	return r
}

func translate(objs []loader.Object, opts Options) (*Result, error) {
	objs, clusterKeys, clusterNotices, err := withClusterObjects(objs, opts)
	if err != nil {
		return nil, err
	}
	s, cfg, cfgNotices, err := resolveSettings(objs, opts)
	if err != nil {
		return nil, err
	}
	s.ADS = opts.ADS
	opts.Config = cfg
	opts = withConfig(opts)
	if opts.Gateway == nil {
		opts.Gateway = s.Gateway
	}
	if len(opts.RootNamespaces) == 0 {
		opts.RootNamespaces = s.RootNamespaces
	}
	if len(opts.IngressClassNames) == 0 {
		opts.IngressClassNames = s.IngressClassNames
	}
	if opts.NoIngress {
		opts.IngressClassNames = noIngressClass
	}
	// Contour reads these ExtensionServices directly at start-up, whatever
	// namespaces it watches.
	if err := config.ResolveExtensionRefs(objs, s); err != nil {
		return nil, err
	}
	allObjs := objs
	if objs, err = config.FilterObjects(objs, opts.Flags, s, opts.RootNamespaces); err != nil {
		return nil, err
	}
	// Contour watches the configured certificates' namespaces for Secrets
	// too; secretNamespaces learns them from a configuration file.
	cacheOpts := opts
	if cacheOpts.Config == nil && (s.FallbackCertificate != nil || s.ClientCertificate != nil) {
		shim := &loader.ContourConfig{}
		if f := s.FallbackCertificate; f != nil {
			shim.TLS.FallbackCertificate = loader.ConfigNamespacedName{Namespace: f.Namespace, Name: f.Name}
		}
		if cc := s.ClientCertificate; cc != nil {
			shim.TLS.ClientCertificate = loader.ConfigNamespacedName{Namespace: cc.Namespace, Name: cc.Name}
		}
		cacheOpts.Config = shim
	}
	c := opts.Memo.indexMemo().Index(objs, indexOptions(cacheOpts, s))
	opts.Memo.begin()
	c.CheckServingSecretsAhead()
	defer c.StopCheckingAhead()
	d := dag.NewDAG()
	gw, err := gatewayapi.Find(c, opts.Gateway, opts.GatewayController, opts.NoDefaultGateway)
	if err != nil {
		return nil, err
	}
	res := &Result{Notices: append(append(config.UnappliedNotices(opts.Config), cfgNotices...), config.MainBranchNotices(allObjs)...), dag: d}
	res.Notices = append(res.Notices, clusterNotices...)
	routes := len(c.HTTPRoutes) + len(c.GRPCRoutes) + len(c.TLSRoutes) + len(c.TCPRoutes)
	if gw != nil {
		// About a host per route, as for HTTPProxies below: growing
		// the maps was a fifth of attaching 20,000 HTTPRoutes, on one
		// CPU.
		gatewayapi.AddListeners(d, gw, routes)
		// Gateway listeners bind the configured HTTP (or, for HTTPS,
		// HTTPS) address; their ports are the Gateway's.
		for _, l := range d.Listeners {
			l.Address = s.HTTPAddress
			if l.Protocol == "https" {
				l.Address = s.HTTPSAddress
			}
		}
		name := index.NamespacedName(gw)
		res.Gateway = &name
	} else {
		// About a host per HTTPProxy and Ingress: growing the maps
		// to 5,000 of each was a third of replaying the HTTPProxy
		// processor at each reload.
		defaultListenersFor(d, s, len(c.HTTPProxies)+len(c.Ingresses))
	}
	ingresses := &ingress.Processor{DAG: d, Index: c, Settings: s, Notices: &res.Notices}
	ingresses.Run()
	statuses := make(status.Map, len(c.HTTPProxies)+len(c.Extensions))
	extensions := &httpproxy.ExtensionProcessor{Index: c, Settings: s, Status: statuses}
	extensions.Run()
	d.Extensions = extensions.Clusters
	opts.Memo.proxyMemo().Run(&httpproxy.Processor{DAG: d, Index: c, Status: statuses, RootNamespaces: opts.RootNamespaces,
		DisablePermitInsecure: s.DisablePermitInsecure, Settings: s, InOrder: opts.rootsInOrder}, objs)
	var gs *gatewayapi.Statuses
	if gw != nil {
		gs = gatewayapi.NewStatuses(routes)
		(&gatewayapi.Processor{DAG: d, Index: c, Settings: s, Status: gs, Gateway: gw, InOrder: opts.httpRoutesInOrder}).Run()
	}
	c.StopCheckingAhead()
	// The statuses are listed on the side (6 ms at 5,000 HTTPProxies,
	// while freezing the DAG leaves a CPU idle): building the resources
	// reads neither the statuses nor what listing them reads but the cache.
	var listing sync.WaitGroup
	listing.Go(func() {
		res.Status = withoutClusterStatuses(listStatuses(statuses, gs, ingresses.Statuses(objs, opts.IngressClassNames), c), clusterKeys)
	})
	res.Resources = buildResourcesWith(d, c, opts, s, &res.Notices)
	listing.Wait()
	sort.SliceStable(res.Notices, func(i, j int) bool { return res.Notices[i].String() < res.Notices[j].String() })
	return res, nil
}

// listStatuses lists the statuses of the HTTPProxies and
// ExtensionServices, the Ingresses' entries and, with a Gateway, the
// statuses of the Gateway API objects, ordered by kind, namespace and
// name.
func listStatuses(proxies status.Map, gateway *gatewayapi.Statuses, ingresses []ObjectStatus, c *index.Index) []ObjectStatus {
	out := proxies.ObjectStatuses(c)
	if gateway == nil && len(ingresses) == 0 {
		return out
	}
	out = append(out, ingresses...)
	if gateway != nil {
		out = append(out, gateway.ObjectStatuses(c)...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return index.LessQualified(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	return out
}
