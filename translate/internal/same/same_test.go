package same

import (
	"math"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag"
)

// TestSameValueIsDeepEqual holds Value to reflect.DeepEqual on random
// DAG values: pairs built alike from one seed (equal content, distinct
// pointers), and pairs where one value differs from the other at a single
// random place, or from there on.
func TestSameValueIsDeepEqual(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	equal, unequal := 0, 0
	check := func(what string, eq func(a, b any) bool, a, b any) {
		t.Helper()
		want := reflect.DeepEqual(a, b)
		if got := eq(a, b); got != want {
			t.Fatalf("%s: Value says %v, reflect.DeepEqual %v:\n%#v\n%#v", what, got, want, a, b)
		}
		if want {
			equal++
		} else {
			unequal++
		}
	}
	for seed := range int64(n) {
		for _, typ := range []struct {
			name string
			make func(*valueFiller) any
			eq   func(a, b any) bool
		}{
			{"VirtualHost", fillAs[dag.VirtualHost], sameAs[dag.VirtualHost]},
			{"SecureVirtualHost", fillAs[dag.SecureVirtualHost], sameAs[dag.SecureVirtualHost]},
			{"Route", fillAs[dag.Route], sameAs[dag.Route]},
			{"settings", fillAs[config.Settings], sameAs[config.Settings]},
		} {
			a := typ.make(newValueFiller(seed, -1))
			check(typ.name+" alike", typ.eq, a, typ.make(newValueFiller(seed, -1)))
			for change := range 8 {
				f := newValueFiller(seed, int(seed)*7%50+change*13)
				check(typ.name+" changed", typ.eq, a, typ.make(f))
			}
		}
	}
	if equal == 0 || unequal == 0 {
		t.Fatalf("%d equal and %d unequal pairs: the test checks too little", equal, unequal)
	}
	t.Logf("%d equal and %d unequal pairs", equal, unequal)
}

func fillAs[T any](f *valueFiller) any {
	v := new(T)
	f.fill(reflect.ValueOf(v).Elem(), 0)
	return v
}

func sameAs[T any](a, b any) bool { return Value(a.(*T), b.(*T)) }

// valueFiller fills values at random from small domains, so that values
// built alike collide. The leaf numbered change gets another value.
type valueFiller struct {
	rng    *rand.Rand
	leaf   int
	change int
}

func newValueFiller(seed int64, change int) *valueFiller {
	return &valueFiller{rng: rand.New(rand.NewSource(seed)), change: change}
}

// next draws a number below n; at the leaf to change, the one after it.
func (f *valueFiller) next(n int) int {
	x := f.rng.Intn(n)
	if f.leaf == f.change {
		x = (x + 1) % n
	}
	f.leaf++
	return x
}

func (f *valueFiller) fill(v reflect.Value, depth int) {
	if !v.CanSet() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(f.next(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next(3)))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(f.next(3)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1, math.Copysign(0, -1), math.NaN()}[f.next(4)])
	case reflect.String:
		v.SetString([]string{"", "a", "b"}[f.next(3)])
	case reflect.Pointer:
		if depth > 6 || f.next(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i), depth)
		}
	case reflect.Slice:
		switch n := f.next(4); {
		case n == 0 || depth > 6:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range n - 1 {
				f.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		n := f.next(3)
		if n == 0 || depth > 6 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range n {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k, depth+1)
			f.fill(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		if f.next(2) == 1 && reflect.TypeFor[string]().Implements(v.Type()) {
			v.Set(reflect.ValueOf([]string{"a", "b"}[f.next(2)]))
		}
	}
}

// TestSameValueStopsDeep checks that a comparison following too many
// pointers gives up, saying "not the same", rather than going on.
func TestSameValueStopsDeep(t *testing.T) {
	type node struct {
		next *node
		v    int
	}
	chain := func(n int) *node {
		var head *node
		for range n {
			head = &node{next: head, v: 1}
		}
		return head
	}
	if !Value(chain(maxCompareDepth-1), chain(maxCompareDepth-1)) {
		t.Error("equal chains within the depth are not the same")
	}
	if Value(chain(maxCompareDepth+5), chain(maxCompareDepth+5)) {
		t.Error("chains beyond the depth are the same")
	}
	loop := &node{v: 1}
	loop.next = loop
	other := &node{v: 1}
	other.next = other
	if Value(loop, other) {
		t.Error("a cycle compared as the same")
	}
}

// raceNode is compared only by TestSameValueCompilesOnceForAll, so that its
// comparer is compiled there, by many goroutines at once.
type raceNode struct {
	Name     string
	Children []*raceNode
	Next     *raceNode
	Labels   map[string]string
}

// Goroutines that compare values of a type no comparer exists for yet all
// get a filled-in comparer: one of them compiles it while the others wait,
// and none sees a cell published before it is filled (route tables are
// compared on every CPU, and serve's first reuse crashed on one).
func TestSameValueCompilesOnceForAll(t *testing.T) {
	a := &raceNode{Name: "a", Children: []*raceNode{{Name: "b"}}, Next: &raceNode{Name: "c"}, Labels: map[string]string{"k": "v"}}
	b := &raceNode{Name: "a", Children: []*raceNode{{Name: "b"}}, Next: &raceNode{Name: "c"}, Labels: map[string]string{"k": "v"}}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			<-start
			if !Value(a, b) {
				t.Error("equal values compare unequal")
			}
		})
	}
	close(start)
	wg.Wait()
}
