#!/usr/bin/env bash
# Which test files wait for the background installs of `npm test` (scripts/test-all.sh):
#   bash scripts/test-plan.sh late    the files that use Python, chromium or redis-server
#   bash scripts/test-plan.sh early   every other test file
# A file counts as "late" when its source names one of them (the helpers tests/helpers/python.ts,
# tests/studio/browser.ts, tests/scale/scale-run-harness.ts, or python3 / playwright / redis
# directly). A file that needs one indirectly can say so with a comment: `// test-plan: late`.
set -eu
cd "$(dirname "$0")/.."
LATE_PATTERN='helpers/python\.ts|python3|playwright|browser\.ts|redis|scale-run-harness|test-plan: late'
all=$(find tests -name '*.test.ts' | LC_ALL=C sort)
# grep -l over the sorted list keeps the order; `|| true`: no match is not an error.
late=$(printf '%s\n' "$all" | xargs grep -lE "$LATE_PATTERN" || true)
case "${1:-}" in
  late) printf '%s\n' "$late" | sed '/^$/d' ;;
  early) printf '%s\n' "$all" | grep -vxF -f <(printf '%s\n' "$late" | sed '/^$/d') || true ;;
  *) echo "usage: bash scripts/test-plan.sh early|late" >&2; exit 2 ;;
esac
