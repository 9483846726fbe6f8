package render

// Validation of Envoy resources with the protoc-gen-validate rules that
// go-control-plane generates, i.e. the checks Envoy itself runs when it
// accepts a resource. A resource that fails them would be rejected by Envoy
// as a whole (NACKed over xDS, or the bootstrap refused), so contourc checks
// before it writes or serves anything.

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/render/internal/protowalk"
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
			if err := protowalk.ValidateDeepSeen(jobs[i].m, seen); err != nil {
				errs[i] = &ResourceError{Kind: jobs[i].kind, Name: jobs[i].name, Err: err}
			}
		}
	})
	return joinFirst(nonNil(errs))
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
func ValidateMessage(m proto.Message) error { return protowalk.ValidateDeep(m) }
