package translate

import "github.com/contourc/contourc/translate/internal/status"

// The JSON forms of the status Contour writes on the Gateway, its routes
// and BackendTLSPolicies, part of translate's API (Result.Status). They are
// defined in translate/internal/status, with the status the processors
// build.
type (
	GatewayStatus        = status.GatewayStatus
	ListenerStatus       = status.ListenerStatus
	RouteGroupKind       = status.RouteGroupKind
	RouteStatus          = status.RouteStatus
	RouteParentStatus    = status.RouteParentStatus
	PolicyStatus         = status.PolicyStatus
	PolicyAncestorStatus = status.PolicyAncestorStatus
)
