package lint

// The SARIF logs lint writes, validated against the OASIS SARIF 2.1.0
// JSON schema (errata01).
//
// The schema is not copied into this repository: it comes from the
// testdata of a pinned module that carries the official file
// (schemaModule), found in the module cache with `go list -m`. The blank
// import below is what pins it: its cwe package imports only the standard
// library, so it adds nothing to any build but this test's, and `go mod
// tidy` keeps the requirement because a test of the main module imports it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/securego/gosec/v2/cwe" // pins schemaModule in go.mod; see above
)

const (
	// schemaModule holds schemaFile, byte for byte the schema OASIS
	// publishes at schemaID (draft-04).
	schemaModule = "github.com/securego/gosec/v2"
	schemaFile   = "report/sarif/testdata/sarif-schema-2.1.0.json"
	schemaID     = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

// sarifSchema compiles the SARIF 2.1.0 schema, with its formats (uri,
// uri-reference, date-time) asserted. It skips when the go command or the
// module is unavailable (a test binary run away from its module); under
// `go test` the module is always there, since building this file
// downloaded it.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SARIF schema: no go command on PATH to find module %s: %v", schemaModule, err)
	}
	out, err := exec.Command(goCmd, "list", "-m", "-f", "{{.Dir}}", schemaModule).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Skipf("SARIF schema: module %s is not in the module cache (go list -m: %v %s); `go mod download %s` fetches it",
			schemaModule, err, bytes.TrimSpace(stderr), schemaModule)
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(schemaFile)))
	if err != nil {
		t.Fatalf("SARIF schema: %v (did an upgrade of %s move it?)", err, schemaModule)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("SARIF schema %s: %v", f.Name(), err)
	}
	if m, _ := doc.(map[string]any); m == nil || m["id"] != schemaID {
		t.Fatalf("SARIF schema %s: id is not %s", f.Name(), schemaID)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(schemaID)
	if err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	return sch
}

// sarifSample is one with findings of several rules and all three
// severities, each in its file (one in a directory whose name a URI must
// escape): errors (a Service port that does not exist, two routes with the
// same match), warnings (a mirror to the Service routed to, another
// controller's annotation) and a notice (a Gateway listener without
// routes).
var sarifSample = map[string]string{
	"manifests/proxy.yaml": services + proxy("p", "a.com", `  routes:
  - conditions: [{prefix: /}]
    services: [{name: s1, port: 80}, {name: s1, port: 80, mirror: true}]
  - conditions: [{prefix: /api}]
    services: [{name: s2, port: 8080}]
  - conditions: [{prefix: /api}]
    services: [{name: s2, port: 80}]`),
	"manifests/gateway.yaml": gatewayDocs + httpRoute("r", "http", "[{name: s1, port: 80}]"),
	"manifests/with space/ingress.yaml": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  namespace: default\n" +
		"  annotations: {nginx.ingress.kubernetes.io/rewrite-target: /}\nspec:\n  defaultBackend: {service: {name: s1, port: {number: 80}}}\n",
}

// writeSample writes files under dir and returns dir's manifests/.
func writeSample(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "manifests")
}

// sarifLogs are the logs validated: lint's findings on samples loaded from
// relative and absolute paths and from stdin, with and without
// suppressions, none at all, the findings of the golden tests, and the
// log `contourc lint -o sarif` writes (cmd/contourc's golden, which its
// TestLintGoldens keeps current).
func sarifLogs(t *testing.T) map[string][]byte {
	t.Helper()
	// The log `contourc lint -o sarif` writes, read before the Chdir below.
	golden, err := os.ReadFile(filepath.Join("..", "testdata", "lint", "golden.sarif"))
	if err != nil {
		t.Fatalf("contourc lint -o sarif's golden: %v", err)
	}
	abs := writeSample(t, t.TempDir(), sarifSample)
	t.Chdir(filepath.Dir(abs)) // relative paths, as a CI job gives them
	var stdin strings.Builder
	for _, content := range sarifSample {
		stdin.WriteString("---\n" + content)
	}
	suppressed := map[string]string{}
	for name, content := range sarifSample {
		suppressed[name] = strings.Replace(content, "annotations: {", "annotations: {"+AnnotationDisable+": CTC1401, ", 1)
	}
	clean := map[string]string{"manifests/proxy.yaml": services + proxy("p", "a.com", "  routes:\n  - services: [{name: s1, port: 80}]")}

	findings := map[string][]Finding{
		"findings, relative paths": lintPaths(t, []string{"manifests"}, nil, Options{}),
		"findings, absolute paths": lintPaths(t, []string{abs}, nil, Options{}),
		"findings, from stdin":     lintPaths(t, []string{"-"}, strings.NewReader(stdin.String()), Options{}),
		"findings, suppressed by annotation and option": lintPaths(t, []string{writeSample(t, t.TempDir(), suppressed)}, nil,
			Options{Disable: []string{ruleListenerUnused}}),
		"no findings, a clean sample": lintPaths(t, []string{writeSample(t, t.TempDir(), clean)}, nil, Options{}),
		"no findings, nil":            nil,
		"the golden findings":         sampleFindings(),
	}
	if got := rulesOf(findings["findings, relative paths"]); got != "CTC1002 CTC1301 CTC1303 CTC1401 CTC1502" {
		t.Fatalf("sample's rules %q: the sample no longer covers several rules and every severity", got)
	}
	if got := rulesOf(findings["findings, suppressed by annotation and option"]); got != "CTC1002 CTC1301 CTC1303" {
		t.Fatalf("suppressed sample's rules %q", got)
	}
	if got := findings["no findings, a clean sample"]; len(got) != 0 {
		t.Fatalf("clean sample: %+v", got)
	}
	logs := map[string][]byte{}
	for name, fs := range findings {
		var b bytes.Buffer
		if err := WriteSARIF(&b, fs); err != nil {
			t.Fatal(err)
		}
		logs[name] = b.Bytes()
	}
	logs["contourc lint -o sarif (golden)"] = golden
	return logs
}

