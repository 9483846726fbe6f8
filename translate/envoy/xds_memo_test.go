package envoy

import (
	"testing"

	"github.com/contourc/contourc/translate/dag"
)

// TestVhostMemo: a virtual host built from the same as the last time is
// the very same message, one built from another is built again, and one
// a translation did not ask for is dropped at the next.
func TestVhostMemo(t *testing.T) {
	host := func(prefixes ...string) *dag.VirtualHost {
		vh := &dag.VirtualHost{Name: "www.example.com", Routes: map[string]*dag.Route{}}
		for _, p := range prefixes {
			vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: p},
				Clusters: []*dag.Cluster{{Upstream: &dag.Service{Namespace: "ns", Name: "app"}}}})
		}
		vh.Ordered()
		return vh
	}
	var m vhostMemo
	m.begin()
	first := m.virtualHost("ingress_http", host("/"), false)
	m.begin()
	if again := m.virtualHost("ingress_http", host("/"), false); again != first {
		t.Error("a virtual host built from the same was built again")
	}
	if other := m.virtualHost("other", host("/"), false); other == first {
		t.Error("a virtual host of another table is the first table's")
	}
	m.begin()
	changed := m.virtualHost("ingress_http", host("/", "/api"), false)
	if changed == first || len(changed.Routes) != 2 {
		t.Error("a virtual host built from another was not built again")
	}
	m.begin() // the last translation did not ask for "other"
	m.begin() // nor this one for anything
	if len(m.records) != 0 {
		t.Errorf("%d records kept that no translation asked for", len(m.records))
	}
}
