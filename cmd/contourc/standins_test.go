package main

// End-to-end tests of stand-in Secrets on testdata/gitops/stand-ins: a
// repository whose TLS Secrets come from cert-manager, a SealedSecret, an
// ExternalSecret, a SOPS file and the platform's wildcard certificate.

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contourc/contourc/internal/testfs"
	"github.com/contourc/contourc/loader/standin"
)

var standInRepo = filepath.Join(gitopsDir, "stand-ins")

func TestStandInsCLI(t *testing.T) {
	assume := "--assume-secret=platform/wildcard-tls:web"
	for _, c := range []struct {
		name string
		args []string
		exit int
		says []string
	}{
		{"stand-ins-check", []string{"check", assume, standInRepo}, exitOK,
			[]string{"StandIn: Secret web/web-tls for Certificate web/web", "StandIn: Secret platform/wildcard-tls for --assume-secret",
				"StandIn: Secret shop/shop-tls for SealedSecret shop/shop-tls", "StandIn: Secret shop/client-ca for SOPS-encrypted Secret shop/client-ca"}},
		{"stand-ins-check-json", []string{"check", "-o", "json", assume, standInRepo}, exitOK,
			[]string{`"standIns": [`, `"for": "Certificate web/web"`}},
		// Without the delegation the platform grants, Contour refuses the
		// wildcard Secret of another namespace.
		{"stand-ins-no-delegation", []string{"check", "--assume-secret", "platform/wildcard-tls", standInRepo}, exitFindings,
			[]string{"DelegationNotPermitted"}},
		{"stand-ins-github", []string{"check", "-o", "github", assume, standInRepo}, exitOK,
			[]string{"::notice file=../../testdata/gitops/stand-ins/apps/web/proxy.yaml,line=1,title=HTTPProxy web/web rests on a stand-in::StandIn: Secret web/web-tls for Certificate web/web"}},
		{"stand-ins-off", []string{"check", "--no-stand-ins", assume, standInRepo}, exitFindings,
			[]string{`Secret "web-tls" is invalid: Secret not found`, `Secret "shop-tls" is invalid: Secret not found`}},
		{"stand-ins-bad-flag", []string{"check", "--assume-secret", "wildcard-tls", standInRepo}, exitFailure,
			[]string{`--assume-secret "wildcard-tls": want NAMESPACE/NAME[:TARGETNAMESPACE,...]`, "--help"}},
	} {
		t.Run(c.name, func(t *testing.T) { checkGoldenRun(t, c.name, c.args, c.exit, c.says, nil) })
	}
}

// TestStandInsRender checks that render names every stand-in it used,
// serves their certificates, marked as stand-ins, and writes the same bytes
// on every run.
func TestStandInsRender(t *testing.T) {
	args := []string{"render", "-o", "json", "--assume-secret", "platform/wildcard-tls:*", standInRepo}
	first := runCLI(t, "", args...)
	first.wantExit(t, exitOK)
	for _, s := range []string{"Secret web/web-tls for Certificate web/web", "Secret shop/blog-tls for Ingress shop/blog",
		"Secret shop/api-tls for ExternalSecret shop/api", "Secret platform/wildcard-tls for --assume-secret"} {
		if !strings.Contains(first.stderr, "warning: stand-in "+s+": not in the input") {
			t.Errorf("render does not warn of %q:\n%s", s, first.stderr)
		}
	}
	if again := runCLI(t, "", args...); again.stdout != first.stdout {
		t.Error("two renders of the same input differ")
	}
	var xds map[string][]struct {
		Name           string `json:"name"`
		TLSCertificate struct {
			CertificateChain struct {
				InlineBytes string `json:"inline_bytes"`
			} `json:"certificate_chain"`
		} `json:"tls_certificate"`
	}
	if err := json.Unmarshal([]byte(first.stdout), &xds); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range xds["type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"] {
		der, _ := base64.StdEncoding.DecodeString(s.TLSCertificate.CertificateChain.InlineBytes)
		b, _ := pem.Decode(der)
		if b == nil {
			t.Fatalf("secret %s: no certificate", s.Name)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Subject.Organization, []string{standin.Organization}) {
			t.Errorf("secret %s: subject %s, not marked as a stand-in", s.Name, c.Subject)
		}
		names = append(names, c.DNSNames...)
	}
	slices.Sort(names)
	if want := []string{"api.example.com", "blog.example.com", "shop.example.com", "web.example.com", "wild.example.com"}; !slices.Equal(names, want) {
		t.Errorf("certificates for %v, want %v", names, want)
	}
}

