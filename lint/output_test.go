package lint

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/contourc/contourc/loader"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sampleFindings are findings of each severity, one without a line, one
// from stdin and one built through a kustomization.
func sampleFindings() []Finding {
	fs := []Finding{
		{Rule: ruleShadowed, Severity: Error, Object: Object{Kind: "HTTPProxy", Namespace: "web", Name: "app"},
			Source: loader.Source{File: "manifests/app.yaml", Line: 12}, Message: `route "prefix /api/v1" on virtual host a.com can never match: route "regex /api/.*" of HTTPProxy web/app comes first`,
			Related: []Object{{Kind: "HTTPProxy", Namespace: "web", Name: "app"}}},
		{Rule: ruleCertExpiring, Severity: Warning, Object: Object{Kind: "Secret", Namespace: "web", Name: "tls"},
			Source: loader.Source{File: "base/secret.yaml", Line: 1, Via: "overlays/prod"}, Message: "the certificate in tls.crt expires on 2026-06-11, in 10 day(s) (--cert-expiry-days 21)"},
		{Rule: ruleListenerUnused, Severity: Info, Object: Object{Kind: "Gateway", Namespace: "infra", Name: "gw"},
			Source: loader.Source{File: "<stdin>", Line: 3}, Message: "listener admin has no route attached"},
		{Rule: ruleForeignAnnotation, Severity: Warning, Object: Object{Kind: "Ingress", Namespace: "web", Name: "old"},
			Source: loader.Source{File: "dir with space/ingress.yaml"}, Message: "annotation nginx.ingress.kubernetes.io/rewrite-target is another ingress controller's: Contour ignores it; in Contour, use an HTTPProxy route's pathRewritePolicy"},
	}
	sortFindings(fs)
	return fs
}

func TestOutputGoldens(t *testing.T) {
	for name, write := range map[string]func(*bytes.Buffer, []Finding) error{
		"findings.table.txt": func(b *bytes.Buffer, fs []Finding) error { return WriteTable(b, fs) },
		"findings.json":      func(b *bytes.Buffer, fs []Finding) error { return WriteJSON(b, fs) },
		"findings.sarif":     func(b *bytes.Buffer, fs []Finding) error { return WriteSARIF(b, fs) },
		"none.json":          func(b *bytes.Buffer, _ []Finding) error { return WriteJSON(b, nil) },
		"none.sarif":         func(b *bytes.Buffer, _ []Finding) error { return WriteSARIF(b, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b, sampleFindings()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				t.Errorf("%s differs (go test ./lint -update):\n%s", golden, b.Bytes())
			}
		})
	}
}

func TestSlashPathURI(t *testing.T) {
	for _, c := range []struct {
		path string
		abs  bool
		want string
	}{
		{"manifests/app.yaml", false, "manifests/app.yaml"},
		{"./manifests/app.yaml", false, "manifests/app.yaml"},
		{"../shared/a b#1.yaml", false, "../shared/a%20b%231.yaml"},
		{"a:b/app.yaml", false, "./a:b/app.yaml"}, // not the scheme a
		{"/srv/repo/app.yaml", true, "file:///srv/repo/app.yaml"},
		{"C:/repo/app.yaml", true, "file:///C:/repo/app.yaml"}, // Windows: not the host C:
	} {
		if got := slashPathURI(c.path, c.abs); got != c.want {
			t.Errorf("slashPathURI(%q, %v) = %q, want %q", c.path, c.abs, got, c.want)
		}
	}
}

