// Package status is the status the processors of translate write on the
// objects they read, as Contour writes it: the status of an HTTPProxy or
// ExtensionService as it is built (Proxy, its errors and warnings, kept by
// object in a Map), the ordered condition lists of Gateway API objects
// (Conditions), their JSON forms (HTTPProxyStatus, ExtensionServiceStatus,
// DetailedCondition, Condition; for Gateway API objects GatewayStatus,
// RouteStatus, PolicyStatus and their parts), the row of one object in
// translate.Result.Status (ObjectStatus) and the notices of
// translate.Result.Notices (Notice), both of which translate re-exports
// as aliases. It imports loader and translate/dag/index, never translate, so
// that the processors' packages can all import it.
package status
