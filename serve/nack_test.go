package serve

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// A client that rejects every response of a type is sent nothing more of
// it until the configuration changes, then the new version once: not the
// same response again at once, forever. Route configurations come from a
// linear cache, clusters from the snapshot cache; both must hold.
func TestNACKHoldsTheWatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source ConfigSource
		client func(t testing.TB, addr string) *sotwClient
	}{
		{"ads", ConfigSourceADS, func(t testing.TB, addr string) *sotwClient {
			c := newSotwClient(t, addr, nil)
			c.rejecting = rejectRoutesAndClusters
			c.startADS(t)
			return c
		}},
		{"per-type", ConfigSourceContour, func(t testing.TB, addr string) *sotwClient {
			return newPerTypeClientWith(t, addr, func(c *sotwClient) { c.rejecting = rejectRoutesAndClusters })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExamples(t)
			ts := startServer(t, []string{dir}, func(c *Config) { c.ConfigSource = tc.source })
			ts.waitReady(t)
			c := tc.client(t, ts.XDSAddr().String())
			c.waitFor(t, "a route configuration and the clusters", func(v *xdsView) bool {
				return v.hasDomain("kuard.internal.example.com") && len(v.state(resourcev3.ClusterType).resources) > 0
			})
			// A change to both types: a new Ingress to a new Service.
			writeFile(t, filepath.Join(dir, "other.yaml"), service("other", "10.0.0.9")+"---\n"+
				strings.ReplaceAll(ingress("other", "other.example"), "name: kuard", "name: other"))
			c.waitFor(t, "the new route and cluster", func(v *xdsView) bool {
				ok := false
				for name := range v.state(resourcev3.ClusterType).resources {
					ok = ok || strings.HasPrefix(name, "default/other/")
				}
				return v.hasDomain("other.example") && ok
			})
			// The client rejects each version it received: the server
			// counts that rejection when it reads it, a moment after the
			// client has the version.
			for _, typ := range []string{resourcev3.RouteType, resourcev3.ClusterType} {
				nacks := `contourc_xds_nacks_total{type_url="` + typ + `"}`
				waitFor(t, "two NACKs of "+typeLabel(typ)+" counted", func() bool { return ts.metric(t, nacks) >= 2 })
			}
			responses := map[string]int{}
			c.inspect(func(v *xdsView) {
				for _, r := range v.log {
					responses[r.typeURL]++
				}
			})
			for _, typ := range []string{resourcev3.RouteType, resourcev3.ClusterType} {
				// The first response, the new version, and one more
				// per subscription change the client made; a storm
				// sends thousands.
				if n := responses[typ]; n > 4 {
					t.Errorf("%s: %d responses to a client rejecting them all, want one per version", typeLabel(typ), n)
				}
			}
		})
	}
}

var rejectRoutesAndClusters = map[string]string{
	resourcev3.RouteType:   "route: unknown field",
	resourcev3.ClusterType: "cluster: unknown field",
}

// A client's rejection of a version is logged once however often it is
// repeated (Envoy repeats it at each reconnection), and counted each time.
func TestNACKLoggedOncePerVersion(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)})
	ts.waitReady(t)
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)
	var nonce string
	c.inspect(func(v *xdsView) { nonce = v.state(resourcev3.ListenerType).nonce })
	const msg = "listener ingress_http: a long and unwelcome error"
	for range 5 {
		if err := c.nack(resourcev3.ListenerType, nonce, msg); err != nil {
			t.Fatal(err)
		}
	}
	metric := `contourc_xds_nacks_total{type_url="` + resourcev3.ListenerType + `"}`
	waitFor(t, "five NACKs counted", func() bool { return ts.metric(t, metric) == 5 })
	if n := strings.Count(ts.logs.String(), msg); n != 1 {
		t.Errorf("the rejection was logged %d times, want once", n)
	}
	// Another client's rejection is its own line.
	other := newSotwClient(t, ts.XDSAddr().String(), nil)
	other.node.Id = fmt.Sprintf("other-%p", t)
	other.startADS(t)
	other.waitFor(t, "every type", (*xdsView).hasAll)
	other.inspect(func(v *xdsView) { nonce = v.state(resourcev3.ListenerType).nonce })
	if err := other.nack(resourcev3.ListenerType, nonce, msg); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "six NACKs counted", func() bool { return ts.metric(t, metric) == 6 })
	if n := strings.Count(ts.logs.String(), msg); n != 2 {
		t.Errorf("two clients' rejections were logged %d times, want twice", n)
	}
}
