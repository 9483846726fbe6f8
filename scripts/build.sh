#!/bin/sh
# Builds contourc the one way every artefact is built: make build, make
# dist, the Dockerfile and the GitHub Action's `version: source` all run
# this script, and internal/release's tests run the Dockerfile's line that
# calls it, so no two of them can drift apart.
#
# Usage: scripts/build.sh OUTPUT [PACKAGE]  (PACKAGE: ./cmd/contourc, or
# ./cmd/contourc-engines, the helper program beside it)
# Environment: VERSION, COMMIT, BUILD_DATE (default: from Git, when there is
# a checkout), GOOS and GOARCH (default: this machine), GO (default: go).
set -eu
out=${1:?usage: scripts/build.sh OUTPUT [PACKAGE]}
pkg=${2:-./cmd/contourc}
case $out in
/*) ;;
*) out=$PWD/$out ;;
esac
cd "$(dirname "$0")/.."
GO=${GO:-go}
if [ -z "${VERSION:-}" ]; then
	VERSION=$(git describe --always --dirty 2>/dev/null || echo dev)
fi
if [ -z "${COMMIT:-}" ]; then
	COMMIT=$(git rev-parse HEAD 2>/dev/null || true)
fi
# The commit's date, not the clock's: the same commit builds the same
# binary, byte for byte, whenever it is built.
if [ -z "${BUILD_DATE:-}" ]; then
	BUILD_DATE=$(git log -1 --format=%cI 2>/dev/null || true)
fi
# CGO_ENABLED=0: a static binary, which runs on any Linux (a FROM scratch
# image, Alpine, edge boxes without glibc) and, with no dynamic loader to
# run, starts 1-2 ms sooner. Nothing in contourc needs cgo; the network
# code uses Go's own resolver.
# -s -w leave out the symbol table and DWARF: the binary is a third smaller
# and starts about a millisecond sooner (fewer pages to map), which a run on
# a small repository notices; panics and profiles still name functions.
CGO_ENABLED=0 exec "$GO" build \
	-ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT -X main.buildDate=$BUILD_DATE" \
	-o "$out" "$pkg"
