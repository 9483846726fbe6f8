package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/lint"
	"github.com/contourc/contourc/translate"
)

// lintPrinter is lint's output format of an -o value (a switch, not a
// map: nothing to build when contourc starts).
func lintPrinter(format string) (func(io.Writer, []lint.Finding) error, bool) {
	switch format {
	case "table":
		return lint.WriteTable, true
	case "json":
		return lint.WriteJSON, true
	case "github":
		return printLintAnnotations, true
	case "sarif":
		return lint.WriteSARIF, true
	}
	return nil, false
}

// lintFlags are the flags lint and check --lint share: which rules run and
// how the certificate rules see time.
type lintFlags struct {
	disable    []string
	expiryDays int
	now        string
}

func (f *lintFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.disable, "disable", nil, "lint rule `ID`s not to report (comma-separated or repeated), e.g. CTC1401")
	fs.IntVar(&f.expiryDays, "cert-expiry-days", lint.DefaultCertExpiryDays, "report certificates that expire within this many days (CTC1202); 0 turns the rule off")
	fs.StringVar(&f.now, "now", "", "check certificates against this `TIME` (RFC 3339, e.g. 2026-01-31T00:00:00Z) instead of the clock, for reproducible runs")
}

// options checks the flags and makes the lint options. The clock is read
// here and nowhere else.
func (f *lintFlags) options() (lint.Options, error) {
	ids := repoconfig.NonEmpty(f.disable)
	for _, id := range ids {
		if _, ok := lint.RuleByID(id); !ok {
			return lint.Options{}, fmt.Errorf("--disable %q: no such lint rule (see docs/lint.md)", id)
		}
	}
	if f.expiryDays < 0 {
		return lint.Options{}, fmt.Errorf("--cert-expiry-days %d: want 0 or more", f.expiryDays)
	}
	now := time.Now()
	if f.now != "" {
		t, err := time.Parse(time.RFC3339, f.now)
		if err != nil {
			return lint.Options{}, fmt.Errorf("--now %q: want an RFC 3339 time such as 2026-01-31T00:00:00Z", f.now)
		}
		now = t
	}
	return lint.Options{Now: now, CertExpiryDays: f.expiryDays, Disable: ids}, nil
}

type lintOptions struct {
	input  inputFlags
	lint   lintFlags
	format string
	failOn string
}

func newLintCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [flags] [PATH...]",
		Short: "Find routing mistakes Contour accepts without a word",
		Long: "Read manifests like check does and report what Contour accepts but is most likely a mistake:\n" +
			"routes that can never match or that Contour drops, FQDNs claimed twice, certificates that do not\n" +
			"cover their host or expire soon, Service ports that do not exist, other controllers' annotations,\n" +
			"Gateway API routes and listeners attached to nothing. Each rule has an ID (docs/lint.md);\n" +
			"suppress one with --disable, the lint.disable key of .contourc.yaml, or the annotation\n" +
			lint.AnnotationDisable + ": ID,ID on the object.\n" +
			"Exits 1 when a finding is at or above --fail-on (default error), 2 when the input cannot be read.",
		Example: "  contourc lint ./manifests\n" +
			"  contourc lint -o sarif ./manifests > contourc.sarif\n" +
			"  contourc lint --fail-on warning --disable CTC1401 ./manifests",
		RunE: o.input.runOnPaths(func(paths []string) error { return o.run(paths, g, s) }, g, s),
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "table", "output format: table, json, github (GitHub Actions annotations) or sarif (SARIF 2.1.0, for code scanning)")
	fs.StringVar(&o.failOn, "fail-on", "error", "exit 1 on findings of this severity or above: error, warning, info, or none")
	o.lint.register(fs)
	o.input.register(fs)
	o.input.registerInputSize(fs)
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"table", "json", "github", "sarif"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "info", "none"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *lintOptions) run(paths []string, g *globalFlags, s IOStreams) error {
	write, ok := lintPrinter(o.format)
	if !ok {
		return fmt.Errorf("invalid --output-format %q: want table, json, github or sarif", o.format)
	}
	failOn, ok := lint.ParseSeverity(o.failOn)
	if !ok && o.failOn != "none" {
		return fmt.Errorf("invalid --fail-on %q: want error, warning, info or none", o.failOn)
	}
	opts, err := o.lint.options()
	if err != nil {
		return err
	}
	o.input.statusOnly = true // the DAG and status, no Envoy resources
	res, loaded, err := loadInput(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	found := lint.Run(loaded.Objects, res, opts)
	if len(found) == 0 && o.format == "table" {
		fmt.Fprintln(s.ErrOut, "no lint findings")
	} else if err := writeBuffered(s.Out, func(w io.Writer) error { return write(w, found) }); err != nil {
		return failure(err)
	}
	return lintVerdict(found, failOn, o.failOn != "none")
}

// lintVerdict is exit 1 when some findings are at or above failOn.
func lintVerdict(found []lint.Finding, failOn lint.Severity, fail bool) error {
	if n := lint.AtOrAbove(found, failOn); fail && n > 0 {
		return findings(fmt.Errorf("contourc: %d lint finding(s) at or above %s (--fail-on)", n, failOn))
	}
	return nil
}

// printLintAnnotations writes a workflow command per finding, on its
// object's file and line (info findings as notices).
func printLintAnnotations(w io.Writer, fs []lint.Finding) error {
	for _, f := range fs {
		level := f.Severity.String()
		if f.Severity == lint.Info {
			level = "notice"
		}
		writeAnnotation(w, level, f.Source.File, f.Source.Line, f.Rule+" "+f.Object.String(), f.Message+builtThrough(f.Source))
	}
	return nil
}

// writeCheckWithLint is check --lint's output: the status as check
// writes it, then the findings (table, github); json and yaml write one
// object, {"status": [...], "lint": [...]}, so that a script reads both.
func writeCheckWithLint(w io.Writer, format string, res *translate.Result, found []lint.Finding) error {
	switch format {
	case "json", "yaml":
		var b bytes.Buffer
		if err := lint.WriteJSON(&b, found); err != nil {
			return err
		}
		list := res.Status
		if list == nil {
			list = []translate.ObjectStatus{}
		}
		out := struct {
			Status []translate.ObjectStatus `json:"status"`
			Lint   json.RawMessage          `json:"lint"`
		}{list, b.Bytes()}
		if format == "yaml" {
			y, err := yaml.Marshal(out)
			if err != nil {
				return err
			}
			_, err = w.Write(y)
			return err
		}
		j, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(j, '\n'))
		return err
	case "github":
		if err := printGitHubAnnotations(w, res); err != nil {
			return err
		}
		return printLintAnnotations(w, found)
	}
	if err := printStatusTable(w, res.Status); err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return lint.WriteTable(w, found)
}

// checkLintVerdict fails check --lint on lint errors, and with --fail-on
// warning on lint warnings too.
func checkLintVerdict(found []lint.Finding, failOn map[string]bool) error {
	s := lint.Error
	if failOn["warning"] {
		s = lint.Warning
	}
	return lintVerdict(found, s, true)
}
