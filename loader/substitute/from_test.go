package substitute

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewNames checks that variable names are checked as Flux checks them.
func TestNewNames(t *testing.T) {
	if _, err := New(map[string]string{"1BAD": "x"}, false); err == nil || !strings.Contains(err.Error(), "'1BAD' var name is invalid") {
		t.Errorf("error %v", err)
	}
}

// TestReadFrom checks the three kinds of --substitute-from file.
func TestReadFrom(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, text, want, err string
	}{
		{name: "cm.yaml", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vars\ndata:\n  A: a\n  B: b\n", want: "A=a B=b"},
		{name: "secret.yaml", text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vars\ndata:\n  A: YWE=\n  B: Yg==\nstringData:\n  B: bb\n", want: "A=aa B=bb"},
		{name: "two.yaml", text: "kind: ConfigMap\ndata:\n  A: a\n---\nkind: ConfigMap\ndata:\n  A: z\n", want: "A=z"},
		{name: "vars.env", text: "# cluster\nA=a=1\n\nB = b \n", want: "A=a=1 B= b"},
		{name: "bad.env", text: "A=a\nnot a pair\n", err: "bad.env:2: want NAME=VALUE"},
		{name: "deploy.yaml", text: "apiVersion: apps/v1\nkind: Deployment\n", err: "Deployment: --substitute-from reads ConfigMaps and Secrets"},
		{name: "badsecret.yaml", text: "kind: Secret\ndata:\n  A: '!!'\n", err: "data[A]: illegal base64 data"},
	} {
		vars, err := ReadFrom(write(c.name, c.text))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, k := range []string{"A", "B"} {
			if v, ok := vars[k]; ok {
				got = append(got, k+"="+v)
			}
		}
		if strings.Join(got, " ") != c.want || len(got) != len(vars) {
			t.Errorf("%s: %v, want %s", c.name, vars, c.want)
		}
	}
	if _, err := ReadFrom(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}
