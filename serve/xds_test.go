package serve

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	endpointservice "github.com/envoyproxy/go-control-plane/envoy/service/endpoint/v3"
	routeservice "github.com/envoyproxy/go-control-plane/envoy/service/route/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// ingressTo is a plain-HTTP Ingress for host routed to Service svc port 80.
func ingressTo(name, host, svc string) string {
	return strings.Replace(ingress(name, host), "name: kuard", "name: "+svc, 1)
}

// TestServeContourClients serves Contour's resources unchanged to a client
// with a stream per type, as an Envoy bootstrapped by `contour bootstrap`.
func TestServeContourClients(t *testing.T) {
	dir := copyExamples(t)
	ts := startServer(t, []string{dir}, func(c *Config) { c.ConfigSource = ConfigSourceContour })
	c := newPerTypeClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)
	c.inspect(func(v *xdsView) {
		if _, ok := v.state(resourcev3.ListenerType).resources[adminListenerName]; !ok {
			t.Error("no envoy-admin listener for a Contour-bootstrapped Envoy")
		}
		for _, m := range v.state(resourcev3.ListenerType).resources {
			_, _ = rewrite(m, func(msg protoreflect.Message) bool {
				if h, ok := msg.Interface().(*hcmv3.HttpConnectionManager); ok && h.GetRds() != nil && !pointsAtContour(h.GetRds().GetConfigSource().GetApiConfigSource()) {
					t.Errorf("%s: RDS config source %v", m.(*listenerv3.Listener).GetName(), h.GetRds().GetConfigSource())
				}
				return false
			})
		}
	})
	writeFile(t, filepath.Join(dir, "new.yaml"), ingress("new", "new.example.com"))
	c.waitFor(t, "the new host", func(v *xdsView) bool { return v.hasDomain("new.example.com") })

	// /debug/xds is exactly what render -o json prints for the same
	// input, private keys aside.
	want := renderJSON(t, dir)
	code, got := ts.get(t, "/debug/xds")
	if code != http.StatusOK {
		t.Fatalf("/debug/xds: %d", code)
	}
	if strings.Contains(got, "PRIVATE KEY") || strings.Contains(got, "LS0tLS1CRUdJTiBQUklWQVRF") {
		t.Error("/debug/xds shows a private key")
	}
	if !strings.Contains(got, redacted) {
		t.Error("/debug/xds has no [REDACTED] key")
	}
	if got != want {
		t.Errorf("/debug/xds differs from render -o json with keys redacted:\n%s", firstLineDiff(want, got))
	}
}

// renderJSON is what `contourc render -o json` would print for dir, with
// private keys redacted.
func renderJSON(t *testing.T, dir string) string {
	t.Helper()
	loaded, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := redactedResources(&res.Resources)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := render.JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func firstLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("want %d lines, got %d", len(w), len(g))
}

// TestServeDelta follows a delta (incremental) ADS client through an
// addition and a removal.
func TestServeDelta(t *testing.T) {
	dir := copyExamples(t)
	ts := startServer(t, []string{dir})
	c := newDeltaClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)

	extra := filepath.Join(dir, "extra.yaml")
	writeFile(t, extra, service("extra", "10.9.0.1")+"---\n"+ingressTo("extra", "extra.example.com", "extra"))
	c.waitFor(t, "the new Service", func(v *xdsView) bool {
		return v.hasDomain("extra.example.com") && slices.Equal(v.endpoints("default/extra/http"), []string{"10.9.0.1"})
	})
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	c.waitFor(t, "the Service removed", func(v *xdsView) bool {
		_, ok := v.state(resourcev3.EndpointType).resources["default/extra/http"]
		return !v.hasDomain("extra.example.com") && !ok
	})
	// Converged: the client holds exactly the served resources.
	snap := ts.current.Load().snap
	c.waitFor(t, "the served resources", func(v *xdsView) bool {
		for _, set := range snap.sets {
			if !slices.Equal(slices.Sorted(maps.Keys(v.state(set.typeURL).resources)), set.names) {
				return false
			}
		}
		return true
	})
}

