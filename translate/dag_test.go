package translate

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/contourc/contourc/translate/dag"
)

// A virtual host's clusters are its routes' (mirrors included) in route
// order, each once, and adding a route after they were worked out (as a
// later processor does to a replayed virtual host) works them out again.
func TestClusterUses(t *testing.T) {
	a, b, mirror, c := &dag.Cluster{}, &dag.Cluster{}, &dag.Cluster{}, &dag.Cluster{}
	vh := &dag.VirtualHost{Name: "www.example.com", Routes: map[string]*dag.Route{}}
	vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}, Clusters: []*dag.Cluster{a, b}})
	vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: "/api"}, Clusters: []*dag.Cluster{b},
		Mirrors: []*dag.MirrorPolicy{{Cluster: mirror}}})
	// /api sorts first: the longer prefix.
	if got, want := vh.ClusterUses(), []*dag.Cluster{b, mirror, a}; !slices.Equal(got, want) {
		t.Fatalf("uses %p, want %p", got, want)
	}
	vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathExact, Value: "/x"}, Clusters: []*dag.Cluster{c}})
	if got := vh.ClusterUses(); !slices.Contains(got, c) || len(got) != 4 {
		t.Errorf("after adding a route: uses %p, want the new cluster among 4", got)
	}
}

// A virtual host's first cluster of each name, in use order, worked out
// again when a route is added.
func TestFirstNamed(t *testing.T) {
	named := func(name string) *dag.Cluster { return &dag.Cluster{FrozenName: name} }
	b1, b2, a, c := named("b"), named("b"), named("a"), named("c")
	vh := &dag.VirtualHost{Name: "www.example.com", Routes: map[string]*dag.Route{}}
	vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: "/api"}, Clusters: []*dag.Cluster{b1, a, b2}})
	if got, want := vh.FirstNamed(), []*dag.Cluster{b1, a}; !slices.Equal(got, want) {
		t.Fatalf("firsts %p, want %p", got, want)
	}
	vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: "/"}, Clusters: []*dag.Cluster{c, b2}})
	if got, want := vh.FirstNamed(), []*dag.Cluster{b1, a, c}; !slices.Equal(got, want) {
		t.Errorf("after adding a route: firsts %p, want %p", got, want)
	}
}

// TestFirstByName: clusters ordered by name, the first use of each name
// kept, whatever pointer the later uses hold.
func TestFirstByName(t *testing.T) {
	cluster := func(svc string) *dag.Cluster {
		return &dag.Cluster{Upstream: &dag.Service{Namespace: "ns", Name: svc, Port: corev1.ServicePort{Port: 80}}}
	}
	b1, a, b2, c := cluster("b"), cluster("a"), cluster("b"), cluster("c")
	for _, tc := range []struct {
		name string
		in   []*dag.Cluster
		want []*dag.Cluster
	}{
		{"none", nil, []*dag.Cluster{}},
		{"ordered by name", []*dag.Cluster{c, a, b1}, []*dag.Cluster{a, b1, c}},
		{"the first of equal names", []*dag.Cluster{b2, c, b1, a, b2}, []*dag.Cluster{a, b2, c}},
		{"the first of equal names, the other way", []*dag.Cluster{b1, b2}, []*dag.Cluster{b1}},
	} {
		if got := dag.FirstByName(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSortedByKey: the values kept, in key order; nil for none.
func TestSortedByKey(t *testing.T) {
	m := map[string]int{"b": 2, "c": 3, "a": 1, "d": 4}
	even := func(v int) bool { return v%2 == 0 }
	if got := dag.SortedByKey(m, even); !slices.Equal(got, []int{2, 4}) {
		t.Errorf("got %v, want [2 4]", got)
	}
	if got := dag.SortedByKey(m, func(int) bool { return true }); !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("got %v, want [1 2 3 4]", got)
	}
	if got := dag.SortedByKey(m, func(int) bool { return false }); got != nil {
		t.Errorf("got %v, want nil", got)
	}
}
