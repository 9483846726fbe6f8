package translate

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Include chains and cycles of thousands of HTTPProxies (issue 23 item 5):
// the include walk used to cost time and memory super-linear in the
// chain's depth (76 s and 1.6 GB at 4,000); it must stay linear in the
// size of the include tree plus the output.

// includeChain is a root including d1 including d2 ... including dN, each
// adding a prefix condition and one route for /r. With cycle, dN includes
// d1 again, which Contour reports as IncludeCreatesCycle, and the includes
// have no conditions, each proxy's route its own prefix instead: chained
// prefixes 10,000 deep would make 300 MB of route paths, which Contour
// would write too.
func includeChain(n int, cycle bool) []metav1.Object {
	name := func(i int) string { return fmt.Sprintf("d%d", i) }
	include := func(i int) []contourv1.Include {
		inc := contourv1.Include{Name: name(i)}
		if !cycle {
			inc.Conditions = []contourv1.MatchCondition{{Prefix: "/" + name(i)}}
		}
		return []contourv1.Include{inc}
	}
	routePrefix := func(i int) string {
		if cycle {
			return "/" + name(i)
		}
		return "/r"
	}
	objs := []metav1.Object{
		mkService("default", "s", mkPort("", 80)),
		&contourv1.HTTPProxy{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "root", Generation: 1},
			Spec: contourv1.HTTPProxySpec{
				VirtualHost: &contourv1.VirtualHost{Fqdn: "example.com"},
				Includes:    include(1),
			},
		},
	}
	for i := 1; i <= n; i++ {
		proxy := &contourv1.HTTPProxy{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name(i), Generation: 1},
			Spec: contourv1.HTTPProxySpec{Routes: []contourv1.Route{{
				Conditions: []contourv1.MatchCondition{{Prefix: routePrefix(i)}},
				Services:   []contourv1.Service{{Name: "s", Port: 80}},
			}}},
		}
		switch {
		case i < n:
			proxy.Spec.Includes = include(i + 1)
		case cycle:
			proxy.Spec.Includes = include(1)
		}
		objs = append(objs, proxy)
	}
	return objs
}

func benchmarkIncludes(b *testing.B, n int, cycle bool) {
	objs := mkObjects(b, includeChain(n, cycle)...)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Translate(objs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIncludeChain1000(b *testing.B)  { benchmarkIncludes(b, 1000, false) }
func BenchmarkIncludeChain5000(b *testing.B)  { benchmarkIncludes(b, 5000, false) }
func BenchmarkIncludeCycle10000(b *testing.B) { benchmarkIncludes(b, 10000, true) }

// allocatedBy is the bytes f allocates: a bound on it is the test of the
// walk's cost, which fails on a quadratic walk without timing anything.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An include chain 2,000 deep has Contour's statuses and routes, and its
// walk allocates in proportion to the chain and the routes' paths: the
// walk that copied its ancestors and conditions at each step allocated
// about 1 GB at 1,000.
func TestIncludeChainDeep(t *testing.T) {
	const n = 2000
	objs := mkObjects(t, includeChain(n, false)...)
	var res *Result
	alloc := allocatedBy(func() {
		var err error
		if res, err = Translate(objs, Options{}); err != nil {
			t.Fatal(err)
		}
	})
	pxCheck(t, res, "default", "root", pxValid())
	for _, i := range []int{1, n / 2, n} {
		pxCheck(t, res, "default", fmt.Sprintf("d%d", i), pxValid())
	}
	routes := pxRoutesOf(res, pxHTTPRC, "example.com")
	if len(routes) != n {
		t.Fatalf("%d routes, want %d", len(routes), n)
	}
	var deepest strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&deepest, "/d%d", i)
	}
	deepest.WriteString("/r")
	// The longest prefix sorts first.
	if got := routes[0].GetMatch().GetPrefix(); got != deepest.String() {
		t.Errorf("first route's prefix is %.40q..., want %.40q...", got, deepest.String())
	}
	// The routes' paths alone are 2,000²/2 × 6 bytes, 12 MB.
	if limit := uint64(150 << 20); alloc > limit {
		t.Errorf("translating a chain of %d includes allocated %d MB, want at most %d", n, alloc>>20, limit>>20)
	}
}

// 10,000 HTTPProxies including each other in a cycle from a root: the one
// included again is invalid with Contour's message naming the whole path,
// the others valid, and the walk is linear (it ran out of 10 GB).
func TestIncludeCycleLong(t *testing.T) {
	const n = 10000
	objs := mkObjects(t, includeChain(n, true)...)
	var res *Result
	alloc := allocatedBy(func() {
		var err error
		if res, err = Translate(objs, Options{}); err != nil {
			t.Fatal(err)
		}
	})
	var path strings.Builder
	path.WriteString("default/root")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&path, " -> default/d%d", i)
	}
	path.WriteString(" -> default/d1")
	// Contour cuts condition messages at 32,760 bytes.
	want := ("include creates an include cycle: " + path.String())[:32760]
	st := pxMustStatus(t, res, "default", "d1")
	if errs := st.Conditions[0].Errors; st.CurrentStatus != "invalid" || len(errs) != 1 ||
		errs[0].Reason != "IncludeCreatesCycle" || errs[0].Message != want {
		t.Errorf("d1 is %s, errors %.200v, want one IncludeCreatesCycle: %.100s...", st.CurrentStatus, errs, want)
	}
	pxCheck(t, res, "default", "root", pxValid())
	pxCheck(t, res, "default", fmt.Sprintf("d%d", n), pxValid())
	if got := len(pxRoutesOf(res, pxHTTPRC, "example.com")); got != n {
		t.Errorf("%d routes, want %d", got, n)
	}
	if limit := uint64(300 << 20); alloc > limit {
		t.Errorf("translating a cycle of %d includes allocated %d MB, want at most %d", n, alloc>>20, limit>>20)
	}
}
