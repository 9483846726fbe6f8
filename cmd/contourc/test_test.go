package main

// End-to-end tests of `contourc test` on the fixtures under
// testdata/routetest and on the bundled examples.

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var routeTestData = filepath.Join(repoRoot, "testdata", "routetest")

func TestRouteTestsPass(t *testing.T) {
	for _, dir := range []string{"shop", "gateway"} {
		t.Run(dir, func(t *testing.T) {
			got := runCLI(t, "", "test", filepath.Join(routeTestData, dir))
			got.wantExit(t, exitOK)
			lines := strings.Split(strings.TrimSpace(got.stdout), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "PASS: ") {
				t.Errorf("last line %q, want PASS: N case(s)", last)
			}
			for _, l := range lines[:len(lines)-1] {
				if !strings.HasPrefix(l, "--- PASS: ") {
					t.Errorf("unexpected line %q", l)
				}
			}
		})
	}
}

// The bundled example test file works with the bundled manifests, and
// render still skips it.
func TestRouteTestsExamples(t *testing.T) {
	got := runCLI(t, "", "test", examplesDir)
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "--- PASS: kuard over https\n") || !strings.Contains(got.stdout, "PASS: 5 case(s)\n") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
	rendered := runCLI(t, "", "render", "-v", "-o", "json", examplesDir)
	rendered.wantExit(t, exitOK)
	if !strings.Contains(rendered.stderr, "skipped 1 contourc/v1alpha1/RouteTest") {
		t.Errorf("render -v does not say it skipped the test file:\n%s", rendered.stderr)
	}
}

func TestRouteTestsFail(t *testing.T) {
	failing := filepath.Join(routeTestData, "failing.test.yaml")
	got := runCLI(t, "", "test", failing, "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitFindings)
	proxy := filepath.Join(routeTestData, "shop", "proxy.yaml")
	for _, want := range []string{
		"--- PASS: passes\n",
		"--- FAIL: wrong service (" + failing + ":8)\n",
		"    route: want HTTPProxy shop/api, got HTTPProxy shop/www (" + proxy + ":5)\n",
		"    cluster: want Service shop/api-v2 port 8080, got shop/api-v1/8080/da39a3ee5e (Service shop/api-v1:8080 (http))\n",
		"    decision: listener ingress_https -> virtual host www.example.com -> route #6 of HTTPProxy shop/www (" + proxy + ":5) -> forward to cluster",
		"--- FAIL: wrong action (" + failing + ":13)\n    action: want cluster, got redirect 301 to https://www.example.com/\n",
		"--- FAIL: wrong split (",
		"FAIL: 3 of 4 case(s) failed\n",
	} {
		if !strings.Contains(got.stdout, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, got.stdout)
		}
	}
	if !strings.Contains(got.stderr, "contourc: 3 of 4 route test case(s) failed") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}

