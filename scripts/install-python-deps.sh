#!/usr/bin/env bash
# Makes the virtualenv the Python-facing tests run in: the official MCP
# SDK (the real client `chronolog mcp` is tested with), pytest, maturin
# (which builds the `chronolog` Python package) and pandas (for
# `Rows.to_pandas`, which the package does not require). The tests look
# for it at ./.venv (or take $CHRONOLOG_PYTHON). Safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-$PWD/.venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "mcp>=2.3,<3" "pytest>=8,<10" "maturin>=1.8,<2" "pandas>=2,<4"
"$venv/bin/python" -c "import mcp, pytest; print('python deps ready in $venv')"
