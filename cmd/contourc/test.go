package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/routetest"
	"github.com/contourc/contourc/translate"
)

// reporters are test's output formats, by -o value.
// cov is nil without --coverage.
var reporters = map[string]func(w io.Writer, r []routetest.Result, cov *routetest.Coverage, verbose bool) error{
	"text": func(w io.Writer, r []routetest.Result, cov *routetest.Coverage, verbose bool) error {
		if err := routetest.WriteText(w, r, verbose); err != nil || cov == nil {
			return err
		}
		return routetest.WriteCoverageText(w, cov)
	},
	"json": func(w io.Writer, r []routetest.Result, cov *routetest.Coverage, _ bool) error {
		return routetest.WriteJSON(w, r, cov)
	},
	"junit": func(w io.Writer, r []routetest.Result, cov *routetest.Coverage, _ bool) error {
		return routetest.WriteJUnit(w, r, cov)
	},
}

type testOptions struct {
	input  inputFlags
	format string
	run    string
	// coverage reports the routes no case reached; minCoverage (a
	// percentage, -1 when not given) fails the run below it.
	coverage    bool
	minCoverage float64
}

func newTestCmd(s IOStreams, g *globalFlags) *cobra.Command {
	o := &testOptions{}
	cmd := &cobra.Command{
		Use:   "test [flags] TESTFILE... -- PATH...\n  contourc test [flags] PATH...",
		Short: "Check where requests go against the expectations of route test files",
		Long: "Render the manifests at PATH like render does, send each test case's request through\n" +
			"the generated listeners and routes with Envoy's matching rules, and compare what\n" +
			"happens with the case's expectations (route source, Service, redirect, headers...).\n" +
			"Without --, test files are the *.test.yaml files under each PATH's tests/ directory\n" +
			"and the manifests are the other files under PATH. See docs/route-tests.md.\n" +
			"--coverage adds, per virtual host, the routes no case reached (the object and file:line\n" +
			"each came from) and the percentage reached; --min-coverage N fails below N percent.\n" +
			"Exits 1 when any case fails or coverage is below --min-coverage, 2 when the tests or\n" +
			"manifests cannot be read.",
		Example: "  contourc test ./deploy                      # deploy/tests/*.test.yaml against deploy/\n" +
			"  contourc test routes.test.yaml -- ./manifests\n" +
			"  contourc test -o junit ./deploy > route-tests.xml\n" +
			"  contourc test --min-coverage 80 ./deploy     # fail when under 80% of the routes are reached",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runTests(args, cmd.ArgsLenAtDash(), g, s)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "text", "output format: text (like go test), json or junit")
	fs.StringVar(&o.run, "run", "", "run only the cases whose name matches `REGEXP`")
	fs.BoolVar(&o.coverage, "coverage", false, "report, per virtual host, the routes no case reached")
	fs.Float64Var(&o.minCoverage, "min-coverage", -1, "fail (exit 1) when under `N` percent of the routes are reached (implies --coverage)")
	o.input.register(fs)
	o.input.registerInputSize(fs)
	o.input.instances.every = true // each case goes to the instance that routes it
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"text", "json", "junit"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *testOptions) runTests(args []string, dash int, g *globalFlags, s IOStreams) error {
	report, ok := reporters[o.format]
	if !ok {
		return fmt.Errorf("invalid --output-format %q: want text, json or junit", o.format)
	}
	if o.minCoverage != -1 && (o.minCoverage < 0 || o.minCoverage > 100) {
		return fmt.Errorf("invalid --min-coverage %g: want a percentage from 0 to 100", o.minCoverage)
	}
	var filter *regexp.Regexp
	if o.run != "" {
		re, err := regexp.Compile(o.run)
		if err != nil {
			return fmt.Errorf("invalid --run: %v", err)
		}
		filter = re
	}
	testFiles, paths, err := testArgs(args, dash)
	if err != nil {
		return err
	}
	cases, err := readCases(testFiles)
	if err != nil {
		return failure(err)
	}
	if filter != nil {
		cases = slices.DeleteFunc(cases, func(c routetest.Case) bool { return !filter.MatchString(c.Name) })
		if len(cases) == 0 {
			return failure(fmt.Errorf("no test case matches --run %q", o.run))
		}
	}
	res, sources, err := translateWithSources(paths, &o.input, g, s)
	if err != nil {
		return err
	}
	// Invalid objects are served without their bad parts, which is what
	// the cases are tested against; say so, as render does.
	if err := (&renderOptions{}).judge(res.Status, s.ErrOut); err != nil {
		return err
	}
	configs := make([]*routetest.Config, len(o.input.instances.runs))
	for i, r := range o.input.instances.runs {
		configs[i] = routetest.New(&r.Result.Resources, sources)
	}
	results, decidedBy := runCases(o.input.instances.runs, configs, cases)
	var cov *routetest.Coverage
	if o.coverage || o.minCoverage >= 0 {
		cov = coverage(o.input.instances.runs, configs, results, decidedBy)
		if o.minCoverage >= 0 {
			cov.Minimum = &o.minCoverage
		}
	}
	if err := report(s.Out, results, cov, g.verbose); err != nil {
		return failure(err)
	}
	var problems []error
	if _, failed := routetest.Count(results); failed > 0 {
		problems = append(problems, fmt.Errorf("contourc: %d of %d route test case(s) failed", failed, len(results)))
	}
	if cov != nil && cov.Minimum != nil && cov.Below(*cov.Minimum) {
		problems = append(problems, fmt.Errorf("contourc: route coverage %.1f%% (%d of %d routes) is below --min-coverage %g%%", cov.Percent, cov.Reached, cov.Routes, *cov.Minimum))
	}
	if len(problems) > 0 {
		return findings(errors.Join(problems...))
	}
	return nil
}

