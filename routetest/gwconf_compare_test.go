package routetest

// The Gateway API conformance harness, part three: comparing explain's
// decision with an expected response, as the suite's CompareRoundTrip
// compares a round trip (utils/http) and its gRPC client a call
// (utils/grpc).

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// sval is a struct literal: its type's last name and its fields.
type sval struct {
	Type   string
	Fields map[string]any
}

func (s *sval) field(name string) any {
	if s == nil {
		return nil
	}
	return s.Fields[name]
}

func (s *sval) str(name string) string {
	if s == nil {
		return ""
	}
	v, _ := s.Fields[name].(string)
	return v
}

func (s *sval) sub(name string) *sval {
	if s == nil {
		return nil
	}
	v, _ := s.Fields[name].(*sval)
	return v
}

func (s *sval) strMap(name string) map[string]string {
	out := map[string]string{}
	if s == nil {
		return out
	}
	m, _ := s.Fields[name].(map[string]any)
	for k, v := range m {
		if str, ok := v.(string); ok {
			out[k] = str
		}
	}
	return out
}

func (s *sval) strList(name string) []string {
	if s == nil {
		return nil
	}
	l, _ := s.Fields[name].([]any)
	var out []string
	for _, v := range l {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

func (s *sval) intList(name string) []int {
	if s == nil {
		return nil
	}
	l, _ := s.Fields[name].([]any)
	var out []int
	for _, v := range l {
		if n, ok := v.(int); ok {
			out = append(out, n)
		}
	}
	return out
}

// compareGRPC compares a decision with a grpc.ExpectedResponse: the gRPC
// code (OK when forwarded; Envoy turns a 404 into Unimplemented) and the
// backend.
func compareGRPC(exp *sval, req Request, d *Decision, backing map[string][]string) string {
	want, _ := exp.sub("Response").field("Code").(string)
	if want == "" {
		want = "OK"
	}
	a := d.Action
	got := "Unknown"
	switch {
	case a.Cluster != nil && !a.Cluster.Missing, a.WeightedClusters != nil:
		got = "OK"
	case a.NoMatch != nil && a.NoMatch.Status == 404:
		got = "Unimplemented"
	case a.NoMatch != nil:
		got = "Unavailable"
	case a.DirectResponse != nil && a.DirectResponse.Status == 500:
		got = "Internal"
	}
	if got != want {
		return fmt.Sprintf("gRPC code %s, want %s", got, want)
	}
	if got != "OK" {
		return ""
	}
	return compareBackend(exp, d, backing)
}

// compareConf compares a decision with an expected response as the
// suite's CompareRoundTrip would compare the round trip; "" when they
// agree.
func compareConf(exp *sval, req Request, d *Decision, backing map[string][]string) string {
	resp := exp.sub("Response")
	codes := resp.intList("StatusCodes")
	if n, ok := resp.field("StatusCode").(int); ok && n != 0 && !slices.Contains(codes, n) {
		codes = append(codes, n)
	}
	if len(codes) == 0 {
		codes = []int{200}
	}
	a := d.Action
	status := 0
	switch {
	case a.Cluster != nil:
		status = 200
		if a.Cluster.Missing {
			status = 503
		}
	case a.WeightedClusters != nil:
		status = 200
	case a.Redirect != nil:
		status = a.Redirect.Status
	case a.DirectResponse != nil:
		status = a.DirectResponse.Status
	case a.NoMatch != nil:
		status = a.NoMatch.Status
	case a.Denied != nil:
		status = a.Denied.Status
	}
	if status == 200 && timedOut(req, d.Forwarding) {
		// The echo backend waits ?delay=D before answering.
		status = 504
	}
	if !slices.Contains(codes, status) {
		return fmt.Sprintf("status %d, want one of %v", status, codes)
	}
	switch {
	case status == 200:
		return compareForwarded(exp, req, d, backing)
	case status >= 300 && status < 400:
		return compareRedirect(exp, req, a.Redirect)
	}
	return ""
}

// timedOut says whether Envoy gives up (504) on a request to the
// suite's echo backend, which answers after the request's ?delay=D: the
// route's timeout or the retry policy's per-try timeout is shorter.
func timedOut(req Request, f *Forwarding) bool {
	if f == nil {
		return false
	}
	_, query := splitQuery(req.Path)
	q, _ := url.ParseQuery(query)
	delay, err := time.ParseDuration(q.Get("delay"))
	if err != nil || delay <= 0 {
		return false
	}
	for _, s := range []string{f.Timeout, retryPerTry(f.Retry)} {
		if d, err := time.ParseDuration(s); err == nil && d > 0 && d <= delay {
			return true
		}
	}
	return false
}

func retryPerTry(r *Retry) string {
	if r == nil {
		return ""
	}
	return r.PerTryTimeout
}

// compareBackend checks that the request reaches the expected backend.
func compareBackend(exp *sval, d *Decision, backing map[string][]string) string {
	backend, ns := exp.str("Backend"), exp.str("Namespace")
	var services []string
	if c := d.Action.Cluster; c != nil && c.Service != nil {
		services = append(services, c.Service.Namespace+"/"+c.Service.Name)
	}
	for _, w := range d.Action.WeightedClusters {
		if w.Percent > 0 && w.Service != nil {
			services = append(services, w.Service.Namespace+"/"+w.Service.Name)
		}
	}
	// The suite checks the pod's namespace, and its name only when the
	// test names a backend: a pod's name starts with its Deployment's.
	found := false
	for _, s := range services {
		sns, _, _ := strings.Cut(s, "/")
		if sns != ns {
			continue
		}
		deployments, known := backing[s]
		found = found || backend == "" || !known || slices.Contains(deployments, backend)
	}
	if !found {
		return fmt.Sprintf("backend %v, want %s/%s", services, ns, backend)
	}
	return ""
}

func compareForwarded(exp *sval, req Request, d *Decision, backing map[string][]string) string {
	if why := compareBackend(exp, d, backing); why != "" {
		return why
	}
	er := exp.sub("ExpectedRequest")
	if er == nil {
		er = exp.sub("Request")
	}
	f := d.Forwarding
	if f == nil {
		return "no forwarding reported"
	}
	wantPath := er.str("Path")
	if wantPath == "" {
		wantPath = "/"
	}
	if f.UpstreamPath != wantPath {
		return fmt.Sprintf("upstream path %q, want %q", f.UpstreamPath, wantPath)
	}
	if want := er.str("Host"); want != "" {
		got := req.Authority
		if f.HostRewrite != "" {
			got = f.HostRewrite
		}
		if got != want {
			return fmt.Sprintf("upstream host %q, want %q", got, want)
		}
	}
	up := applyHeaderChanges(req.Headers, d.RequestHeaders)
	for name, want := range er.strMap("Headers") {
		got, ok := up[strings.ToLower(name)]
		if !ok {
			return fmt.Sprintf("request header %s absent upstream, want %q", name, want)
		}
		if strings.Join(got, ",") != want {
			return fmt.Sprintf("request header %s is %q upstream, want %q", name, strings.Join(got, ","), want)
		}
	}
	for _, name := range er.strList("AbsentHeaders") {
		if v, ok := up[strings.ToLower(name)]; ok {
			return fmt.Sprintf("request header %s is %q upstream, want it removed", name, strings.Join(v, ","))
		}
	}
	var backendSet []Header
	for n, v := range exp.strMap("BackendSetResponseHeaders") {
		backendSet = append(backendSet, Header{Name: n, Value: v})
	}
	sort.Slice(backendSet, func(i, j int) bool { return backendSet[i].Name < backendSet[j].Name })
	down := applyHeaderChanges(backendSet, d.ResponseHeaders)
	resp := exp.sub("Response")
	for name, want := range resp.strMap("Headers") {
		got, ok := down[strings.ToLower(name)]
		if !ok {
			return fmt.Sprintf("response header %s absent, want %q", name, want)
		}
		if strings.Join(got, ",") != want {
			return fmt.Sprintf("response header %s is %q, want %q", name, strings.Join(got, ","), want)
		}
	}
	for _, name := range resp.strList("AbsentHeaders") {
		if v, ok := down[strings.ToLower(name)]; ok {
			return fmt.Sprintf("response header %s is %q, want it removed", name, strings.Join(v, ","))
		}
	}
	if mirrors, ok := exp.field("MirroredTo").([]any); ok {
		var got, want []string
		for _, m := range f.Mirrors {
			if m.Service != nil {
				got = append(got, m.Service.Namespace+"/"+m.Service.Name)
			}
		}
		for _, m := range mirrors {
			if s, ok := m.(*sval); ok {
				ref := s.sub("BackendRef")
				if ref == nil {
					ref = s
				}
				want = append(want, ref.str("Namespace")+"/"+ref.str("Name"))
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			return fmt.Sprintf("mirrors %v, want %v", got, want)
		}
	}
	return ""
}

// applyHeaderChanges applies header changes as Envoy does, level by level
// from the most specific (a weighted cluster's) to the route
// configuration's.
func applyHeaderChanges(in []Header, hc *HeaderChanges) map[string][]string {
	out := map[string][]string{}
	for _, h := range in {
		n := strings.ToLower(h.Name)
		out[n] = append(out[n], h.Value)
	}
	if hc == nil {
		return out
	}
	// Removals come first at every level; HeaderChanges does not say
	// which level each came from, so all are applied before the sets.
	for _, r := range hc.Remove {
		delete(out, strings.ToLower(r))
	}
	for _, from := range []string{"weightedCluster", "route", "virtualHost", "routeConfig"} {
		for _, s := range hc.Set {
			if level, _, _ := strings.Cut(s.From, " "); level != from {
				continue
			}
			n := strings.ToLower(s.Name)
			switch s.Append {
			case "OVERWRITE_IF_EXISTS_OR_ADD":
				out[n] = []string{s.Value}
			case "ADD_IF_ABSENT":
				if _, ok := out[n]; !ok {
					out[n] = []string{s.Value}
				}
			case "OVERWRITE_IF_EXISTS":
				if _, ok := out[n]; ok {
					out[n] = []string{s.Value}
				}
			default:
				out[n] = append(out[n], s.Value)
			}
		}
	}
	return out
}

var locationPort = regexp.MustCompile(`:(\d+)$`)

func compareRedirect(exp *sval, req Request, r *Redirect) string {
	want := exp.sub("RedirectRequest")
	if want == nil {
		return ""
	}
	u, err := url.Parse(r.Location)
	if err != nil {
		return fmt.Sprintf("location %q: %v", r.Location, err)
	}
	gotHost, gotPort := u.Host, ""
	if m := locationPort.FindStringSubmatch(u.Host); m != nil {
		gotHost, gotPort = strings.TrimSuffix(u.Host, m[0]), m[1]
	}
	if h := want.str("Host"); h != "" && h != gotHost {
		return fmt.Sprintf("redirect host %q, want %q (location %s)", gotHost, h, r.Location)
	}
	scheme := want.str("Scheme")
	if scheme == "" {
		scheme = req.Scheme
	}
	if p := want.str("Port"); p != "" {
		if p != gotPort {
			return fmt.Sprintf("redirect port %q, want %q (location %s)", gotPort, p, r.Location)
		}
	} else if (u.Scheme == "http" && gotPort != "" && gotPort != "80") || (u.Scheme == "https" && gotPort != "" && gotPort != "443") {
		return fmt.Sprintf("redirect port %q for scheme %s (location %s)", gotPort, u.Scheme, r.Location)
	}
	if u.Scheme != scheme {
		return fmt.Sprintf("redirect scheme %q, want %q (location %s)", u.Scheme, scheme, r.Location)
	}
	path := want.str("Path")
	if path == "" {
		path, _ = splitQuery(req.Path)
	}
	if u.Path != path {
		return fmt.Sprintf("redirect path %q, want %q (location %s)", u.Path, path, r.Location)
	}
	return ""
}
