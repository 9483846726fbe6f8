// Package engines runs the engines contourc does not link: Helm's template
// engine and Flux's kustomization generator. Their packages (Helm's
// template functions and JSON Schema compiler, controller-runtime's client
// and client-go's type registry) initialise on every start of a program
// that links them, which cost `contourc version` and every other run
// 6-7 ms each. So they live in a program of their own, contourc-engines
// (cmd/contourc-engines), which contourc starts only when a chart is to be
// rendered or a Flux Kustomization built.
//
// contourc and the helper speak JSON lines over the helper's stdin and
// stdout: a hello first, which refuses a helper of another protocol, then
// one request and one answer at a time, each naming its operation. A
// helper process lives for as long as a Hold (a Load) lasts, so that a
// repository following many Kustomizations starts it once, not once per
// Kustomization.
//
// A program that links the engines (contourc-engines itself, tests) runs
// them in its own process: their packages Register their operations.
package engines

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Name is the helper program's name.
const Name = "contourc-engines"

// Env names a helper program to use instead of the one found beside the
// running executable or on PATH.
const Env = "CONTOURC_ENGINES"

// Protocol is the version of the exchange. A helper of another protocol is
// refused: it was built from another contourc, and what it would render
// could differ from what this one expects.
const Protocol = 2

// The operations.
const (
	// OpHelmRender renders a chart (loader/helmchart).
	OpHelmRender = "helm.render"
	// OpFluxGenerate generates a Flux Kustomization's kustomization file
	// (loader/flux).
	OpFluxGenerate = "flux.generate"
	// opHello is the handshake.
	opHello = "hello"
)

// Handler runs one operation on its JSON request and returns what is
// encoded as its answer.
type Handler func(req json.RawMessage) (any, error)

var (
	registeredMu sync.RWMutex
	registered   map[string]Handler
)

// Register makes op run in this process: called by the init of the
// packages that implement it, which only programs that link them run.
func Register(op string, h Handler) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	if registered == nil {
		registered = map[string]Handler{}
	}
	registered[op] = h
}

func inProcess(op string) Handler {
	registeredMu.RLock()
	defer registeredMu.RUnlock()
	return registered[op]
}

// HelperError is a failure to run the helper or to talk with it, as
// opposed to the error of the operation itself, which Call returns as the
// engine worded it.
type HelperError struct{ Msg string }

func (e *HelperError) Error() string { return e.Msg }

// IsHelperError reports whether err is the helper's failure rather than
// the operation's.
func IsHelperError(err error) bool {
	var he *HelperError
	return errors.As(err, &he)
}

// Call runs op on req and decodes its answer into resp: in this process
// when op is registered, else in the helper program.
func Call(op string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var answer json.RawMessage
	if h := inProcess(op); h != nil {
		// Through JSON as in the helper, so that a test in one process
		// sees what crosses the process boundary.
		r, err := h(body)
		if err != nil {
			return errors.New(err.Error())
		}
		if answer, err = json.Marshal(r); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	} else if answer, err = helpers.call(op, body); err != nil {
		return err
	}
	if err := json.Unmarshal(answer, resp); err != nil {
		return &HelperError{Msg: fmt.Sprintf("%s: unreadable answer to %s: %v", Name, op, err)}
	}
	return nil
}

// envelope is one line from contourc to the helper.
type envelope struct {
	Op       string          `json:"op"`
	Protocol int             `json:"protocol,omitempty"`
	Request  json.RawMessage `json:"request,omitempty"`
}

// answer is one line from the helper to contourc.
type answer struct {
	// Engines is Name in the hello's answer: a program echoing what it
	// reads (cat) would otherwise answer the hello with its protocol.
	Engines  string          `json:"engines,omitempty"`
	Protocol int             `json:"protocol,omitempty"`
	Version  string          `json:"version,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Registered are the operations this program runs itself: the helper's
// handlers.
func Registered() map[string]Handler {
	registeredMu.RLock()
	defer registeredMu.RUnlock()
	out := make(map[string]Handler, len(registered))
	for op, h := range registered {
		out[op] = h
	}
	return out
}

// FluxGenerateRequest asks for the kustomization file Flux's
// kustomize-controller generates for a Kustomization (OpFluxGenerate).
type FluxGenerateRequest struct {
	// Root is the source's root: the repository's checkout.
	Root string `json:"root"`
	// Dir is the directory to build, spec.path inside Root.
	Dir string `json:"dir"`
	// Kustomization is the Kustomization object as JSON.
	Kustomization json.RawMessage `json:"kustomization"`
	// Base, when set, is the kustomization to write the options into in
	// place of Dir's own file on disk (protocol 2).
	Base *FluxBase `json:"base,omitempty"`
}

// FluxBase is the kustomization file of a Flux build's directory as the
// GitRepository's artifact holds it, when that is not the file the
// generator would find on disk: another of kustomize's names (the first
// is left out of the artifact), or none, when Listed: then the generator's
// listing of the directory's manifests, made over the artifact.
type FluxBase struct {
	// File is its path in Dir.
	File string `json:"file"`
	// Data is its content, unless Listed.
	Data []byte `json:"data,omitempty"`
	// Listed says it is generated, listing Resources ("./x.yaml", "./sub").
	Listed    bool     `json:"listed,omitempty"`
	Resources []string `json:"resources,omitempty"`
}

// FluxGenerated is the generated kustomization file.
type FluxGenerated struct {
	// File is its path: Dir's kustomization file, existing or not.
	File string `json:"file"`
	// Data is its content.
	Data []byte `json:"data"`
}
