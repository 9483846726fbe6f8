package render

// Envoy's runtime in a static bootstrap.

import (
	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// layeredRuntime puts each RTDS runtime Contour would serve (its "dynamic"
// layer) in a static layer of the same name, in the position Contour's
// bootstrap gives its RTDS layer, followed by an admin layer so values can
// still be read and overridden through /runtime and /runtime_modify as with
// Contour. Later layers override earlier ones, so the input order (by name,
// from translate) is kept rather than re-sorted.
func layeredRuntime(runtimes []*runtimev3.Runtime) *bootstrapv3.LayeredRuntime {
	lr := &bootstrapv3.LayeredRuntime{}
	for _, rt := range runtimes {
		layer := &structpb.Struct{}
		if rt.GetLayer() != nil {
			layer = proto.Clone(rt.GetLayer()).(*structpb.Struct)
		}
		lr.Layers = append(lr.Layers, &bootstrapv3.RuntimeLayer{
			Name:           rt.GetName(),
			LayerSpecifier: &bootstrapv3.RuntimeLayer_StaticLayer{StaticLayer: layer},
		})
	}
	lr.Layers = append(lr.Layers, &bootstrapv3.RuntimeLayer{
		Name:           "admin",
		LayerSpecifier: &bootstrapv3.RuntimeLayer_AdminLayer_{AdminLayer: &bootstrapv3.RuntimeLayer_AdminLayer{}},
	})
	return lr
}
