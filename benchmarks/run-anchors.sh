#!/usr/bin/env bash
# Tally, the hand-written baseline and Kyverno's merge algorithm (the Go anchor in
# benchmarks/kyverno-anchor) side by side on the reference workload, in one run: full aggregation
# at each size, thread CPU time per result, rounds interleaved so that all three see the same
# machine load. Prints one Markdown table (ns/result, ratios, scaling 1M ÷ 100k).
#
#   ./mvnw -B -q -DskipTests package && benchmarks/run-anchors.sh
#
# Environment (all optional):
#   ROUNDS=5                      interleaved rounds; each starts one Go and one JVM process per size
#   SIZES="10000 100000 1000000"  results of the workload (multiples of 10)
#   INPUTS=fresh                  fresh | reused | shared, how the JVM side hands over its input
#   JAVA=java                     the JVM
#   JAVA_HEAP="-Xms6g -Xmx6g -XX:+AlwaysPreTouch"   as every JMH fork (see BenchHeap)
#   OUT=benchmarks/target/anchors where the raw lines (run-*.log) and the table (run-*.md) are kept
#   FROM_LOG=…/run-….log          run nothing: print the table of that earlier run again
# Needs a Go toolchain (1.21 or later) on the PATH; the anchor is built once into
# benchmarks/target/ and rebuilt only when its sources change.
set -euo pipefail

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SIZES=${SIZES:-"10000 100000 1000000"}
INPUTS=${INPUTS:-fresh}
JAVA=${JAVA:-java}
JAVA_HEAP=${JAVA_HEAP:-"-Xms6g -Xmx6g -XX:+AlwaysPreTouch"}
OUT=${OUT:-benchmarks/target/anchors}

jar=benchmarks/target/benchmarks.jar
src=benchmarks/kyverno-anchor
bin=benchmarks/target/kyverno-anchor/kyverno-anchor

if [[ -n ${FROM_LOG:-} ]]; then
  : # only the table of an earlier run is printed
elif [[ ! -f $jar ]]; then
  echo "run-anchors: $jar is missing; build it first: ./mvnw -B -q -DskipTests package" >&2
  exit 1
elif ! command -v go > /dev/null; then
  echo "run-anchors: no Go toolchain on the PATH (Go 1.21 or later is needed)" >&2
  exit 1
fi
for size in $SIZES; do
  if ! [[ $size =~ ^[0-9]+$ ]] || ((size < 10 || size % 10 != 0)); then
    echo "run-anchors: sizes must be positive multiples of 10, was '$size'" >&2
    exit 1
  fi
done

# ------------------------------------------------------------------ build the anchor (cached)
if [[ -z ${FROM_LOG:-} ]] && { [[ ! -x $bin ]] || [[ -n $(find "$src" \( -name '*.go' -o -name go.mod \) -newer "$bin") ]]; }; then
  echo "run-anchors: building $bin" >&2
  mkdir -p "$(dirname "$bin")"
  (cd "$src" && GOTOOLCHAIN=local GOFLAGS= GOCACHE="${GOCACHE:-$OLDPWD/benchmarks/target/go-build}" \
    go build -trimpath -o "$OLDPWD/$bin" .)
fi

# ------------------------------------------------------------------ repetitions per process
# Go: unmeasured rounds, measured rounds; JVM: warm-up reps and measured reps at the size (after
# 20 reps at 10k for the JIT). Fewer at larger sizes, where one repetition takes seconds.
go_args() {
  local size=$1
  if ((size <= 10000)); then
    echo "-warmup 5 -rounds 20"
  elif ((size <= 100000)); then
    echo "-warmup 2 -rounds 5"
  else
    echo "-warmup 1 -rounds 3"
  fi
}
java_args() {
  local size=$1
  if ((size <= 10000)); then
    echo "--jit-warmup 20 --warmup 10 --reps 20"
  elif ((size <= 100000)); then
    echo "--jit-warmup 20 --warmup 3 --reps 5"
  else
    echo "--jit-warmup 20 --warmup 1 --reps 3"
  fi
}

run_go() {
  local size=$1
  # shellcheck disable=SC2046
  "$bin" -samples $(go_args "$size") "$size" | tee -a "$log" | grep -v '^sample ' >&2
}
run_java() {
  local size=$1
  # shellcheck disable=SC2046,SC2086
  "$JAVA" $JAVA_HEAP -cp "$jar" dev.tally.report.bench.SideBySide --inputs "$INPUTS" \
    $(java_args "$size") "$size" | tee -a "$log" | grep -v '^sample ' >&2
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg 2> /dev/null || uptime; }

if [[ -n ${FROM_LOG:-} ]]; then
  log=$FROM_LOG # render the table of an earlier run, nothing is run
  table=${log%.log}.md