// TestServeNotifiesOnlyTheStreamsThatAsked opens a stream per cluster and
// per route configuration, as an Envoy bootstrapped by Contour does, and
// checks that a change to one resource wakes only the stream that asked for
// it.
func TestServeNotifiesOnlyTheStreamsThatAsked(t *testing.T) {
	dir := copyExamples(t)
	for _, s := range []string{"a", "b"} {
		writeFile(t, filepath.Join(dir, s+".yaml"), service(s, "10.1.0.1")+"---\n"+proxy(s, "/one"))
	}
	ts := startServer(t, []string{dir}, func(c *Config) { c.ConfigSource = ConfigSourceContour })
	ts.waitReady(t)
	conn := dial(t, ts.XDSAddr().String(), nil)
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eds := func(name string) *namedStream {
		s, err := endpointservice.NewEndpointDiscoveryServiceClient(conn).StreamEndpoints(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return openNamed(t, s, resourcev3.EndpointType, name)
	}
	rds := func(name string) *namedStream {
		s, err := routeservice.NewRouteDiscoveryServiceClient(conn).StreamRoutes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return openNamed(t, s, resourcev3.RouteType, name)
	}
	edsA, edsB := eds("default/a/http"), eds("default/b/http")
	rdsA, rdsB := rds("https/a.example.com"), rds("https/b.example.com")
	for _, s := range []*namedStream{edsA, edsB} {
		s.next(t, "10.1.0.1")
	}
	for _, s := range []*namedStream{rdsA, rdsB} {
		s.next(t, "/one")
	}

	// Endpoints, then routes, of a change; then b's. Had b's streams been
	// woken by a's changes, their next responses would still hold the
	// old content.
	writeFile(t, filepath.Join(dir, "a.yaml"), service("a", "10.1.0.2")+"---\n"+proxy("a", "/one"))
	edsA.next(t, "10.1.0.2")
	writeFile(t, filepath.Join(dir, "a.yaml"), service("a", "10.1.0.2")+"---\n"+proxy("a", "/two"))
	rdsA.next(t, "/two")
	writeFile(t, filepath.Join(dir, "b.yaml"), service("b", "10.1.0.3")+"---\n"+proxy("b", "/three"))
	edsB.next(t, "10.1.0.3")
	rdsB.next(t, "/three")
	cancel()
	for _, s := range []*namedStream{edsA, edsB, rdsA, rdsB} {
		s.wg.Wait()
	}
}

// proxy is a TLS HTTPProxy for <name>.example.com (with the examples'
// Secret), routing prefix to Service name: its routes get a route
// configuration of their own, https/<name>.example.com.
func proxy(name, prefix string) string {
	return fmt.Sprintf(`apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: %[1]s, namespace: default}
spec:
  virtualhost:
    fqdn: %[1]s.example.com
    tls: {secretName: kuard-tls}
  routes:
  - conditions: [{prefix: %[2]s}]
    services: [{name: %[1]s, port: 80}]
`, name, prefix)
}

// namedStream is one per-type stream subscribed to one resource.
type namedStream struct {
	s       xdsStream
	typeURL string
	name    string
	resps   chan *discoveryv3.DiscoveryResponse
	wg      sync.WaitGroup
}

func openNamed(t *testing.T, s xdsStream, typeURL, name string) *namedStream {
	t.Helper()
	n := &namedStream{s: s, typeURL: typeURL, name: name, resps: make(chan *discoveryv3.DiscoveryResponse, 16)}
	if err := s.Send(&discoveryv3.DiscoveryRequest{TypeUrl: typeURL, ResourceNames: []string{name}}); err != nil {
		t.Fatal(err)
	}
	n.wg.Go(func() {
		defer close(n.resps)
		for {
			r, err := s.Recv()
			if err != nil {
				return
			}
			n.resps <- r
		}
	})
	return n
}

// next waits for the next response, checks that it holds only this
// stream's resource and that the resource mentions want (an endpoint
// address, a route prefix), and acknowledges it.
func (n *namedStream) next(t *testing.T, want string) {
	t.Helper()
	var r *discoveryv3.DiscoveryResponse
	select {
	case r = <-n.resps:
	case <-time.After(waitTimeout):
		t.Fatalf("%s: no response", n.name)
	}
	if r == nil {
		t.Fatalf("%s: the stream ended", n.name)
	}
	if len(r.GetResources()) != 1 {
		t.Fatalf("%s: %d resources in the response", n.name, len(r.GetResources()))
	}
	m, err := unpack(r.GetResources()[0])
	if err != nil {
		t.Fatal(err)
	}
	text := prototext.Format(m)
	if resourceNameOf(m) != n.name || !strings.Contains(text, strconv.Quote(want)) {
		t.Fatalf("%s: got %s, want it to mention %q:\n%s", n.name, resourceNameOf(m), want, text)
	}
	if err := n.s.Send(&discoveryv3.DiscoveryRequest{
		TypeUrl: n.typeURL, ResourceNames: []string{n.name},
		VersionInfo: r.GetVersionInfo(), ResponseNonce: r.GetNonce(),
	}); err != nil {
		t.Fatal(err)
	}
}

// TestServeManyClients connects 100 ADS clients at once and checks they
// all converge on the served versions, before and after a change.
func TestServeManyClients(t *testing.T) {
	const n = 100
	dir := copyExamples(t)
	ts := startServer(t, []string{dir})
	clients := make([]*sotwClient, n)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() { clients[i] = newADSClient(t, ts.XDSAddr().String()) })
	}
	wg.Wait()
	converged := func(domain string) {
		t.Helper()
		for _, c := range clients {
			c.waitFor(t, "convergence on "+domain, func(v *xdsView) bool { return v.hasAll() && v.hasDomain(domain) })
		}
		// Every type carries its linear cache's version, the same for
		// all clients.
		var first map[string]string
		for i, c := range clients {
			c.inspect(func(v *xdsView) {
				got := versions(v)
				if i == 0 {
					first = got
				}
				for _, typ := range servedTypes {
					if want := first[typ]; got[typ] != want {
						t.Errorf("client %d has %s version %s, want %s", i, typeLabel(typ), got[typ], want)
					}
				}
			})
		}
	}
	converged("kuard.internal.example.com")
	if v := ts.metric(t, `contourc_xds_streams{mode="sotw",type="ads"}`); v != n {
		t.Errorf("contourc_xds_streams = %v, want %d", v, n)
	}
	writeFile(t, filepath.Join(dir, "new.yaml"), ingress("new", "new.example.com"))
	converged("new.example.com")
}
