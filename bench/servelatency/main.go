// Command servelatency measures `contourc serve` as an edge box runs it:
// the time from writing a manifest (an Ingress, then an HTTPProxy) to a
// connected xDS client receiving the configuration that carries it (p50
// and p99 over several writes), the time to the first configuration, and
// the server's memory, on synthetic corpora of N HTTPProxies
// (shared/tools/scalegen). Run by `make bench`:
//
//	go run ./bench/servelatency -bin bin/contourc -shared ../shared -n 1000,5000
//
// The server runs as its own process, so its memory is its own.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	bin := flag.String("bin", "bin/contourc", "contourc binary")
	shared := flag.String("shared", "../shared", "the shared directory holding tools/scalegen")
	sizes := flag.String("n", "1000,5000", "corpus sizes (HTTPProxies), comma-separated")
	rounds := flag.Int("rounds", 15, "file writes measured per corpus")
	flag.Parse()
	gen := filepath.Join(*shared, "tools", "scalegen", "main.go")
	if _, err := os.Stat(gen); err != nil {
		fmt.Printf("servelatency: %s not found; skipping\n", gen)
		return
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			log.Fatalf("-n: %v", err)
		}
		if err := measure(*bin, gen, n, *rounds); err != nil {
			log.Fatalf("n=%d: %v", n, err)
		}
	}
}

func measure(bin, gen string, n, rounds int) error {
	dir, err := os.MkdirTemp("", fmt.Sprintf("contourc-serve-n%d-", n))
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if out, err := exec.Command("go", "run", gen, "-n", strconv.Itoa(n), "-shared-cert", "-o", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("scalegen: %v\n%s", err, out)
	}
	marker := filepath.Join(dir, "90-bench.yaml")
	if err := writeAtomic(marker, ingress(0)); err != nil {
		return err
	}

	start := time.Now()
	srv, err := startServe(bin, dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	if err := srv.waitLog("serving a new configuration", 10*time.Minute); err != nil {
		return err
	}
	firstConfig := time.Since(start)

	client, err := newRouteClient(srv.xds)
	if err != nil {
		return err
	}
	defer client.close()
	if _, err := client.waitFor("bench-0.example.com", 5*time.Minute); err != nil {
		return err
	}

	// Two kinds of edit, each in a file of its own: an Ingress, which
	// leaves the HTTPProxy processor's work as it was, and an HTTPProxy,
	// which changes one root among n.
	edits := []struct {
		kind, file string
		manifest   func(i int) string
		host       func(i int) string
	}{
		{"Ingress", marker, ingress, func(i int) string { return fmt.Sprintf("bench-%d.example.com", i) }},
		{"HTTPProxy", filepath.Join(dir, "91-bench.yaml"), proxy, func(i int) string { return fmt.Sprintf("proxy-%d.example.com", i) }},
	}
	for _, e := range edits {
		var lat []time.Duration
		for i := 1; i <= rounds; i++ {
			t0 := time.Now()
			if err := writeAtomic(e.file, e.manifest(i)); err != nil {
				return err
			}
			at, err := client.waitFor(e.host(i), 5*time.Minute)
			if err != nil {
				return err
			}
			lat = append(lat, at.Sub(t0))
		}
		slices.Sort(lat)
		fmt.Printf("serve n=%d, %s edit: file write to client receipt (1 ms hold-off) over %d writes: p50 %s, p99 %s (min %s, max %s)\n",
			n, e.kind, len(lat), percentile(lat, 0.50), percentile(lat, 0.99), lat[0].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	}
	// Steady memory: serve hands a reload's memory back to the system
	// once reloads pause for a second.
	time.Sleep(2 * time.Second)
	rss, hwm := procMemory(srv.cmd.Process.Pid)
	heap := srv.metric("go_memstats_heap_inuse_bytes")
	fmt.Printf("serve n=%d: first configuration %s; memory: steady RSS %s, peak RSS %s, Go heap in use %s\n",
		n, firstConfig.Round(time.Millisecond), mib(rss), mib(hwm), mib(heap))
	return nil
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(float64(len(sorted))*p+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i].Round(time.Millisecond)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// ingress routes a new host to the first generated Service: one changed
// route configuration per write, as a typical edit.
func ingress(i int) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bench, namespace: team-000}
spec:
  rules:
  - host: bench-%d.example.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: app-00000, port: {number: 80}}}
