package envoy

import (
	"bytes"
	"testing"

	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
)

// TestMustAnyIsDeterministic packs a config holding a map of many entries
// again and again: the bytes, which serve hashes, must not change with
// Go's map order.
func TestMustAnyIsDeterministic(t *testing.T) {
	build := func() *extauthzv3.ExtAuthzPerRoute {
		ctx := map[string]string{}
		for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
			ctx[k] = k + k
		}
		return &extauthzv3.ExtAuthzPerRoute{Override: &extauthzv3.ExtAuthzPerRoute_CheckSettings{
			CheckSettings: &extauthzv3.CheckSettings{ContextExtensions: ctx},
		}}
	}
	first := mustAny(build()).GetValue()
	for range 50 {
		if got := mustAny(build()).GetValue(); !bytes.Equal(got, first) {
			t.Fatal("the same config packed to different bytes")
		}
	}
}
