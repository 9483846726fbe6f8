package admission

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// An Extension adds properties to a CRD's schema: the fields of a newer
// release of a kind that the pinned CRD lacks but contourc accepts (see
// loader/contour_extensions.go).
type Extension struct {
	Group, Kind string
	// At is the dotted path of the schema node to extend, through
	// properties; a "[]" suffix steps into a list's items
	// ("spec.virtualhost.jwtProviders[]").
	At string
	// Properties are the new properties, as openAPIV3Schema JSON.
	Properties string
	// Required, when not nil, replaces the node's required list.
	Required []string
}

var (
	extMu      sync.Mutex
	extensions []Extension
)

// Extend registers an extension, applied to every version of the kind
// compiled after it. Call it from an init function.
func Extend(e Extension) {
	extMu.Lock()
	defer extMu.Unlock()
	extensions = append(extensions, e)
}

// extended is raw with the registered extensions of gvk's kind applied.
func extended(gvk GVK, raw json.RawMessage) (json.RawMessage, error) {
	extMu.Lock()
	var mine []Extension
	for _, e := range extensions {
		if e.Group == gvk.Group && e.Kind == gvk.Kind {
			mine = append(mine, e)
		}
	}
	extMu.Unlock()
	if len(mine) == 0 {
		return raw, nil
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	for _, e := range mine {
		if err := e.apply(s); err != nil {
			return nil, fmt.Errorf("admission: extension of %s at %s: %v", e.Kind, e.At, err)
		}
	}
	return json.Marshal(s)
}

func (e Extension) apply(s map[string]any) error {
	n := s
	for _, step := range strings.Split(e.At, ".") {
		name := strings.TrimSuffix(step, "[]")
		props, _ := n["properties"].(map[string]any)
		next, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("no property %q", name)
		}
		if name != step {
			if next, ok = next["items"].(map[string]any); !ok {
				return fmt.Errorf("%q is not a list", name)
			}
		}
		n = next
	}
	var add map[string]any
	if err := json.Unmarshal([]byte(e.Properties), &add); err != nil {
		return err
	}
	props, _ := n["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		n["properties"] = props
	}
	for k, p := range add {
		props[k] = p
	}
	if e.Required != nil {
		n["required"] = e.Required
	}
	return nil
}