`, i)
}

// proxy is a root HTTPProxy for a new host routing to the first generated
// Service.
func proxy(i int) string {
	return fmt.Sprintf(`apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: bench, namespace: team-000}
spec:
  virtualhost: {fqdn: proxy-%d.example.com}
  routes:
  - services: [{name: app-00000, port: 80}]
`, i)
}

// writeAtomic writes as an editor saving by rename does.
func writeAtomic(path, content string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// server is a running `contourc serve`.
type server struct {
	cmd       *exec.Cmd
	xds, http string
	logs      chan map[string]any
}

func startServe(bin, dir string) (*server, error) {
	// The debounce hold-off is set to next to nothing, so that the
	// latency measured is serve's own, as issue 8 asks (the default
	// 100 ms hold-off comes on top in normal use).
	cmd := exec.Command(bin, "serve", "--xds-port", "0", "--http-port", "0", "--log-format", "json",
		"--holdoff", "1ms", "--holdoff-max", "1ms", dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, logs: make(chan map[string]any, 1024)}
	go s.readLogs(stderr)
	for s.xds == "" || s.http == "" {
		rec, ok := <-s.logs
		if !ok {
			return nil, errors.New("contourc serve exited")
		}
		switch rec["msg"] {
		case "serving xDS":
			s.xds, _ = rec["address"].(string)
		case "serving health, metrics and debug endpoints":
			s.http, _ = rec["address"].(string)
		}
	}
	return s, nil
}

func (s *server) readLogs(r io.Reader) {
	defer close(s.logs)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if rec["level"] == "ERROR" {
			fmt.Fprintln(os.Stderr, sc.Text())
		}
		select {
		case s.logs <- rec:
		default: // nobody is waiting for log lines now
		}
	}
}

func (s *server) waitLog(msg string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case rec, ok := <-s.logs:
			if !ok {
				return errors.New("contourc serve exited")
			}
			if rec["msg"] == msg {
				return nil
			}
		case <-deadline:
			return fmt.Errorf("no %q logged in %s", msg, timeout)
		}
	}
}

func (s *server) metric(name string) int64 {
	resp, err := http.Get("http://" + s.http + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return int64(f)
		}
	}
	return 0
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
}

// procMemory reads the resident and peak resident memory of a process.
func procMemory(pid int) (rss, hwm int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	return rss, hwm
}

// routeClient watches the ingress_http route configuration over ADS,
// acknowledging every response as Envoy does.
type routeClient struct {
	conn   *grpc.ClientConn
	cancel context.CancelFunc
	stream discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesClient
}

func newRouteClient(addr string) (*routeClient, error) {
	// ingress_http holds a virtual host per HTTPProxy (their redirects to
	// HTTPS): 9 MB at n=5000, past gRPC's default 4 MB limit. Envoy has
	// no such limit.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(ctx)
	if err == nil {
		err = stream.Send(&discoveryv3.DiscoveryRequest{TypeUrl: resourcev3.RouteType, ResourceNames: []string{"ingress_http"}})
	}
	if err != nil {
		cancel()
		conn.Close()
		return nil, err
	}
	return &routeClient{conn: conn, cancel: cancel, stream: stream}, nil
}

// waitFor reads responses until one has a virtual host for domain, and
// returns when that response arrived.
func (c *routeClient) waitFor(domain string, timeout time.Duration) (time.Time, error) {
	timer := time.AfterFunc(timeout, c.cancel)
	defer timer.Stop()
	for {
		resp, err := c.stream.Recv()
		if err != nil {
			return time.Time{}, fmt.Errorf("waiting for %s: %w", domain, err)
		}
		at := time.Now()
		if err := c.stream.Send(&discoveryv3.DiscoveryRequest{
			TypeUrl: resourcev3.RouteType, ResourceNames: []string{"ingress_http"},
			VersionInfo: resp.GetVersionInfo(), ResponseNonce: resp.GetNonce(),
		}); err != nil {
			return time.Time{}, err
		}
		for _, a := range resp.GetResources() {
			var rc routev3.RouteConfiguration
			if err := a.UnmarshalTo(&rc); err != nil {
				return time.Time{}, err
			}
			for _, vh := range rc.GetVirtualHosts() {
				if slices.Contains(vh.GetDomains(), domain) {
					return at, nil
				}
			}
		}
	}
}

func (c *routeClient) close() {
	c.cancel()
	c.conn.Close()
}
