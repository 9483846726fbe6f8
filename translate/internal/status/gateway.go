package status

// The JSON forms of the status Contour writes on the Gateway, on the routes
// attached to it and on BackendTLSPolicies, which the Gateway API
// processor (translate/gatewayapi) builds and translate re-exports as
// aliases.

// GatewayStatus is the JSON form of a Gateway's status.
type GatewayStatus struct {
	Conditions []Condition       `json:"conditions"`
	Listeners  []*ListenerStatus `json:"listeners,omitempty"`
}

// ListenerStatus is one Gateway listener's status.
type ListenerStatus struct {
	Name           string           `json:"name"`
	SupportedKinds []RouteGroupKind `json:"supportedKinds"`
	AttachedRoutes int32            `json:"attachedRoutes"`
	Conditions     Conditions       `json:"conditions"`
}

// RouteGroupKind names a route kind a listener accepts.
type RouteGroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// RouteStatus is the JSON form of a route's status.
type RouteStatus struct {
	Parents []*RouteParentStatus `json:"parents"`
}

// RouteParentStatus is a route's status for one parentRef.
type RouteParentStatus struct {
	ParentRef      ParentRef  `json:"parentRef"`
	ControllerName string     `json:"controllerName"`
	Conditions     Conditions `json:"conditions"`
}

// ParentRef is a parentRef as Contour writes it back.
type ParentRef struct {
	Group       *string `json:"group,omitempty"`
	Kind        *string `json:"kind,omitempty"`
	Namespace   *string `json:"namespace,omitempty"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName,omitempty"`
	Port        *int32  `json:"port,omitempty"`
}

// PolicyStatus is the JSON form of a BackendTLSPolicy's status.
type PolicyStatus struct {
	Ancestors []*PolicyAncestorStatus `json:"ancestors"`
}

// PolicyAncestorStatus is a policy's status for one route parentRef.
type PolicyAncestorStatus struct {
	AncestorRef    ParentRef  `json:"ancestorRef"`
	ControllerName string     `json:"controllerName"`
	Conditions     Conditions `json:"conditions"`
}
