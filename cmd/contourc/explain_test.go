package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var shopDir = filepath.Join(routeTestData, "shop")

func TestExplainText(t *testing.T) {
	got := runCLI(t, "", "explain", "--scheme", "https", "--host", "www.example.com", "--path", "/api/orders", "--header", "x-api-version=v2", shopDir)
	got.wantExit(t, exitOK)
	proxy := filepath.Join(shopDir, "proxy.yaml")
	for _, want := range []string{
		`request:      GET https://www.example.com/api/orders (port 443, SNI "www.example.com", x-api-version: v2)` + "\n",
		"listener:     listener ingress_https (0.0.0.0:8443) serves https port 443 (https default)\n",
		`filterChain:  filter chain #0 (server_names www.example.com): server name "www.example.com" matches SNI "www.example.com", transport tls` + "\n",
		"routeConfig:  route configuration https/www.example.com (RDS)\n",
		`virtualHost:  virtual host www.example.com: domain "www.example.com" is the exact match for "www.example.com"` + "\n",
		"routes (in order, the first match wins):\n",
		`  #0  no     path "/healthz"`,
		`path "/api/orders" is not "/healthz"`,
		`  #5  MATCH  prefix "/api", header x-api-version exact "v2"`,
		"HTTPProxy shop/www (" + proxy + ":5)",
		"action:       forward to cluster shop/api-v2/8080/da39a3ee5e (Service shop/api-v2:8080)\n",
		"  timeout: 15s\n",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, got.stdout)
		}
	}
	if strings.Contains(got.stdout, "#6") {
		t.Errorf("routes after the match were listed as tried:\n%s", got.stdout)
	}
}

func TestExplainJSON(t *testing.T) {
	got := runCLI(t, "", "explain", "-o", "json", "--host", "store.example.net", "--path", "/cart?variant=b", filepath.Join(routeTestData, "gateway"))
	got.wantExit(t, exitOK)
	var d struct {
		Listener    string
		VirtualHost string
		RouteIndex  *int
		Source      struct {
			Kind, Namespace, Name, File string
			Line                        int
		}
		Action struct {
			WeightedClusters []struct {
				Name    string
				Percent float64
				Service struct {
					Namespace, Name string
					Port            int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &d); err != nil {
		t.Fatalf("%v\n%s", err, got.stdout)
	}
	if d.Listener != "http-80" || d.VirtualHost != "store.example.net" || d.RouteIndex == nil {
		t.Errorf("decision = %+v", d)
	}
	if d.Source.Kind != "HTTPRoute" || d.Source.Namespace != "apps" || d.Source.Name != "store" || d.Source.Line != 1 || !strings.HasSuffix(d.Source.File, "routes.yaml") {
		t.Errorf("source = %+v", d.Source)
	}
	shares := map[string]float64{}
	for _, w := range d.Action.WeightedClusters {
		shares[w.Service.Namespace+"/"+w.Service.Name+":"+strconv.Itoa(w.Service.Port)] = w.Percent
	}
	if want := map[string]float64{"apps/store:8080": 25, "apps/store-v2:8080": 75}; !reflect.DeepEqual(shares, want) {
		t.Errorf("weighted clusters = %+v, want shares %v", d.Action.WeightedClusters, want)
	}
}

// A request nothing serves still explains itself, with exit 0: explain
// describes, test judges.
func TestExplainNoMatch(t *testing.T) {
	got := runCLI(t, "", "explain", "-o", "json", "--host", "nowhere.example.org", shopDir)
	got.wantExit(t, exitOK)
	var d struct {
		RouteIndex int
		Action     map[string]struct {
			Status int
			Reason string
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &d); err != nil {
		t.Fatal(err)
	}
	nm, ok := d.Action["noMatch"]
	if d.RouteIndex != -1 || !ok || nm.Status != 404 || !strings.Contains(nm.Reason, "nowhere.example.org") {
		t.Errorf("decision = %+v", d)
	}
}

func TestExplainSNI(t *testing.T) {
	// With the SNI of the host the request is served; with another SNI
	// Contour's check answers 421; with none, no filter chain matches.
	for _, tt := range []struct {
		sni  []string
		want string
	}{
		{nil, "action:       forward to cluster shop/web/"},
		{[]string{"--sni", "www.example.com", "--host", "other.example.com"}, "action:       denied: 421"},
		{[]string{"--sni="}, "action:       no match: no filter chain of ingress_https matches (no SNI"},
	} {
		args := append([]string{"explain", "--scheme", "https", "--host", "www.example.com"}, tt.sni...)
		got := runCLI(t, "", append(args, shopDir)...)
		got.wantExit(t, exitOK)
		if !strings.Contains(got.stdout, tt.want) {
			t.Errorf("%v: stdout does not contain %q:\n%s", tt.sni, tt.want, got.stdout)
		}
	}
}

func TestExplainUsage(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string
	}{
		{[]string{"explain", shopDir}, "explain needs --host"},
		{[]string{"explain", "--host", "a"}, "explain needs at least one PATH"},
		{[]string{"explain", "--host", "a", "--header", "novalue", shopDir}, `--header "novalue": want NAME=VALUE`},
		{[]string{"explain", "--host", "a", "-o", "yaml", shopDir}, `invalid --output-format "yaml": want text or json`},
		{[]string{"explain", "--host", "a", "--path", "relative", shopDir}, `path "relative" does not start with /`},
		{[]string{"explain", "--host", "a", "--header", "Host=b", shopDir}, `header name "Host"`},
		{[]string{"explain", "--host", "a", "--source-address", "nope", shopDir}, `source address "nope" is not an IP address`},
	}
	for _, tt := range tests {
		got := runCLI(t, "", tt.args...)
		got.wantExit(t, exitFailure)
		if !strings.Contains(got.stderr, tt.stderr) {
			t.Errorf("%v: stderr does not contain %q:\n%s", tt.args, tt.stderr, got.stderr)
		}
	}
}

// A child's regex route cannot reach paths outside the prefix its include
// delegated (Contour v1.33.8): /admin/secret goes to the root's route, not
// to team-a's "/x|/admin.*", which still serves /team-a/admin/....
func TestExplainIncludeRegexStaysUnderPrefix(t *testing.T) {
	input := filepath.Join(goldenCasesDir, "include-regex", "input")
	for _, tc := range []struct {
		path, route, action string
	}{
		{"/admin/secret", `MATCH  prefix "/"`, "action:       forward to cluster root/home/80/da39a3ee5e"},
		{"/team-a/admin/secret", `MATCH  safe_regex "^/team-a(?:/x|/admin.*)"`, "action:       forward to cluster team-a/app/80/da39a3ee5e"},
		{"/team-a/x", `MATCH  safe_regex "^/team-a(?:/x|/admin.*)"`, "action:       forward to cluster team-a/app/80/da39a3ee5e"},
		// The include prefix /v1.0/ is quoted: its "." is no wildcard.
		{"/v1.0/items/12", `MATCH  safe_regex "^/v1\\.0(?:/items/[0-9]+)"`, "action:       forward to cluster team-a/app/80/da39a3ee5e"},
		{"/v1x0/items/12", `MATCH  prefix "/"`, "action:       forward to cluster root/home/80/da39a3ee5e"},
	} {
		got := runCLI(t, "", "explain", "--host", "portal.example.com", "--path", tc.path, input)
		got.wantExit(t, exitOK)
		for _, want := range []string{tc.route, tc.action} {
			if !strings.Contains(got.stdout, want) {
				t.Errorf("%s: stdout does not contain %q:\n%s", tc.path, want, got.stdout)
			}
		}
	}
}
