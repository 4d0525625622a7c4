#!/usr/bin/env bash
# Proves the Python package installs the way a user installs it: a fresh
# virtualenv, `pip install ./bindings/python` (maturin builds the module
# in release), then the package's pytest suite against what was installed,
# run from outside the source tree. Needs only Python 3.9+, pip and the
# Rust toolchain. CHRONOLOG_WHEEL_PROFILE=dev builds the module with the
# dev profile instead of release (CI does: it reuses what `cargo test`
# built minutes before, where a release build would take ten minutes on
# two cores; the packaging, the install and the tests are the same).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
if [ -n "${CHRONOLOG_WHEEL_PROFILE:-}" ]; then
  export MATURIN_PEP517_ARGS="--profile ${CHRONOLOG_WHEEL_PROFILE}"
fi
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$root/bindings/python[test]"
cd "$work"
"$work/venv/bin/python" -c "import chronolog, sys; print('installed chronolog', chronolog.__version__, 'at', chronolog.__file__)"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/bindings/python/tests"