// TestServeRefusesStandIns: serve does not start on input that needs a
// stand-in unless --allow-stand-ins.
func TestServeRefusesStandIns(t *testing.T) {
	r := runCLI(t, "", "serve", "--xds-port", "0", "--http-port", "0", standInRepo)
	r.wantExit(t, exitFailure)
	for _, s := range []string{"the input needs stand-in Secrets: ", "Secret web/web-tls for Certificate web/web", "--allow-stand-ins"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr does not say %q:\n%s", s, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "--help") {
		t.Errorf("a refused input is no usage error:\n%s", r.stderr)
	}
}

// TestServeReloadNeedingStandIn: a change that would need a stand-in is a
// broken change: the reload fails and the last good configuration stays;
// with --allow-stand-ins it is served, and logged.
func TestServeReloadNeedingStandIn(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"kuard.yaml", "kuard-tls-secret.yaml"} {
				b, err := os.ReadFile(filepath.Join(examplesDir, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// An HTTPProxy using the Secret too, for a status to see it in.
			secret, err := os.ReadFile(filepath.Join(dir, "kuard-tls-secret.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			name, ns := yamlValue(string(secret), "name"), yamlValue(string(secret), "namespace")
			proxy := fmt.Sprintf("apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata: {name: kuard, namespace: %s}\n"+
				"spec:\n  virtualhost: {fqdn: kuard.example.com, tls: {secretName: %s}}\n  routes: [{services: [{name: kuard, port: 80}]}]\n", ns, name)
			if err := os.WriteFile(filepath.Join(dir, "proxy.yaml"), []byte(proxy), 0o644); err != nil {
				t.Fatal(err)
			}
			logs := &lockedBuffer{}
			exit := make(chan int, 1)
			args := []string{"serve", "--xds-port", "0", "--http-port", "0", "--log-format", "json", "--holdoff", "10ms", "--holdoff-max", "50ms"}
			if allow {
				args = append(args, "--allow-stand-ins")
			}
			go func() {
				exit <- run(append(args, dir), IOStreams{In: strings.NewReader(""), Out: &lockedBuffer{}, ErrOut: logs})
			}()
			first := logged(t, logs, "serving a new configuration", "version")
			// The real Secret leaves Git; a Certificate stands for it.
			cert := fmt.Sprintf("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: kuard, namespace: %s}\nspec: {secretName: %s, dnsNames: [kuard.example.com]}\n", ns, name)
			if err := os.WriteFile(filepath.Join(dir, "kuard-tls-secret.yaml"), []byte(cert), 0o644); err != nil {
				t.Fatal(err)
			}
			if allow {
				got := logged(t, logs, "serving a stand-in (--allow-stand-ins)", "standIn")
				if got != fmt.Sprintf("Secret %s/%s for Certificate %s/kuard", ns, name, ns) {
					t.Errorf("stand-in logged as %q", got)
				}
				// /debug/status is check -o json, stand-ins included.
				base := "http://" + logged(t, logs, "serving health, metrics and debug endpoints", "address")
				check := runCLI(t, "", "check", "-o", "json", dir)
				deadline := time.Now().Add(30 * time.Second)
				_, status := httpGet(t, base+"/debug/status")
				for status != check.stdout && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
					_, status = httpGet(t, base+"/debug/status")
				}
				if status != check.stdout || !strings.Contains(status, `"standIns"`) {
					t.Errorf("/debug/status:\n%s\ncheck -o json:\n%s", status, check.stdout)
				}
			} else {
				msg := logged(t, logs, "reload failed; keeping the last good configuration", "error")
				if !strings.Contains(msg, "the input needs stand-in Secrets: Secret "+ns+"/"+name) {
					t.Errorf("reload failed with %q", msg)
				}
				if got := logged(t, logs, "reload failed; keeping the last good configuration", "serving"); got != first {
					t.Errorf("serving %q after the failed reload, want %q", got, first)
				}
			}
			if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exit:
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not stop on SIGTERM")
			}
		})
	}
}

