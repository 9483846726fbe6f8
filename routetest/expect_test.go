package routetest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
)

// decisionFor is a decision forwarding to the Service web:80 from route #2
// of HTTPProxy ns/p in manifests/p.yaml:7.
func decisionFor() *Decision {
	return &Decision{
		Listener: "ingress_http", VirtualHost: "a.com", RouteIndex: 2,
		Source: &Source{Kind: "HTTPProxy", Namespace: "ns", Name: "p", File: filepath.Join("manifests", "p.yaml"), Line: 7},
		Action: Action{Cluster: &ClusterRef{Name: "ns/web/80/h", Service: &ServiceRef{"ns", "web", 80, "http"}}},
		Forwarding: &Forwarding{UpstreamPath: "/x", Timeout: "15s", IdleTimeout: "5m0s",
			Retry: &Retry{RetryOn: "5xx", NumRetries: 3, PerTryTimeout: "2s"}},
		RequestHeaders: &HeaderChanges{Set: []HeaderValue{{Name: "X-A", Value: "1"}}, Remove: []string{"x-b"}},
	}
}

func ptrInt(n int) *int           { return &n }
func ptrFloat(f float64) *float64 { return &f }

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		expect Expect
		want   []string // parts of the failure messages; none means pass
	}{
		{"route by kind and name", Expect{Route: &RouteExpect{Kind: "httpproxy", Name: "p"}}, nil},
		{"route file by base name", Expect{Route: &RouteExpect{File: "p.yaml", Line: 7}}, nil},
		{"route file from the test's directory", Expect{Route: &RouteExpect{File: "../manifests/p.yaml"}}, nil},
		{"route file partial name is no match", Expect{Route: &RouteExpect{File: "ep.yaml"}}, []string{"route: want a route (ep.yaml), got HTTPProxy ns/p"}},
		{"route line", Expect{Route: &RouteExpect{Line: 8}}, []string{"route: want a route (line 8), got HTTPProxy ns/p (manifests/p.yaml:7)"}},
		{"cluster by service and port number", Expect{Cluster: &ClusterExpect{Service: "ns/web", Port: PortRef{Number: 80}}}, nil},
		{"cluster by port name", Expect{Cluster: &ClusterExpect{Service: "ns/web", Port: PortRef{Name: "http"}}}, nil},
		{"cluster by name", Expect{Cluster: &ClusterExpect{Name: "ns/web/80/h"}}, nil},
		{"other service", Expect{Cluster: &ClusterExpect{Service: "ns/api"}}, []string{"cluster: want Service ns/api, got ns/web/80/h (Service ns/web:80 (http))"}},
		{"other port", Expect{Cluster: &ClusterExpect{Service: "ns/web", Port: PortRef{Number: 8080}}}, []string{"want Service ns/web port 8080"}},
		{"other action", Expect{Redirect: &RedirectExpect{Status: 301}}, []string{"action: want redirect, got forward to cluster"}},
		{"noMatch", Expect{NoMatch: true}, []string{"action: want noMatch"}},
		{"forwarding", Expect{UpstreamPath: ptr("/x"), Timeout: "15000ms", IdleTimeout: "300s", Retry: &RetryExpect{RetryOn: ptr("5xx"), NumRetries: ptrInt(3), PerTryTimeout: "2s"}}, nil},
		{"forwarding mismatches", Expect{UpstreamPath: ptr("/y"), Timeout: "30s", Retry: &RetryExpect{NumRetries: ptrInt(1)}, HostRewrite: ptr("h")},
			[]string{"upstreamPath: want /y, got /x", "timeout: want 30s, got 15s", "retry.numRetries: want 1, got 3", `hostRewrite: want "h", got ""`}},
		{"headers (names case-insensitive)", Expect{RequestHeaders: &HeadersExpect{Set: map[string]string{"x-a": "1"}, Remove: []string{"X-B"}}}, nil},
		{"header mismatches", Expect{RequestHeaders: &HeadersExpect{Set: map[string]string{"x-a": "2", "x-c": "3"}, Remove: []string{"x-d"}}, ResponseHeaders: &HeadersExpect{Remove: []string{"server"}}},
			[]string{`requestHeaders: want x-a set to "2", got ["1"]`, `requestHeaders: want x-c set to "3", got not set`, "requestHeaders: want x-d removed", "responseHeaders: want server removed"}},
		{"extAuthz and ipFilter", Expect{ExtAuthz: "enabled", IPFilter: "allowed"}, []string{"extAuthz: want enabled, got none", "ipFilter: want allowed, got none"}},
		{"ipFilter none", Expect{IPFilter: "none"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{Name: tt.name, File: filepath.Join("tests", "a.test.yaml"), Expect: tt.expect}
			got := Compare(c, decisionFor())
			if len(tt.want) == 0 && len(got) > 0 {
				t.Errorf("unexpected failures: %q", got)
			}
			if len(tt.want) > 0 && len(got) == 0 {
				t.Errorf("passed, want failures %q", tt.want)
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("failures do not contain %q:\n%s", w, all)
				}
			}
		})
	}
}

