package engines

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// helpers are the helper processes of this program. Loading holds them
// (Hold) for as long as it runs; idle ones wait for the next call, one per
// caller running at once (charts given as paths render in parallel).
//
// The pool is process-wide on purpose: its helpers are processes of this
// program, which every load of it (a render's, each of serve's reloads, a
// diff's two sides) may share, and Hold is called by whoever runs loads
// without handing anything down to the loader's many callers of Call.
var helpers pool

type pool struct {
	mu    sync.Mutex
	holds int
	idle  []*helper
	// helloTimeout, when set, replaces defaultHelloTimeout (tests).
	helloTimeout time.Duration
}

// Hold keeps helper processes started from now on alive until release is
// called, so that the calls in between share them. Holds nest; the last
// release ends the idle helpers. Calls outside any hold start a helper
// each and end it after.
func Hold() (release func()) {
	helpers.mu.Lock()
	helpers.holds++
	helpers.mu.Unlock()
	var once sync.Once
	return func() { once.Do(helpers.release) }
}

func (p *pool) release() {
	p.mu.Lock()
	p.holds--
	var done []*helper
	if p.holds == 0 {
		done, p.idle = p.idle, nil
	}
	p.mu.Unlock()
	for _, h := range done {
		h.close()
	}
}

func (p *pool) call(op string, req json.RawMessage) (json.RawMessage, error) {
	h, err := p.get()
	if err != nil {
		return nil, err
	}
	res, err := h.call(op, req)
	if h.broken {
		h.close()
	} else {
		p.put(h)
	}
	return res, err
}

func (p *pool) get() (*helper, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		h := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return h, nil
	}
	timeout := cmp.Or(p.helloTimeout, defaultHelloTimeout)
	p.mu.Unlock()
	return start(timeout)
}

func (p *pool) put(h *helper) {
	p.mu.Lock()
	if p.holds > 0 {
		p.idle = append(p.idle, h)
		h = nil
	}
	p.mu.Unlock()
	if h != nil {
		h.close()
	}
}

// helper is one running helper process.
type helper struct {
	path   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	// broken is set when the exchange failed: the process is not reused.
	broken bool
}

// start starts the helper and shakes hands with it, waiting at most
// helloTimeout for its answer.
func start(helloTimeout time.Duration) (*helper, error) {
	path, err := find()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	h := &helper{path: path, cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = &limitedWriter{buf: h.stderr, left: 64 << 10}
	if h.in, err = cmd.StdinPipe(); err != nil {
		return nil, &HelperError{Msg: fmt.Sprintf("%s: %v", path, err)}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &HelperError{Msg: fmt.Sprintf("%s: %v", path, err)}
	}
	h.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		return nil, &HelperError{Msg: fmt.Sprintf("%s: %v", path, err)}
	}
	if err := h.hello(helloTimeout); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// defaultHelloTimeout bounds the wait for the hello's answer: a program
// that is not the helper and reads without answering must not hang
// contourc. Operations themselves are not bounded (a large chart takes its
// time).
const defaultHelloTimeout = 30 * time.Second

// hello refuses a helper that does not speak Protocol: one of another
// contourc, the contourc-helm program that came before it, or a program
// that is not a helper at all.
func (h *helper) hello(timeout time.Duration) error {
	proc := h.cmd.Process
	timer := time.AfterFunc(timeout, func() { proc.Kill() })
	a, err := h.exchange(envelope{Op: opHello, Protocol: Protocol})
	if !timer.Stop() {
		return &HelperError{Msg: fmt.Sprintf("%s did not answer within %s: is it %s?", h.path, timeout, Name)}
	}
	if err != nil {
		return err
	}
	if a.Engines != Name {
		return &HelperError{Msg: fmt.Sprintf("%s did not answer as %s (%s)", h.path, Name, installHint)}
	}
	if a.Protocol != Protocol {
		version := a.Version
		if version == "" {
			version = "unknown version"
		}
		return &HelperError{Msg: fmt.Sprintf("%s (%s) speaks protocol %d, this contourc protocol %d: "+
			"install the %s of this contourc (%s)", h.path, version, a.Protocol, Protocol, Name, installHint)}
	}
	return nil
}

func (h *helper) call(op string, req json.RawMessage) (json.RawMessage, error) {
	a, err := h.exchange(envelope{Op: op, Request: req})
	if err != nil {
		return nil, err
	}
	if a.Error != "" {
		return nil, errors.New(a.Error)
	}
	if a.Result == nil {
		h.broken = true
		return nil, &HelperError{Msg: fmt.Sprintf("%s gave no answer to %s", h.path, op)}
	}
	return a.Result, nil
}

// exchange writes one line and reads one back.
func (h *helper) exchange(e envelope) (*answer, error) {
	line, err := json.Marshal(e)
	if err == nil {
		_, err = h.in.Write(append(line, '\n'))
	}
	if err == nil {
		line, err = h.out.ReadBytes('\n')
		if err == io.EOF && len(line) > 0 {
			err = nil // the old contourc-helm ends its one answer without a newline
		}
	}
	if err != nil {
		h.broken = true
		return nil, h.failed(err)
	}
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		h.broken = true
		return nil, &HelperError{Msg: fmt.Sprintf("unreadable answer from %s: %v", h.path, err)}
	}
	return &a, nil
}

