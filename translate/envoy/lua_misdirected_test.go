package envoy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMisdirectedRequestLuaIntent checks, without a Lua runtime, that the
// script handles requests and answers 421 after comparing the lower-cased
// :authority with the connection's SNI.
func TestMisdirectedRequestLuaIntent(t *testing.T) {
	for _, want := range []string{
		"function envoy_on_request(",
		`":authority"`,
		"string.lower(",
		"requestedServerName()",
		`[":status"] = "421"`,
		":respond(",
	} {
		if !strings.Contains(misdirectedRequestLua, want) {
			t.Errorf("misdirectedRequestLua does not contain %q", want)
		}
	}
	if strings.Contains(misdirectedRequestLua, "envoy_on_response") {
		t.Error("misdirectedRequestLua must only act on requests")
	}
}

// TestCookieRewriteLuaIntent checks, without a Lua runtime, that the script
// works on responses, reads the per-route rules the route builder sets and
// handles the four rewritable attributes.
func TestCookieRewriteLuaIntent(t *testing.T) {
	for _, want := range []string{
		"function envoy_on_response(",
		`:filterContext():get("` + hcmCookieRewriteRulesKey + `")`,
		`"set-cookie"`,
		"rule.Path", "rule.Domain", "rule.SameSite", "rule.Secure",
	} {
		if !strings.Contains(cookieRewriteLua, want) {
			t.Errorf("cookieRewriteLua does not contain %q", want)
		}
	}
	if hcmCookieRewriteLuaName != "cookie_rewrite.lua" {
		t.Errorf("source code name %q, Contour's routes select %q", hcmCookieRewriteLuaName, "cookie_rewrite.lua")
	}
}

// luaInterpreter returns a Lua 5.1-compatible interpreter from PATH, or "".
func luaInterpreter() string {
	for _, name := range []string{"luajit", "lua5.1", "lua"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestLuaScriptsBehaviour runs each script against a mock of Envoy's stream
// handle API (testdata/envoy_listener/envoy_lua_mock.lua) and a spec of
// expected behaviour, when a Lua interpreter is installed (e.g. the luajit
// package); otherwise it is skipped.
func TestLuaScriptsBehaviour(t *testing.T) {
	lua := luaInterpreter()
	if lua == "" {
		t.Skip("no Lua interpreter (luajit, lua5.1, lua) in PATH")
	}
	mock, err := os.ReadFile(filepath.Join(listenerGoldenDir, "envoy_lua_mock.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, script, spec string }{
		{"misdirected", misdirectedRequestLua, "misdirected_spec.lua"},
		{"cookie_rewrite", cookieRewriteLua, "cookie_rewrite_spec.lua"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := os.ReadFile(filepath.Join(listenerGoldenDir, tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			prog := filepath.Join(t.TempDir(), tc.name+".lua")
			src := string(mock) + "\n" + tc.script + "\n" + string(spec)
			if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(lua, prog).CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "ok" {
				t.Errorf("%s %s: %v\n%s", filepath.Base(lua), tc.spec, err, out)
			}
		})
	}
}
