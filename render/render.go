// Package render writes translated Envoy resources in the formats users
// consume: the xDS resources as JSON (json.go), and a static Envoy bootstrap
// that needs no control plane (bootstrap.go). It also checks resources
// against Envoy's own validation rules (validate.go), so that nothing Envoy
// would refuse is written or served. The printing of one message as
// protojson is render/internal/protojson's, the walks into Anys
// render/internal/protowalk's.
package render