// rulesOf are the rules of findings, each once, in order of ID.
func rulesOf(fs []Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Rule)
	}
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), " ")
}

func TestSARIFSchema(t *testing.T) {
	sch := sarifSchema(t)
	for name, log := range sarifLogs(t) {
		t.Run(name, func(t *testing.T) {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(doc); err != nil {
				t.Errorf("not a valid SARIF 2.1.0 log: %v\n%s", err, log)
			}
		})
	}
}

// TestSARIFSchemaRejects shows that the validation can fail: the golden
// log with one thing broken, each rejected by the same schema, at the
// place broken.
func TestSARIFSchemaRejects(t *testing.T) {
	sch := sarifSchema(t)
	var b bytes.Buffer
	if err := WriteSARIF(&b, sampleFindings()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		at     string // the JSON pointer the schema's error names; "" for valid
		mutate func(log map[string]any)
	}{
		{"unchanged", "", func(map[string]any) {}},
		{"a result without a message", "/runs/0/results/0", func(log map[string]any) { delete(result(log, 0), "message") }},
		{"a level fatal", "/runs/0/results/0/level", func(log map[string]any) { result(log, 0)["level"] = "fatal" }},
		{"version 2.0.0", "/version", func(log map[string]any) { log["version"] = "2.0.0" }},
		{"a property SARIF does not have", "", func(log map[string]any) { log["findings"] = []any{} }},
		{"a rule without an id", "/runs/0/tool/driver/rules/0", func(log map[string]any) { delete(driverRules(log)[0].(map[string]any), "id") }},
		{"a line 0", "/runs/0/results/1/locations/0/physicalLocation/region/startLine", func(log map[string]any) {
			location(log, 1)["physicalLocation"].(map[string]any)["region"].(map[string]any)["startLine"] = 0
		}},
		{"a ruleIndex below -1", "/runs/0/results/0/ruleIndex", func(log map[string]any) { result(log, 0)["ruleIndex"] = -2 }},
		{"a file URI that is no URI reference", "/runs/0/results/1/locations/0/physicalLocation/artifactLocation/uri", func(log map[string]any) {
			location(log, 1)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)["uri"] = "dir%zz/a.yaml"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log map[string]any
			if err := json.Unmarshal(b.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			c.mutate(log)
			// Through JSON again: the validator wants json.Number, not Go ints.
			j, _ := json.Marshal(log)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
			if err != nil {
				t.Fatal(err)
			}
			err = sch.Validate(doc)
			switch {
			case c.name == "unchanged":
				if err != nil {
					t.Fatalf("the golden log is rejected: %v", err)
				}
			case err == nil:
				t.Fatal("accepted, want rejected")
			default:
				var ve *jsonschema.ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("%T %v, want a validation error", err, err)
				}
				if !strings.Contains(err.Error(), "'"+c.at+"'") {
					t.Errorf("error does not name %q: %v", c.at, err)
				}
			}
		})
	}
}

func driverRules(log map[string]any) []any {
	run := log["runs"].([]any)[0].(map[string]any)
	return run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
}

func result(log map[string]any, i int) map[string]any {
	return log["runs"].([]any)[0].(map[string]any)["results"].([]any)[i].(map[string]any)
}

func location(log map[string]any, i int) map[string]any {
	return result(log, i)["locations"].([]any)[0].(map[string]any)
}

// TestSARIFRuleIndexes checks what the schema cannot: each result's
// ruleIndex points at its ruleId in the driver's rules, which are all of
// lint's, in order.
func TestSARIFRuleIndexes(t *testing.T) {
	for name, b := range sarifLogs(t) {
		t.Run(name, func(t *testing.T) {
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct{ Rules []struct{ ID string } }
					}
					Results []struct {
						RuleID    string
						RuleIndex int
					}
				}
			}
			if err := json.Unmarshal(b, &log); err != nil {
				t.Fatal(err)
			}
			if len(log.Runs) != 1 {
				t.Fatalf("%d runs, want 1", len(log.Runs))
			}
			run := log.Runs[0]
			if len(run.Tool.Driver.Rules) != len(rules) {
				t.Errorf("%d rules, want all %d", len(run.Tool.Driver.Rules), len(rules))
			}
			for i, r := range run.Tool.Driver.Rules {
				if i < len(rules) && r.ID != rules[i].ID {
					t.Errorf("rule %d is %s, want %s", i, r.ID, rules[i].ID)
				}
			}
			for _, r := range run.Results {
				if r.RuleIndex < 0 || r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
					t.Errorf("result of %s has ruleIndex %d", r.RuleID, r.RuleIndex)
				}
			}
		})
	}
}
