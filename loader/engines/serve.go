package engines

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// maxLine bounds one request: a Kustomization or a chart's options, far
// below it.
const maxLine = 64 << 20

// Serve is the helper's main loop: it answers the hello with Protocol and
// version, then every request with the handler of its operation, until in
// ends. An operation's error is part of its answer; only a failure to
// read or write ends the loop with an error.
func Serve(in io.Reader, out io.Writer, version string, handlers map[string]Handler) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	enc := json.NewEncoder(out) // one line per answer
	for sc.Scan() {
		if err := enc.Encode(serveOne(sc.Bytes(), version, handlers)); err != nil {
			return err
		}
	}
	return sc.Err()
}

func serveOne(line []byte, version string, handlers map[string]Handler) answer {
	var e envelope
	if err := json.Unmarshal(line, &e); err != nil {
		return answer{Error: fmt.Sprintf("%s: unreadable request: %v", Name, err)}
	}
	if e.Op == opHello {
		return answer{Engines: Name, Protocol: Protocol, Version: version, Result: json.RawMessage("{}")}
	}
	h := handlers[e.Op]
	if h == nil {
		return answer{Error: fmt.Sprintf("%s: unknown operation %q", Name, e.Op)}
	}
	r, err := h(e.Request)
	if err != nil {
		return answer{Error: err.Error()}
	}
	body, err := json.Marshal(r)
	if err != nil {
		return answer{Error: fmt.Sprintf("%s: %s: %v", Name, e.Op, err)}
	}
	return answer{Result: body}
}
