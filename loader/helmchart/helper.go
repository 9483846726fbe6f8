package helmchart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// HelperName is the program that renders charts for a contourc that does
// not link Helm (see the package doc).
const HelperName = "contourc-helm"

// HelperEnv names a helper program to use instead of the one found
// beside the running executable or on PATH.
const HelperEnv = "CONTOURC_HELM"

// request and response are what contourc and its helper exchange, as JSON
// on the helper's stdin and stdout.
type request struct {
	ChartDir string  `json:"chartDir"`
	Options  Options `json:"options"`
}

type response struct {
	Result *Result `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// renderInHelper runs the helper on one chart.
func renderInHelper(chartDir string, opts Options) (*Result, error) {
	helper, err := findHelper()
	if err != nil {
		return nil, err
	}
	in, err := json.Marshal(request{ChartDir: chartDir, Options: opts})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Describe(chartDir, opts), err)
	}
	cmd := exec.Command(helper)
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %s failed: %v %s", Describe(chartDir, opts), helper, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var resp response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		return nil, fmt.Errorf("%s: unreadable answer from %s: %v", Describe(chartDir, opts), helper, err)
	}
	if resp.Error != "" {
		return nil, errors.New(resp.Error)
	}
	if resp.Result == nil {
		return nil, fmt.Errorf("%s: %s gave no result", Describe(chartDir, opts), helper)
	}
	return resp.Result, nil
}

// findHelper looks for the helper where make build and go install put
// it: $CONTOURC_HELM, beside the running executable, then on PATH.
func findHelper() (string, error) {
	if p := os.Getenv(HelperEnv); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), HelperName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("rendering Helm charts needs the %s program beside contourc or on PATH "+
		"(make build builds it into bin/; go install github.com/contourc/contourc/cmd/%s)", HelperName, HelperName)
}

// ServeHelper is the helper's main: one request on in, one response on
// out. render is helmrender's renderer.
func ServeHelper(in io.Reader, out io.Writer, render func(string, Options) (*Result, error)) error {
	var req request
	var resp response
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		resp.Error = fmt.Sprintf("%s: unreadable request: %v", HelperName, err)
	} else if r, err := render(req.ChartDir, req.Options); err != nil {
		resp.Error = err.Error()
	} else {
		resp.Result = r
	}
	return json.NewEncoder(out).Encode(resp)
}
