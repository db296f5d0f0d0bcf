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
# A run "produced:..." is for Pod counts Kyverno's webhook cannot admit in a benchmark's time (about
# 20 Pods/s on two cores): per side, Kyverno's real background scan writes its intermediate report
# about 4 template Pods (one per label combination of the load), then Kyverno's scan is turned off,
# its admission controller and webhooks removed, and the script's own producer writes what the scan
# would: a burst of Pods created without the webhook, each with an EphemeralReport cloned from its
# template (Kyverno v1.19.1's exact shape), then scans that write a new one for every Pod, the given
# share of them with a verdict changed. RATE objects (Pods and reports alike) are created per
# second. Kyverno's reports controller is CPU-profiled (its --profile) to split out its aggregation.
# Its table and log are side-by-side-produced-<pods>.md/.log, with the profiles and the templates.
#
#   benchmarks/run-kyverno-side-by-side.sh                  # 500 Pods (scan every 30 s) and 5,000 (every 300 s)
#   RUNS="500:30:3" benchmarks/run-kyverno-side-by-side.sh  # pods:scan-seconds:scans, space-separated
#   RUNS="produced:5000:300:0,1,10" benchmarks/run-kyverno-side-by-side.sh
#       # produced:pods:scan-seconds:changed%,changed%,...: 5,000 Pods, then 3 scans 300 s apart with
#       # 0 %, 1 % and 10 % of the verdicts changed
#   RATE=400 RUNS="produced:50000:600:0,10" benchmarks/run-kyverno-side-by-side.sh  # 400 objects/s
#   SIDES=tally RATE=400 RUNS="produced:50000:300:0,10" …  # one side alone (produced runs only)
#   TALLY_JVM_OPTIONS="-XX:StartFlightRecording=filename=benchmarks/target/tally.jfr,settings=profile" \
#     RUNS="500:30:3" benchmarks/run-kyverno-side-by-side.sh  # the aggregator's JVM profiled with JFR
#
# Needs Go 1.26.7+ (kube-testenv, Kyverno and Helm are built on first use), JDK 17, and the machine to
# itself: two processes compared on two cores are only comparable when nothing else runs.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-"500:30:3 5000:300:2"}
OUT=${OUT:-benchmarks/target/kyverno-side-by-side}
RATE=${RATE:-200}

if ! command -v go > /dev/null; then
  echo "run-kyverno-side-by-side: no Go toolchain on the PATH (Go 1.26.7 or later is needed)" >&2
  exit 1
fi
percent='(100|[0-9]{1,2}(\.[0-9]+)?)'
for run in $RUNS; do
  if ! [[ $run =~ ^[0-9]+:[0-9]+:[0-9]+$ || $run =~ ^produced:[1-9][0-9]*:[1-9][0-9]*:$percent(,$percent)*$ ]]; then
    echo "run-kyverno-side-by-side: RUNS takes pods:scan-seconds:scans or" \
      "produced:pods:scan-seconds:changed%,changed%,..., was '$run'" >&2
    exit 1
  fi
done
if ! [[ $RATE =~ ^[1-9][0-9]*$ ]]; then
  echo "run-kyverno-side-by-side: RATE takes objects per second (a whole number > 0), was '$RATE'" >&2
  exit 1
fi
if [[ ! -f aggregator/target/tally-aggregator.jar || ! -f kyverno-e2e/target/classpath.txt ]]; then
  echo "run-kyverno-side-by-side: building the aggregator jar and kyverno-e2e" >&2
  ./mvnw -B -q -DskipTests -pl kyverno-e2e -am package
fi
mkdir -p "$OUT"
cp="kyverno-e2e/target/classes:$(cat kyverno-e2e/target/classpath.txt)"
{
  echo "Command: RUNS=\"$RUNS\" RATE=$RATE benchmarks/run-kyverno-side-by-side.sh"
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr), $(java -version 2>&1 | head -1)"
  echo
} | tee "$OUT/header.md"
for run in $RUNS; do
  if [[ $run == produced:* ]]; then
    IFS=: read -r _ pods interval changed <<< "$run"
    java -Xmx6g -Dtally.deploy.dir=deploy -Dtally.aggregator.jar=aggregator/target/tally-aggregator.jar \
      "-Dtally.aggregator.jvm-options=${TALLY_JVM_OPTIONS:-}" "-Dtally.sides=${SIDES:-kyverno,tally}" \
      -cp "$cp" dev.tally.kyverno.e2e.Produced "$pods" "$interval" "$changed" "$RATE" "$OUT" \
      2> >(tee "$OUT/side-by-side-produced-$pods.log" >&2)
    continue
  fi
  IFS=: read -r pods interval scans <<< "$run"
  java -Xmx2g -Dtally.deploy.dir=deploy -Dtally.aggregator.jar=aggregator/target/tally-aggregator.jar \
    "-Dtally.aggregator.jvm-options=${TALLY_JVM_OPTIONS:-}" \
    -cp "$cp" dev.tally.kyverno.e2e.SideBySide "$pods" "$interval" "$scans" "$OUT" \
    2> >(tee "$OUT/side-by-side-$pods.log" >&2)
done
