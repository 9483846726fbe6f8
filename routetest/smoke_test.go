package routetest

// The conformance smoke test: for every HTTPProxy and Gateway API case of
// the shared corpus, one request per generated route, built from the
// route's own match, must end on that route or on an earlier one that also
// accepts it (an earlier route may shadow a later one), and the action
// reported must be the chosen route's.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// conformanceDir is the shared corpus, a sibling of the repository.
var conformanceDir = filepath.Join("..", "..", "shared", "conformance")

func TestConformanceSmoke(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "*"))
	if len(dirs) == 0 {
		t.Skipf("no conformance corpus at %s", conformanceDir)
	}
	var stats smokeStats
	t.Cleanup(func() {
		t.Logf("smoke: %d cases, %d requests, %d resolved to an earlier route, %d routes skipped (no request could be built)",
			stats.cases.Load(), stats.requests.Load(), stats.shadowed.Load(), stats.skipped.Load())
		// Skips hide routes from the test: keep the generator good enough
		// that they stay rare.
		if r, s := stats.requests.Load(), stats.skipped.Load(); r == 0 || s*10 > r {
			t.Errorf("%d requests evaluated, %d routes skipped: too few requests", r, s)
		}
	})
	for _, dir := range dirs {
		name, _ := filepath.Rel(conformanceDir, dir)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			smokeCase(t, dir, &stats)
		})
	}
}

type smokeStats struct {
	cases, requests, shadowed, skipped atomic.Int64
}

// smokeOptions reads a case's ARGS into translation options, as the CLI's
// flags would. ok is false for cases this test does not run.
func smokeOptions(dir string) (translate.Options, string, bool) {
	opts := translate.Options{GatewayController: "projectcontour.io/gateway-controller"}
	if _, err := os.Stat(filepath.Join(dir, "REJECTED")); err == nil {
		return opts, "REJECTED input", false
	}
	b, err := os.ReadFile(filepath.Join(dir, "ARGS"))
	if errors.Is(err, fs.ErrNotExist) {
		return opts, "", true
	}
	args := strings.Fields(string(b))
	for i := 0; i < len(args); i++ {
		flag, value, hasValue := strings.Cut(args[i], "=")
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		switch flag {
		case "--gateway":
			ns, name, _ := strings.Cut(value, "/")
			opts.Gateway = &types.NamespacedName{Namespace: ns, Name: name}
		case "--root-namespaces":
			opts.RootNamespaces = strings.Split(value, ",")
		case "--ingress-class-name":
			opts.IngressClassNames = strings.Split(value, ",")
		default:
			return opts, "flag " + flag + " is not supported here", false
		}
	}
	return opts, "", true
}

func smokeCase(t *testing.T, dir string, stats *smokeStats) {
	opts, why, ok := smokeOptions(dir)
	if !ok {
		t.Skip(why)
	}
	loaded, err := loader.Load([]string{filepath.Join(dir, "input")}, loader.Options{})
	if err != nil {
		t.Skipf("input does not load (the loader's tests cover this): %v", err)
	}
	res, err := translate.Translate(loaded.Objects, opts)
	if err != nil {
		t.Skipf("input does not translate (translate's tests cover this): %v", err)
	}
	stats.cases.Add(1)
	cfg := New(&res.Resources, SourcesFrom(loaded.Objects))
	services := servicesByName(loaded.Objects)
	for _, l := range res.Resources.Listeners {
		for ci, fc := range l.GetFilterChains() {
			net, err := chainFilters(fc)
			if err != nil || net.hcm == nil {
				continue
			}
			rc, _ := cfg.routeConfigFor(net.hcm)
			if rc == nil {
				continue
			}
			for _, vh := range rc.GetVirtualHosts() {
				for ri, r := range vh.GetRoutes() {
					if cfg.routeSource(r.GetMetadata()) == nil {
						continue // Envoy's own admin and stats routes
					}
					where := fmt.Sprintf("%s chain #%d %s vhost %s route #%d (%s)", l.GetName(), ci, rc.GetName(), vh.GetName(), ri, describeMatch(r.GetMatch()))
					req, why := smokeRequest(l, fc, vh, r)
					if why != "" {
						stats.skipped.Add(1)
						t.Logf("%s: skipped: %s", where, why)
						continue
					}
					stats.requests.Add(1)
					d, err := cfg.Evaluate(req)
					if err != nil {
						t.Errorf("%s: request %+v: %v", where, req, err)
						continue
					}
					if d.RouteIndex >= 0 && d.RouteIndex < ri {
						stats.shadowed.Add(1)
					}
					checkSmoke(t, where, d, l, rc, vh, ri, services)
				}
			}
		}
	}
}

