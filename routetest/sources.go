package routetest

import (
	"fmt"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

	"github.com/contourc/contourc/loader"
)

// routeMetadataKey is the filter_metadata namespace where Contour names a
// route's source object (for access logs); the keys below are its fields.
const (
	routeMetadataKey   = "envoy.access_loggers.file"
	metadataKind       = "io.projectcontour.kind"
	metadataNamespace  = "io.projectcontour.namespace"
	metadataObjectName = "io.projectcontour.name"
)

// ObjectKey names an object by kind, namespace and name.
type ObjectKey struct {
	Kind, Namespace, Name string
}

// Sources says where each object was read from.
type Sources map[ObjectKey]loader.Source

// SourcesFrom indexes loaded objects by kind, namespace and name.
func SourcesFrom(objs []loader.Object) Sources {
	s := make(Sources, len(objs))
	for _, o := range objs {
		if o.Obj == nil {
			continue
		}
		s[ObjectKey{o.Kind, o.Obj.GetNamespace(), o.Obj.GetName()}] = o.Source
	}
	return s
}

// Source is the object a route was generated from, and where it was read.
type Source struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
}

// Object is "Kind ns/name".
func (s Source) Object() string {
	return fmt.Sprintf("%s %s/%s", s.Kind, s.Namespace, s.Name)
}

// Location is "file:line", or "" when unknown.
func (s Source) Location() string {
	return loader.Source{File: s.File, Line: s.Line}.String()
}

func (s Source) String() string {
	if loc := s.Location(); loc != "" {
		return s.Object() + " (" + loc + ")"
	}
	return s.Object()
}

// routeSource reads a route's metadata. nil when the route has none
// (routes of Envoy's admin listener, say).
func (c *Config) routeSource(md *corev3.Metadata) *Source {
	f := md.GetFilterMetadata()[routeMetadataKey].GetFields()
	kind := f[metadataKind].GetStringValue()
	if kind == "" {
		return nil
	}
	s := &Source{Kind: kind, Namespace: f[metadataNamespace].GetStringValue(), Name: f[metadataObjectName].GetStringValue()}
	if src, ok := c.sources[ObjectKey{s.Kind, s.Namespace, s.Name}]; ok {
		s.File, s.Line = src.File, src.Line
	}
	return s
}