// runCases runs the cases against the one instance's configuration, or,
// with several, each case against the instance that routes its request
// (as explain picks it; the first of several that do). decidedBy is the
// index of the instance each result's decision is of.
func runCases(runs []instances.Run, configs []*routetest.Config, cases []routetest.Case) (out []routetest.Result, decidedBy []int) {
	decidedBy = make([]int, len(cases))
	if len(runs) == 1 {
		return routetest.Run(configs[0], cases), decidedBy
	}
	out = make([]routetest.Result, len(cases))
	for i, c := range cases {
		out[i].Case = c
		all := make([]instanceDecision, 0, len(runs))
		for _, cfg := range configs {
			d, err := cfg.Evaluate(c.Request)
			if err != nil {
				out[i].Err = err
				break
			}
			all = append(all, instanceDecision{runs[len(all)].Name, d})
		}
		if out[i].Err != nil {
			continue
		}
		chosen := routing(all)[0]
		decidedBy[i] = slices.IndexFunc(runs, func(r instances.Run) bool { return r.Name == chosen.Instance })
		out[i].Decision = chosen.Decision
		out[i].Failures = routetest.Compare(c, chosen.Decision)
	}
	return out, decidedBy
}

// coverage is the routes the results reached: of the one instance's
// configuration, or of each instance's with the results it decided, its
// route configurations named after it.
func coverage(runs []instances.Run, configs []*routetest.Config, results []routetest.Result, decidedBy []int) *routetest.Coverage {
	if len(runs) == 1 {
		return configs[0].Coverage(results)
	}
	names := make([]string, len(runs))
	covs := make([]*routetest.Coverage, len(runs))
	for i, r := range runs {
		var own []routetest.Result
		for j, res := range results {
			if decidedBy[j] == i {
				own = append(own, res)
			}
		}
		names[i], covs[i] = r.Name, configs[i].Coverage(own)
	}
	return routetest.Merge(names, covs)
}

// testArgs splits test's arguments into test files and manifest paths:
// around "--" when there is one, else by the tests/ directory convention.
func testArgs(args []string, dash int) (testFiles, paths []string, err error) {
	if dash >= 0 {
		if dash == 0 {
			return nil, nil, errors.New("test needs at least one TESTFILE before --")
		}
		if dash == len(args) {
			return nil, nil, errors.New("test needs at least one PATH after --: a file, a directory or - for stdin")
		}
		testFiles, err = routetest.TestFiles(args[:dash])
		if err != nil {
			return nil, nil, failure(err)
		}
		return testFiles, args[dash:], nil
	}
	if len(args) == 0 {
		return nil, nil, errors.New("test needs TESTFILE... -- PATH..., or PATH... with test files under PATH/tests/")
	}
	testFiles, paths, err = routetest.Discover(args)
	if err != nil {
		return nil, nil, failure(err)
	}
	if len(testFiles) == 0 {
		return nil, nil, failure(fmt.Errorf("no *%s file under tests/ of %v (or name the test files before --)", routetest.TestFileSuffix, args))
	}
	if len(paths) == 0 {
		return nil, nil, failure(fmt.Errorf("no manifests next to the tests in %v", args))
	}
	return testFiles, paths, nil
}

// readCases reads every test file, reporting the problems of all of them.
func readCases(files []string) ([]routetest.Case, error) {
	var cases []routetest.Case
	var errs []error
	for _, f := range files {
		tf, err := routetest.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases = append(cases, tf.Cases...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cases, nil
}

// translateWithSources is translateInput plus where each object was read,
// so that decisions can name the file and line of a route's object.
// translateInput keeps the loader's result to itself, so the inputs are
// loaded a second time; stdin is read once and replayed.
func translateWithSources(paths []string, f *inputFlags, g *globalFlags, s IOStreams) (*translate.Result, routetest.Sources, error) {
	stdin := s.In
	if slices.Contains(paths, "-") && s.In != nil {
		// One byte over the limit is enough for the loader to refuse it.
		data, err := io.ReadAll(io.LimitReader(s.In, int64(f.maxInputSize)+1))
		if err != nil {
			return nil, nil, failure(fmt.Errorf("reading stdin: %v", err))
		}
		s.In, stdin = bytes.NewReader(data), bytes.NewReader(data)
	}
	res, err := translateInput(paths, f, g, s)
	if err != nil {
		return nil, nil, err
	}
	loaded, err := f.source.load(paths, f.loadOptions(stdin))
	if err != nil {
		return nil, nil, err
	}
	return res, routetest.SourcesFrom(loaded.Objects), nil
}
