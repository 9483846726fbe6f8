package render

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/contourc/contourc/translate"
)

func TestValidateAcceptsFixture(t *testing.T) {
	if err := Validate(testResources(t)); err != nil {
		t.Fatal(err)
	}
	if err := Validate(largeResources(t, 10)); err != nil {
		t.Fatal(err)
	}
}

func TestValidateNamesResources(t *testing.T) {
	r := testResources(t)
	r.Clusters[1].ConnectTimeout.Seconds = -1
	r.Secrets[0].GetTlsCertificate().PrivateKey.Specifier = &corev3.DataSource_Filename{} // must be non-empty
	err := Validate(r)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`cluster "` + wwwCluster + `": invalid Cluster.ConnectTimeout`, `secret "` + wwwSecret + `": invalid Secret.TlsCertificate`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	var re *ResourceError
	if !errors.As(err, &re) || re.Kind != "cluster" || re.Name != wwwCluster {
		t.Errorf("first ResourceError = %+v", re)
	}
}

// The generated ValidateAll stops at Anys; Validate does not, as Envoy
// validates typed configs when it loads them.
func TestValidateInsideTypedConfig(t *testing.T) {
	r := testResources(t)
	l := r.Listeners[1]
	repack(t, l.FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
		hcm.StatPrefix = "" // required
	})
	if err := l.ValidateAll(); err != nil {
		t.Fatalf("ValidateAll saw inside the Any after all: %v", err)
	}
	err := Validate(r)
	want := `listener "ingress_http": filter_chains[0].filters["envoy.filters.network.http_connection_manager"].typed_config: invalid HttpConnectionManager.StatPrefix`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}

func TestValidateReportsFirstFew(t *testing.T) {
	r := testResources(t)
	r.Clusters = nil
	for i := range maxReported + 5 {
		c := edsCluster(fmt.Sprintf("c%02d", i), "svc")
		c.ConnectTimeout.Seconds = -1
		r.Clusters = append(r.Clusters, c)
	}
	err := Validate(r)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, `cluster "c09"`) || strings.Contains(msg, `cluster "c10"`) || !strings.HasSuffix(msg, "... and 5 more") {
		t.Errorf("error lists the wrong clusters:\n%s", msg)
	}
}

// An invalid typed config repeated in several resources is checked once but
// still reported: on the first resource that holds it.
func TestValidateRepeatedInvalidTypedConfig(t *testing.T) {
	r := testResources(t)
	l := r.Listeners[1]
	repack(t, l.FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
		hcm.StatPrefix = ""
	})
	copyOf := proto.Clone(l).(*listenerv3.Listener)
	copyOf.Name = "zz_copy"
	r.Listeners = append(r.Listeners, copyOf)
	err := Validate(r)
	if err == nil || !strings.Contains(err.Error(), `listener "ingress_http"`) {
		t.Fatalf("got %v, want the first listener holding the invalid config reported", err)
	}
}

// JSON checks every resource while printing it: whatever breaks Envoy's
// rules, at the top or packed deep in a typed config, and whichever way the
// resource is printed, nothing is written and the error is Validate's.
// JSONStream stops with the same error.
func TestJSONRefusesInvalidResources(t *testing.T) {
	cases := map[string]func(r *translate.Resources){
		"top-level field": func(r *translate.Resources) { r.Clusters[1].ConnectTimeout.Seconds = -1 },
		"in a typed config": func(r *translate.Resources) {
			repack(t, r.Listeners[1].FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
				hcm.StatPrefix = ""
			})
		},
		"in a typed config of a resource printed by protojson": func(r *translate.Resources) {
			repack(t, r.Listeners[1].FilterChains[0].Filters[0].GetTypedConfig(), func(hcm *hcmv3.HttpConnectionManager) {
				hcm.StatPrefix = ""
			})
			// A NaN in a Struct is left to protojson, which then
			// prints the whole listener.
			r.Listeners[1].Metadata = &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{
				"x": {Fields: map[string]*structpb.Value{"nan": structpb.NewNumberValue(math.NaN())}},
			}}
		},
	}
	for name, breakIt := range cases {
		t.Run(name, func(t *testing.T) {
			r := testResources(t)
			breakIt(r)
			want := Validate(r)
			if want == nil {
				t.Fatal("the change broke no rule")
			}
			var out bytes.Buffer
			err := JSON(&out, r)
			if err == nil || err.Error() != want.Error() {
				t.Errorf("JSON error:\n %v\nwant Validate's:\n %v", err, want)
			}
			if out.Len() > 0 {
				t.Errorf("JSON wrote %d bytes", out.Len())
			}
			out.Reset()
			if err := JSONStream(&out, r); err == nil || err.Error() != want.Error() {
				t.Errorf("JSONStream error:\n %v\nwant Validate's:\n %v", err, want)
			}
			out.Reset()
			if err := JSONStreamOnce(&out, r); err == nil || err.Error() != want.Error() {
				t.Errorf("JSONStreamOnce error:\n %v\nwant Validate's:\n %v", err, want)
			}
		})
	}
}
