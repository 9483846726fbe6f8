package graph

import (
	"os"
	"testing"

	"github.com/contourc/contourc/loader"
)

// BenchmarkObjectsFrom is what serve adds to each reload for /debug/graph
// (GRAPH_BENCH_DIR: a scalegen corpus).
func BenchmarkObjectsFrom(b *testing.B) {
	dir := os.Getenv("GRAPH_BENCH_DIR")
	if dir == "" {
		b.Skip("GRAPH_BENCH_DIR not set")
	}
	res, err := loader.Load([]string{dir}, loader.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		ObjectsFrom(res.Objects)
	}
}

// BenchmarkLoadForReference is the loading ObjectsFrom follows, to read
// its figure against.
func BenchmarkLoadForReference(b *testing.B) {
	dir := os.Getenv("GRAPH_BENCH_DIR")
	if dir == "" {
		b.Skip("GRAPH_BENCH_DIR not set")
	}
	for b.Loop() {
		if _, err := loader.Load([]string{dir}, loader.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
