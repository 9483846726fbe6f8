package render

// Turning xDS references into static configuration. Contour's listeners name
// their route tables (HCM rds) and certificates (SDS) and leave Envoy to
// fetch them from the control plane; a static bootstrap has no control plane,
// so each reference is replaced by what it refers to.

import (
	"fmt"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/render/internal/presence"
	"github.com/contourc/contourc/render/internal/protowalk"
)

// inliner rewrites one listener or cluster in place, reaching into typed
// configs wherever Envoy allows them.
type inliner struct {
	routes *routeTable
	// memo holds each typed config already rewritten: filter chains repeat
	// the same HTTP filters and TLS contexts.
	memo map[string][]byte
	// decoded, when set, receives the typed configs decoded on the way.
	decoded *protowalk.Decoded
}

// inline rewrites m (a listener or cluster clone) so it has no RDS or SDS
// config source left.
func (in *inliner) inline(m proto.Message) error {
	_, err := in.walker().Walk(m.ProtoReflect())
	return err
}

// inlineAt is inline for m reached from its parent by at, which errors
// name.
func (in *inliner) inlineAt(at protowalk.Step, m proto.Message) error {
	_, err := in.walker().Enter(at, m.ProtoReflect())
	return err
}

func (in *inliner) walker() *protowalk.Walker {
	if in.memo == nil {
		in.memo = map[string][]byte{}
	}
	return &protowalk.Walker{Visit: in.visit, Memo: in.memo, Admit: in.admit, Targets: inlineTargets, Decoded: in.decoded, Rewrites: true}
}

// inlineTargets are the message types inliner.visit rewrites.
var inlineTargets = presence.NewTargets(&hcmv3.HttpConnectionManager{}, &tlsv3.SdsSecretConfig{})

// admit keeps the walk out of route configurations: the inlined ones are
// the caller's and must stay as they are.
func (in *inliner) admit(m protoreflect.Message) bool {
	_, rc := m.Interface().(*routev3.RouteConfiguration)
	return !rc
}

func (in *inliner) visit(m protoreflect.Message) (bool, error) {
	switch msg := m.Interface().(type) {
	case *hcmv3.HttpConnectionManager:
		return in.inlineRoutes(msg)
	case *tlsv3.SdsSecretConfig:
		return staticSecretRef(msg), nil
	}
	return false, nil
}

// inlineRoutes replaces the HCM's RDS subscription with the route
// configuration it names. The walk does not go into it (see inliner.admit):
// a route configuration holds no RDS or SDS reference, so nothing in it
// would change, and the caller's RouteConfiguration, which may be shared
// by several connection managers, is only ever read (each manager's Any
// is packed with its own bytes).
func (in *inliner) inlineRoutes(hcm *hcmv3.HttpConnectionManager) (bool, error) {
	if hcm.GetScopedRoutes() != nil {
		return false, fmt.Errorf("http_connection_manager %q: scoped_routes need a control plane", hcm.GetStatPrefix())
	}
	rds := hcm.GetRds()
	if rds == nil {
		return false, nil
	}
	rc, ok := in.routes.take(rds.GetRouteConfigName())
	if !ok {
		return false, fmt.Errorf("http_connection_manager %q: no route configuration named %q",
			hcm.GetStatPrefix(), rds.GetRouteConfigName())
	}
	hcm.RouteSpecifier = &hcmv3.HttpConnectionManager_RouteConfig{RouteConfig: rc}
	return true, nil
}

// staticSecretRef drops the SDS config source from a secret reference. With
// only a name left, Envoy looks the secret up in static_resources.secrets
// (see SdsSecretConfig.name in Envoy's API docs), where the bootstrap puts
// every secret, so the certificate stays out of line and is written once
// however many filter chains use it.
func staticSecretRef(ref *tlsv3.SdsSecretConfig) bool {
	if ref.GetSdsConfig() == nil {
		return false
	}
	ref.SdsConfig = nil
	return true
}