// failed says why the helper stopped answering, with what it wrote on
// stderr.
func (h *helper) failed(err error) error {
	h.in.Close()
	if werr := h.cmd.Wait(); werr != nil {
		err = werr
	}
	h.cmd = nil
	msg := fmt.Sprintf("%s failed: %v", h.path, err)
	if s := strings.TrimSpace(h.stderr.String()); s != "" {
		msg += ": " + s
	}
	return &HelperError{Msg: msg}
}

// close ends the helper: it returns when its stdin closes.
func (h *helper) close() {
	if h.cmd == nil {
		return
	}
	h.in.Close()
	h.cmd.Wait()
	h.cmd = nil
}

// installHint names the ways that install both programs; a bare `go
// install .../cmd/contourc-engines` outside a checkout needs a version.
const installHint = "make build puts it beside contourc in bin/; " +
	"go install github.com/contourc/contourc/cmd/...@VERSION installs both programs, " +
	"and every release archive holds both"

// find looks for the helper where make build and go install put it:
// $CONTOURC_ENGINES, beside the running executable, then on PATH.
func find() (string, error) {
	if p := os.Getenv(Env); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		if p, ok := besideExecutable(exe); ok {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Name); err == nil {
		return p, nil
	}
	return "", &HelperError{Msg: fmt.Sprintf("this needs the %s program, beside contourc, on PATH or named by $%s (%s)", Name, Env, installHint)}
}

// besideExecutable is the helper in the directory of exe's real path.
// Symlinks are resolved first: krew installs kubectl-contourc as a symlink
// in ~/.krew/bin to contourc in its store, where contourc-engines is, and
// os.Executable gives the symlink itself on macOS and Windows (Linux's
// /proc/self/exe is already resolved). A hard link (make install's
// kubectl-contourc) is a file of its own directory and needs nothing.
func besideExecutable(exe string) (string, bool) {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	p := filepath.Join(filepath.Dir(exe), executableName())
	st, err := os.Stat(p)
	return p, err == nil && st.Mode().IsRegular()
}

// executableName is the helper's file name on this OS: Windows runs
// programs by their .exe name, which make dist's archives hold.
func executableName() string {
	if runtime.GOOS == "windows" {
		return Name + ".exe"
	}
	return Name
}

// limitedWriter keeps the first left bytes of what the helper writes on
// stderr: enough for a message, never unbounded.
type limitedWriter struct {
	mu   sync.Mutex
	buf  *bytes.Buffer
	left int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := min(len(p), w.left)
	w.buf.Write(p[:n])
	w.left -= n
	return len(p), nil
}
