package translate

import "github.com/contourc/contourc/translate/internal/status"

// The JSON forms of the status Contour writes on HTTPProxies,
// ExtensionServices and Gateway API objects, part of translate's API
// (Result.Status). They are defined in translate/internal/status, with
// the status the processors build.
type (
	HTTPProxyStatus        = status.HTTPProxyStatus
	ExtensionServiceStatus = status.ExtensionServiceStatus
	DetailedCondition      = status.DetailedCondition
	Condition              = status.Condition
)
