package serve

import (
	"strings"
	"testing"
	"unsafe"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
)

// Resource names in requests are replaced by the snapshot's own strings,
// so that every client's subscription shares one copy; names the snapshot
// does not serve are left as they are.
func TestInternNames(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)})
	ts.waitReady(t)
	set := ts.current.Load().snap.set(resourcev3.RouteType)
	if len(set.names) == 0 {
		t.Fatal("no route names")
	}
	served := set.names[0]
	names := []string{strings.Clone(served), "not/served"}
	ts.internNames(resourcev3.RouteType, names)
	if unsafe.StringData(names[0]) != unsafe.StringData(served) {
		t.Errorf("%q is not the snapshot's copy", names[0])
	}
	if names[1] != "not/served" {
		t.Errorf("an unserved name became %q", names[1])
	}
	versions := ts.internVersions(resourcev3.RouteType, map[string]string{strings.Clone(served): "v1"})
	for n, v := range versions {
		if unsafe.StringData(n) != unsafe.StringData(served) || v != "v1" {
			t.Errorf("initial version %q: %q, not the snapshot's copy", n, v)
		}
	}
}

// The linear caches are handed requests without resource names, which
// they do not read; everything else is kept.
func TestWithoutNames(t *testing.T) {
	r := &discoveryv3.DiscoveryRequest{VersionInfo: "route-1", TypeUrl: resourcev3.RouteType,
		ResponseNonce: "3", ResourceNames: []string{"a", "b"}}
	got := withoutNames(r)
	if got.GetResourceNames() != nil || got.GetVersionInfo() != "route-1" || got.GetTypeUrl() != r.TypeUrl || got.GetResponseNonce() != "3" {
		t.Errorf("withoutNames = %v", got)
	}
	if len(r.ResourceNames) != 2 {
		t.Error("the original request lost its names")
	}
}