func TestCompareWeighted(t *testing.T) {
	d := &Decision{RouteIndex: 0, Action: Action{WeightedClusters: []WeightedCluster{
		{ClusterRef: ClusterRef{Name: "a", Service: &ServiceRef{"ns", "a", 80, ""}}, Weight: 1, Percent: 100.0 / 3},
		{ClusterRef: ClusterRef{Name: "b", Service: &ServiceRef{"ns", "b", 80, ""}}, Weight: 2, Percent: 200.0 / 3},
		{ClusterRef: ClusterRef{Name: "z", Service: &ServiceRef{"ns", "z", 80, ""}}, Weight: 0, Percent: 0},
	}}}
	tests := []struct {
		want []ClusterExpect
		ok   bool
	}{
		{[]ClusterExpect{{Service: "ns/b", Percent: ptrFloat(66.67)}, {Service: "ns/a", Percent: ptrFloat(33.33)}}, true},
		{[]ClusterExpect{{Service: "ns/a"}, {Service: "ns/b"}}, true},
		{[]ClusterExpect{{Service: "ns/a", Percent: ptrFloat(50)}, {Service: "ns/b", Percent: ptrFloat(50)}}, false},
		{[]ClusterExpect{{Service: "ns/a"}}, false}, // b gets traffic and is not expected
		{[]ClusterExpect{{Service: "ns/a"}, {Service: "ns/b"}, {Service: "ns/c"}}, false},
	}
	for i, tt := range tests {
		got := Compare(Case{Expect: Expect{WeightedClusters: tt.want}}, d)
		if (len(got) == 0) != tt.ok {
			t.Errorf("#%d: failures %q, want pass=%v", i, got, tt.ok)
		}
	}
}

func TestReports(t *testing.T) {
	pass := Result{Case: Case{Name: "ok", File: "a.test.yaml", Line: 3}, Decision: decisionFor()}
	fail := Result{Case: Case{Name: "bad", File: "a.test.yaml", Line: 9}, Decision: decisionFor(), Failures: []string{"cluster: want x, got y"}}
	broken := Result{Case: Case{Name: "err", File: "b.test.yaml", Line: 1}, Err: errString("no authority")}
	results := []Result{pass, fail, broken}

	var text bytes.Buffer
	if err := WriteText(&text, results, true); err != nil {
		t.Fatal(err)
	}
	wantText := "--- PASS: ok\n" +
		"    listener ingress_http -> virtual host a.com -> route #2 of HTTPProxy ns/p (" + filepath.Join("manifests", "p.yaml") + ":7) -> forward to cluster ns/web/80/h (Service ns/web:80 (http))\n" +
		"--- FAIL: bad (a.test.yaml:9)\n" +
		"    cluster: want x, got y\n" +
		"    decision: listener ingress_http -> virtual host a.com -> route #2 of HTTPProxy ns/p (" + filepath.Join("manifests", "p.yaml") + ":7) -> forward to cluster ns/web/80/h (Service ns/web:80 (http))\n" +
		"--- FAIL: err (b.test.yaml:1)\n" +
		"    error: no authority\n" +
		"FAIL: 2 of 3 case(s) failed\n"
	if text.String() != wantText {
		t.Errorf("text report:\n%s\nwant:\n%s", text.String(), wantText)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, results, nil); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Passed, Failed int
		Cases          []struct {
			Name, Error string
			Passed      bool
		}
	}
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 1 || rep.Failed != 2 || rep.Cases[2].Error != "no authority" || !rep.Cases[0].Passed {
		t.Errorf("json report: %+v", rep)
	}

	var ju bytes.Buffer
	if err := WriteJUnit(&ju, results, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Errors != 1 || len(doc.Suites) != 2 || doc.Suites[1].Name != "b.test.yaml" {
		t.Errorf("junit report: %+v", doc)
	}
	if !bytes.HasSuffix(ju.Bytes(), []byte("</testsuites>\n")) {
		t.Error("junit report does not end with a newline")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
