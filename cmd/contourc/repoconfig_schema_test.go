package main

// docs/contourc.schema.json is made from the keys the config file's reader
// accepts (repoconfig.Keys), so the two cannot drift: TestRepoConfigSchema
// fails when they differ, and -update rewrites the schema. The examples of
// the docs are checked against it with the small validator below, which
// knows the part of JSON Schema the schema uses.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
)

var schemaPath = filepath.Join(repoRoot, "docs", "contourc.schema.json")

// repoConfigSchema is the JSON schema of the keys.
func repoConfigSchema() map[string]any {
	top := map[string]any{
		"paths": map[string]any{
			"description": "what check and render read without PATH arguments: files or directories, relative to the repository root (the file's directory)",
			"type":        "array",
			"items":       map[string]any{"type": "string"},
		},
	}
	instance := map[string]any{}
	for key, what := range repoconfig.InstanceKeys {
		instance[key] = map[string]any{"description": what, "type": "string"}
	}
	instance["ingressClassNames"] = map[string]any{"description": repoconfig.InstanceKeys["ingressClassNames"], "type": []any{"array", "string"}, "items": map[string]any{"type": "string"}}
	top["instances"] = map[string]any{
		"description": "Contour instances whose install is not in the repository (a Helm chart from elsewhere), added to those found in it",
		"type":        "array",
		"items":       map[string]any{"type": "object", "additionalProperties": false, "required": []any{"name"}, "properties": instance},
	}
	sections := map[string]map[string]any{}
	for key, f := range repoconfig.Keys(newRootCmd(IOStreams{})) {
		section, sub, nested := strings.Cut(key, ".")
		if !nested {
			top[key] = flagSchema(f)
			continue
		}
		if sections[section] == nil {
			sections[section] = map[string]any{}
		}
		sections[section][sub] = flagSchema(f)
	}
	described := map[string]string{
		"contour": "Contour's settings: any flag by the camelCase of its long name, as at the top level",
		"assume":  "objects the cluster has and the repository does not",
		"flux":    "Flux: which sources are this repository",
		"helm":    "how a chart directory given as a PATH is rendered, as helm template's flags: releaseName, values (files), set and setString (KEY: VALUE), kubeVersion",
		"argocd":  "Argo CD: the URLs by which Applications name this repository, beside its origin remote",
		"lint":    "contourc lint's settings (and check --lint's): rules to disable by ID, the certificate expiry window",
	}
	for name, props := range sections {
		top[name] = map[string]any{"description": described[name], "type": "object", "additionalProperties": false, "properties": props}
	}
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  "https://github.com/contourc/contourc/blob/main/docs/contourc.schema.json",
		"title":                "contourc repository config file (.contourc.yaml)",
		"description":          "Flags of contourc's commands by the camelCase of their long names; flags given on the command line win. Generated from the commands' flags: go test ./cmd/contourc -run TestRepoConfigSchema -update",
		"type":                 "object",
		"additionalProperties": false,
		"properties":           top,
	}
}

func flagSchema(f repoconfig.Flag) map[string]any {
	flag := "--" + f.Name
	if f.Negate {
		flag = "the opposite of " + flag
	}
	s := map[string]any{"description": fmt.Sprintf("%s (%s; %s)", strings.SplitN(f.Usage, "\n", 2)[0], flag, strings.Join(f.Commands, ", "))}
	scalar := "string"
	switch {
	case f.Bool:
		scalar = "boolean"
	case strings.HasPrefix(f.Type, "int") || strings.HasPrefix(f.Type, "uint"):
		scalar = "integer"
	}
	switch {
	case f.Slice && f.Pairs:
		s["type"] = []any{"object", "array", "string"}
		s["items"] = map[string]any{"type": "string"}
		s["additionalProperties"] = map[string]any{"type": []any{"string", "number", "boolean"}}
	case f.Slice:
		s["type"] = []any{"array", "string"}
		s["items"] = map[string]any{"type": "string"}
	default:
		s["type"] = scalar
	}
	return s
}

