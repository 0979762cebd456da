#!/usr/bin/env bash
# Prepares what the scale-out tests need: Debian's `redis-server` (BullMQ's store). The tests start
# their own server on a free loopback port and stop it. Best effort: when apt is unreachable or we are
# not root, those tests skip with a visible note instead of failing. `npm test` runs this under a time limit.
set -u
SERVER="${WINNOW_REDIS_SERVER:-redis-server}"
if command -v "$SERVER" >/dev/null 2>&1; then
  echo "test-queue-deps: redis-server present ($("$SERVER" --version | cut -d' ' -f3))"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-queue-deps: no apt-get here; the scale-out tests will skip (install redis-server yourself)" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "test-queue-deps: not root and no passwordless sudo; the scale-out tests will skip" >&2
    exit 0
  fi
fi
echo "test-queue-deps: installing redis-server with apt-get (best effort)"
export DEBIAN_FRONTEND=noninteractive
# Tests start their own server on a free port; a system service the package may start is left alone.
$SUDO apt-get update -qq >/dev/null 2>&1 || true
if $SUDO apt-get install -y -qq --no-install-recommends redis-server >/dev/null 2>&1; then
  echo "test-queue-deps: redis-server installed"
else
  echo "test-queue-deps: apt-get install redis-server failed; the scale-out tests will skip" >&2
fi
exit 0
