#!/usr/bin/env bash
# Whole-process benchmark: wall time and peak memory of bin/contourc render
# on a synthetic corpus of 1,000 HTTPProxies, each with its own Service,
# EndpointSlice and TLS Secret (shared/tools/scalegen). Run via `make bench`,
# which builds bin/contourc first.
set -euo pipefail
cd "$(dirname "$0")/.."

shared=${SHARED:-../shared}
corpus=${SCALE_DIR:-/tmp/contourc-scale-n1000}
if [ ! -f "$shared/tools/scalegen/main.go" ]; then
  echo "bench: $shared/tools/scalegen not found; skipping the whole-process run"
  exit 0
fi

rm -rf "$corpus"
go run "$shared/tools/scalegen/main.go" -n 1000 -shared-cert -o "$corpus"
echo "corpus: $corpus ($(du -sh "$corpus" | cut -f1))"

stats=$(mktemp)
trap 'rm -f "$stats"' EXIT
for format in json yaml; do
  out="$corpus.$format"
  # GNU time reports peak RSS; bash's time keyword only wall/user/sys.
  if /usr/bin/time -f x true >/dev/null 2>&1; then
    /usr/bin/time -o "$stats" -f "%e s wall, %M KiB max RSS" \
      bin/contourc render -o "$format" --output "$out" "$corpus" 2>"$out.stderr"
    echo "render -o $format: $(cat "$stats"), $(wc -c <"$out") bytes out, $(wc -l <"$out.stderr") stderr line(s)"
  else
    echo "render -o $format:"
    time bin/contourc render -o "$format" --output "$out" "$corpus" 2>"$out.stderr"
  fi
done
