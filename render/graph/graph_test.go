package graph

import (
	"testing"
)

func TestJudgeFields(t *testing.T) {
	for _, c := range []struct {
		name   string
		status map[string]any
		want   Status
		msg    string
	}{
		{"valid HTTPProxy", map[string]any{"currentStatus": "valid", "description": "Valid HTTPProxy",
			"conditions": []any{map[string]any{"type": "Valid", "status": "True"}}}, StatusValid, "Valid HTTPProxy"},
		{"invalid HTTPProxy names its first error", map[string]any{"currentStatus": "invalid", "description": "At least one error present, see Errors for details",
			"conditions": []any{map[string]any{"type": "Valid", "status": "False", "errors": []any{map[string]any{"message": "service not found"}}}}}, StatusInvalid, "service not found"},
		{"orphaned HTTPProxy", map[string]any{"currentStatus": "orphaned", "description": "not part of a delegation chain"}, StatusWarning, "not part of a delegation chain"},
		{"valid with a warning", map[string]any{"currentStatus": "valid",
			"conditions": []any{map[string]any{"type": "Valid", "status": "True", "warnings": []any{map[string]any{"message": "deprecated"}}}}}, StatusWarning, "deprecated"},
		{"route not accepted by a parent", map[string]any{"parents": []any{map[string]any{"conditions": []any{
			map[string]any{"type": "Accepted", "status": "False", "message": "no matching listener"}}}}}, StatusInvalid, "no matching listener"},
		{"unresolved refs", map[string]any{"parents": []any{map[string]any{"conditions": []any{
			map[string]any{"type": "Accepted", "status": "True"},
			map[string]any{"type": "ResolvedRefs", "status": "False", "message": "service missing"}}}}}, StatusWarning, "ResolvedRefs: service missing"},
		{"accepted Gateway", map[string]any{"conditions": []any{map[string]any{"type": "Accepted", "status": "True"}, map[string]any{"type": "Programmed", "status": "True"}}}, StatusValid, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := judgeFields(c.status)
			if got.status != c.want || got.message != c.msg {
				t.Errorf("judgeFields = %q %q, want %q %q", got.status, got.message, c.want, c.msg)
			}
		})
	}
}

func TestDOTQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:             `"plain"`,
		`say "hi"`:          `"say \"hi\""`,
		`a\b`:               `"a\\b"`,
		"two\nlines":        `"two\nlines"`,
		`^/img/[0-9]+\.png`: `"^/img/[0-9]+\\.png"`,
	} {
		if got := dotQuote(in); got != want {
			t.Errorf("dotQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestWorse(t *testing.T) {
	for _, c := range []struct{ a, b, want Status }{
		{"", "", StatusValid},
		{"", StatusWarning, StatusWarning},
		{StatusInvalid, StatusWarning, StatusInvalid},
		{StatusWarning, StatusValid, StatusWarning},
	} {
		if got := worse(c.a, c.b); got != c.want {
			t.Errorf("worse(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	long := "#5 prefix \"/api\", header x-api-version exact \"v2\" and more"
	if got := cut(long); len([]rune(got)) != maxChars || got[len(got)-len("…"):] != "…" {
		t.Errorf("cut(%q) = %q", long, got)
	}
	if got := cut("short"); got != "short" {
		t.Errorf("cut(short) = %q", got)
	}
}