// checkSmoke asserts that a route's own request ended on it, or on an
// earlier route of the same virtual host that also accepts the request,
// and that the action reported is the chosen route's.
func checkSmoke(t *testing.T, where string, d *Decision, l *listenerv3.Listener, rc *routev3.RouteConfiguration, vh *routev3.VirtualHost, ri int, services map[types.NamespacedName]*corev1.Service) {
	t.Helper()
	if d.Listener != l.GetName() || d.RouteConfig != rc.GetName() || d.VirtualHost != vh.GetName() {
		t.Errorf("%s: request %s went to listener %q, route config %q, virtual host %q\n%s", where, describeRequest(d.Request), d.Listener, d.RouteConfig, d.VirtualHost, explainText(d))
		return
	}
	if d.RouteIndex < 0 || d.RouteIndex > ri {
		t.Errorf("%s: request %s chose route #%d\n%s", where, describeRequest(d.Request), d.RouteIndex, explainText(d))
		return
	}
	chosen := vh.GetRoutes()[d.RouteIndex]
	if d.Route() != chosen {
		t.Errorf("%s: decision's route is not route #%d of the virtual host", where, d.RouteIndex)
	}
	if d.RouteIndex < ri {
		// Shadowed: the earlier route must accept the request itself.
		q, _ := prepare(d.Request)
		q.setScheme(d.Request.Scheme == "https")
		if ok, _, _ := matchRoute(chosen.GetMatch(), q); !ok {
			t.Errorf("%s: chose earlier route #%d, which does not accept %s", where, d.RouteIndex, describeRequest(d.Request))
		}
	}
	if d.Action.Denied != nil {
		t.Errorf("%s: request was denied: %s", where, d.Action.Denied.Reason)
		return
	}
	for _, msg := range checkAction(chosen, d, services) {
		t.Errorf("%s: %s\n%s", where, msg, explainText(d))
	}
}