else
  mkdir -p "$OUT"
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  log="$OUT/run-$stamp.log"
  table="$OUT/run-$stamp.md"
  {
    echo "# rounds: $ROUNDS"
    echo "# sizes: $SIZES"
    echo "# inputs: $INPUTS"
    echo "# started: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load average $(loadavg)"
    echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2> /dev/null | cut -d: -f2 | sed 's/^ //')"
    echo "# java: $("$JAVA" -version 2>&1 | head -1), heap $JAVA_HEAP"
    echo "# go: $(go version | cut -d' ' -f3-) (GOMAXPROCS: see the kyverno-anchor lines)"
  } > "$log"
  for ((round = 1; round <= ROUNDS; round++)); do
    for size in $SIZES; do
      echo "run-anchors: round $round of $ROUNDS, $size results" >&2
      # who goes first alternates, so neither always runs right after the other's garbage
      if ((round % 2 == 1)); then
        run_go "$size"
        run_java "$size"
      else
        run_java "$size"
        run_go "$size"
      fi
    done
  done
  echo "# ended: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), load average $(loadavg)" >> "$log"
fi
meta() { sed -n "s/^# $1: //p" "$log" | head -1; }
SIZES=$(meta sizes)

# ------------------------------------------------------------------ the table
# min and median (the upper one for an even count, as the programs print it) of ns/result over
# every measured sample of every round
stat() { # impl size -> "min median count"
  { grep "^sample impl=$1 results=$2 " "$log" || true; } | sed -E 's/.* cpu_ns=([0-9]+).*/\1/' | sort -n |
    awk -v size="$2" '{ v[NR] = $1 / size } END {
      if (NR == 0) { print "- - 0"; exit }
      printf "%.1f %.1f %d\n", v[1], v[int(NR / 2) + 1], NR }' || true
}
ratio() { # a b -> a / b
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "–"; else printf "%.2f", a / b }'
}
counts() { # the summary counts a program printed for a size, all rounds' lines the same or "differ"
  { grep -E "^$1 (impl=$2 )?results=$3 " "$log" || true; } |
    grep -oE 'pass=[0-9]+ fail=[0-9]+ warn=[0-9]+ error=[0-9]+ skip=[0-9]+' |
    sort -u | awk 'NR == 1 { c = $0 } NR > 1 { c = "differ" } END { print c }' || true
}
thousands() { echo "$1" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta'; }

{
  echo "Full aggregation of the reference workload, thread CPU time per result (ns), min / median"
  echo "over every measured sample of $(meta rounds) interleaved rounds; inputs of the JVM side: $(meta inputs)."
  echo "Started $(meta started); ended $(meta ended)."
  echo "Machine: $(meta machine); $(meta java); $(meta go)."
  echo
  echo "| results | Tally | baseline | Kyverno's algorithm, Go | Tally ÷ baseline | Kyverno-Go ÷ Tally | samples (Tally, baseline, Go) | same results |"
  echo "|---:|---:|---:|---:|---:|---:|---|---|"
  declare -A tmin tmed bmin bmed kmin kmed
  for size in $SIZES; do
    read -r tmin[$size] tmed[$size] tn < <(stat tally "$size")
    read -r bmin[$size] bmed[$size] bn < <(stat baseline "$size")
    read -r kmin[$size] kmed[$size] kn < <(stat kyverno-go "$size")
    t_counts=$(counts side-by-side tally "$size")
    b_counts=$(counts side-by-side baseline "$size")
    k_counts=$(counts kyverno-anchor "" "$size")
    if [[ -n $t_counts && $t_counts != differ && $t_counts == "$b_counts" && $t_counts == "$k_counts" ]]; then
      same="yes ($t_counts)"
    else
      same="**NO**: Tally $t_counts; baseline $b_counts; Go $k_counts"
    fi
    echo "| $(thousands "$size") | ${tmin[$size]} / ${tmed[$size]} | ${bmin[$size]} / ${bmed[$size]} |" \
      "${kmin[$size]} / ${kmed[$size]} |" \
      "$(ratio "${tmin[$size]}" "${bmin[$size]}") / $(ratio "${tmed[$size]}" "${bmed[$size]}") |" \
      "$(ratio "${kmin[$size]}" "${tmin[$size]}") / $(ratio "${kmed[$size]}" "${tmed[$size]}") |" \
      "$tn, $bn, $kn | $same |"
  done
  if [[ " $SIZES " == *" 100000 "* && " $SIZES " == *" 1000000 "* ]]; then
    echo "| scaling 1M ÷ 100k | $(ratio "${tmin[1000000]}" "${tmin[100000]}") / $(ratio "${tmed[1000000]}" "${tmed[100000]}") |" \
      "$(ratio "${bmin[1000000]}" "${bmin[100000]}") / $(ratio "${bmed[1000000]}" "${bmed[100000]}") |" \
      "$(ratio "${kmin[1000000]}" "${kmin[100000]}") / $(ratio "${kmed[1000000]}" "${kmed[100000]}") | | | | |"
  fi
  echo
  echo "Ratios are of the minima / of the medians. Budgets (issue 10) at 100k: Tally ÷ baseline ≤ 0.5,"
  echo "Kyverno-Go ÷ Tally ≥ 1.1; scaling of Tally ≤ 1.3. Raw lines: $log"
} | tee "$table"
