package envoy

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// mustAny packs m into an Any. Marshalling a well-formed generated message
// cannot fail, so a failure is a programming error.
//
// The encoding is deterministic (map entries in key order): serve versions
// resources by a hash of their bytes, and a packed config holding a map of
// two entries or more (an ext_authz context, Lua sources, rate limit
// descriptors) would otherwise encode differently from one build to the
// next, and look changed when it is not.
func mustAny(m proto.Message) *anypb.Any {
	a := &anypb.Any{}
	if err := anypb.MarshalFrom(a, m, proto.MarshalOptions{Deterministic: true}); err != nil {
		panic(err)
	}
	return a
}
