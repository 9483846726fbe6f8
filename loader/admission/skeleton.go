package admission

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// The API server's defaulting, list-type and embedded-object walks go over
// an object's every field with its schema, copying each field's schema as
// they go: for a 5,000-route input, more time than validation takes. What
// they do depends only on the schema places that have a default, an
// x-kubernetes-list-type or x-kubernetes-embedded-resource, and the
// places on the way to them, so contourc hands each walk a skeleton of
// the schema with only those: the same walk, the same outcome, over a
// fraction of the places.

// skeleton is s cut down to the places keep wants and the places on the
// way to them; nil when there are none. A kept place keeps its own
// schema, except for the children cut away.
func skeleton(s *structuralschema.Structural, keep func(*structuralschema.Structural) bool) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	out := *s
	out.Properties = nil
	out.Items = skeleton(s.Items, keep)
	out.AdditionalProperties = nil
	for k := range s.Properties {
		p := s.Properties[k]
		if c := skeleton(&p, keep); c != nil {
			if out.Properties == nil {
				out.Properties = map[string]structuralschema.Structural{}
			}
			out.Properties[k] = *c
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil {
		if c := skeleton(ap.Structural, keep); c != nil {
			out.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: c, Bool: true}
		}
	}
	if !keep(s) && out.Items == nil && out.Properties == nil && out.AdditionalProperties == nil {
		return nil
	}
	return &out
}

func hasDefault(s *structuralschema.Structural) bool { return s.Default.Object != nil }

func hasListType(s *structuralschema.Structural) bool { return s.XListType != nil }

func isEmbedded(s *structuralschema.Structural) bool { return s.XEmbeddedResource }
