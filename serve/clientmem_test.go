package serve

// What each connected client costs the server in memory: a benchmark that
// connects 1, 20 and 120 clients (state of the world and delta, over ADS)
// to a server of 1,000 generated HTTPProxies and reports the live heap
// after collection, and its growth per client. The clients subscribe to
// listeners and clusters, and to what those name (envoySubscriptions), as
// an Envoy does, acknowledge every response, and keep nothing of what they
// receive but versions and nonces. CORPUS, when set, is the directory to serve
// instead of a generated one; HEAPPROFILE, when set, is where to write a
// heap profile at each step (go tool pprof -base to compare them).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// scaleCorpus generates n HTTPProxies with shared/tools/scalegen, skipping
// the benchmark when the shared directory is absent.
func scaleCorpus(b *testing.B, n int) string {
	b.Helper()
	shared := os.Getenv("SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "shared")
	}
	gen := filepath.Join(shared, "tools", "scalegen", "main.go")
	if _, err := os.Stat(gen); err != nil {
		b.Skipf("%s not found (set SHARED)", gen)
	}
	dir := b.TempDir()
	if out, err := exec.Command("go", "run", gen, "-n", fmt.Sprint(n), "-shared-cert", "-o", dir).CombinedOutput(); err != nil {
		b.Fatalf("scalegen: %v\n%s", err, out)
	}
	return dir
}

// BenchmarkClientMemory reports, for each mode, the server's live heap
// after collection with 1, 20 and 120 clients up to date (heap-MB-N) and
// the growth per client from 1 to 120 (MB/client), and what serving each
// new client allocated (alloc-MB/client: garbage, but resident until
// collected). The clients run in a process of their own (this test binary
// again, leanClientsMain), so that the heap measured is the server's alone.
func BenchmarkClientMemory(b *testing.B) {
	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = scaleCorpus(b, 1000)
	}
	for _, mode := range []string{"sotw", "delta"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				heaps, allocs := clientHeaps(b, dir, mode, []int{1, 19, 100})
				b.ReportMetric(heaps[0]/(1<<20), "heap-MB-1")
				b.ReportMetric(heaps[1]/(1<<20), "heap-MB-20")
				b.ReportMetric(heaps[2]/(1<<20), "heap-MB-120")
				b.ReportMetric((heaps[2]-heaps[0])/119/(1<<20), "MB/client")
				b.ReportMetric((allocs[2]-allocs[0])/119/(1<<20), "alloc-MB/client")
			}
		})
	}
}

// clientHeaps serves dir and, for each of batches, connects that many more
// clients of mode and returns the live heap once all are up to date, and
// how much was allocated so far.
func clientHeaps(b *testing.B, dir, mode string, batches []int) (heaps, allocs []float64) {
	ts := startServer(b, []string{dir}, func(c *Config) { c.Log = discardLogger() })
	ts.waitReady(b)
	names, err := json.Marshal(envoySubscriptions(ts.current.Load().snap))
	if err != nil {
		b.Fatal(err)
	}
	namesFile := filepath.Join(b.TempDir(), "names.json")
	if err := os.WriteFile(namesFile, names, 0o600); err != nil {
		b.Fatal(err)
	}
	for i, n := range batches {
		startLeanClients(b, ts.XDSAddr().String(), mode, n, namesFile)
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heaps = append(heaps, float64(ms.HeapAlloc))
		allocs = append(allocs, float64(ms.TotalAlloc))
		if p := os.Getenv("HEAPPROFILE"); p != "" {
			f, _ := os.Create(fmt.Sprintf("%s.%s.%d", p, mode, i))
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	return heaps, allocs
}

// leanClientsEnv, when set (ADDR MODE N NAMESFILE), makes the test binary
// a process of lean clients (leanClientsMain) rather than run tests.
const leanClientsEnv = "CONTOURC_LEAN_CLIENTS"

// startLeanClients runs n lean clients of mode in a process of their own
// until the benchmark ends, and waits for all to be up to date.
func startLeanClients(b *testing.B, addr, mode string, n int, namesFile string) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d %s", leanClientsEnv, addr, mode, n, namesFile))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close() // the clients end when their stdin does
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		b.Fatalf("lean clients: %q, %v", line, err)
	}
}

