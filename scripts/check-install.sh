#!/usr/bin/env bash
# The fresh-machine install path, as README gives it, into venvs of its own: `make install` with the
# pip that `python3 -m venv` bundles (23.2 on Python 3.11), and again with the newest pip, both at
# once. `make install` takes the locks exactly (--no-deps --require-hashes) and runs `pip check`; a
# Makefile that let pip resolve anything would fail here as soon as the index had a newer release.
# Run by .ci/run before `make test`. PYTHON picks the interpreter (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$PYTHON" -m venv "$work/newest"
"$work/newest/bin/python" -m pip --disable-pip-version-check install --quiet --upgrade pip >"$work/pip.log" 2>&1 \
    || { cat "$work/pip.log"; exit 1; }

status=0
for venv in bundled newest; do
    ( make --no-print-directory install PYTHON="$PYTHON" VENV="$work/$venv" >"$work/$venv.log" 2>&1 ) &
done
for venv in bundled newest; do wait -n || status=1; done
for venv in bundled newest; do
    pip=$("$work/$venv/bin/python" -m pip --version | cut -d' ' -f1-2)
    if grep -q "No broken requirements found" "$work/$venv.log" && [ -e "$work/$venv/.installed" ]; then
        echo "make install with $pip: ok"
    else
        echo "make install with $pip FAILED:"; grep -v "is ignored: it is neither" "$work/$venv.log"; status=1
    fi
done
exit $status