func TestRepoConfigSchema(t *testing.T) {
	b, err := json.MarshalIndent(repoConfigSchema(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(schemaPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) == string(b) {
		return
	}
	// Say which keys differ, the likely change: a flag added or removed.
	var file map[string]any
	if err := json.Unmarshal(want, &file); err != nil {
		t.Fatalf("%s: %v", schemaPath, err)
	}
	got, have := schemaKeys(repoConfigSchema()), schemaKeys(file)
	t.Errorf("%s is not the schema of the keys contourc accepts (keys only in the flags: %v; only in the file: %v); "+
		"run `go test ./cmd/contourc -run TestRepoConfigSchema -update` and review the diff",
		schemaPath, difference(got, have), difference(have, got))
}

// schemaKeys are the property paths of a schema: gateway, contour.gateway.
func schemaKeys(schema map[string]any) []string {
	var out []string
	var walk func(prefix string, s map[string]any)
	walk = func(prefix string, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			out = append(out, prefix+k)
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", schema)
	sort.Strings(out)
	return out
}

func difference(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

// The schema's properties are the keys the reader accepts: each one read
// alone gives no "unknown field", and each key of repoconfig.Keys is in it.
func TestRepoConfigSchemaMatchesReader(t *testing.T) {
	keys := repoconfig.Keys(newRootCmd(IOStreams{}))
	var want []string
	for k := range keys {
		want = append(want, k)
	}
	want = append(want, "paths", "instances", "contour")
	for section, subs := range repoconfig.SectionKeys {
		for sub := range subs {
			if _, ok := keys[section+"."+sub]; ok {
				want = append(want, section)
				break
			}
		}
	}
	if _, ok := keys["helm.values"]; ok {
		want = append(want, "helm")
	}
	if _, ok := keys["lint.disable"]; ok {
		want = append(want, "lint")
	}
	sort.Strings(want)
	var file map[string]any
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if got := schemaKeys(file); !slices.Equal(got, want) {
		t.Errorf("schema keys differ from the reader's: only in the schema %v, only in the reader %v", difference(got, want), difference(want, got))
	}
}

// configExample marks the docs' examples of the file: a YAML block whose
// first line is this comment.
const configExample = "# .contourc.yaml"

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

// Every example of the file in the README and docs/ is valid by the
// schema and read without error.
func TestRepoConfigDocsExamples(t *testing.T) {
	schema := loadSchema(t)
	docs, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	docs = append(docs, readme)
	n := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range yamlBlock.FindAllStringSubmatch(string(b), -1) {
			if !strings.HasPrefix(m[1], configExample) {
				continue
			}
			n++
			name := fmt.Sprintf("%s example %d", filepath.Base(doc), i)
			checkConfigExample(t, name, schema, m[1])
		}
	}
	if n < 2 {
		t.Fatalf("found %d examples of the config file in the docs, want the README's and gitops.md's", n)
	}
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

// checkConfigExample validates text by the schema and reads it.
func checkConfigExample(t *testing.T, name string, schema map[string]any, text string) {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if v == nil {
		v = map[string]any{}
	}
	for _, e := range validate(schema, v, "") {
		t.Errorf("%s: %s", name, e)
	}
	file := filepath.Join(t.TempDir(), repoconfig.Name)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := repoconfig.Read(file, repoconfig.Keys(newRootCmd(IOStreams{}))); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

// validate checks v against the part of JSON Schema the schema uses:
// type (one or a list), properties, additionalProperties (false or a
// schema) and items.
func validate(s map[string]any, v any, at string) []string {
	if !typeMatches(s["type"], v) {
		return []string{fmt.Sprintf("%s: %v is not of type %v", orRoot(at), v, s["type"])}
	}
	var errs []string
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sub, ok := props[k].(map[string]any); ok {
				errs = append(errs, validate(sub, v[k], at+"/"+k)...)
				continue
			}
			switch add := s["additionalProperties"].(type) {
			case bool:
				if !add {
					errs = append(errs, fmt.Sprintf("%s: property %q is not allowed", orRoot(at), k))
				}
			case map[string]any:
				errs = append(errs, validate(add, v[k], at+"/"+k)...)
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range v {
				errs = append(errs, validate(items, it, fmt.Sprintf("%s/%d", at, i))...)
			}
		}
	}
	return errs
}

func orRoot(at string) string {
	if at == "" {
		return "/"
	}
	return at
}

func typeMatches(t, v any) bool {
	switch t := t.(type) {
	case nil:
		return true
	case string:
		return isType(t, v)
	case []any:
		for _, one := range t {
			if s, ok := one.(string); ok && isType(s, v) {
				return true
			}
		}
	}
	return false
}

func isType(t string, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case float64:
		return t == "number" || t == "integer" && v == float64(int64(v))
	case int64, int:
		return t == "number" || t == "integer"
	}
	return false
}

// The validator refuses what it should: it is what the docs tests rest on.
func TestSchemaValidator(t *testing.T) {
	schema := loadSchema(t)
	for _, c := range []struct {
		text string
		bad  bool
	}{
		{"namespace: web\n", false},
		{"contour: {gateway: a/b, ingressClassName: [x]}\nsubstitute: {A: b}\n", false},
		{"namespaces: web\n", true},
		{"contour: {gatewayz: a/b}\n", true},
		{"substituteStrict: yes please\n", true},
		{"paths: apps\n", true},
		{"envoyServiceHttpPort: 80.5\n", true},
	} {
		var v any
		if err := yaml.Unmarshal([]byte(c.text), &v); err != nil {
			t.Fatal(err)
		}
		if errs := validate(schema, v, ""); (len(errs) > 0) != c.bad {
			t.Errorf("%q: errors %v, want bad=%v", c.text, errs, c.bad)
		}
	}
}
