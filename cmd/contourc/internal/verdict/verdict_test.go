package verdict

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

func TestVerdictOf(t *testing.T) {
	tests := []struct {
		name   string
		status string // JSON, as Contour writes it
		want   Verdict
	}{
		{
			name:   "valid HTTPProxy",
			status: `{"currentStatus":"valid","description":"Valid HTTPProxy","conditions":[{"type":"Valid","status":"True","reason":"Valid","message":"Valid HTTPProxy"}]}`,
			want:   Verdict{Word: "valid", OK: true},
		},
		{
			name: "invalid HTTPProxy lists its errors",
			status: `{"currentStatus":"invalid","description":"At least one error present, see Errors for details","conditions":[{"type":"Valid","status":"False","reason":"ErrorPresent",
				"errors":[{"type":"TLSError","status":"True","reason":"SecretNotValid","message":"Spec.VirtualHost.TLS Secret \"default/missing\"\n is invalid"}]}]}`,
			want: Verdict{Word: "invalid", Reasons: []string{`SecretNotValid: Spec.VirtualHost.TLS Secret "default/missing" is invalid`}}},
		{
			name: "orphaned HTTPProxy",
			status: `{"currentStatus":"orphaned","description":"this HTTPProxy is not part of a delegation chain from a root HTTPProxy","conditions":[{"type":"Valid","status":"False","reason":"Orphaned",
				"errors":[{"type":"Orphaned","status":"True","reason":"Orphaned","message":"this HTTPProxy is not part of a delegation chain from a root HTTPProxy"}]}]}`,
			want: Verdict{Word: "orphaned", Reasons: []string{"Orphaned: this HTTPProxy is not part of a delegation chain from a root HTTPProxy"}},
		},
		{
			name:   "invalid HTTPProxy without errors falls back to the description",
			status: `{"currentStatus":"invalid","description":"root HTTPProxy cannot be defined in this namespace"}`,
			want:   Verdict{Word: "invalid", Reasons: []string{"root HTTPProxy cannot be defined in this namespace"}},
		},
		{
			name: "valid HTTPProxy keeps its warnings",
			status: `{"currentStatus":"valid","conditions":[{"type":"Valid","status":"True",
				"warnings":[{"type":"IncludeError","status":"True","reason":"Deprecated"}]}]}`,
			want: Verdict{Word: "valid", OK: true, Reasons: []string{"warning Deprecated"}},
		},
		{
			name: "programmed Gateway",
			status: `{"conditions":[{"type":"Accepted","status":"True","reason":"Accepted"},{"type":"Programmed","status":"True","reason":"Programmed"}],
				"listeners":[{"name":"http","attachedRoutes":1,"conditions":[{"type":"Accepted","status":"True"},{"type":"ResolvedRefs","status":"True"}]}]}`,
			want: Verdict{Word: "Programmed", OK: true},
		},
		{
			name: "conflicted listener",
			status: `{"conditions":[{"type":"Accepted","status":"True"},{"type":"Programmed","status":"True"}],
				"listeners":[{"name":"https","conditions":[{"type":"Conflicted","status":"True","reason":"HostnameConflict","message":"conflict"}]},
				             {"name":"http","conditions":[{"type":"ResolvedRefs","status":"False","reason":"InvalidRouteKinds"}]}]}`,
			want: Verdict{Word: "invalid", Reasons: []string{
				"listener http: ResolvedRefs=False InvalidRouteKinds",
				"listener https: Conflicted=True HostnameConflict: conflict",
			}},
		},
		{
			name:   "Gateway not programmed",
			status: `{"conditions":[{"type":"Accepted","status":"True"},{"type":"Programmed","status":"False","reason":"Invalid"}]}`,
			want:   Verdict{Word: "NotProgrammed", Reasons: []string{"Programmed=False Invalid"}},
		},
		{
			name:   "accepted route",
			status: `{"parents":[{"parentRef":{"name":"gw","namespace":"infra"},"controllerName":"projectcontour.io/gateway-controller","conditions":[{"type":"Accepted","status":"True"},{"type":"ResolvedRefs","status":"True"}]}]}`,
			want:   Verdict{Word: "Accepted", OK: true},
		},
		{
			name: "route not accepted by one parent",
			status: `{"parents":[{"parentRef":{"name":"gw","namespace":"infra"},"conditions":[{"type":"Accepted","status":"False","reason":"NotAllowedByListeners","message":"No listeners allow this route"}]},
				{"parentRef":{"name":"other"},"conditions":[{"type":"Accepted","status":"True"}]}]}`,
			want: Verdict{Word: "NotAccepted", Reasons: []string{"parent infra/gw: Accepted=False NotAllowedByListeners: No listeners allow this route"}},
		},
		{
			name:   "BackendTLSPolicy ancestor",
			status: `{"ancestors":[{"ancestorRef":{"name":"gw","namespace":"infra"},"conditions":[{"type":"Accepted","status":"False","reason":"NoValidCACertificate"}]}]}`,
			want:   Verdict{Word: "NotAccepted", Reasons: []string{"ancestor infra/gw: Accepted=False NoValidCACertificate"}},
		},
		{
			name:   "ExtensionService",
			status: `{"conditions":[{"type":"Valid","status":"True","reason":"Valid"}]}`,
			want:   Verdict{Word: "valid", OK: true},
		},
		{
			name:   "partially invalid route",
			status: `{"parents":[{"parentRef":{"name":"gw"},"conditions":[{"type":"Accepted","status":"True"},{"type":"PartiallyInvalid","status":"True","reason":"UnsupportedValue"}]}]}`,
			want:   Verdict{Word: "invalid", Reasons: []string{"parent gw: PartiallyInvalid=True UnsupportedValue"}},
		},
		{
			name:   "no status",
			status: `null`,
			want:   Verdict{Word: "unknown", OK: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var status any
			if err := json.Unmarshal([]byte(tt.status), &status); err != nil {
				t.Fatal(err)
			}
			if got := OfStatus(status); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("OfStatus() = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// TestVerdictOfTypedStatus checks that a status given as a Go struct, as
// translate may return it, is read through its JSON form.
func TestVerdictOfTypedStatus(t *testing.T) {
	type condition struct {
		Type   string `json:"type"`
		Status string `json:"status"`
		Reason string `json:"reason,omitempty"`
	}
	type proxyStatus struct {
		CurrentStatus string      `json:"currentStatus"`
		Conditions    []condition `json:"conditions"`
	}
	got := OfStatus(&proxyStatus{CurrentStatus: "valid", Conditions: []condition{{Type: "Valid", Status: "True"}}})
	if want := (Verdict{Word: "valid", OK: true}); !reflect.DeepEqual(got, want) {
		t.Errorf("OfStatus() = %#v, want %#v", got, want)
	}
}

// repoRoot is the repository's top, from this package's directory.
var repoRoot = filepath.Join("..", "..", "..", "..")

// translate's HTTPProxy and route statuses are read without the JSON round
// trip, with the same verdict: checked on every status of the golden inputs
// (invalid and orphaned proxies included) and, when present, of the shared
// Gateway API parity cases.
func TestVerdictOfTypedStatusesMatchJSON(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", "golden", "*", "input"))
	gateway, _ := filepath.Glob(filepath.Join(repoRoot, "..", "shared", "conformance", "gateway-api", "*", "input"))
	inputs = append(inputs, gateway...)
	typed := 0
	for _, in := range inputs {
		loaded, err := loader.Load([]string{in}, loader.Options{})
		if err != nil {
			continue // refused inputs have no status
		}
		res, err := translate.Translate(loaded.Objects, translate.Options{})
		if err != nil {
			continue
		}
		for _, st := range res.Status {
			switch st.Status.(type) {
			case translate.HTTPProxyStatus, translate.RouteStatus:
				typed++
			}
			if got, want := OfStatus(st.Status), verdictOfJSON(st.Status); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s/%s: %#v, from JSON %#v", st.Kind, st.Namespace, st.Name, got, want)
			}
		}
	}
	if typed == 0 {
		t.Fatal("no HTTPProxy status met")
	}
}
