// Package gatewayapi is the Gateway API processor of translate: it finds
// the one Gateway Contour serves (Find), adds its listeners to the DAG
// (AddListeners) and attaches to them the HTTPRoutes, GRPCRoutes,
// TLSRoutes and TCPRoutes that name it, with the BackendTLSPolicies of
// their backends (Processor), writing the status Contour writes on each
// (Statuses, whose JSON forms are translate/internal/status's).
//
// It sits below translate, which calls it, and beside the other
// processors: it imports translate/dag and its index, translate/config,
// translate/internal and loader, never translate or another processor.
package gatewayapi
