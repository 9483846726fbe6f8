package translate

import (
	"slices"
	"testing"
)

// A virtual host's clusters are its routes' (mirrors included) in route
// order, each once, and adding a route after they were worked out (as a
// later processor does to a replayed virtual host) works them out again.
func TestClusterUses(t *testing.T) {
	a, b, mirror, c := &Cluster{}, &Cluster{}, &Cluster{}, &Cluster{}
	vh := &VirtualHost{Name: "www.example.com", routes: map[string]*Route{}}
	vh.addRoute(&Route{PathMatch: PathMatch{Kind: PathPrefix, Value: "/"}, Clusters: []*Cluster{a, b}})
	vh.addRoute(&Route{PathMatch: PathMatch{Kind: PathPrefix, Value: "/api"}, Clusters: []*Cluster{b},
		Mirrors: []*MirrorPolicy{{Cluster: mirror}}})
	// /api sorts first: the longer prefix.
	if got, want := vh.clusterUses(), []*Cluster{b, mirror, a}; !slices.Equal(got, want) {
		t.Fatalf("uses %p, want %p", got, want)
	}
	vh.addRoute(&Route{PathMatch: PathMatch{Kind: PathExact, Value: "/x"}, Clusters: []*Cluster{c}})
	if got := vh.clusterUses(); !slices.Contains(got, c) || len(got) != 4 {
		t.Errorf("after adding a route: uses %p, want the new cluster among 4", got)
	}
}
