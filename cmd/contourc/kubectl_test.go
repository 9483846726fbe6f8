package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgramName(t *testing.T) {
	for arg0, want := range map[string]string{
		"contourc":                           "contourc",
		"/usr/local/bin/kubectl-contourc":    "kubectl-contourc",
		"kubectl-contourc.exe":               "kubectl-contourc",
		"kubectl-contourc.EXE":               "kubectl-contourc",
		"/home/u/.krew/bin/kubectl-contourc": "kubectl-contourc",
	} {
		if got := programName(arg0); got != want {
			t.Errorf("programName(%q) = %q, want %q", arg0, got, want)
		}
	}
}

// runAsCLI runs contourc in memory under the program name name.
func runAsCLI(name string, args ...string) cli {
	var out, errOut bytes.Buffer
	code := runAs(name, args, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return cli{code: code, stdout: out.String(), stderr: errOut.String()}
}

func TestKubectlPluginUsage(t *testing.T) {
	help := runAsCLI(kubectlPluginName, "check", "--help")
	help.wantExit(t, exitOK)
	for _, want := range []string{"  kubectl contourc check [flags] [PATH...]", "  kubectl contourc check ./manifests\n"} {
		if !strings.Contains(help.stdout, want) {
			t.Errorf("kubectl-contourc check --help lacks %q:\n%s", want, help.stdout)
		}
	}
	for _, line := range strings.Split(help.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "contourc ") {
			t.Errorf("kubectl-contourc check --help still shows %q", line)
		}
	}
	bad := runAsCLI(kubectlPluginName, "frobnicate")
	bad.wantExit(t, exitFailure)
	if !strings.Contains(bad.stderr, "Run 'kubectl contourc --help' for usage.") {
		t.Errorf("stderr = %q", bad.stderr)
	}
	// Under its own name, nothing changes.
	plain := runAsCLI("contourc", "check", "--help")
	if strings.Contains(plain.stdout, kubectlPluginCommand) {
		t.Errorf("contourc check --help says kubectl contourc:\n%s", plain.stdout)
	}
}

func TestPluginExample(t *testing.T) {
	got := pluginExample("  contourc init\n  contourc init ./repo && contourc check")
	want := "  kubectl contourc init\n  kubectl contourc init ./repo && kubectl contourc check"
	if got != want {
		t.Errorf("pluginExample = %q, want %q", got, want)
	}
}
