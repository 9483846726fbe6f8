package config

import (
	"errors"
	"fmt"
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/contourc/contourc/loader"
)

// Which objects the configuration lets Contour see at all: --watch-namespaces
// and --disable-feature. This reads only the resolved settings and flags.

// disabledFeatureKind is the kind a --disable-feature value names, "" for
// none.
func disabledFeatureKind(feature string) string {
	switch feature {
	case "extensionservices":
		return "ExtensionService"
	case "tlsroutes":
		return "TLSRoute"
	case "grpcroutes":
		return "GRPCRoute"
	case "tcproutes":
		return "TCPRoute"
	case "backendtlspolicies":
		return "BackendTLSPolicy"
	}
	return ""
}

// FilterObjects drops what Contour would never see: namespaced objects
// outside --watch-namespaces and kinds of --disable-feature.
func FilterObjects(objs []loader.Object, f ServeFlags, s *Settings, rootNamespaces []string) ([]loader.Object, error) {
	for _, feat := range f.DisabledFeatures {
		if disabledFeatureKind(feat) == "" {
			return nil, fmt.Errorf("--disable-feature: unknown feature %q, want one of extensionservices, tlsroutes, grpcroutes, tcproutes, backendtlspolicies", feat)
		}
	}
	if len(f.WatchNamespaces) > 0 {
		for _, ns := range rootNamespaces {
			if !slices.Contains(f.WatchNamespaces, ns) {
				return nil, errors.New("not all root namespaces are being watched")
			}
		}
		if fc := s.FallbackCertificate; fc != nil && !slices.Contains(f.WatchNamespaces, fc.Namespace) {
			return nil, fmt.Errorf("the fallbackCertificate namespace (%s) must be watched", fc.Namespace)
		}
		if cc := s.ClientCertificate; cc != nil && !slices.Contains(f.WatchNamespaces, cc.Namespace) {
			return nil, fmt.Errorf("the clientCertificate namespace (%s) must be watched", cc.Namespace)
		}
	}
	if len(f.WatchNamespaces) == 0 && len(f.DisabledFeatures) == 0 {
		return objs, nil
	}
	disabled := map[string]bool{}
	for _, feat := range f.DisabledFeatures {
		disabled[disabledFeatureKind(feat)] = true
	}
	out := make([]loader.Object, 0, len(objs))
	for _, o := range objs {
		if disabled[o.Kind] {
			continue
		}
		if len(f.WatchNamespaces) > 0 && namespaced(o) && !slices.Contains(f.WatchNamespaces, o.Obj.GetNamespace()) {
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

// namespaced says whether an object lives in a namespace (cluster-scoped
// objects such as GatewayClasses and Namespaces are always watched).
func namespaced(o loader.Object) bool {
	switch o.Obj.(type) {
	case *gatewayv1.GatewayClass:
		return false
	}
	return o.Kind != "Namespace" && o.Kind != "GatewayClass" && o.Kind != "IngressClass"
}
