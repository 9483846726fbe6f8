package routetest

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Request is one HTTP request as a client sends it. Only Authority is
// required; the rest have the defaults a curl command line would have.
type Request struct {
	// Scheme is "http" or "https". Default: https when SNI is set or the
	// listener named by Listener only terminates TLS, else http.
	Scheme string `json:"scheme,omitempty"`
	// Listener selects an Envoy listener by name (ingress_http, https-443)
	// instead of by Port.
	Listener string `json:"listener,omitempty"`
	// Port is the port the client connects to. Default: the port in
	// Authority, else 80 for http and 443 for https.
	Port int `json:"port,omitempty"`
	// Authority is the Host header (:authority), possibly with a port.
	Authority string `json:"authority"`
	// Method defaults to GET.
	Method string `json:"method,omitempty"`
	// Path is the request target, query string included. Default "/".
	Path string `json:"path,omitempty"`
	// Headers are further request headers, in order. A name may repeat.
	Headers []Header `json:"headers,omitempty"`
	// SNI is the TLS server name. nil means the host of Authority (what
	// browsers and curl send); a pointer to "" means no SNI at all.
	SNI *string `json:"sni,omitempty"`
	// SourceAddress is the client's IP address, for IP allow/deny filters.
	// Empty means unknown: such filters are then reported, not applied.
	SourceAddress string `json:"sourceAddress,omitempty"`
}

// Header is one request header.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// request is a Request with its defaults applied and the parts the
// matchers look at taken apart once.
type request struct {
	Request
	tls      bool
	host     string // Authority without port, lower case
	sni      string // "" when the client sends none
	source   netip.Addr
	rawPath  string              // Path as given (before the HCM normalises it)
	path     string              // :path as the router sees it, query included
	headers  map[string][]string // lower-case names, pseudo-headers included
	pathOnly string              // path without query and fragment
	query    string
}

// prepare checks r and applies its defaults. Listener-dependent defaults
// (scheme from a TLS-only listener) are applied later, by the evaluator.
func prepare(r Request) (*request, error) {
	if r.Authority == "" {
		return nil, fmt.Errorf("request has no authority (Host header)")
	}
	if r.Method == "" {
		r.Method = "GET"
	}
	if r.Path == "" {
		r.Path = "/"
	}
	if !strings.HasPrefix(r.Path, "/") {
		return nil, fmt.Errorf("path %q does not start with /", r.Path)
	}
	switch r.Scheme {
	case "", "http", "https":
	default:
		return nil, fmt.Errorf("scheme %q: want http or https", r.Scheme)
	}
	if r.Port < 0 || r.Port > 65535 {
		return nil, fmt.Errorf("port %d is out of range", r.Port)
	}
	q := &request{Request: r, rawPath: r.Path}
	q.host = strings.ToLower(stripPort(r.Authority))
	if r.SourceAddress != "" {
		a, err := netip.ParseAddr(r.SourceAddress)
		if err != nil {
			return nil, fmt.Errorf("source address %q is not an IP address", r.SourceAddress)
		}
		q.source = a.Unmap()
	}
	for _, h := range r.Headers {
		// Host is :authority to Envoy: one value, given as Authority.
		if h.Name == "" || strings.HasPrefix(h.Name, ":") || strings.EqualFold(h.Name, "host") {
			return nil, fmt.Errorf("header name %q: set the authority (Host), method and path as such, not as headers", h.Name)
		}
	}
	q.setPath(r.Path)
	return q, nil
}

// authorityPort is the port written in Authority, 0 when there is none.
func authorityPort(authority string) int {
	_, port, err := net.SplitHostPort(authority)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return 0
	}
	return n
}

// stripPort removes a trailing ":port" from a host, keeping IPv6 literals
// ("[::1]:8080" -> "[::1]").
func stripPort(hostport string) string {
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		if _, err := strconv.Atoi(hostport[i+1:]); err == nil || i == len(hostport)-1 {
			return hostport[:i]
		}
	}
	return hostport
}

// setScheme fixes the connection's scheme and the SNI the client sends.
func (q *request) setScheme(tls bool) {
	q.tls = tls
	q.Scheme = "http"
	q.sni = ""
	defer q.buildHeaders()
	if !tls {
		return
	}
	q.Scheme = "https"
	if q.SNI != nil {
		q.sni = strings.ToLower(*q.SNI)
	} else if net.ParseIP(strings.Trim(q.host, "[]")) == nil {
		// Clients send no SNI for IP literals (RFC 6066 section 3).
		q.sni = q.host
	}
}

// setPath sets :path and what is derived from it.
func (q *request) setPath(p string) {
	q.path = p
	q.pathOnly, q.query = splitQuery(p)
	q.buildHeaders()
}

// splitQuery splits a request target into path and query, dropping any
// fragment, which Envoy strips before routing.
func splitQuery(p string) (path, query string) {
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	path, query, _ = strings.Cut(p, "?")
	return path, query
}

func (q *request) buildHeaders() {
	h := map[string][]string{
		":authority": {q.Authority},
		":method":    {q.Method},
		":path":      {q.path},
		":scheme":    {q.Scheme},
	}
	for _, hd := range q.Headers {
		name := strings.ToLower(hd.Name)
		h[name] = append(h[name], hd.Value)
	}
	q.headers = h
}

// header returns a header's value as Envoy's matchers see it: repeated
// headers are joined with commas. ok is false when the header is absent.
func (q *request) header(name string) (value string, ok bool) {
	vs, ok := q.headers[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return strings.Join(vs, ","), true
}

// queryParam returns the first value of a query parameter, as Envoy's
// route matching does. A key without "=" has the empty value. Values are
// compared as sent, percent-encoding included.
func (q *request) queryParam(name string) (value string, ok bool) {
	if q.query == "" {
		return "", false
	}
	for _, kv := range strings.Split(q.query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == name {
			return v, true
		}
	}
	return "", false
}
