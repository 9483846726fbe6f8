#!/usr/bin/env bash
# Whole-process benchmark: bin/contourc render (json, yaml) and check on
# synthetic corpora of N HTTPProxies or HTTPRoutes, each with its own
# Service, EndpointSlice and TLS Secret (shared/tools/scalegen, generated on
# the fly into a temporary directory). Prints one table row per command:
# the median wall time of SCALE_RUNS runs, that run's user+sys time, its
# peak RSS and the output size. Run via `make bench`, which builds
# bin/contourc first.
#
#   SCALE_SIZES="1000 5000 20000" SCALE_KINDS="httpproxy httproute" SCALE_RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."

shared=${SHARED:-../shared}
sizes=${SCALE_SIZES:-1000 5000 20000}
kinds=${SCALE_KINDS:-httpproxy httproute}
runs=${SCALE_RUNS:-3}
if [ ! -f "$shared/tools/scalegen/main.go" ]; then
  echo "bench: $shared/tools/scalegen not found; skipping the whole-process run"
  exit 0
fi
if ! /usr/bin/time -f x true >/dev/null 2>&1; then
  echo "bench: GNU time (/usr/bin/time) not found; skipping the whole-process run"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen="$tmp/scalegen"
go build -o "$gen" "$shared/tools/scalegen/main.go"

# run_median CMD...: runs CMD $runs times and prints "wall user+sys rss_kib"
# of the run with the median wall time.
run_median() {
  local stats="$tmp/stats"
  : >"$stats"
  for _ in $(seq "$runs"); do
    /usr/bin/time -a -o "$stats" -f "%e %U %S %M" "$@" >"$tmp/out" 2>"$tmp/err" || {
      echo "bench: $* failed:" >&2
      cat "$tmp/err" >&2
      exit 1
    }
  done
  sort -n "$stats" | awk -v mid=$(((runs + 1) / 2)) 'NR == mid { printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }'
}

printf '| corpus | command | wall (median of %d) | user+sys | peak RSS | output |\n' "$runs"
printf '|---|---|---|---|---|---|\n'
for kind in $kinds; do
  for n in $sizes; do
    corpus="$tmp/$kind-$n"
    "$gen" -kind "$kind" -n "$n" -o "$corpus"
    flags=()
    if [ "$kind" = httproute ]; then
      flags=(--gateway scale/edge)
    fi
    for cmd in "render -o json" "render -o yaml" "check"; do
      # check exits 1 when an object is invalid; the corpora have none.
      read -r wall cpu rss < <(run_median bin/contourc $cmd "${flags[@]}" "$corpus")
      printf '| %s N=%d (%s) | `%s` | %.2f s | %.2f s | %d MiB | %s |\n' \
        "$kind" "$n" "$(du -sh "$corpus" | cut -f1)" "$cmd" "$wall" "$cpu" $((rss / 1024)) "$(wc -c <"$tmp/out" | numfmt --to=iec)"
    done
    rm -rf "$corpus"
  done
done
