package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
)

// Exit codes. 1 means the input was read but Contour would reject some of
// it (check, render --strict); 2 means contourc could not do its job at all.
const (
	exitOK       = 0
	exitFindings = 1
	exitFailure  = 2
)

// IOStreams are a command's standard streams, passed as values so that
// tests run every command in memory.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// exitError is how a command ends a run with a given code. Any other error a
// command returns is a usage error (exit 2, with a pointer to --help).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func failure(err error) error  { return &exitError{code: exitFailure, err: err} }
func findings(err error) error { return &exitError{code: exitFindings, err: err} }

// globalFlags are the root's persistent flags, shared by every command.
type globalFlags struct {
	verbose bool
	// cpuProfile is the hidden --cpu-profile: where to write a CPU profile
	// of the command, for a report of a slow run.
	cpuProfile string
	profiling  *os.File
}

// run executes contourc with args and returns the process exit code.
func run(args []string, s IOStreams) int { return runAs("contourc", args, s) }

// runAs is run for the program named name (kubectl-contourc: kubectl.go).
func runAs(name string, args []string, s IOStreams) int {
	g := &globalFlags{}
	root := newRootCmdWith(s, g)
	asKubectlPlugin(root, name)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if perr := g.stopProfile(); err == nil {
		err = perr
	}
	if err == nil {
		return exitOK
	}
	return report(s.ErrOut, cmd, err)
}

// startProfile starts the CPU profile --cpu-profile asks for.
func (g *globalFlags) startProfile() error {
	if g.cpuProfile == "" {
		return nil
	}
	f, err := os.Create(g.cpuProfile)
	if err != nil {
		return failure(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return failure(err)
	}
	g.profiling = f
	return nil
}

// stopProfile ends and writes the CPU profile, if one was started.
func (g *globalFlags) stopProfile() error {
	if g.profiling == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := g.profiling.Close()
	g.profiling = nil
	if err != nil {
		return failure(err)
	}
	return nil
}

func newRootCmd(s IOStreams) *cobra.Command { return newRootCmdWith(s, &globalFlags{}) }

func newRootCmdWith(s IOStreams, g *globalFlags) *cobra.Command {
	root := &cobra.Command{
		Use:   "contourc",
		Short: "Contour without the Kubernetes API server",
		Long: "contourc translates Kubernetes manifests (Ingress, HTTPProxy, Gateway API) into the\n" +
			"Envoy configuration Project Contour would serve for them, without a cluster.",
		Version: version,
		// Errors and usage are printed by report, once, in contourc's format.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetVersionTemplate("contourc {{.Version}}\n")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "print more about what was read and skipped on stderr")
	root.PersistentFlags().StringVar(&g.cpuProfile, "cpu-profile", "", "write a CPU profile of the command to `FILE` (for go tool pprof)")
	_ = root.PersistentFlags().MarkHidden("cpu-profile")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if err := g.startProfile(); err != nil {
			return err
		}
		// Every error of the config file is one of reading the input.
		if err := repoconfig.Apply(cmd, args, g.verbose, s.ErrOut); err != nil {
			return failure(err)
		}
		return nil
	}
	root.SetFlagErrorFunc(outputFlagHint)
	root.AddCommand(newRenderCmd(s, g), newCheckCmd(s, g), newVersionCmd(s))
	root.AddCommand(newDiffCmd(s, g))
	root.AddCommand(newServeCmd(s, g), newBootstrapCmd(s))
	root.AddCommand(newTestCmd(s, g))
	root.AddCommand(newExplainCmd(s, g))
	root.AddCommand(newGraphCmd(s, g))
	root.AddCommand(newLintCmd(s, g))
	root.AddCommand(newInitCmd(s))
	return root
}

// outputFlagHint adds a hint to the error of --output on a command that
// has no such flag: kubectl's --output is the format, contourc's is
// --output-format (-o), and only render writes to a file.
func outputFlagHint(cmd *cobra.Command, err error) error {
	if err.Error() == "unknown flag: --output" && cmd.Flags().Lookup("output-format") != nil {
		return fmt.Errorf("%w (%s prints on stdout; for the format, use -o or --output-format)", err, cmd.Name())
	}
	return err
}

// report prints err on w and returns the exit code for it.
func report(w io.Writer, cmd *cobra.Command, err error) int {
	var ee *exitError
	if !errors.As(err, &ee) {
		fmt.Fprintln(w, err)
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitFailure
	}
	lines := flatten(ee.err)
	for _, e := range lines {
		fmt.Fprintln(w, e)
	}
	if ee.code == exitFailure {
		fmt.Fprintf(w, "contourc: %d error(s)\n", len(lines))
	}
	return ee.code
}

// flatten splits errors.Join'ed errors (at any depth) into their parts, so
// that each problem is printed and counted on its own line. An error that
// wraps several errors but says more than their messages (fmt.Errorf with
// two %w) is kept whole, so no text is lost.
func flatten(err error) []error {
	multi, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	parts := multi.Unwrap()
	msgs := make([]string, len(parts))
	for i, p := range parts {
		msgs[i] = p.Error()
	}
	if err.Error() != strings.Join(msgs, "\n") {
		return []error{err}
	}
	var out []error
	for _, p := range parts {
		out = append(out, flatten(p)...)
	}
	return out
}
