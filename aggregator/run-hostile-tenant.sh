#!/usr/bin/env bash
# The hostile tenant that keeps attacking, for 30 minutes (docs/DESIGN.md, section 9.10, "The
# hostile tenant"): the same harness as the 2-minute run of `verify` (HostileTenantIT), longer and
# with a seed of its own. On kube-testenv (built on first use, cached), a tenant ServiceAccount
# with a namespace admin's rights runs a seeded mix of every enabled kind of attack while a victim
# namespace's Pods are created, changed, deleted and evaluated through each input (--input tally,
# kyverno, trivy: the duration is shared by them). Every request goes to loopback: the control
# plane and the aggregator's health port.
#
# Prints the seed first; writes the figures (attacks tried by kind, victim staleness p50/p99/max,
# peak RSS, restarts) as Markdown rows to $OUT/figures-<seed>.md, the README's table. A failure
# prints the seed and the shortest attack sequence found, and the script exits 1.
#
#   aggregator/run-hostile-tenant.sh                           # 30 minutes, a new seed
#   SEED=32 DURATION=6m INPUTS=tally aggregator/run-hostile-tenant.sh
#   INCLUDE_DISABLED=true aggregator/run-hostile-tenant.sh     # with the kinds disabled in verify
#   KINDS=churn,claimed-uid aggregator/run-hostile-tenant.sh   # only these kinds
#
# Needs JDK 17 and Go 1.26.7+ (kube-testenv). Builds the aggregator jar through Maven; the unit tests
# and the other integration tests are not run.
set -euo pipefail
cd "$(dirname "$0")/.."
SEED=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
DURATION=${DURATION:-30m}
INPUTS=${INPUTS:-tally,kyverno,trivy}
OUT=${OUT:-aggregator/target/hostile-tenant}

if ! [[ $SEED =~ ^-?[0-9]+$ ]]; then
  echo "run-hostile-tenant: SEED must be a number, was '$SEED'" >&2
  exit 2
fi
if ! command -v go > /dev/null; then
  echo "run-hostile-tenant: no Go toolchain on the PATH (kube-testenv is built with Go 1.26.7+)" >&2
  exit 1
fi
mkdir -p "$OUT"
figures="$(pwd)/$OUT/figures-$SEED.md"
rm -f "$figures"
echo "run-hostile-tenant: seed $SEED (SEED=$SEED reruns it), $DURATION in all over $INPUTS" >&2
{
  echo "Command: SEED=$SEED DURATION=$DURATION INPUTS=$INPUTS aggregator/run-hostile-tenant.sh"
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); commit $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"
  echo
} > "$OUT/header-$SEED.md"

status=0
# install's failsafe runs the aggregator module's *IT from its test-jar (as in verify); the image
# (exec, jib) is not built, and -Dtest=none skips every unit test
./mvnw -B -pl install -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=HostileTenantIT -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dexec.skip=true -Djib.skip=true -Dspotless.check.skip=true -Dtally.kube=required \
  "-Dtally.hostile.seed=$SEED" "-Dtally.hostile.duration=$DURATION" \
  "-Dtally.hostile.inputs=$INPUTS" "-Dtally.hostile.figures=$figures" \
  "-Dtally.hostile.include-disabled=${INCLUDE_DISABLED:-false}" \
  "-Dtally.hostile.kinds=${KINDS:-}" || status=$?

cat "$OUT/header-$SEED.md"
if [[ -f $figures ]]; then
  cat "$figures"
fi
echo "run-hostile-tenant: seed $SEED, exit $status" >&2
exit "$status"
