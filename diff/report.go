package diff

// Op says what happened to one thing between the old and the new side.
type Op string

const (
	Added   Op = "added"
	Removed Op = "removed"
	Changed Op = "changed"
)

// Report is the outcome of a comparison. Every list is sorted (listeners,
// virtual hosts and routes by listener, host and match; clusters, endpoints,
// secrets and objects by name), so the same inputs always give the same
// report.
type Report struct {
	Listeners    []ListenerChange    `json:"listeners"`
	VirtualHosts []VirtualHostChange `json:"virtualHosts"`
	Clusters     []ClusterChange     `json:"clusters"`
	Endpoints    []EndpointsChange   `json:"endpoints"`
	Secrets      []SecretChange      `json:"secrets"`
	Runtimes     []RuntimeChange     `json:"runtimes"`
	Status       []StatusChange      `json:"status"`
}

// Empty reports whether nothing changed.
func (r *Report) Empty() bool {
	return len(r.Listeners)+len(r.VirtualHosts)+len(r.Clusters)+len(r.Endpoints)+
		len(r.Secrets)+len(r.Runtimes)+len(r.Status) == 0
}

// FieldChange is one field that differs between two versions of a resource.
// Path is the field path in the resource, proto field names separated by
// dots, list items by [name] when they carry a name and [index] otherwise.
// Old and New are the values as compact JSON; "" means absent.
type FieldChange struct {
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
}

// ListenerChange is a listener added, removed, or changed in its own
// settings or in its filter chains.
type ListenerChange struct {
	Op           Op                `json:"op"`
	Name         string            `json:"name"`
	Address      string            `json:"address,omitempty"`
	Fields       []FieldChange     `json:"fields,omitempty"`
	FilterChains []FilterChainDiff `json:"filterChains,omitempty"`
}

// FilterChainDiff is one filter chain of a listener, identified by what it
// matches (e.g. "sni kuard.example.com").
type FilterChainDiff struct {
	Op     Op            `json:"op"`
	Match  string        `json:"match"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// VirtualHostChange gathers the changes of one virtual host, as served on
// one listener. A virtual host added or removed lists all its routes as
// added or removed. VirtualHost is empty for settings of a whole route
// configuration.
type VirtualHostChange struct {
	Op          Op            `json:"op"`
	Listener    string        `json:"listener"`
	RouteConfig string        `json:"routeConfig"`
	VirtualHost string        `json:"virtualHost"`
	Fields      []FieldChange `json:"fields,omitempty"`
	Routes      []RouteChange `json:"routes,omitempty"`
	// OrderChanged is set when routes both sides have are in another
	// order: Envoy takes the first route that matches.
	OrderChanged bool `json:"orderChanged,omitempty"`
}

// RouteChange is one route, identified by its match.
type RouteChange struct {
	Op    Op     `json:"op"`
	Match string `json:"match"`
	// Action is what the route does on the new side (old side when
	// removed); OldAction is set when a change altered it.
	Action    string        `json:"action"`
	OldAction string        `json:"oldAction,omitempty"`
	Fields    []FieldChange `json:"fields,omitempty"`
}

// ClusterChange is a cluster added, removed or changed. Contour names
// clusters after a hash of some of their settings, so a change of those
// renames the cluster: OldName is then its name on the old side.
type ClusterChange struct {
	Op      Op            `json:"op"`
	Name    string        `json:"name"`
	OldName string        `json:"oldName,omitempty"`
	Summary string        `json:"summary,omitempty"`
	Fields  []FieldChange `json:"fields,omitempty"`
}

// EndpointsChange is a ClusterLoadAssignment added, removed or changed:
// how many endpoints it has on each side and which addresses came and went.
type EndpointsChange struct {
	Op       Op            `json:"op"`
	Name     string        `json:"name"`
	OldCount int           `json:"oldCount"`
	NewCount int           `json:"newCount"`
	Added    []string      `json:"added,omitempty"`
	Removed  []string      `json:"removed,omitempty"`
	Fields   []FieldChange `json:"fields,omitempty"`
}

// SecretChange is an SDS secret added, removed or changed, described by
// its certificates, and by the public key of its private key when that
// changed. Contour names secrets after a hash of their certificate, so a
// rotation renames the secret: OldName is its old name.
type SecretChange struct {
	Op      Op        `json:"op"`
	Name    string    `json:"name"`
	OldName string    `json:"oldName,omitempty"`
	Type    string    `json:"type"`
	Old     *CertInfo `json:"old,omitempty"`
	New     *CertInfo `json:"new,omitempty"`
	// OldKey and NewKey are set when the private key changed ("private
	// key changed"), even under the same certificate.
	OldKey *KeyInfo      `json:"oldKey,omitempty"`
	NewKey *KeyInfo      `json:"newKey,omitempty"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// RuntimeChange is a runtime layer added, removed or changed.
type RuntimeChange struct {
	Op     Op            `json:"op"`
	Name   string        `json:"name"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// StatusChange is an object whose verdict changed in a way that matters:
// it became invalid (or appeared invalid), recovered (or an invalid object
// went away), or stayed invalid for other reasons.
type StatusChange struct {
	Change     StatusOp `json:"change"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace,omitempty"`
	Name       string   `json:"name"`
	Source     string   `json:"source,omitempty"`
	OldVerdict string   `json:"oldVerdict,omitempty"`
	NewVerdict string   `json:"newVerdict,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
	OldReasons []string `json:"oldReasons,omitempty"`
}

// StatusOp says how an object's validity changed.
type StatusOp string

const (
	BecameInvalid  StatusOp = "invalid"
	Recovered      StatusOp = "recovered"
	ReasonsChanged StatusOp = "reasons"
)
