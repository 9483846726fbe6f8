package render

// The static_resources.listeners of a static bootstrap.

import (
	"sync"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/protowalk"
)

// staticListeners returns listeners, sorted by name, with route tables
// and secret references made static: copies, unless decoded lets the
// bootstrap share them (see protowalk.Decoded.SharesResources). A listener on
// the admin interface's address is left out: in Contour that is the
// envoy-admin listener, which only proxies to the admin interface that
// now listens there itself (see admin.go). leftOut is what the bootstrap
// does not hold: those listeners and the route tables no listener
// inlined.
func staticListeners(listeners []*listenerv3.Listener, routes []*routev3.RouteConfiguration, admin *corev3.Address, decoded *protowalk.Decoded) (out []*listenerv3.Listener, leftOut []proto.Message, err error) {
	table := newRouteTable(routes)
	for _, l := range sortedByName(listeners, (*listenerv3.Listener).GetName) {
		if bindsAddress(l, admin) {
			leftOut = append(leftOut, l)
			continue
		}
		if !decoded.SharesResources() {
			l = proto.Clone(l).(*listenerv3.Listener)
		}
		if err := inlineListener(l, table, decoded); err != nil {
			return nil, nil, &ResourceError{Kind: "listener", Name: l.GetName(), Err: err}
		}
		out = append(out, l)
	}
	for _, rc := range routes {
		if !table.inlined[rc.GetName()] || table.byName[rc.GetName()] != rc {
			leftOut = append(leftOut, rc)
		}
	}
	return out, leftOut, nil
}

// inlineListener inlines l's filter chains on every CPU (a listener of
// thousands of virtual hosts has thousands of them), then the rest of it,
// and returns the first error.
func inlineListener(l *listenerv3.Listener, routes *routeTable, decoded *protowalk.Decoded) error {
	chainsField := l.ProtoReflect().Descriptor().Fields().ByName("filter_chains")
	chains := l.GetFilterChains()
	errs := make([]error, len(chains))
	par.Workers(len(chains), func() func(int) {
		in := &inliner{routes: routes, decoded: decoded} // a memo per worker
		return func(i int) {
			errs[i] = in.inlineAt(protowalk.Step{Field: chainsField, Index: i, Elem: chains[i].ProtoReflect()}, chains[i])
		}
	})
	if bad := nonNil(errs); len(bad) > 0 {
		return bad[0]
	}
	return (&inliner{routes: routes, decoded: decoded}).inline(listenerWithoutChains(l))
}

// listenerWithoutChains is a new listener sharing l's fields but its
// filter chains: the part of a listener that is not a list of thousands.
func listenerWithoutChains(l *listenerv3.Listener) *listenerv3.Listener {
	out := &listenerv3.Listener{}
	chains := l.ProtoReflect().Descriptor().Fields().ByName("filter_chains")
	l.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd != chains {
			out.ProtoReflect().Set(fd, v)
		}
		return true
	})
	return out
}

// routeTable is the route configurations listeners can inline, by name. If
// two share a name the first wins, as in Contour's cache, which keys them
// by name. It records which were inlined; inliners on every CPU share it.
type routeTable struct {
	byName  map[string]*routev3.RouteConfiguration
	mu      sync.Mutex
	inlined map[string]bool
}

func newRouteTable(routes []*routev3.RouteConfiguration) *routeTable {
	m := make(map[string]*routev3.RouteConfiguration, len(routes))
	for _, rc := range routes {
		if _, ok := m[rc.GetName()]; !ok {
			m[rc.GetName()] = rc
		}
	}
	return &routeTable{byName: m, inlined: make(map[string]bool, len(m))}
}

// take returns the route configuration named name, recording that it was
// inlined.
func (t *routeTable) take(name string) (*routev3.RouteConfiguration, bool) {
	rc, ok := t.byName[name]
	if ok {
		t.mu.Lock()
		t.inlined[name] = true
		t.mu.Unlock()
	}
	return rc, ok
}