// leanClientsMain is the clients' process: it connects them, says "ready"
// once each has every type, and closes them when stdin ends.
func leanClientsMain(spec string) int {
	var addr, mode, namesFile string
	var n int
	if _, err := fmt.Sscan(spec, &addr, &mode, &n, &namesFile); err != nil {
		fmt.Fprintln(os.Stderr, "lean clients:", err)
		return 2
	}
	raw, err := os.ReadFile(namesFile)
	var names map[string][]string
	if err == nil {
		err = json.Unmarshal(raw, &names)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lean clients:", err)
		return 2
	}
	var clients []*leanClient
	for range n {
		c, err := newLeanClient(addr, mode, names)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lean clients:", err)
			return 1
		}
		clients = append(clients, c)
	}
	for _, c := range clients {
		if err := c.wait(); err != nil {
			fmt.Fprintln(os.Stderr, "lean clients:", err)
			return 1
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	for _, c := range clients {
		c.close()
	}
	return 0
}

// envoySubscriptions are the names an Envoy would ask for, by type: what
// the served listeners and clusters name, as Envoy works it out
// (xdsView.wanted), and a wildcard for listeners and clusters.
func envoySubscriptions(s *snapshot) map[string][]string {
	v := xdsView{types: map[string]*typeState{}}
	for _, t := range []string{resourcev3.ListenerType, resourcev3.ClusterType} {
		set := s.set(t)
		for i, name := range set.names {
			v.state(t).resources[name] = set.items[i]
		}
	}
	out := v.wanted()
	out[resourcev3.RuntimeType] = []string{runtimeLayerName}
	for _, t := range servedTypes {
		if fullState[t] {
			out[t] = nil // wildcard
		}
	}
	return out
}

// leanClient subscribes to every type at once and acknowledges every
// response, keeping only versions and nonces.
type leanClient struct {
	conn    *grpc.ClientConn
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	pending sync.WaitGroup // one per type not received yet
	mu      sync.Mutex
	got     map[string]bool
	err     error
}

func newLeanClient(addr, mode string, names map[string][]string) (*leanClient, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &leanClient{conn: conn, cancel: cancel, got: map[string]bool{}}
	c.pending.Add(len(servedTypes))
	ads := discoveryv3.NewAggregatedDiscoveryServiceClient(c.conn)
	if mode == "delta" {
		var s discoveryv3.AggregatedDiscoveryService_DeltaAggregatedResourcesClient
		if s, err = ads.DeltaAggregatedResources(ctx); err == nil {
			err = c.runDelta(s, names)
		}
	} else {
		var s discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesClient
		if s, err = ads.StreamAggregatedResources(ctx); err == nil {
			err = c.runSotw(s, names)
		}
	}
	return c, err
}

func (c *leanClient) received(typ string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.got[typ] {
		c.got[typ] = true
		c.pending.Done()
	}
}

func (c *leanClient) failed(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && err != io.EOF {
		c.err = err
	}
	for _, t := range servedTypes {
		if !c.got[t] {
			c.got[t] = true
			c.pending.Done()
		}
	}
}

func (c *leanClient) runSotw(s discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesClient, names map[string][]string) error {
	node := nodeFor("lean")
	for _, t := range servedTypes {
		if err := s.Send(&discoveryv3.DiscoveryRequest{Node: node, TypeUrl: t, ResourceNames: names[t]}); err != nil {
			return err
		}
	}
	c.wg.Go(func() {
		for {
			resp, err := s.Recv()
			if err != nil {
				c.failed(err)
				return
			}
			t := resp.GetTypeUrl()
			if err := s.Send(&discoveryv3.DiscoveryRequest{TypeUrl: t, VersionInfo: resp.GetVersionInfo(),
				ResponseNonce: resp.GetNonce(), ResourceNames: names[t]}); err != nil {
				c.failed(err)
				return
			}
			c.received(t)
		}
	})
	return nil
}

func (c *leanClient) runDelta(s discoveryv3.AggregatedDiscoveryService_DeltaAggregatedResourcesClient, names map[string][]string) error {
	node := nodeFor("lean-delta")
	for _, t := range servedTypes {
		if err := s.Send(&discoveryv3.DeltaDiscoveryRequest{Node: node, TypeUrl: t, ResourceNamesSubscribe: names[t]}); err != nil {
			return err
		}
	}
	c.wg.Go(func() {
		for {
			resp, err := s.Recv()
			if err != nil {
				c.failed(err)
				return
			}
			if err := s.Send(&discoveryv3.DeltaDiscoveryRequest{TypeUrl: resp.GetTypeUrl(), ResponseNonce: resp.GetNonce()}); err != nil {
				c.failed(err)
				return
			}
			c.received(resp.GetTypeUrl())
		}
	})
	return nil
}

func (c *leanClient) wait() error {
	c.pending.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *leanClient) close() {
	c.cancel()
	c.conn.Close()
	c.wg.Wait()
}

func nodeFor(id string) *corev3.Node { return &corev3.Node{Id: id, Cluster: "bench"} }

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
