package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// cli is one in-memory run of contourc.
type cli struct {
	code           int
	stdout, stderr string
}

// runCLI runs contourc with args and stdin, as main would.
func runCLI(t *testing.T, stdin string, args ...string) cli {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut})
	return cli{code: code, stdout: out.String(), stderr: errOut.String()}
}

// wantExit fails the test when the run ended with another code.
func (c cli) wantExit(t *testing.T, code int) {
	t.Helper()
	if c.code != code {
		t.Fatalf("exit code %d, want %d\nstderr:\n%s", c.code, code, c.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string // a part of stderr
	}{
		{"render without path", []string{"render"}, "render needs at least one PATH"},
		{"check without path", []string{"check", "-o", "json"}, "check needs at least one PATH: a file, a directory or - for stdin (. for the repository you are in; contourc init writes a .contourc.yaml whose paths are read without one)"},
		{"unknown render format", []string{"render", "-o", "xml", "dir"}, `invalid --output-format "xml": want yaml or json`},
		{"table is not a render format", []string{"render", "-o", "table", "dir"}, `invalid --output-format "table"`},
		{"unknown check format", []string{"check", "-o", "xml", "dir"}, `invalid --output-format "xml": want table, json or yaml`},
		{"unknown flag", []string{"render", "--no-such-flag", "dir"}, "unknown flag: --no-such-flag"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"gateway without namespace", []string{"render", "--gateway", "gw", "dir"}, `--gateway "gw": want NAMESPACE/NAME`},
		{"gateway with extra slash", []string{"render", "--gateway", "ns/gw/x", "dir"}, `--gateway "ns/gw/x": want NAMESPACE/NAME`},
		{"--assume-service without ports", []string{"check", "--assume-service", "logging/kibana", "dir"}, `--assume-service "logging/kibana": want NAMESPACE/NAME:PORT[/PROTOCOL][,PORT[/PROTOCOL]...]`},
		{"--assume-service without namespace", []string{"render", "--assume-service", "kibana:5601", "dir"}, `--assume-service "kibana:5601": want NAMESPACE/NAME:PORT`},
		{"--assume-service port not a number", []string{"check", "--assume-service", "a/b:http", "dir"}, `--assume-service "a/b:http": port "http": want a number from 1 to 65535`},
		{"--assume-service port out of range", []string{"serve", "--assume-service", "a/b:80,70000", "dir"}, `--assume-service "a/b:80,70000": port "70000": want a number from 1 to 65535`},
		{"--assume-service unknown protocol", []string{"check", "--assume-service", "a/b:443/https", "dir"}, `--assume-service "a/b:443/https": port 443: protocol "https": want one of tcp, tls, h2, h2c`},
		{"--assume-service port given twice", []string{"check", "--assume-service", "a/b:443/tls", "--assume-service", "a/b:443/h2", "dir"}, `--assume-service "a/b:443/h2": port 443 given as tls and as h2`},
		{"--assume-service bad name", []string{"diff", "--assume-service", "a/B_c:80", "x", "y"}, `--assume-service "a/B_c:80": name "B_c": a DNS-1035 label must consist of lower case`},
		{"--flux-source without namespace", []string{"check", "--flux-source", "fleet", "dir"}, `--flux-source "fleet": want NAMESPACE/NAME or KIND/NAMESPACE/NAME[=DIR]`},
		{"--flux-source of a Bucket", []string{"render", "--flux-source", "Bucket/flux-system/b=k", "dir"}, `--flux-source "Bucket/flux-system/b=k": kind "Bucket": want GitRepository or OCIRepository`},
		{"--flux-source GitRepository with DIR", []string{"check", "--flux-source", "flux-system/fleet=k", "dir"}, `--flux-source "flux-system/fleet=k": a GitRepository is the repository's root: want GitRepository/NAMESPACE/NAME without =DIR`},
		{"--flux-source OCIRepository with an empty DIR", []string{"diff", "--flux-source", "OCIRepository/flux-system/m=", "x", "y"}, `--flux-source "OCIRepository/flux-system/m=": want a DIR after =`},
		{"--cluster-context stdin", []string{"check", "--cluster-context", "-", "dir"}, "--cluster-context cannot read standard input (-)"},
		{"version takes no arguments", []string{"version", "extra"}, "unknown command"},
		// --output takes a file; a format name there was meant as -o.
		{"--output json", []string{"render", "--output", "json", "dir"}, `--output "json" would write a file called json; did you mean -o json?`},
		{"--output yaml", []string{"render", "--output=yaml", "dir"}, `did you mean -o yaml?`},
		{"--output table", []string{"render", "--output", "table", "dir"}, `did you mean -o yaml or -o json?`},
		{"--output on check", []string{"check", "--output", "json", "dir"}, "unknown flag: --output (check prints on stdout; for the format, use -o or --output-format)"},
		{"--output= on diff", []string{"diff", "--output=json", "a", "b"}, "unknown flag: --output (diff prints on stdout"},
		// Listener flags Envoy could not take are flag errors, not a
		// protobuf validation dump at render time.
		{"port above 65535", []string{"render", "--envoy-service-http-port", "70000", "dir"},
			`invalid argument "70000" for "--envoy-service-http-port" flag: must be between 1 and 65535, inclusive`},
		{"negative port", []string{"check", "--envoy-service-https-port=-1", "dir"},
			`invalid argument "-1" for "--envoy-service-https-port" flag: must be between 1 and 65535, inclusive`},
		{"address not an IP", []string{"render", "--envoy-service-https-address", "envoy.local", "dir"},
			`invalid argument "envoy.local" for "--envoy-service-https-address" flag: must be a valid IP address`},
		{"HTTP on the HTTPS port", []string{"explain", "--host", "h", "--envoy-service-http-port", "8443", "dir"},
			`invalid argument "8443" for "--envoy-service-http-port" flag: the ingress_https listener is on 0.0.0.0:8443 already`},
		{"both listeners on one address", []string{"serve", "--envoy-service-http-address", "::", "--envoy-service-https-address", "::0", "--envoy-service-https-port", "8080", "dir"},
			`invalid argument "8080" for "--envoy-service-https-port" flag: the ingress_http listener is on [::]:8080 already`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCLI(t, "", tt.args...)
			got.wantExit(t, exitFailure)
			if got.stdout != "" {
				t.Errorf("stdout = %q, want nothing", got.stdout)
			}
			if !strings.Contains(got.stderr, tt.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, got.stderr)
			}
			if !strings.Contains(got.stderr, "--help' for usage") {
				t.Errorf("stderr does not point at --help:\n%s", got.stderr)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v", "version"}} {
		got := runCLI(t, "", args...)
		got.wantExit(t, exitOK)
		if want := "contourc dev\n"; got.stdout != want {
			t.Errorf("contourc %v: stdout = %q, want %q", args, got.stdout, want)
		}
	}
}

func TestCompletion(t *testing.T) {
	got := runCLI(t, "", "completion", "bash")
	got.wantExit(t, exitOK)
	if !strings.Contains(got.stdout, "__start_contourc") {
		t.Errorf("bash completion script does not define __start_contourc:\n%.300s", got.stdout)
	}
}

func TestInputFlags(t *testing.T) {
	tests := []struct {
		args                    []string
		classes, roots          []string
		upstreamDNS, positional string
	}{
		{args: []string{"dir"}, positional: "dir"},
		{
			args:    []string{"--ingress-class-name", "a,b", "--ingress-class-name=c", "dir"},
			classes: []string{"a", "b", "c"}, positional: "dir",
		},
		{args: []string{"--root-namespaces", " x, ,y ", "dir"}, roots: []string{"x", "y"}, positional: "dir"},
		// A bare --upstream-dns does not swallow the path after it.
		{args: []string{"--upstream-dns", "dir"}, upstreamDNS: "cluster.local", positional: "dir"},
		{args: []string{"--upstream-dns=example.org", "dir"}, upstreamDNS: "example.org", positional: "dir"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var f inputFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			f.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			opts, err := f.options()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(opts.IngressClassNames, tt.classes) || !reflect.DeepEqual(opts.RootNamespaces, tt.roots) ||
				opts.UpstreamDNS != tt.upstreamDNS {
				t.Errorf("options = %+v, want classes %v, roots %v, upstream DNS %q", opts, tt.classes, tt.roots, tt.upstreamDNS)
			}
			if got := strings.Join(fs.Args(), " "); got != tt.positional {
				t.Errorf("positional args = %q, want %q", got, tt.positional)
			}
		})
	}
}

func TestReport(t *testing.T) {
	joined := errors.Join(
		errors.New("a.yaml:3: Ingress default/x: first"),
		errors.Join(errors.New("b.yaml:1: second"), errors.New("b.yaml:9: third")),
	)
	tests := []struct {
		name string
		err  error
		code int
		want string
	}{
		{
			name: "joined errors, one per line, counted",
			err:  failure(joined),
			code: exitFailure,
			want: "a.yaml:3: Ingress default/x: first\nb.yaml:1: second\nb.yaml:9: third\ncontourc: 3 error(s)\n",
		},
		{
			name: "wrapping text is not lost",
			err:  failure(fmt.Errorf("reading: %w and %w", errors.New("one"), errors.New("two"))),
			code: exitFailure,
			want: "reading: one and two\ncontourc: 1 error(s)\n",
		},
		{
			name: "findings are not errors",
			err:  findings(errors.New("contourc: 1 of 2 object(s) not valid")),
			code: exitFindings,
			want: "contourc: 1 of 2 object(s) not valid\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if code := report(&buf, newRootCmd(IOStreams{}), tt.err); code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if buf.String() != tt.want {
				t.Errorf("printed\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}
}

// TestOutputUntouchedOnFailure checks that a failed render neither creates
// nor changes the --output file, and leaves no temporary file behind.
func TestOutputUntouchedOnFailure(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "envoy.yaml")
	missing := filepath.Join(dir, "no-such-manifests")

	got := runCLI(t, "", "render", "--output", out, missing)
	got.wantExit(t, exitFailure)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed render created %s (stat: %v)", out, err)
	}

	if err := os.WriteFile(out, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runCLI(t, "", "render", "-o", "json", "--output", out, missing)
	got.wantExit(t, exitFailure)
	if b, _ := os.ReadFile(out); string(b) != "previous\n" {
		t.Errorf("failed render changed %s to %q", out, b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left in %s: %v, want only envoy.yaml", dir, entries)
	}
	if got.stdout != "" {
		t.Errorf("stdout = %q, want nothing", got.stdout)
	}
}

// TestConfigPath checks that Contour's configuration file is read strictly
// (a bad key is an error naming file:line, exit 2) and applied (its
// gatewayRef selects the Gateway, --gateway overrides it; its timeouts
// reach the connection managers).
func TestConfigPath(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("timeouts:\n  request-timeout: 1s\n  bogus: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := runCLI(t, "", "render", "--config-path", bad, filepath.Join(repoRoot, "examples"))
	got.wantExit(t, exitFailure)
	if !strings.Contains(got.stderr, "bad.yaml:3:") || !strings.Contains(got.stderr, "bogus") || got.stdout != "" {
		t.Errorf("stderr %q, stdout %d bytes: want the file, line and key, and no output", got.stderr, len(got.stdout))
	}

	unapplied := filepath.Join(dir, "contour.yaml")
	if err := os.WriteFile(unapplied, []byte("timeouts:\n  request-timeout: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got = runCLI(t, "", "render", "-o", "json", "--config-path", unapplied, filepath.Join(repoRoot, "examples"))
	got.wantExit(t, exitOK)
	if strings.Contains(got.stderr, "not applied") || !strings.Contains(got.stdout, `"request_timeout": "1s"`) {
		t.Errorf("stderr %q: want timeouts.request-timeout applied (request_timeout 1s) without a warning", got.stderr)
	}
}

// --verbose says how long each phase took; the figures themselves vary.
func TestVerbosePrintsPhaseTimings(t *testing.T) {
	timing := regexp.MustCompile(`(?m)^(using \d+ object\(s\), loaded|translated|rendered) in \d+(\.\d+)?(ms|s|µs|ns)$`)
	for args, want := range map[string][]string{
		"render": {"loaded", "translated", "rendered"},
		"check":  {"loaded", "translated"},
	} {
		c := runCLI(t, "", "-v", args, examplesDir)
		c.wantExit(t, 0)
		var got []string
		for _, m := range timing.FindAllStringSubmatch(c.stderr, -1) {
			got = append(got, m[1][strings.LastIndex(m[1], " ")+1:])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s -v: phase timings %q, want %q\n%s", args, got, want, c.stderr)
		}
		if c := runCLI(t, "", args, examplesDir); timing.MatchString(c.stderr) {
			t.Errorf("%s without -v printed timings:\n%s", args, c.stderr)
		}
	}
}

// TestCPUProfile: the hidden --cpu-profile writes a CPU profile of the
// command (pprof's gzipped protobuf), and a profile it cannot create
// fails the run before the command does anything.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	c := runCLI(t, "", "--cpu-profile", path, "check", examplesDir)
	c.wantExit(t, 0)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the profile is not gzipped: % x", b[:min(len(b), 8)])
	}
	bad := runCLI(t, "", "--cpu-profile", filepath.Join(t.TempDir(), "missing", "cpu.prof"), "render", examplesDir)
	bad.wantExit(t, exitFailure)
	if bad.stdout != "" {
		t.Errorf("render ran although its profile could not be created:\n%s", bad.stdout)
	}
	if help := runCLI(t, "", "--help"); strings.Contains(help.stdout, "cpu-profile") {
		t.Error("--help lists the hidden --cpu-profile")
	}
}

// -v's object count is of the objects in the input: core/v1 Endpoints
// count as themselves, though they are mirrored into EndpointSlices (or
// dropped, for a Service with slices of its own) before translation.
func TestVerboseCountsEndpoints(t *testing.T) {
	input := `apiVersion: v1
kind: Service
metadata: {name: s, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Endpoints
metadata: {name: s, namespace: default}
subsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80}]}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: t, namespace: default}
`
	c := runCLI(t, input, "-v", "check", "--allow-empty", "-")
	c.wantExit(t, 0)
	if !strings.Contains(c.stderr, "using 3 object(s), loaded in ") {
		t.Errorf("check -v of a Service and two Endpoints:\n%s", c.stderr)
	}
}

// --max-input-size bounds the input of render, check, diff, explain and
// test, all files and stdin together; the default (1Gi) is well above the
// 64 MiB a file was once limited to.
func TestMaxInputSize(t *testing.T) {
	manifest := "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: default}\nspec: {ports: [{port: 80}]}\n"
	for _, cmd := range []string{"render", "check", "explain"} {
		args := []string{cmd, "--max-input-size", "64", "-"}
		if cmd == "explain" {
			args = append(args[:len(args)-1], "--host", "example.com", "--path", "/", "-")
		}
		c := runCLI(t, manifest, args...)
		c.wantExit(t, exitFailure)
		if want := "<stdin>: larger than the 64 input limit (--max-input-size)"; !strings.Contains(c.stderr, want) {
			t.Errorf("%s: stderr %q, want %q", cmd, c.stderr, want)
		}
	}
	file := filepath.Join(t.TempDir(), "svc.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	c := runCLI(t, "", "diff", "--max-input-size", "64", file, file)
	c.wantExit(t, exitFailure)
	if want := file + ": larger than the 64 input limit (--max-input-size)"; !strings.Contains(c.stderr, want) {
		t.Errorf("diff: stderr %q, want %q", c.stderr, want)
	}
	if c := runCLI(t, manifest, "check", "--allow-empty", "--max-input-size", "1Ki", "-"); c.code != 0 {
		t.Errorf("check under the limit: exit %d\n%s", c.code, c.stderr)
	}
	if c := runCLI(t, manifest, "check", "--max-input-size", "lots", "-"); c.code != exitFailure ||
		!strings.Contains(c.stderr, `invalid argument "lots" for "--max-input-size" flag: "lots" is not a size such as 512Mi or 2Gi`) {
		t.Errorf("a bad size: exit %d\n%s", c.code, c.stderr)
	}
}
