#!/usr/bin/env bash
# Python packages some tests use when they are importable (pyarrow, pandas, HF datasets, TRL…).
# Best effort by design: CI may have no Python or no package index, and the suite must pass
# without them (those tests skip with a visible note). This script therefore never fails:
# every problem is one visible line and exit 0.
#
# Where packages go: the user site (`pip install --user`), or — only where python3 refuses user
# installs (a Debian "externally managed" Python, or a virtualenv) — a venv at .cache/python
# (ignored by git), which tests/helpers/python.ts prefers when it exists.
# WINNOW_SKIP_PYTHON_DEPS=1 skips the whole step.
#
# Every name here is imported by some test (grep tests/ and examples/ before adding one); keep the
# list lean, it is the longest part of a fresh `npm test`. torch is whatever wheel the index
# serves (pip.conf's find-links may offer the CPU wheel). One name per line.
PACKAGES=(
  pyarrow
  pandas
  datasets
  trl
  torch
  transformers
  peft
  sympy
  lark
  onnx
  tokenizers
  numpy
  tensorboard
  lancedb
)

cd "$(dirname "$0")/.." || exit 0
note() { printf 'test-python-deps: %s\n' "$*" >&2; }

if [ "${WINNOW_SKIP_PYTHON_DEPS:-}" = "1" ]; then
  note "skipped (WINNOW_SKIP_PYTHON_DEPS=1); Python-backed tests skip where a package is missing"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  note "no python3 on PATH; Python-backed tests will be skipped"
  exit 0
fi

VENV="$PWD/.cache/python"
PY=python3
if [ -x "$VENV/bin/python" ]; then PY="$VENV/bin/python"; fi

# Found, not imported (importing torch, transformers and TRL takes tens of seconds, and the tests
# import what they use themselves); checked from / and only a real module counts: from the
# repository's root, `datasets` finds our own datasets/ folder as an empty namespace package.
FIND='import importlib.util as u, sys
for m in sys.argv[1:]:
    s = u.find_spec(m)
    if s is None or s.origin in (None, "namespace"): print(m)'
missing_of() { (cd / && "$PY" -c "$FIND" "$@" 2>/dev/null); }
has_module() { [ -z "$(missing_of "$1")" ]; }

# moto's S3 server (tests/scale/object-storage.test.ts, bench/scale-s3.ts): its module is
# moto.server, its package moto[server] (an extra), so it is checked and installed on its own.
if ! (cd / && "$PY" -c 'import moto.server' >/dev/null 2>&1); then
  note "installing moto[server] (a local S3-compatible server) for $PY (best effort)"
  if [ "$PY" = python3 ]; then moto_pip=(python3 -m pip install --quiet --user); else moto_pip=("$PY" -m pip install --quiet); fi
  timeout 240 "${moto_pip[@]}" --retries 0 --timeout 15 'moto[server]' >/dev/null 2>&1 ||
    note "NOTE: moto[server] could not be installed; the object-storage tests are skipped"
fi

mapfile -t missing_mods < <(missing_of "${PACKAGES[@]//-/_}")
missing=()
for pkg in "${PACKAGES[@]}"; do
  [[ " ${missing_mods[*]} " == *" ${pkg//-/_} "* ]] && missing+=("$pkg")
done
if [ "${#missing[@]}" -eq 0 ]; then
  note "all present (${PACKAGES[*]}) for $PY"
  exit 0
fi

# Each index lookup pip cannot reach would otherwise be retried 5 times with back-off (~8 s per
# package name, dozens of names with the dependencies): no retries, a short timeout.
PIP_NET=(--retries 0 --timeout 15)
pip_install() {
  if [ "$PY" = python3 ]; then python3 -m pip install --quiet --user "${PIP_NET[@]}" "$@"; else
    "$PY" -m pip install --quiet "${PIP_NET[@]}" "$@"; fi
}
# Whether an index offers $1: one quick lookup, nothing downloaded. Names no index serves
# (lancedb, where only a local mirror is reachable) are dropped up front: one of them would fail
# the whole set, and the one-at-a-time retry after it cost minutes on every run. A pip without
# `pip index` (or any other answer) counts as available.
available() {
  local out
  out=$(timeout 60 "$PY" -m pip index versions "${PIP_NET[@]}" "$1" 2>&1)
  ! grep -q "No matching distribution found" <<<"$out"
}
unavailable=()
wanted=()
for pkg in "${missing[@]}"; do
  if available "$pkg"; then wanted+=("$pkg"); else unavailable+=("$pkg"); fi
done
if [ "${#unavailable[@]}" -gt 0 ]; then
  note "NOTE: no package index offers ${unavailable[*]}; the tests that need them are skipped"
fi
missing=("${wanted[@]}")
[ "${#missing[@]}" -eq 0 ] && exit 0

note "installing ${missing[*]} for $PY (best effort; a failure only skips tests)"
log=$(mktemp)
# The large ones (torch and what needs it) go last, in a call of their own: when the time limit
# stops a slow download, the small ones are installed already.
HEAVY=" torch trl transformers peft "
install_all() {
  local light=() heavy=()
  for pkg in "${missing[@]}"; do
    if [[ "$HEAVY" == *" $pkg "* ]]; then heavy+=("$pkg"); else light+=("$pkg"); fi
  done
  { [ "${#light[@]}" -eq 0 ] || pip_install "${light[@]}"; } >"$log" 2>&1 &&
    { [ "${#heavy[@]}" -eq 0 ] || pip_install "${heavy[@]}"; } >>"$log" 2>&1 && return 0
  if [ "$PY" = python3 ] &&
    grep -qiE "externally-managed-environment|can not perform a '--user' install|user site-packages are not visible" "$log"; then
    # This Python refuses user installs (Debian's PEP 668, or a virtualenv): a venv of our own.
    # Only then — a venv would hide the user site, where earlier runs may have installed packages.
    note "python3 refuses --user installs; using a venv at $VENV"
    python3 -m venv --system-site-packages "$VENV" >>"$log" 2>&1 || return 1
    PY="$VENV/bin/python"
    pip_install "${missing[@]}" >>"$log" 2>&1 && return 0
  fi
  # One package pip cannot get fails its whole set: only then, one at a time.
  failed=()
  for pkg in "${missing[@]}"; do has_module "${pkg//-/_}" || pip_install "$pkg" >>"$log" 2>&1 || failed+=("$pkg"); done
  [ "${#failed[@]}" -eq 0 ]
}

failed=("${missing[@]}")
if install_all; then
  note "installed ${missing[*]} for $PY"
else
  note "NOTE: could not install ${failed[*]} (no package index reachable, or no wheel for this Python); the tests that need them are skipped. Last pip lines:"
  tail -n 3 "$log" | sed 's/^/test-python-deps:   /' >&2
fi
rm -f "$log"
exit 0
