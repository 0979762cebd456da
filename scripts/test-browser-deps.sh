#!/usr/bin/env bash
# Prepares what the Studio's browser tests need: Debian's `chromium` (driven by playwright-core, which
# downloads no browser of its own). Best effort: when apt is unreachable or we are not root, the tests
# skip with a visible note instead of failing. `npm test` runs this under a time limit.
set -u
BROWSER="${WINNOW_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$BROWSER" ]; then
  echo "test-browser-deps: chromium present at $BROWSER"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-browser-deps: no apt-get here; the Studio browser tests will skip (install chromium yourself)" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "test-browser-deps: not root and no passwordless sudo; the Studio browser tests will skip" >&2
    exit 0
  fi
fi
echo "test-browser-deps: installing chromium with apt-get (best effort)"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null 2>&1 || true
if $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
  echo "test-browser-deps: chromium installed"
else
  echo "test-browser-deps: apt-get install chromium failed; the Studio browser tests will skip" >&2
fi
exit 0