func TestRouteTestsJSON(t *testing.T) {
	got := runCLI(t, "", "test", "-o", "json", filepath.Join(routeTestData, "failing.test.yaml"), "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitFindings)
	var rep struct {
		Passed, Failed int
		Cases          []struct {
			Name     string
			Line     int
			Passed   bool
			Failures []string
			Decision struct {
				Listener    string
				VirtualHost string
				RouteIndex  int
				Source      struct {
					Kind, Namespace, Name, File string
					Line                        int
				}
				Action map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal([]byte(got.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, got.stdout)
	}
	if rep.Passed != 1 || rep.Failed != 3 || len(rep.Cases) != 4 {
		t.Fatalf("passed %d, failed %d, %d cases; want 1, 3, 4", rep.Passed, rep.Failed, len(rep.Cases))
	}
	c := rep.Cases[1]
	if c.Name != "wrong service" || c.Passed || c.Line != 8 || len(c.Failures) != 2 {
		t.Errorf("case 1 = %+v", c)
	}
	d := c.Decision
	if d.Listener != "ingress_https" || d.VirtualHost != "www.example.com" || d.RouteIndex != 6 ||
		d.Source.Kind != "HTTPProxy" || d.Source.Name != "www" || d.Source.Line != 5 || !strings.HasSuffix(d.Source.File, "proxy.yaml") {
		t.Errorf("decision = %+v", d)
	}
	if _, ok := d.Action["cluster"]; !ok || len(d.Action) != 1 {
		t.Errorf("action = %v, want only cluster", d.Action)
	}
}

func TestRouteTestsJUnit(t *testing.T) {
	got := runCLI(t, "", "test", "-o", "junit", filepath.Join(routeTestData, "failing.test.yaml"), "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitFindings)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(got.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, got.stdout)
	}
	if doc.Tests != 4 || doc.Failures != 3 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 4 {
		t.Fatalf("junit = %+v", doc)
	}
	if doc.Suites[0].Cases[0].Failure != nil {
		t.Error("the passing case has a failure")
	}
	f := doc.Suites[0].Cases[2].Failure
	if f == nil || !strings.HasPrefix(f.Message, "action: want cluster") || !strings.Contains(f.Text, "decision: listener ingress_http") {
		t.Errorf("failure of case 2 = %+v", f)
	}
}

func TestRouteTestsRunFilter(t *testing.T) {
	got := runCLI(t, "", "test", "--run", "^wrong (action|split)$", filepath.Join(routeTestData, "failing.test.yaml"), "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitFindings)
	if strings.Count(got.stdout, "--- ") != 2 || !strings.Contains(got.stdout, "FAIL: 2 of 2 case(s) failed") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
	got = runCLI(t, "", "test", "--run", "passes", filepath.Join(routeTestData, "failing.test.yaml"), "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitOK)
	got = runCLI(t, "", "test", "--run", "nothing", filepath.Join(routeTestData, "failing.test.yaml"), "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitFailure)
}

// Strict decoding: every problem of a bad test file, with file:line, and
// exit 2 before anything is evaluated.
func TestRouteTestsBadFile(t *testing.T) {
	bad := filepath.Join(routeTestData, "bad.test.yaml")
	got := runCLI(t, "", "test", bad, "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitFailure)
	if got.stdout != "" {
		t.Errorf("stdout = %q, want nothing", got.stdout)
	}
	for _, want := range []string{
		bad + `:5: unknown field "pth" in request`,
		bad + `:8: test "two actions": expect has several actions (cluster, noMatch): give one`,
		bad + `:13: test "two actions": name already used at line 8`,
		bad + `:13: test "two actions": request.authority is required`,
		bad + `:13: test "two actions": expect.timeout "soon" is not a duration`,
	} {
		if !strings.Contains(got.stderr, want) {
			t.Errorf("stderr does not contain %q:\n%s", want, got.stderr)
		}
	}
}

func TestRouteTestsStdin(t *testing.T) {
	var manifests strings.Builder
	for _, f := range []string{"services.yaml", "proxy.yaml", "ingress.yaml", "secret.yaml"} {
		b, err := os.ReadFile(filepath.Join(routeTestData, "shop", f))
		if err != nil {
			t.Fatal(err)
		}
		manifests.WriteString("---\n")
		manifests.Write(b)
	}
	tests := filepath.Join(routeTestData, "shop", "tests", "shop.test.yaml")
	got := runCLI(t, manifests.String(), "test", "--run", "api v2|blog", tests, "--", "-")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "PASS: 2 case(s)") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
	// The sources of stdin objects are <stdin>:line.
	got = runCLI(t, manifests.String(), "test", "-o", "json", "--run", "blog", tests, "--", "-")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, `"file": "<stdin>"`) {
		t.Errorf("the route's source is not <stdin>:\n%s", got.stdout)
	}
}

func TestRouteTestsUsage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte("apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {ports: [{port: 80}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
		usage  bool // a usage error points at --help
	}{
		{"no arguments", []string{"test"}, "test needs TESTFILE... -- PATH...", true},
		{"nothing before --", []string{"test", "--", dir}, "at least one TESTFILE before --", true},
		{"nothing after --", []string{"test", filepath.Join(routeTestData, "failing.test.yaml"), "--"}, "at least one PATH after --", true},
		{"unknown format", []string{"test", "-o", "tap", dir}, `invalid --output-format "tap": want text, json or junit`, true},
		{"bad --run", []string{"test", "--run", "(", dir}, "invalid --run", true},
		{"no tests directory", []string{"test", dir}, "no *.test.yaml file under tests/", false},
		{"missing test file", []string{"test", filepath.Join(dir, "nope.test.yaml"), "--", dir}, "no such file", false},
		{"manifests that do not load", []string{"test", filepath.Join(routeTestData, "failing.test.yaml"), "--", filepath.Join(dir, "missing")}, "no such file or directory", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			got.wantExit(t, exitFailure)
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, got.stderr)
			}
			if usage := strings.Contains(got.stderr, "--help' for usage"); usage != tt.usage {
				t.Errorf("points at --help: %v, want %v:\n%s", usage, tt.usage, got.stderr)
			}
		})
	}
}

// A test file need not carry apiVersion and kind under tests/, since the
// convention keeps it out of the manifests; a manifest given as a test
// file is refused.
func TestRouteTestsFileKinds(t *testing.T) {
	dir := t.TempDir()
	shop, err := filepath.Abs(filepath.Join(routeTestData, "shop"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"services.yaml", "proxy.yaml", "secret.yaml"} {
		b, err := os.ReadFile(filepath.Join(shop, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "tests", "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	bare := "tests:\n- name: bare\n  request: {authority: www.example.com, scheme: https}\n  expect: {cluster: {service: shop/web}}\n"
	if err := os.WriteFile(filepath.Join(dir, "tests", "more", "bare.test.yaml"), []byte(bare), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "test", dir)
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "--- PASS: bare") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
	got = runCLI(t, "", "test", filepath.Join(dir, "proxy.yaml"), "--", dir)
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "not a route test file") {
		t.Errorf("stderr:\n%s", got.stderr)
	}
}

// The sample test file in docs/route-tests.md runs against the shop
// fixture and passes, so the documentation stays true.
func TestRouteTestsDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "route-tests.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\napiVersion: contourc/v1alpha1\n")
	sample, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("no yaml sample starting with apiVersion: contourc/v1alpha1 in docs/route-tests.md")
	}
	file := filepath.Join(t.TempDir(), "doc.test.yaml")
	if err := os.WriteFile(file, []byte("apiVersion: contourc/v1alpha1\n"+sample), 0o644); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "test", file, "--", filepath.Join(routeTestData, "shop"))
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "PASS: 6 case(s)") {
		t.Errorf("stdout:\n%s", got.stdout)
	}
}
