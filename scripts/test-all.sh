#!/usr/bin/env bash
# `npm test`: typecheck, lint and the whole vitest suite, with what some tests need (Python
# packages, chromium, redis-server) installed in the background meanwhile:
#
#   1. the installs start at once, in the background (Python in one chain; chromium then
#      redis-server in another, as apt allows one install at a time), each under its own limit;
#   2. typecheck, lint, the layer rule (.dependency-cruiser.cjs; docs/architecture.md);
#   3. vitest, phase 1: every test file that needs none of those installs;
#   4. wait for the installs (their limits bound the wait), then vitest, phase 2: the files that
#      do (scripts/test-plan.sh picks them). A failed install skips its tests with a note;
#   5. one summary: the time of each phase and a closing "Tests: N passed, N failed, N skipped".
#
# The summary counts from WINNOW_TEST_T0 (epoch seconds) when set — .ci/run sets it before
# `npm install`, so the printed total includes the install — else from this script's start.
# `npm test -- tests/cli tests/buffer/x` runs only the test files whose path contains one of those
# (typecheck, lint and the installs still run).
# Timings go to .winnow/test-phases.txt, vitest's results to .winnow/vitest-phase{1,2}.json.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=.winnow
DEPS="$OUT/deps"
PHASES="$OUT/test-phases.txt"
mkdir -p "$DEPS"
rm -f "$DEPS"/* "$OUT"/vitest-phase1.json "$OUT"/vitest-phase2.json "$OUT"/vitest.json
now() { date +%s.%N; }
printf 'start %s\n' "${WINNOW_TEST_T0:-$(now)}" >"$PHASES"
printf 'script %s\n' "$(now)" >>"$PHASES"
mark() { printf '%s %s\n' "$1" "$(now)" >>"$PHASES"; }

# Each install chain writes "<name> <start> <end> <exit code>" to $DEPS/times when it ends.
deps_chain() {
  local name
  for name in "$@"; do
    local t0 rc
    t0=$(now)
    # Python's install is the long one (torch); apt's two are short where apt is reachable.
    local limit=300
    [ "$name" = python ] && limit=600
    timeout "${WINNOW_DEPS_LIMIT_S:-$limit}" bash "scripts/test-$name-deps.sh" >"$DEPS/$name.log" 2>&1
    rc=$?
    printf '%s %s %s %s\n' "$name" "$t0" "$(now)" "$rc" >>"$DEPS/times"
  done
}
deps_chain python &
PY_PID=$!
deps_chain browser queue &
APT_PID=$!
stop_deps() { kill "$PY_PID" "$APT_PID" 2>/dev/null; }
trap 'stop_deps; exit 130' INT TERM

failed=0
npm run --silent typecheck || failed=1
mark typecheck
npm run --silent lint || failed=1
mark lint
npm run --silent layers || failed=1
mark layers
if [ "$failed" -ne 0 ]; then
  # Fast feedback, as before: no tests after a type or lint error.
  stop_deps
  echo "npm test: typecheck, lint or the layer rule failed; tests not run" >&2
  node tools/test-summary.ts --phases "$PHASES" --checks-failed
  exit 1
fi

# `npm test -- tests/cli tests/buffer/foo`: only the test files whose path contains one of those.
only() { if [ "$#" -eq 0 ]; then cat; else grep -F "${@/#/-e}" || true; fi; }
mapfile -t LATE < <(bash scripts/test-plan.sh late | only "$@")
mapfile -t EARLY < <(bash scripts/test-plan.sh early | only "$@")
vitest() { node_modules/.bin/vitest run --reporter=default --reporter=json "$@"; }

if [ "${#EARLY[@]}" -gt 0 ]; then
  vitest --outputFile="$OUT/vitest-phase1.json" "${EARLY[@]}" || failed=1
fi
mark tests-early

wait "$PY_PID" "$APT_PID"
mark deps-wait
for name in python browser queue; do
  if [ -s "$DEPS/$name.log" ]; then sed "s/^/[$name deps] /" "$DEPS/$name.log"; fi
done
if [ "${#LATE[@]}" -gt 0 ]; then
  vitest --outputFile="$OUT/vitest-phase2.json" "${LATE[@]}" || failed=1
fi
mark tests-late

node tools/test-summary.ts --phases "$PHASES" --deps "$DEPS/times" "$OUT/vitest-phase1.json" "$OUT/vitest-phase2.json"
exit "$failed"
