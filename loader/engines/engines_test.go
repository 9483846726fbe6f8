package engines

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeEnv makes the test binary the helper: "serve" answers as
// contourc-engines does, with an operation that says which process
// answered; "old" answers as the contourc-helm before it did (one answer
// with no protocol, then exit).
const fakeEnv = "CONTOURC_ENGINES_TEST_FAKE"

func TestMain(m *testing.M) {
	switch os.Getenv(fakeEnv) {
	case "serve":
		err := Serve(os.Stdin, os.Stdout, "v-test", map[string]Handler{"pid": pid, "fail": fail})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "old":
		fmt.Print(`{"error":"chart : not a Helm chart"}`)
		os.Exit(0)
	case "future":
		fmt.Printf(`{"engines":"contourc-engines","protocol":%d,"version":"v99"}`+"\n", Protocol+1)
		os.Exit(0)
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	case "mute":
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "crash":
		fmt.Fprint(os.Stderr, "boom")
		os.Exit(3)
	case "find":
		p, err := find()
		fmt.Print(p, err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func pid(json.RawMessage) (any, error)  { return os.Getpid(), nil }
func fail(json.RawMessage) (any, error) { return nil, errors.New("chart x: bad values") }

func fake(t *testing.T, mode string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, mode)
	t.Setenv(Env, exe)
}

func callPID(t *testing.T) int {
	t.Helper()
	var p int
	if err := Call("pid", struct{}{}, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHoldSharesOneHelper: within a hold, calls go to one process (a
// repository's many Kustomizations start the helper once); outside one,
// each call has its own, ended after it.
func TestHoldSharesOneHelper(t *testing.T) {
	fake(t, "serve")
	release := Hold()
	first := callPID(t)
	for range 5 {
		if p := callPID(t); p != first {
			t.Fatalf("call in a hold answered by process %d, the first by %d", p, first)
		}
	}
	release()
	release() // a second release of the same hold changes nothing
	if helpers.holds != 0 || len(helpers.idle) != 0 {
		t.Fatalf("after release: %d holds, %d idle helpers", helpers.holds, len(helpers.idle))
	}
	a, b := callPID(t), callPID(t)
	if a == b || a == first {
		t.Errorf("calls outside a hold answered by processes %d and %d (the hold's %d): want one each", a, b, first)
	}
}

// TestOperationError: an engine's error comes back worded as the engine
// worded it, not as the helper's failure, and the helper is reused.
func TestOperationError(t *testing.T) {
	fake(t, "serve")
	defer Hold()()
	first := callPID(t)
	err := Call("fail", struct{}{}, new(int))
	if err == nil || err.Error() != "chart x: bad values" || IsHelperError(err) {
		t.Errorf("error %v, want the engine's own", err)
	}
	err = Call("nope", struct{}{}, new(int))
	if err == nil || !strings.Contains(err.Error(), `unknown operation "nope"`) {
		t.Errorf("error %v, want unknown operation", err)
	}
	if p := callPID(t); p != first {
		t.Errorf("helper not reused after an operation's error")
	}
}

// TestHandshake: a helper of another protocol, the contourc-helm of
// before, a program that echoes (cat) or one that never answers are
// refused with what to install.
func TestHandshake(t *testing.T) {
	defer func(d time.Duration) { helpers.helloTimeout = d }(helpers.helloTimeout)
	for mode, want := range map[string]string{
		"future": fmt.Sprintf("(v99) speaks protocol %d, this contourc protocol %d: install", Protocol+1, Protocol) + " the contourc-engines of this contourc (make build",
		"old":    "did not answer as contourc-engines (make build puts it beside contourc in bin/",
		"cat":    "did not answer as contourc-engines (make build",
		"mute":   "did not answer within 1s: is it contourc-engines?",
	} {
		helpers.helloTimeout = 0 // defaultHelloTimeout
		if mode == "mute" {
			helpers.helloTimeout = time.Second
		}
		fake(t, mode)
		err := Call("pid", struct{}{}, new(int))
		if err == nil || !IsHelperError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", mode, err, want)
		}
	}
}

func TestHelperCrash(t *testing.T) {
	fake(t, "crash")
	err := Call("pid", struct{}{}, new(int))
	if err == nil || !IsHelperError(err) || !strings.Contains(err.Error(), "failed: exit status 3: boom") {
		t.Errorf("error %v, want the exit status and stderr", err)
	}
}

func TestHelperMissing(t *testing.T) {
	t.Setenv(Env, "")
	t.Setenv("PATH", t.TempDir())
	err := Call("pid", struct{}{}, new(int))
	want := "this needs the contourc-engines program, beside contourc, on PATH or named by $CONTOURC_ENGINES " +
		"(make build puts it beside contourc in bin/; go install github.com/contourc/contourc/cmd/...@VERSION installs both programs, " +
		"and every release archive holds both)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestInProcess: a registered operation runs here, through JSON as over
// the pipe.
func TestInProcess(t *testing.T) {
	t.Setenv(Env, "/nonexistent")
	Register("test.echo", func(b json.RawMessage) (any, error) {
		var s string
		err := json.Unmarshal(b, &s)
		return s + "!", err
	})
	defer func() {
		registeredMu.Lock()
		delete(registered, "test.echo")
		registeredMu.Unlock()
	}()
	var got string
	if err := Call("test.echo", "hi", &got); err != nil || got != "hi!" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestServeBadLine(t *testing.T) {
	var out strings.Builder
	in := "not json\n" + fmt.Sprintf(`{"op":"hello","protocol":%d}`, Protocol) + "\n"
	if err := Serve(strings.NewReader(in), &out, "v9", nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "contourc-engines: unreadable request") || lines[1] != fmt.Sprintf(`{"engines":"contourc-engines","protocol":%d,"version":"v9","result":{}}`, Protocol) {
		t.Errorf("answers %q", lines)
	}
}
