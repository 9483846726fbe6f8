# contourc: build, test and measure.
#
# make run      render the bundled examples/ to stdout as a static Envoy bootstrap
# make test     vet and test everything (what CI runs, via .ci/run)
# make dist     release archives for every platform, with checksums and a krew manifest
# make install  contourc, contourc-engines and the kubectl plugin name
#               kubectl-contourc into $(PREFIX)/bin

GO      ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
export VERSION
# The platforms of `make dist`: every archive, checksum and krew platform.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
# The programs every build, archive and install holds (cmd/NAME), side by
# side: contourc runs contourc-engines, which it looks for beside itself,
# for Helm charts and Flux Kustomizations (internal/release.Programs).
PROGRAMS  := contourc contourc-engines
PREFIX  ?= /usr/local
# Where make dist writes (internal/release's tests run it into a temporary one).
DIST    ?= dist
# The shared corpus and tools live next to the repository, when present.
SHARED  ?= ../shared

.PHONY: build test run bench parity lint clean dist install

# scripts/build.sh holds the build flags (a static binary, stamped with
# VERSION, the commit and its date), shared with dist and the Dockerfile.
# contourc-engines runs Helm's engine and Flux's kustomization generator
# for contourc, which does not link them (their start-up would cost every
# run; see loader/engines); contourc looks for it beside itself first.
build:
	for prog in $(PROGRAMS); do GO=$(GO) scripts/build.sh bin/$$prog ./cmd/$$prog || exit 1; done

# Both programs per platform under dist/build/, then the archives
# (contourc_VERSION_OS_ARCH.tar.gz, .zip for Windows, each holding both),
# the SHA-256 checksums file and the krew manifest rendered from
# plugins/contourc.yaml.
dist:
	rm -rf $(DIST)
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; exe=; [ "$$os" = windows ] && exe=.exe; \
		echo "build $$os/$$arch"; \
		for prog in $(PROGRAMS); do \
			GO=$(GO) GOOS=$$os GOARCH=$$arch scripts/build.sh $(DIST)/build/$$os-$$arch/$$prog$$exe ./cmd/$$prog; \
		done; \
	done
	$(GO) run ./internal/release/dist -version $(VERSION) -dir $(DIST) $(PLATFORMS)

# Both programs side by side, as contourc looks for contourc-engines
# beside itself. kubectl runs `kubectl contourc` as kubectl-contourc: a
# hard link, so the two names are one file that an upgrade replaces
# together, in the directory of contourc-engines.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	for prog in $(PROGRAMS); do install -m 0755 bin/$$prog $(DESTDIR)$(PREFIX)/bin/$$prog || exit 1; done
	ln -f $(DESTDIR)$(PREFIX)/bin/contourc $(DESTDIR)$(PREFIX)/bin/kubectl-contourc

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
	rm -rf bin dist coverage.out coverage.html
