package gcpace

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the current GOGC setting without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// withDefaultPacing clears GOGC and GOMEMLIMIT from the environment for
// the test, and restores the pacing it finds when the test ends.
func withDefaultPacing(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(before)
		debug.SetMemoryLimit(limit)
	})
}

func TestDeferFirstCollectionRestoresDefaultPacing(t *testing.T) {
	withDefaultPacing(t)

	DeferFirstCollection()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != -1 || l != firstCollectionAt {
		t.Fatalf("before the first collection: GOGC %d, limit %d; want off and %d", p, l, firstCollectionAt)
	}
	runtime.GC() // queues the sentinel's finalizer, which runs on its own goroutine
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Fatalf("after the first collection: GOGC %d, limit %d; want 100 and no limit", p, l)
	}
}

func TestDeferFirstCollectionLeavesUserSettings(t *testing.T) {
	t.Setenv("GOGC", "50")
	before := gcPercent()
	DeferFirstCollection()
	if p := gcPercent(); p != before {
		t.Fatalf("GOGC set by the user: pacing changed from %d to %d", before, p)
	}
}

// CollectAsUsual, which serve calls, ends the deferral at once, but leaves
// a GOGC the user set alone.
func TestCollectAsUsual(t *testing.T) {
	withDefaultPacing(t)
	DeferFirstCollection()
	CollectAsUsual()
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Fatalf("GOGC %d, limit %d; want 100 and no limit", p, l)
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	CollectAsUsual()
	if p := gcPercent(); p != 50 {
		t.Errorf("GOGC %d after the user set 50", p)
	}
}

// BoundHeapWhileWriting bounds the heap of a run that collected and whose
// live heap is small, and leaves a run that never collected, or whose
// user set the pacing, alone.
func TestBoundHeapWhileWriting(t *testing.T) {
	withDefaultPacing(t)
	was := collected.Load()
	t.Cleanup(func() { collected.Store(was) })
	debug.SetMemoryLimit(math.MaxInt64)

	collected.Store(false)
	BoundHeapWhileWriting()
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("before any collection: limit %d, want none", l)
	}
	collected.Store(true)
	runtime.GC() // what a test process holds is far below the bound
	BoundHeapWhileWriting()
	if l := debug.SetMemoryLimit(-1); l != writingHeapBound {
		t.Fatalf("after a collection: limit %d, want %d", l, writingHeapBound)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	BoundHeapWhileWriting()
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set by the user: limit changed to %d", l)
	}
}

func TestInputCollectionAt(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		input, physical, want int64
	}{
		{input: 0, physical: 8 << 30, want: firstCollectionAt},
		{input: 6 * mib, physical: 8 << 30, want: firstCollectionAt}, // 192 MiB: below it
		{input: 14 * mib, physical: 8 << 30, want: 448 * mib},
		{input: 24 * mib, physical: 64 << 30, want: 768 * mib},
		{input: 56 * mib, physical: 8 << 30, want: inputCollectionBound}, // 1 GiB at most
		{input: 56 * mib, physical: 2 << 30, want: 512 * mib},            // a quarter of the machine
		{input: 80 * mib, physical: 0, want: inputCollectionBound},       // unknown
		{input: 56 * mib, physical: 512 * mib, want: firstCollectionAt},
	} {
		if got := inputCollectionAt(tc.input, tc.physical); got != tc.want {
			t.Errorf("inputCollectionAt(%d, %d) = %d, want %d", tc.input, tc.physical, got, tc.want)
		}
	}
}

// A run on a large input puts its first collection off further; not once it has collected, nor when the user set
// the pacing.
func TestDeferFirstCollectionForInput(t *testing.T) {
	withDefaultPacing(t)
	was := collected.Load()
	t.Cleanup(func() { collected.Store(was) })
	if physicalMemory() < 4<<30 {
		t.Skip("needs a machine of 4 GiB or more")
	}
	const input = 24 << 20
	collected.Store(false)
	DeferFirstCollection()
	DeferFirstCollectionForInput(input)
	if l := debug.SetMemoryLimit(-1); l != heapPerInputByte*input {
		t.Fatalf("limit %d, want %d", l, heapPerInputByte*input)
	}
	DeferFirstCollection()
	collected.Store(true)
	DeferFirstCollectionForInput(input)
	if l := debug.SetMemoryLimit(-1); l != firstCollectionAt {
		t.Errorf("after a collection: limit %d, want %d", l, firstCollectionAt)
	}
	collected.Store(false)
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(math.MaxInt64)
	DeferFirstCollectionForInput(input)
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set by the user: limit changed to %d", l)
	}
}

func TestMemTotal(t *testing.T) {
	meminfo := "MemFree:         1024 kB\nMemTotal:       24731284 kB\nBuffers: 1 kB\n"
	if got := memTotal(meminfo); got != 24731284<<10 {
		t.Errorf("memTotal = %d, want %d", got, int64(24731284)<<10)
	}
	for _, bad := range []string{"", "MemFree: 1 kB\n", "MemTotal: lots\n"} {
		if got := memTotal(bad); got != 0 {
			t.Errorf("memTotal(%q) = %d, want 0", bad, got)
		}
	}
}

// A cgroup limit below the machine's memory is the process's memory; "max"
// and unreadable files are no limit.
func TestPhysicalMemoryHonoursCgroupLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	was := cgroupMemoryLimits
	t.Cleanup(func() { cgroupMemoryLimits = was })
	machine := physicalMemoryWithout(t)
	if machine < 1<<30 {
		t.Skip("needs a machine of 1 GiB or more")
	}
	for _, tc := range []struct {
		limits []string
		want   int64
	}{
		{[]string{write("v2", "536870912\n")}, 512 << 20},
		{[]string{write("v2max", "max\n"), write("v1", "268435456\n")}, 256 << 20},
		{[]string{write("unlimited", "9223372036854771712\n")}, machine},
		{[]string{filepath.Join(dir, "missing")}, machine},
	} {
		cgroupMemoryLimits = tc.limits
		if got := physicalMemory(); got != tc.want {
			t.Errorf("limits %v: %d, want %d", tc.limits, got, tc.want)
		}
	}
}

// physicalMemoryWithout is the machine's memory, no cgroup considered.
func physicalMemoryWithout(t *testing.T) int64 {
	t.Helper()
	cgroupMemoryLimits = nil
	return physicalMemory()
}
