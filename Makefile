# contourc: build, test and measure.
#
# make run    render the bundled examples/ to stdout as a static Envoy bootstrap
# make test   vet and test everything (what CI runs, via .ci/run)

GO      ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# -s -w leave out the symbol table and DWARF: the binary is a third smaller
# and starts about a millisecond sooner (fewer pages to map), which a run on
# a small repository notices; panics and profiles still name functions.
LDFLAGS := -s -w -X main.version=$(VERSION)
# The shared corpus and tools live next to the repository, when present.
SHARED  ?= ../shared

.PHONY: build test run bench parity lint clean

# CGO_ENABLED=0: a static binary, which runs on any Linux (distroless and
# Alpine images, edge boxes without glibc) and, with no dynamic loader to
# run, starts 1-2 ms sooner. Nothing in contourc needs cgo; the network
# code uses Go's own resolver. contourc-engines runs Helm's engine and
# Flux's kustomization generator for contourc, which does not link them
# (their start-up would cost every run; see loader/engines); contourc
# looks for it beside itself first.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/contourc ./cmd/contourc
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/contourc-engines ./cmd/contourc-engines

test:
	$(GO) vet ./... && $(GO) test ./...

# The recipe is not echoed (@): make prints echoed commands on stdout, and
# `make run > envoy.yaml` must hold the bootstrap only. go run itself
# writes nothing on stdout but the program's output.
run:
	@$(GO) run ./cmd/contourc render ./examples

# Go benchmarks (BenchmarkPhases: load, translate, render per phase;
# BenchmarkInclude*: include chains 1,000 and 5,000 deep and a cycle of
# 10,000, which must stay linear; BenchmarkClientMemory: serve's memory per
# xDS client; BenchmarkAdmit: admission's steps per object), then
# the whole process on scalegen corpora of 1,000, 5,000 and 20,000
# HTTPProxies and HTTPRoutes (bench/scale.sh), then serve's latency.
bench: build
	SHARED=$(abspath $(SHARED)) $(GO) test -run '^$$' -bench . -benchmem ./...
	SHARED=$(SHARED) bench/scale.sh
	$(GO) run ./bench/servelatency -bin bin/contourc -shared $(SHARED) -n 1000,5000

# Parity with Contour on the shared conformance corpus, then bad inputs.
# Both run even when the first finds differences; either failing fails.
parity: build
	@test -d $(SHARED)/conformance || { echo "parity: $(SHARED)/conformance not found"; exit 2; }
	@rc=0; \
	$(GO) run $(SHARED)/tools/parity/main.go run -bin ./bin/contourc -cases $(SHARED)/conformance || rc=1; \
	$(GO) run $(SHARED)/tools/parity/main.go bad -bin ./bin/contourc -cases $(SHARED)/conformance-bad || rc=1; \
	exit $$rc

lint:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin coverage.out coverage.html
