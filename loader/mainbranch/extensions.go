package mainbranch

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Fields of Contour's main branch that the published Contour API module
// (v1.33, whose Go types objects are decoded into) does not have yet: a JWT
// provider's localJWKS, and an authorization server's serviceType and
// httpSettings (an HTTPProxy's spec.virtualhost.authorization, a
// ContourConfiguration's spec.globalExtAuth).
//
// Forking the API types would ripple through every package, so the loader
// instead takes exactly these keys out of an object's tree before the strict
// decode (any other unknown field is still refused), decodes them just as
// strictly into the types below, with their full paths and lines in errors
// and the CRD's defaults and validation, and hands them over in
// Object.Extensions. The tree is copied where it changes, never edited:
// YAML aliases may share its nodes.

// Authorization server protocols (serviceType).
const (
	AuthorizationGRPC = "grpc"
	AuthorizationHTTP = "http"
)

// Extensions are the values of those fields in one object.
type Extensions struct {
	// LocalJWKS holds spec.virtualhost.jwtProviders[i].localJWKS by i.
	LocalJWKS map[int]*LocalJWKS
	// Authorization holds the extension fields of the object's
	// authorization server; nil when it has none.
	Authorization *AuthorizationExtensions
	// MainBranchFields are the extension fields the object sets, each
	// where it is set (fields.go).
	MainBranchFields []Field
}

// LocalJWKSOf returns the localJWKS of JWT provider i, nil if it has none.
// A nil Extensions has none.
func (e *Extensions) LocalJWKSOf(i int) *LocalJWKS {
	if e == nil {
		return nil
	}
	return e.LocalJWKS[i]
}

// AuthorizationOf returns the authorization server's extension fields, nil
// when there is no authorization server (or no Extensions).
func (e *Extensions) AuthorizationOf() *AuthorizationExtensions {
	if e == nil {
		return nil
	}
	return e.Authorization
}

// LocalJWKS is a JWKS kept in a key of an Opaque Secret in the HTTPProxy's
// own namespace.
type LocalJWKS struct {
	SecretName string `json:"secretName"`
	Key        string `json:"key"`
}

// AuthorizationExtensions are an authorization server's serviceType (grpc
// unless set) and, for HTTP servers, httpSettings.
type AuthorizationExtensions struct {
	ServiceType  string                     `json:"serviceType"`
	HTTPSettings *HTTPAuthorizationSettings `json:"httpSettings"`
}

// HTTP reports whether the server speaks HTTP rather than gRPC; a nil
// AuthorizationExtensions is the default, gRPC.
func (a *AuthorizationExtensions) HTTP() bool {
	return a != nil && a.ServiceType == AuthorizationHTTP
}

// Settings returns the httpSettings, nil when there are none.
func (a *AuthorizationExtensions) Settings() *HTTPAuthorizationSettings {
	if a == nil {
		return nil
	}
	return a.HTTPSettings
}

// HTTPAuthorizationSettings configure an HTTP authorization server.
type HTTPAuthorizationSettings struct {
	// PathPrefix is prepended to the path of the check request.
	PathPrefix string `json:"pathPrefix"`
	// AllowedAuthorizationHeaders are the client request headers sent to
	// the server (Envoy always adds Host, Method, Path, Content-Length
	// and Authorization).
	AllowedAuthorizationHeaders []AllowedHeader `json:"allowedAuthorizationHeaders"`
	// AllowedUpstreamHeaders are the headers of the server's response
	// that are added to the request sent upstream.
	AllowedUpstreamHeaders []AllowedHeader `json:"allowedUpstreamHeaders"`
}

// AllowedHeader matches header names. Exactly one of Exact, Prefix, Suffix
// and Contains should be set: that is a CEL rule of the CRD, which Contour
// checks again and reports in status, so translation reports it too.
type AllowedHeader struct {
	Exact      string `json:"exact"`
	Prefix     string `json:"prefix"`
	Suffix     string `json:"suffix"`
	Contains   string `json:"contains"`
	IgnoreCase bool   `json:"ignoreCase"`
}

// jwtProviderExtensions are the extension keys of one JWT provider.
type jwtProviderExtensions struct {
	LocalJWKS *LocalJWKS `json:"localJWKS"`
}

// DetachFunc takes the extension fields out of an object's mapping: the
// mapping without them, their values (nil when there are none) and the
// problems decoding them.
type DetachFunc func(obj *yaml.Node) (*yaml.Node, *Extensions, []manifest.FieldError)

// DetachHTTPProxyExtensions handles an HTTPProxy's localJWKS, serviceType
// and httpSettings.
func DetachHTTPProxyExtensions(obj *yaml.Node) (*yaml.Node, *Extensions, []manifest.FieldError) {
	d := &detacher{}
	out := editValue(obj, "spec", func(spec *yaml.Node) *yaml.Node {
		return editValue(spec, "virtualhost", func(vh *yaml.Node) *yaml.Node {
			vh = editValue(vh, "jwtProviders", d.jwtProviders)
			return editValue(vh, "authorization", d.authorization("spec", "virtualhost", "authorization"))
		})
	})
	return out, d.ext, d.errs
}