// yamlValue is the value of the first "key: value" line of a manifest.
func yamlValue(manifest, key string) string {
	for _, l := range strings.Split(manifest, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+": "); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// TestStandInRefused: a Certificate cert-manager would refuse is an error
// at its file and line, exit 2, and nothing is written.
func TestStandInRefused(t *testing.T) {
	dir := t.TempDir()
	cert := "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: web}\nspec:\n  secretName: web-tls\n  privateKey: {algorithm: ECDSA, size: 512}\n"
	if err := os.WriteFile(filepath.Join(dir, "cert.yaml"), []byte(cert), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "render", "-o", "json", dir)
	r.wantExit(t, exitFailure)
	if want := "cert.yaml:1: Certificate web/web: cannot make its stand-in: spec.privateKey: size: Invalid value: 512: ECDSA keys are 256, 384 or 521 bits"; !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("stdout %q, stderr does not say %q:\n%s", r.stdout, want, r.stderr)
	}
	// Turned off, it is not read at all.
	runCLI(t, "", "render", "-o", "json", "--no-stand-ins", dir).wantExit(t, exitOK)
}

func TestStandInsVerbose(t *testing.T) {
	r := runCLI(t, "", "check", "-v", standInRepo)
	if want := "read 4 object(s) standing for Secrets (Certificates, SealedSecrets, ExternalSecrets, SOPS Secrets); made 5 stand-in(s)\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
	}
}

// A Secret the cluster context holds is the cluster's real one: a
// cert-manager Certificate for it makes no stand-in.
func TestClusterContextSecretNeedsNoStandIn(t *testing.T) {
	repo, cluster := t.TempDir(), t.TempDir()
	testfs.Write(t, repo, map[string]string{"web.yaml": `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: kuard, namespace: default}
spec:
  secretName: kuard-tls
  dnsNames: [kuard.example.com]
  issuerRef: {name: letsencrypt, kind: ClusterIssuer}
---
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: kuard, namespace: default}
spec:
  virtualhost:
    fqdn: kuard.example.com
    tls: {secretName: kuard-tls}
  routes:
  - services: [{name: kubernetes, port: 443}]
`})
	secret, err := os.ReadFile(filepath.Join("..", "..", "examples", "kuard-tls-secret.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, cluster, map[string]string{"secret.yaml": string(secret)})
	without := runCLI(t, "", "check", "-o", "json", repo)
	if !strings.Contains(without.stdout, `"standIns"`) {
		t.Fatalf("without the cluster context, no stand-in:\n%s", without.stdout)
	}
	with := runCLI(t, "", "check", "-o", "json", "--cluster-context", cluster, repo)
	with.wantExit(t, exitOK)
	if strings.Contains(with.stdout, `"standIns"`) || strings.Contains(with.stderr, "stand-in") {
		t.Errorf("a stand-in for the cluster's own Secret:\n%s\n%s", with.stdout, with.stderr)
	}
}

// checkGoldenRun runs contourc with args and checks its exit code, its
// output against testdata/cli/gitops/NAME.txt, and that the output says
// each of says and none of saysNot.
func checkGoldenRun(t *testing.T, name string, args []string, exit int, says, saysNot []string) {
	t.Helper()
	r := runCLI(t, "", args...)
	if r.code != exit {
		t.Errorf("exit code %d, want %d\nstderr:\n%s", r.code, exit, r.stderr)
	}
	got := fmt.Sprintf("$ contourc %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	golden(t, filepath.Join("gitops", name+".txt"), []byte(got))
	for _, s := range says {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("output does not say %q:\n%s", s, got)
		}
	}
	for _, s := range saysNot {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("output says %q:\n%s", s, got)
		}
	}
}