// TestSARIFStructure checks the log against what the SARIF 2.1.0 schema
// (OASIS, sarif-schema-2.1.0.json) requires of the parts written: no JSON
// Schema library is among the module's dependencies, and the schema file
// is not ours to copy, so its rules for these objects are written out
// here: required properties, enums, minimums and URI references.
func TestSARIFStructure(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSARIF(&b, sampleFindings()); err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	c := &sarifChecker{t: t}
	c.only("sarifLog", log, "$schema", "version", "runs")
	if log["version"] != "2.1.0" {
		t.Errorf("version %v, want 2.1.0", log["version"])
	}
	c.uri("sarifLog.$schema", log["$schema"], true)
	runs := c.array("sarifLog.runs", log["runs"], 1)
	for _, r := range runs {
		run := c.object("run", r, "tool")
		tool := c.object("run.tool", run["tool"], "driver")
		driver := c.object("tool.driver", tool["driver"], "name")
		c.uri("driver.informationUri", driver["informationUri"], true)
		var ids []string
		for _, rd := range c.array("driver.rules", driver["rules"], 0) {
			rule := c.object("reportingDescriptor", rd, "id")
			ids = append(ids, rule["id"].(string))
			c.object("reportingDescriptor.shortDescription", rule["shortDescription"], "text")
			c.uri("reportingDescriptor.helpUri", rule["helpUri"], true)
			conf := c.object("reportingConfiguration", rule["defaultConfiguration"])
			c.enum("reportingConfiguration.level", conf["level"], "none", "note", "warning", "error")
		}
		results := c.array("run.results", run["results"], 0)
		if len(results) != len(sampleFindings()) {
			t.Errorf("%d results, want %d", len(results), len(sampleFindings()))
		}
		for _, res := range results {
			result := c.object("result", res, "message")
			c.object("result.message", result["message"], "text")
			c.enum("result.level", result["level"], "none", "note", "warning", "error")
			idx, ok := result["ruleIndex"].(float64)
			if !ok || idx < -1 || int(idx) >= len(ids) || ids[int(idx)] != result["ruleId"] {
				t.Errorf("result ruleIndex %v does not point at its ruleId %v", result["ruleIndex"], result["ruleId"])
			}
			for _, l := range c.array("result.locations", result["locations"], 1) {
				loc := c.object("location", l)
				if pl, ok := loc["physicalLocation"]; ok {
					phys := c.object("physicalLocation", pl, "artifactLocation")
					art := c.object("artifactLocation", phys["artifactLocation"], "uri")
					c.uri("artifactLocation.uri", art["uri"], false)
					if reg, ok := phys["region"]; ok {
						region := c.object("region", reg, "startLine")
						if n, _ := region["startLine"].(float64); n < 1 {
							t.Errorf("region.startLine %v: minimum 1", region["startLine"])
						}
					}
				}
				for _, ll := range c.array("location.logicalLocations", loc["logicalLocations"], 0) {
					c.object("logicalLocation", ll, "fullyQualifiedName")
				}
			}
		}
	}
}

type sarifChecker struct{ t *testing.T }

func (c *sarifChecker) object(what string, v any, required ...string) map[string]any {
	c.t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		c.t.Fatalf("%s: %T, want an object", what, v)
	}
	for _, k := range required {
		if _, ok := m[k]; !ok {
			c.t.Errorf("%s: required property %q missing", what, k)
		}
	}
	return m
}

// only is object for the top level, whose properties the schema lists.
func (c *sarifChecker) only(what string, v any, allowed ...string) {
	c.t.Helper()
	m := c.object(what, v, "version", "runs")
	for k := range m {
		if !slices.Contains(allowed, k) {
			c.t.Errorf("%s: property %q not in the schema", what, k)
		}
	}
}

func (c *sarifChecker) array(what string, v any, min int) []any {
	c.t.Helper()
	a, ok := v.([]any)
	if !ok || len(a) < min {
		c.t.Fatalf("%s: %v, want an array of at least %d", what, v, min)
	}
	return a
}

func (c *sarifChecker) enum(what string, v any, values ...string) {
	c.t.Helper()
	s, _ := v.(string)
	if !slices.Contains(values, s) {
		c.t.Errorf("%s: %v, want one of %v", what, v, values)
	}
}

// uri checks a "format": "uri" (absolute) or "uri-reference" value.
func (c *sarifChecker) uri(what string, v any, absolute bool) {
	c.t.Helper()
	s, ok := v.(string)
	u, err := url.Parse(s)
	if !ok || err != nil || (absolute && !u.IsAbs()) || s == "" {
		c.t.Errorf("%s: %v is not a URI%s", what, v, map[bool]string{true: "", false: " reference"}[absolute])
	}
}