// checkAction compares the reported action with the route's own, and the
// Services reported with the Services of the input.
func checkAction(r *routev3.Route, d *Decision, services map[types.NamespacedName]*corev1.Service) []string {
	var out []string
	a := d.Action
	switch act := r.GetAction().(type) {
	case *routev3.Route_Route:
		if name := act.Route.GetCluster(); name != "" {
			if a.Cluster == nil || a.Cluster.Name != name {
				return []string{fmt.Sprintf("route forwards to %s, reported %s", name, a)}
			}
			out = append(out, checkService(*a.Cluster, services)...)
		}
		if wc := act.Route.GetWeightedClusters(); wc != nil {
			if len(a.WeightedClusters) != len(wc.GetClusters()) {
				return []string{fmt.Sprintf("route splits between %d clusters, reported %s", len(wc.GetClusters()), a)}
			}
			sum, total := 0.0, uint32(0)
			for i, c := range wc.GetClusters() {
				if a.WeightedClusters[i].Name != c.GetName() || a.WeightedClusters[i].Weight != c.GetWeight().GetValue() {
					out = append(out, fmt.Sprintf("weighted cluster #%d is %s weight %d, reported %s", i, c.GetName(), c.GetWeight().GetValue(), a))
				}
				sum += a.WeightedClusters[i].Percent
				total += c.GetWeight().GetValue()
				out = append(out, checkService(a.WeightedClusters[i].ClusterRef, services)...)
			}
			if total > 0 && math.Abs(sum-100) > 1e-6 {
				out = append(out, fmt.Sprintf("shares add up to %v%%", sum))
			}
		}
	case *routev3.Route_Redirect:
		if a.Redirect == nil {
			return []string{"route redirects, reported " + a.String()}
		}
		want := map[routev3.RedirectAction_RedirectResponseCode]int{0: 301, 1: 302, 2: 303, 3: 307, 4: 308}[act.Redirect.GetResponseCode()]
		if a.Redirect.Status != want {
			out = append(out, fmt.Sprintf("redirect status %d, want %d", a.Redirect.Status, want))
		}
		u, err := url.Parse(a.Redirect.Location)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("redirect location %q: %v", a.Redirect.Location, err))
		case act.Redirect.GetHttpsRedirect() && u.Scheme != "https":
			out = append(out, fmt.Sprintf("https_redirect to %s", a.Redirect.Location))
		case act.Redirect.GetSchemeRedirect() != "" && u.Scheme != act.Redirect.GetSchemeRedirect():
			out = append(out, fmt.Sprintf("scheme_redirect %s to %s", act.Redirect.GetSchemeRedirect(), a.Redirect.Location))
		case act.Redirect.GetHostRedirect() != "" && u.Hostname() != act.Redirect.GetHostRedirect():
			out = append(out, fmt.Sprintf("host_redirect %s to %s", act.Redirect.GetHostRedirect(), a.Redirect.Location))
		case act.Redirect.GetPortRedirect() != 0 && u.Port() != strconv.Itoa(int(act.Redirect.GetPortRedirect())):
			out = append(out, fmt.Sprintf("port_redirect %d to %s", act.Redirect.GetPortRedirect(), a.Redirect.Location))
		case act.Redirect.GetPathRedirect() != "" && !strings.HasPrefix(u.RequestURI(), act.Redirect.GetPathRedirect()):
			out = append(out, fmt.Sprintf("path_redirect %s to %s", act.Redirect.GetPathRedirect(), a.Redirect.Location))
		}
	case *routev3.Route_DirectResponse:
		if a.DirectResponse == nil || a.DirectResponse.Status != int(act.DirectResponse.GetStatus()) {
			return []string{fmt.Sprintf("route responds %d, reported %s", act.DirectResponse.GetStatus(), a)}
		}
	}
	return out
}

// checkService insists that a cluster maps to a port of a Service of the
// input (or is an extension cluster), by number and by name.
func checkService(c ClusterRef, services map[types.NamespacedName]*corev1.Service) []string {
	if c.ExtensionService != nil || c.Missing {
		return nil
	}
	if c.Service == nil {
		return []string{fmt.Sprintf("cluster %s maps to no Service", c.Name)}
	}
	svc := services[types.NamespacedName{Namespace: c.Service.Namespace, Name: c.Service.Name}]
	if svc == nil {
		return []string{fmt.Sprintf("cluster %s maps to Service %s, which is not in the input", c.Name, c.Service)}
	}
	for _, p := range svc.Spec.Ports {
		if int(p.Port) == c.Service.Port && p.Name == c.Service.PortName {
			return nil
		}
	}
	return []string{fmt.Sprintf("cluster %s maps to Service %s, which has no such port", c.Name, c.Service)}
}

func servicesByName(objs []loader.Object) map[types.NamespacedName]*corev1.Service {
	out := map[types.NamespacedName]*corev1.Service{}
	for _, o := range objs {
		if svc, ok := o.Obj.(*corev1.Service); ok {
			out[types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}] = svc
		}
	}
	return out
}

func explainText(d *Decision) string {
	var b strings.Builder
	_ = WriteExplain(&b, d)
	return b.String()
}
