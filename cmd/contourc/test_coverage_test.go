package main

// End-to-end tests of `contourc test --coverage` and --min-coverage: the
// reports are golden files under testdata/routetest/coverage (regenerate
// with `go test ./cmd/contourc -run Coverage -update` and review).

import (
	"path/filepath"
	"strings"
	"testing"
)

var coverageGolden = filepath.Join(routeTestData, "coverage")

// Two of the shop's cases: the home page over https and the delegated
// blog, which leave most routes of www.example.com unreached.
const coverageRun = "^(home page over https|blog is delegated)$"

func TestRouteTestsCoverageGolden(t *testing.T) {
	shop := filepath.Join(routeTestData, "shop")
	for _, c := range []struct{ format, file string }{
		{"text", "shop.txt"},
		{"json", "shop.json"},
		{"junit", "shop.xml"},
	} {
		t.Run(c.format, func(t *testing.T) {
			got := runCLI(t, "", "test", "--coverage", "--run", coverageRun, "-o", c.format, shop)
			got.wantExit(t, exitOK)
			goldenFile(t, filepath.Join(coverageGolden, c.file), []byte(got.stdout))
		})
	}
}

func TestRouteTestsMinCoverage(t *testing.T) {
	shop := filepath.Join(routeTestData, "shop")
	t.Run("below", func(t *testing.T) {
		got := runCLI(t, "", "test", "--min-coverage", "50", "--run", coverageRun, "-o", "junit", shop)
		got.wantExit(t, exitFindings)
		goldenFile(t, filepath.Join(coverageGolden, "shop-min50.xml"), []byte(got.stdout))
		if !strings.Contains(got.stderr, "contourc: route coverage 10.5% (2 of 19 routes) is below --min-coverage 50%") {
			t.Errorf("stderr:\n%s", got.stderr)
		}
	})
	t.Run("text says why it fails", func(t *testing.T) {
		got := runCLI(t, "", "test", "--min-coverage", "50", "--run", coverageRun, shop)
		got.wantExit(t, exitFindings)
		if !strings.Contains(got.stdout, "FAIL: coverage 10.5% is below --min-coverage 50%\n") {
			t.Errorf("stdout:\n%s", got.stdout)
		}
	})
	t.Run("reached", func(t *testing.T) {
		got := runCLI(t, "", "test", "--min-coverage", "100", filepath.Join(routeTestData, "gateway"))
		got.wantExit(t, exitOK)
		if !strings.Contains(got.stdout, "coverage: 6 of 6 route(s) reached (100.0%)\n") {
			t.Errorf("stdout:\n%s", got.stdout)
		}
	})
	t.Run("exact, not rounded", func(t *testing.T) {
		// 11 of 19 is 57.89%: reported as 57.8, yet enough for 57.85,
		// and not for 57.9.
		ok := runCLI(t, "", "test", "--min-coverage", "57.85", shop)
		ok.wantExit(t, exitOK)
		got := runCLI(t, "", "test", "--min-coverage", "57.9", shop)
		got.wantExit(t, exitFindings)
	})
	t.Run("not a percentage", func(t *testing.T) {
		got := runCLI(t, "", "test", "--min-coverage", "101", shop)
		got.wantExit(t, exitFailure)
		if !strings.Contains(got.stderr, "invalid --min-coverage 101: want a percentage from 0 to 100") {
			t.Errorf("stderr:\n%s", got.stderr)
		}
	})
	t.Run("without --coverage nothing is said", func(t *testing.T) {
		got := runCLI(t, "", "test", shop)
		got.wantExit(t, exitOK)
		if strings.Contains(got.stdout, "coverage") {
			t.Errorf("stdout:\n%s", got.stdout)
		}
	})
}
