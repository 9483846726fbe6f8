package render

// Validation of Envoy resources with the protoc-gen-validate rules that
// go-control-plane generates, i.e. the checks Envoy itself runs when it
// accepts a resource. A resource that fails them would be rejected by Envoy
// as a whole (NACKed over xDS, or the bootstrap refused), so contourc checks
// before it writes or serves anything.

import (
	"errors"
	"fmt"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/translate"
)

// maxReported bounds how many invalid resources one error lists: one broken
// builder tends to break every resource it builds, and the first few say
// enough.
const maxReported = 10

// ResourceError is a problem with one named Envoy resource.
type ResourceError struct {
	Kind string // "listener", "route configuration", "cluster", ...
	Name string
	Err  error
}

func (e *ResourceError) Error() string {
	return fmt.Sprintf("%s %q: %v", e.Kind, e.Name, e.Err)
}

func (e *ResourceError) Unwrap() error { return e.Err }

// Validate checks every resource in r against Envoy's validation rules,
// including the typed configs inside Anys (HTTP connection managers, TLS
// contexts, filters), which the generated ValidateAll methods skip. It
// returns nil, or an error listing the first invalid resources by type and
// name.
func Validate(r *translate.Resources) error {
	if r == nil {
		return nil
	}
	return validateSections(typeSections(r))
}

// validationOrder is the order of the resource kinds in Validate's errors.
var validationOrder = []string{"listener", "route configuration", "cluster", "cluster load assignment", "secret", "runtime"}

// validateSections is Validate for the resources of sections, those let go
// of (nil, see JSONStreamOnce) left out.
func validateSections(sections []typeSection) error {
	type job struct {
		kind, name string
		m          proto.Message
	}
	var jobs []job
	for _, kind := range validationOrder {
		for _, s := range sections {
			if s.kind != kind {
				continue
			}
			for i, m := range s.items {
				if m != nil {
					jobs = append(jobs, job{kind, s.names[i], m})
				}
			}
		}
	}
	// Resources are checked on every CPU, each worker checking the Anys
	// repeated across its resources once; errors keep resource order.
	errs := make([]error, len(jobs))
	par.Workers(len(jobs), func() func(int) {
		seen := map[string]bool{}
		return func(i int) {
			if err := validateDeepSeen(jobs[i].m, seen); err != nil {
				errs[i] = &ResourceError{Kind: jobs[i].kind, Name: jobs[i].name, Err: err}
			}
		}
	})
	return joinFirst(nonNil(errs))
}

// validateDeep runs m's ValidateAll and that of every message packed in an
// Any inside m. ValidateAll already recurses into plain sub-messages, so only
// Any contents need a call of their own.
func validateDeep(m proto.Message) error { return validateDeepSeen(m, nil) }

// validateDeepSeen is validateDeep skipping the Anys in seen, and adding
// those it checks.
func validateDeepSeen(m proto.Message, seen map[string]bool) error {
	if err := validateSpread(m); err != nil {
		return err
	}
	w := &walker{unpacked: validateOne, seen: seen}
	_, err := w.walk(m.ProtoReflect())
	return err
}

type validatorAll interface{ ValidateAll() error }

// validateOne runs m's generated validation; a type without rules (none in
// go-control-plane, but Anys may hold anything) is valid.
func validateOne(m proto.Message) error {
	if v, ok := m.(validatorAll); ok {
		return v.ValidateAll()
	}
	return nil
}

// joinFirst joins up to maxReported errors and says how many it left out.
func joinFirst(errs []error) error {
	if len(errs) <= maxReported {
		return errors.Join(errs...)
	}
	more := fmt.Errorf("... and %d more", len(errs)-maxReported)
	return errors.Join(append(errs[:maxReported:maxReported], more)...)
}

// ValidateMessage checks one message, typed configs included, against
// Envoy's validation rules, as Validate checks each resource.
func ValidateMessage(m proto.Message) error { return validateDeep(m) }

// spreadLists are the lists whose elements validateSpread checks apart,
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

// spreadAt is the shortest list validateSpread checks on every CPU; a
// shorter one costs less than starting the goroutines.
const spreadAt = 64

// validateSpread decides what validateOne decides, checking the elements
// of a long spreadLists list on every CPU: checked whole, the route
// configuration of 5,000 plain-HTTP hosts took one CPU for 140 ms while
// the other waited. When something fails, the error is validateOne's on
// the whole message, so that it reads the same.
func validateSpread(m proto.Message) error {
	r := m.ProtoReflect()
	name, ok := spreadLists[r.Descriptor().FullName()]
	if !ok {
		return validateOne(m)
	}
	fd := r.Descriptor().Fields().ByName(name)
	list := r.Get(fd).List()
	_, nested := spreadLists[fd.Message().FullName()]
	if list.Len() < spreadAt && !nested {
		return validateOne(m)
	}
	if validateOne(withoutField(r, fd)) != nil {
		return validateOne(m)
	}
	var failed atomic.Bool
	check := func(i int) {
		if !failed.Load() && validateSpread(list.Get(i).Message().Interface()) != nil {
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
		return validateOne(m)
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
