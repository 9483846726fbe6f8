package gcpace

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
)

// firstCollectionAt is the heap size at which a run first collects garbage.
//
// A run on a small repository allocates a few tens of MiB and exits. Go's
// default pacing would collect several times on the way (at 4, 8, 16 MiB
// and so on), which is a third of a 40 ms run. So a run does not collect at
// all until its memory reaches firstCollectionAt; from the first collection
// on it paces as Go does by default, so large inputs keep their usual peak.
//
// At 5,000 HTTPProxies a run's heap is about 110 MiB when loading ends, and
// collecting then or during the translation (write barriers on, one CPU of
// two marking) cost render -o json 380 ms of CPU and check 80 ms, against
// collecting first at 256 MiB. The peak of render -o json stays where the
// later collections put it; check's rises from 155 to 200 MiB.
const firstCollectionAt = 256 << 20

// DeferFirstCollection sets that up. GOGC or GOMEMLIMIT in the environment
// are the user's own choice and win.
func DeferFirstCollection() {
	if userPacing() {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstCollectionAt)
	// The sentinel is unreachable from the start, so the first collection
	// queues its finalizer, which restores the default pacing. It holds a
	// pointer so that it is not batched with other tiny allocations, whose
	// finalizers may never run.
	sentinel := &struct{ p *int }{}
	runtime.SetFinalizer(sentinel, func(*struct{ p *int }) { CollectAsUsual() })
}

// heapPerInputByte is about the most heap a run builds per byte of input
// before it starts printing, garbage included: 27 for render -o json of
// 5,000 HTTPProxies (378 MiB for 14.6 MB of YAML), 23 for 5,000 HTTPRoutes.
const heapPerInputByte = 32

// DeferFirstCollectionForInput puts a run's first collection off further,
// to heapPerInputByte times the input's size when that is more than
// firstCollectionAt, so that a run of a few thousand objects collects
// once, while it prints, or not at all. Until a run prints its heap is the
// objects, the DAG and the resources it builds, nearly all of it live, and
// the garbage of loading (YAML trees, the values admission reads); a
// collection on the way marks all that is live to free little, with one
// CPU of two marking and the other helping. At 5,000 HTTPProxies, with
// the first collection at 16 bytes per byte of input, render -o json
// collected five times for 400 ms of CPU (GODEBUG=gctrace=1) and check
// once; at 32 render collects once, while it writes (180 ms), and check
// not at all: 14% less CPU for the whole run, with the peak at 490 MiB
// instead of 310. The least of 1 GiB and a quarter of the memory the
// process may use (its machine's or cgroup's) bounds it: at 20,000
// HTTPProxies (56 MB) it is the 1 GiB, where 16 bytes per byte put it at
// 900 MiB. A run that has collected or whose user set the pacing is left
// alone.
func DeferFirstCollectionForInput(inputBytes int64) {
	if userPacing() || collected.Load() {
		return
	}
	if limit := inputCollectionAt(inputBytes, physicalMemory()); limit > firstCollectionAt {
		debug.SetMemoryLimit(limit)
	}
}

// inputCollectionAt is where DeferFirstCollectionForInput puts the first
// collection, given the input's size and the memory the process may use
// (0 when unknown).
func inputCollectionAt(inputBytes, physical int64) int64 {
	bound := int64(inputCollectionBound)
	if physical > 0 {
		bound = min(bound, physical/4)
	}
	return max(firstCollectionAt, min(heapPerInputByte*inputBytes, bound))
}

// inputCollectionBound is the furthest deferFirstCollectionForInput puts
// the first collection off, whatever the input's size.
const inputCollectionBound = 1 << 30

// physicalMemory is the memory this process may use, in bytes: the
// machine's (/proc/meminfo), or its container's when a cgroup limits it to
// less, as CI runners often do; 0 where neither can be read.
func physicalMemory() int64 {
	memory := int64(0)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		memory = memTotal(string(b))
	}
	for _, path := range cgroupMemoryLimits {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// "max", or a huge number, when the cgroup sets no limit.
		limit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && limit > 0 && (memory == 0 || limit < memory) {
			memory = limit
		}
	}
	return memory
}

// cgroupMemoryLimits are where cgroup v2 and v1 say how much memory the
// process's group may use.
var cgroupMemoryLimits = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// memTotal reads MemTotal from /proc/meminfo's text, in bytes; 0 when it
// is not there.
func memTotal(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// CollectAsUsual restores Go's default pacing: for serve, which runs for
// days, often on a small configuration whose heap would take hours of
// reloads to reach firstCollectionAt. It changes nothing the user set.
func CollectAsUsual() {
	collected.Store(true)
	if userPacing() {
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

// collected says the first collection happened.
var collected atomic.Bool

// writingHeapBound is the least memory limit BoundHeapWhileWriting sets.
const writingHeapBound = 256 << 20

// BoundHeapWhileWriting sets a memory limit for the rest of a render that
// lets go of its resources as it writes them (render.JSONStreamOnce): half
// again the heap live at the last collection, and at least
// writingHeapBound.
//
// Go's pacing sets the next collection at twice the heap live at the
// last. At 5,000 HTTPProxies that fell while the output was written, and
// the heap grew to 330 MB with the garbage of printing (350 MiB of
// memory); bounded, the collector runs once or twice more on a live heap
// that shrinks as resources are written, for 285 MiB, and at 20,000 for
// 1,010 MiB instead of 1,270, at 2-4% more CPU. A run that never collected
// (a small input) is left alone.
func BoundHeapWhileWriting() {
	if userPacing() || !collected.Load() {
		return
	}
	// The heap live at the last collection can be far from what it is
	// now: a collection put off in proportion to the input comes midway
	// through the translation, and the resources built after it are live
	// too. Bounded by the older figure, printing 20,000 HTTPProxies
	// collected ten times. Collecting now measures it, and takes the
	// place of the collection the bound would start at once anyway.
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := int64(sample[0].Value.Uint64())
	debug.SetMemoryLimit(max(writingHeapBound, live+live/2))
}

// userPacing says whether GOGC or GOMEMLIMIT is set: the user's choice,
// which wins.
func userPacing() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }
