// Package httpproxy is the HTTPProxy processor of translate, with the
// ExtensionService processor it depends on: root HTTPProxies become
// virtual hosts of the DAG, their routes and those of the proxies they
// include become routes, each valid ExtensionService becomes an extension
// cluster, and every HTTPProxy and ExtensionService gets the status Contour
// would write (translate/internal/status).
//
// Package translate runs it (ExtensionProcessor, then Memo.Run with a
// Processor) and remembers its last run for serve's next reload in a Memo,
// which replays it, whole or root by root, when what it reads is the same.
//
// It reads the object index (translate/dag/index), the resolved
// configuration (translate/config) and writes the DAG (translate/dag); of
// contourc it may import those, translate/internal, loader and the shared
// helpers of internal/, never translate or another processor.
package httpproxy
