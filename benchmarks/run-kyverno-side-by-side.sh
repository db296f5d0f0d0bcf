#!/usr/bin/env bash
# Kyverno's aggregation and Tally's, side by side on one real control plane with the same load.
#
# Kyverno v1.19.1's own admission controller and reports controller (built from Kyverno's Go module
# by go-tools/, cached) run on kube-testenv with the scenario's policies; a burst of Pods is
# admitted at once, then background scans run. Once with Kyverno aggregating
# (--aggregateReports=true, its default), once with Kyverno's aggregation off and Tally's
# aggregator jar installed by deploy/kyverno/ (its roles, its Deployment's arguments). Requests come
# from the API server's audit log, CPU seconds and peak RSS from /proc. One Markdown table per Pod
# count is printed and written to $OUT.
#
#   benchmarks/run-kyverno-side-by-side.sh                  # 500 Pods (scan every 30 s) and 5,000 (every 300 s)
#   RUNS="500:30:3" benchmarks/run-kyverno-side-by-side.sh  # pods:scan-seconds:scans, space-separated
#   TALLY_JVM_OPTIONS="-XX:StartFlightRecording=filename=benchmarks/target/tally.jfr,settings=profile" \
#     RUNS="500:30:3" benchmarks/run-kyverno-side-by-side.sh  # the aggregator's JVM profiled with JFR
#
# Needs Go 1.26.7+ (kube-testenv, Kyverno and Helm are built on first use), JDK 17, and the machine to
# itself: two processes compared on two cores are only comparable when nothing else runs.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-"500:30:3 5000:300:2"}
OUT=${OUT:-benchmarks/target/kyverno-side-by-side}

if ! command -v go > /dev/null; then
  echo "run-kyverno-side-by-side: no Go toolchain on the PATH (Go 1.26.7 or later is needed)" >&2
  exit 1
fi
for run in $RUNS; do
  if ! [[ $run =~ ^[0-9]+:[0-9]+:[0-9]+$ ]]; then
    echo "run-kyverno-side-by-side: RUNS takes pods:scan-seconds:scans, was '$run'" >&2
    exit 1
  fi
done
if [[ ! -f aggregator/target/tally-aggregator.jar || ! -f kyverno-e2e/target/classpath.txt ]]; then
  echo "run-kyverno-side-by-side: building the aggregator jar and kyverno-e2e" >&2
  ./mvnw -B -q -DskipTests -pl kyverno-e2e -am package
fi
mkdir -p "$OUT"
cp="kyverno-e2e/target/classes:$(cat kyverno-e2e/target/classpath.txt)"
{
  echo "Command: RUNS=\"$RUNS\" benchmarks/run-kyverno-side-by-side.sh"
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr), $(java -version 2>&1 | head -1)"
  echo
} | tee "$OUT/header.md"
for run in $RUNS; do
  IFS=: read -r pods interval scans <<< "$run"
  java -Xmx2g -Dtally.deploy.dir=deploy -Dtally.aggregator.jar=aggregator/target/tally-aggregator.jar \
    "-Dtally.aggregator.jvm-options=${TALLY_JVM_OPTIONS:-}" \
    -cp "$cp" dev.tally.kyverno.e2e.SideBySide "$pods" "$interval" "$scans" "$OUT" \
    2> >(tee "$OUT/side-by-side-$pods.log" >&2)
done
