package protowalk

// Envoy's validation rules on a resource made mostly of one long list, on
// every CPU.

import (
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/internal/par"
)

// spreadLists are the lists whose elements ValidateSpread checks apart,
// by the message type that holds them: one route configuration holds the
// virtual hosts of every plain-HTTP host (5,000 of them, 30,000 routes,
// for 5,000 HTTPProxies), one virtual host may hold thousands of routes,
// and one listener the filter chain of every TLS host. Their generated
// validation checks each element on its own and the list as a whole not
// at all (no min_items or unique rules), so checking the elements apart
// and the rest once decides the same.
var spreadLists = map[protoreflect.FullName]protoreflect.Name{
	"envoy.config.route.v3.RouteConfiguration": "virtual_hosts",
	"envoy.config.route.v3.VirtualHost":        "routes",
	"envoy.config.listener.v3.Listener":        "filter_chains",
}

// spreadAt is the shortest list ValidateSpread checks on every CPU; a
// shorter one costs less than starting the goroutines.
const spreadAt = 64

// ValidateSpread decides what ValidateOne decides, checking the elements
// of a long spreadLists list on every CPU: checked whole, the route
// configuration of 5,000 plain-HTTP hosts took one CPU for 140 ms while
// the other waited. When something fails, the error is ValidateOne's on
// the whole message, so that it reads the same.
func ValidateSpread(m proto.Message) error {
	r := m.ProtoReflect()
	name, ok := spreadLists[r.Descriptor().FullName()]
	if !ok {
		return ValidateOne(m)
	}
	fd := r.Descriptor().Fields().ByName(name)
	list := r.Get(fd).List()
	_, nested := spreadLists[fd.Message().FullName()]
	if list.Len() < spreadAt && !nested {
		return ValidateOne(m)
	}
	if ValidateOne(withoutField(r, fd)) != nil {
		return ValidateOne(m)
	}
	var failed atomic.Bool
	check := func(i int) {
		if !failed.Load() && ValidateSpread(list.Get(i).Message().Interface()) != nil {
			failed.Store(true)
		}
	}
	if list.Len() < spreadAt {
		// A few virtual hosts may hold a long list of routes each.
		for i := range list.Len() {
			check(i)
		}
	} else {
		par.ForEach(list.Len(), check)
	}
	if failed.Load() {
		return ValidateOne(m)
	}
	return nil
}

// withoutField is a shallow copy of r without field fd, sharing the rest
// of r's values: only for reading.
func withoutField(r protoreflect.Message, fd protoreflect.FieldDescriptor) proto.Message {
	out := r.New()
	r.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if f != fd {
			out.Set(f, v)
		}
		return true
	})
	return out.Interface()
}