// DetachContourConfigurationExtensions handles the serviceType and
// httpSettings of a ContourConfiguration's globalExtAuth.
func DetachContourConfigurationExtensions(obj *yaml.Node) (*yaml.Node, *Extensions, []manifest.FieldError) {
	d := &detacher{}
	out := editValue(obj, "spec", func(spec *yaml.Node) *yaml.Node {
		return editValue(spec, "globalExtAuth", d.authorization("spec", "globalExtAuth"))
	})
	return out, d.ext, d.errs
}

// detacher collects the extensions of one object while its tree is
// rewritten.
type detacher struct {
	ext  *Extensions
	errs []manifest.FieldError
}

func (d *detacher) extensions() *Extensions {
	if d.ext == nil {
		d.ext = &Extensions{}
	}
	return d.ext
}

// decode decodes the extension keys taken from the mapping at path.
func (d *detacher) decode(taken *yaml.Node, out any, path ...string) {
	d.errs = append(d.errs, manifest.DecodeAt(taken, out, path)...)
}

// jwtProviders takes localJWKS out of each provider of the list.
func (d *detacher) jwtProviders(list *yaml.Node) *yaml.Node {
	if list.Kind != yaml.SequenceNode {
		return list // the strict decode reports the wrong type
	}
	var out *yaml.Node
	for i, item := range list.Content {
		rest, taken := takeKeys(manifest.ResolveAlias(item), "localJWKS")
		if taken == nil {
			continue
		}
		d.takenMainBranchFields(taken, "spec.virtualhost.jwtProviders["+strconv.Itoa(i)+"]")
		var jp jwtProviderExtensions
		d.decode(taken, &jp, "spec", "virtualhost", "jwtProviders", "["+strconv.Itoa(i)+"]")
		if jp.LocalJWKS != nil {
			ext := d.extensions()
			if ext.LocalJWKS == nil {
				ext.LocalJWKS = map[int]*LocalJWKS{}
			}
			ext.LocalJWKS[i] = jp.LocalJWKS
		}
		if out == nil {
			c := *list
			c.Content = slices.Clone(list.Content)
			out = &c
		}
		out.Content[i] = rest
	}
	if out == nil {
		return list
	}
	return out
}

// authorization returns the edit taking serviceType and httpSettings out of
// the authorization server at path. The server's extensions are decoded
// even when neither key is there, so that serviceType gets its default.
func (d *detacher) authorization(path ...string) func(*yaml.Node) *yaml.Node {
	return func(auth *yaml.Node) *yaml.Node {
		if auth.Kind != yaml.MappingNode {
			return auth // the strict decode reports the wrong type
		}
		rest, taken := takeKeys(auth, "serviceType", "httpSettings")
		if taken != nil {
			d.takenMainBranchFields(taken, strings.Join(path, "."))
		}
		if taken == nil {
			rest, taken = auth, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: auth.Line, Column: auth.Column}
		}
		a := &AuthorizationExtensions{}
		d.decode(taken, a, path...)
		d.extensions().Authorization = a
		return rest
	}
}

// editValue returns mapping n with the (non-null) value of key replaced by
// edit's result. n is copied when the value changes, and returned as it is
// otherwise: most objects use no extension field and cost no copy.
func editValue(n *yaml.Node, key string, edit func(*yaml.Node) *yaml.Node) *yaml.Node {
	n = manifest.ResolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return n
	}
	pairs := manifest.MappingPairs(n)
	for i := 0; i+1 < len(pairs); i += 2 {
		if k := manifest.ResolveAlias(pairs[i]); k.Kind != yaml.ScalarNode || k.Value != key {
			continue
		}
		v := manifest.ResolveAlias(pairs[i+1])
		if manifest.IsNull(v) {
			return n
		}
		edited := edit(v)
		if edited == v {
			return n
		}
		c := *n
		c.Content = slices.Clone(pairs)
		c.Content[i+1] = edited
		return &c
	}
	return n
}

// takeKeys splits mapping n into the pairs whose key is one of names
// (taken, a new mapping at n's line) and the others (rest, a copy of n).
// taken is nil, and rest is n, when no key matches. Merge keys are
// expanded on the way, which decodes the same.
func takeKeys(n *yaml.Node, names ...string) (rest, taken *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return n, nil
	}
	pairs := manifest.MappingPairs(n)
	var kept, took []*yaml.Node
	for i := 0; i+1 < len(pairs); i += 2 {
		k := manifest.ResolveAlias(pairs[i])
		if k.Kind == yaml.ScalarNode && slices.Contains(names, k.Value) {
			took = append(took, pairs[i], pairs[i+1])
		} else {
			kept = append(kept, pairs[i], pairs[i+1])
		}
	}
	if took == nil {
		return n, nil
	}
	r := *n
	r.Content = kept
	return &r, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Content: took}
}
