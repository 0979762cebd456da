#!/usr/bin/env bash
# `npm run test:loaded`: the whole `npm test` while a CPU burner keeps every core busy, to check
# that no test fails only because the machine is slow (issue 35, item 9).
#
#   WINNOW_LOAD_WORKERS   busy loops to start (default: one per core, `nproc`)
#   WINNOW_LOAD_RUNS      how many times to run `npm test` under the load (default 1)
# Arguments go to `npm test` (`npm run test:loaded -- tests/cli`: only those test files).
#
# The burners are plain Node busy loops (no extra package), each ending by itself after
# WINNOW_LOAD_MAX_S seconds (default 3600) should this script be killed before it stops them.
set -u
cd "$(dirname "$0")/.." || exit 1
workers="${WINNOW_LOAD_WORKERS:-$(nproc)}"
runs="${WINNOW_LOAD_RUNS:-1}"
max_s="${WINNOW_LOAD_MAX_S:-3600}"
pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  pids=()
}
trap 'stop; exit 130' INT TERM
trap stop EXIT
for _ in $(seq "$workers"); do
  node -e "const end = Date.now() + ${max_s} * 1000; let x = 0; while (Date.now() < end) x = (x * 31 + 7) % 1000003;" &
  pids+=("$!")
done
echo "test-under-load: ${workers} busy loop(s) running (pids ${pids[*]}); npm test x${runs}"
rc=0
for i in $(seq "$runs"); do
  echo "test-under-load: run ${i} of ${runs}"
  npm test -- "$@" || rc=1
done
stop
echo "test-under-load: burners stopped; $([ "$rc" -eq 0 ] && echo 'every run passed' || echo 'a run FAILED')"
exit "$rc"
