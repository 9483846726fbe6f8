package main

// TestNoPrivateKeyInOutput proves that the TLS private keys of the inputs
// appear in no output of diff (any format), check (any format) or in
// render's diagnostics, in any encoding a leak would likely take.

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keyNeedles returns strings whose presence in an output would mean a leak
// of the private keys in the PEM file at path: the armour, each line of the
// PEM body, and the key bytes (DER and the private scalar) and the PEM text
// in hex and base64, at every byte alignment base64 can take.
func keyNeedles(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	needles := []string{"PRIVATE KEY"}
	found := 0
	for rest := data; ; {
		start := strings.Index(string(rest), "-----BEGIN")
		if start < 0 {
			break
		}
		// Manifests indent the PEM inside YAML: undo it before decoding.
		var block *pem.Block
		block, rest = pem.Decode(unindent(rest[start:]))
		if block == nil {
			break
		}
		if !strings.Contains(block.Type, "PRIVATE KEY") {
			continue
		}
		found++
		pemText := pem.EncodeToMemory(block)
		for _, l := range strings.Split(string(pemText), "\n") {
			if len(l) >= 40 && !strings.HasPrefix(l, "-----") {
				needles = append(needles, l)
			}
		}
		secrets := [][]byte{block.Bytes, pemText}
		if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
			secrets = append(secrets, k.D.Bytes())
		}
		for _, b := range secrets {
			needles = append(needles, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)))
			needles = append(needles, base64Needles(b)...)
		}
	}
	if found == 0 {
		t.Fatalf("no private key in %s", path)
	}
	return needles
}

// unindent removes the indentation of the lines of a YAML block scalar.
func unindent(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return []byte(strings.Join(lines, "\n"))
}

// base64Needles encodes b from each of its first three bytes, so that one
// of them appears whatever the offset of b in a larger encoded blob; the
// last four characters, which depend on what follows b, are left out.
func base64Needles(b []byte) []string {
	var out []string
	for shift := 0; shift < 3 && shift < len(b); shift++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			s := enc.EncodeToString(b[shift:])
			if len(s) > 8 {
				out = append(out, s[:len(s)-4])
			}
		}
	}
	return out
}

func TestNoPrivateKeyInOutput(t *testing.T) {
	cases := []string{"tls-rotation", "vhost-tls-added", "private-key-only"}
	var needles []string
	for _, c := range cases {
		for _, side := range []string{"old", "new"} {
			matches, _ := filepath.Glob(filepath.Join(diffCasesDir, c, side, "*secret*.yaml"))
			for _, m := range matches {
				needles = append(needles, keyNeedles(t, m)...)
			}
		}
	}

	leaks := func(what string, out cli) {
		t.Helper()
		for _, n := range needles {
			if strings.Contains(out.stdout, n) || strings.Contains(out.stderr, n) {
				t.Errorf("%s: output contains key material %.40q", what, n)
				return
			}
		}
	}

	// The check is able to fail: render -o json prints the keys inline,
	// as Envoy needs them.
	full := runCLI(t, "", "render", "-o", "json", filepath.Join(diffCasesDir, "tls-rotation", "old"))
	full.wantExit(t, exitOK)
	found := false
	for _, n := range needles {
		found = found || strings.Contains(full.stdout, n)
	}
	if !found {
		t.Fatal("render -o json does not contain the key in any encoding looked for: the needles are wrong")
	}

	for _, c := range cases {
		old, new := filepath.Join(diffCasesDir, c, "old"), filepath.Join(diffCasesDir, c, "new")
		for format := range diffGoldenFiles {
			leaks("diff -o "+format+" "+c, runCLI(t, "", "diff", "-o", format, old, new))
			leaks("diff -o "+format+" "+c+" (reversed)", runCLI(t, "", "diff", "-o", format, new, old))
		}
		for _, format := range []string{"table", "json", "yaml", "github"} {
			leaks("check -o "+format+" "+c, runCLI(t, "", "check", "-o", format, "--fail-on", "warning", new))
		}
		got := runCLI(t, "", "-v", "render", "-o", "json", new)
		leaks("render -o json diagnostics "+c, cli{code: got.code, stderr: got.stderr})
	}

	// A Secret whose key does not match its certificate is reported, by
	// name only.
	mismatch := t.TempDir()
	for _, f := range []string{"proxy.yaml", "services.yaml"} {
		copyFile(t, filepath.Join(diffCasesDir, "tls-rotation", "old", f), filepath.Join(mismatch, f))
	}
	oldSecret, _ := os.ReadFile(filepath.Join(diffCasesDir, "tls-rotation", "old", "secret.yaml"))
	newSecret, _ := os.ReadFile(filepath.Join(diffCasesDir, "tls-rotation", "new", "secret.yaml"))
	crt := string(oldSecret[:strings.Index(string(oldSecret), "  tls.key:")])
	key := string(newSecret[strings.Index(string(newSecret), "  tls.key:"):])
	if err := os.WriteFile(filepath.Join(mismatch, "secret.yaml"), []byte(crt+key), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "json", "github"} {
		leaks("check -o "+format+" of a mismatched key", runCLI(t, "", "check", "-o", format, mismatch))
	}
	got := runCLI(t, "", "render", "-o", "json", mismatch)
	leaks("render -o json diagnostics of a mismatched key", cli{code: got.code, stderr: got.stderr})
	for format := range diffGoldenFiles {
		leaks("diff -o "+format+" to a mismatched key", runCLI(t, "", "diff", "-o", format, filepath.Join(diffCasesDir, "tls-rotation", "old"), mismatch))
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
