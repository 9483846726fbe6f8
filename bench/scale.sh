#!/usr/bin/env bash
# Whole-process benchmark: bin/contourc render (json, yaml) and check on
# synthetic corpora of N HTTPProxies or HTTPRoutes, each with its own
# Service, EndpointSlice and TLS Secret (shared/tools/scalegen, generated on
# the fly into a temporary directory). Prints one table row per command:
# the median wall time of SCALE_RUNS runs, that run's user+sys time, its
# peak RSS and the output size; then how the largest N grows on the one
# before it. Run via `make bench`, which builds bin/contourc first.
#
# The machines' speed drifts by tens of percent over minutes, so the runs
# are taken in rounds (every row once, then every row again, ...) rather
# than a row's runs back to back: each row's median then spans the whole
# benchmark, and rows compare fairly.
#
# N=100 is there for the small repository's start-up costs; its times are
# in milliseconds (GNU time's are in hundredths of a second, so the wall
# time is taken around it).
#
#   SCALE_SIZES="100 1000 5000 20000" SCALE_KINDS="httpproxy httproute" SCALE_RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."

shared=${SHARED:-../shared}
sizes=${SCALE_SIZES:-100 1000 5000 20000}
kinds=${SCALE_KINDS:-httpproxy httproute}
runs=${SCALE_RUNS:-3}
commands=("render -o json" "render -o yaml" "check")
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

# The rows: kind, N and command, in table order.
rows=()
for kind in $kinds; do
  for n in $sizes; do
    "$gen" -kind "$kind" -n "$n" -o "$tmp/$kind-$n"
    for c in "${!commands[@]}"; do
      rows+=("$kind $n $c")
    done
  done
done

# run_row ROW: runs it once, appending "wall_ms user sys rss_kib" to its
# stats and keeping its output's size.
run_row() {
  local kind n c flags=()
  read -r kind n c <<<"$1"
  if [ "$kind" = httproute ]; then
    flags=(--gateway scale/edge)
  fi
  local start end
  start=$(date +%s%N)
  # check exits 1 when an object is invalid; the corpora have none.
  # shellcheck disable=SC2086 # the command is words on purpose
  /usr/bin/time -o "$tmp/time" -f "%U %S %M" bin/contourc ${commands[$c]} "${flags[@]}" "$tmp/$kind-$n" >"$tmp/out" 2>"$tmp/err" || {
    echo "bench: ${commands[$c]} on $kind N=$n failed:" >&2
    cat "$tmp/err" >&2
    exit 1
  }
  end=$(date +%s%N)
  echo "$(((end - start) / 1000000)) $(cat "$tmp/time")" >>"$tmp/stats-$kind-$n-$c"
  wc -c <"$tmp/out" >"$tmp/size-$kind-$n-$c"
}

for _ in $(seq "$runs"); do
  for row in "${rows[@]}"; do
    run_row "$row"
  done
done

# median KIND N C: "wall_ms user+sys rss_kib" of the run with the median
# wall time.
median() {
  sort -n "$tmp/stats-$1-$2-$3" | awk -v mid=$(((runs + 1) / 2)) 'NR == mid { printf "%d %.2f %d\n", $1, $2 + $3, $4 }'
}

# seconds MS: a wall time as people read it: milliseconds under a second.
seconds() {
  awk -v ms="$1" 'BEGIN { if (ms < 1000) printf "%d ms", ms; else printf "%.2f s", ms / 1000 }'
}

printf '| corpus | command | wall (median of %d) | user+sys | peak RSS | output |\n' "$runs"
printf '|---|---|---|---|---|---|\n'
for row in "${rows[@]}"; do
  read -r kind n c <<<"$row"
  read -r wall cpu rss < <(median "$kind" "$n" "$c")
  printf '| %s N=%d (%s) | `%s` | %s | %.2f s | %d MiB | %s |\n' \
    "$kind" "$n" "$(du -sh "$tmp/$kind-$n" | cut -f1)" "${commands[$c]}" "$(seconds "$wall")" "$cpu" $((rss / 1024)) \
    "$(numfmt --to=iec <"$tmp/size-$kind-$n-$c")"
done

# Growth from the second largest N to the largest, from the medians.
read -r -a ns <<<"$sizes"
if [ "${#ns[@]}" -ge 2 ]; then
  small=${ns[${#ns[@]} - 2]} large=${ns[${#ns[@]} - 1]}
  printf '\n| corpus | command | wall N=%d / N=%d | peak RSS N=%d / N=%d |\n|---|---|---|---|\n' "$large" "$small" "$large" "$small"
  for kind in $kinds; do
    for c in "${!commands[@]}"; do
      read -r ws _ rs < <(median "$kind" "$small" "$c")
      read -r wl _ rl < <(median "$kind" "$large" "$c")
      awk -v k="$kind" -v cmd="${commands[$c]}" -v ws="$ws" -v wl="$wl" -v rs="$rs" -v rl="$rl" \
        'BEGIN { printf "| %s | `%s` | %.1f × | %.1f × |\n", k, cmd, wl / ws, rl / rs }'
    done
  done
fi
