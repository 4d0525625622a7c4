#!/usr/bin/env bash
# One command for the whole performance table: every benchmark of storage,
# language, retrieval and memory (with the cozo comparisons measured in the
# same run), then the LoCoMo evaluation with its coverage plot (the
# hybrid reranked, about 20 minutes of it) and LongMemEval dev. Writes
# docs/benchmarks-latest.md (the machine, the commit, and each command
# with what it printed: ratios against cozo, not absolute times, are what
# the tables claim) and docs/coverage-locomo-dev.svg. docs/benchmarks.md
# keeps the narrative and the reasons; this file is the latest run.
#
#   bash scripts/bench-all.sh            # everything (about 70 minutes on 2 cores)
#   bash scripts/bench-all.sh --quick    # no criterion, smaller memory run (about 10)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=false
[ "${1:-}" = "--quick" ] && quick=true
out=docs/benchmarks-latest.md
locomo=${LOCOMO:-../shared/data/locomo10-dev.json}
longmemeval=${LONGMEMEVAL:-../shared/data/longmemeval_s-dev.json.gz}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Models installed under ./models (as CI does) rather than the per-user
# directory: point at them.
if [ -z "${CHRONOLOG_MODEL_DIR:-}" ] && [ -d models/all-MiniLM-L6-v2 ]; then
  export CHRONOLOG_MODEL_DIR="$PWD/models/all-MiniLM-L6-v2"
fi
if [ -z "${CHRONOLOG_BGE_DIR:-}" ] && [ -d models/bge-small-en ]; then
  export CHRONOLOG_BGE_DIR="$PWD/models/bge-small-en"
fi
if [ -z "${CHRONOLOG_ONNXRUNTIME:-}" ] && [ -f models/onnxruntime/libonnxruntime.so ]; then
  export CHRONOLOG_ONNXRUNTIME="$PWD/models/onnxruntime/libonnxruntime.so"
fi
cargo build --release -p chronolog-benches -p chronolog-cli -p chronolog-eval --bins

{
  echo "# Benchmarks: the latest full run"
  echo
  echo "Written by \`bash scripts/bench-all.sh$($quick && echo ' --quick')\` on $(date -u +%Y-%m-%d)"
  echo "at commit \`$(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')\`."
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'),"
  echo "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) of memory; $(uname -sr)."
  echo "Peers run in the same process on the same data; read the ratios."
  echo "\`docs/benchmarks.md\` explains each workload and what the numbers mean."
} > "$tmp/report.md"

# run TITLE COMMAND...: runs a benchmark, appends its command and output.
run() {
  local title="$1"
  shift
  echo "== $title: $*" >&2
  {
    echo
    echo "## $title"
    echo
    echo '```sh'
    echo "$*"
    echo '```'
    echo
  } >> "$tmp/report.md"
  "$@" > "$tmp/run.out" 2> "$tmp/run.err" || {
    echo "failed: $*" >&2
    cat "$tmp/run.err" >&2
    exit 1
  }
  # Markdown tables stay tables; anything else goes in a text block.
  if grep -q '^|' "$tmp/run.out"; then
    cat "$tmp/run.out" >> "$tmp/report.md"
  else
    { echo '```text'; cat "$tmp/run.out"; echo '```'; } >> "$tmp/report.md"
  fi
}

bin=target/release
run "Storage vs cozo" "$bin/compare"
run "Language vs cozo" "$bin/compare_language"
run "Retrieval vs cozo" "$bin/compare_retrieval"
run "Embedding throughput" "$bin/embedding"
run "Reopening a large database" "$bin/reopen"
if $quick; then
  run "Agent memory: write path, consolidation, search" "$bin/memory" 20000 2000
else
  run "Agent memory: write path, consolidation, search" "$bin/memory" 100000 2000
fi
if [ -f "$locomo" ]; then
  # The channel ablations without the reranker (each reranked search takes
  # about a second here), then the hybrid as it ships, reranked.
  run "LoCoMo retrieval (judge-free), ablations without the reranker" \
    "$bin/chronolog-eval" locomo "$locomo" --all --set rerank_depth=0 \
    --plot docs/coverage-locomo-dev.svg
  run "LoCoMo retrieval (judge-free), the hybrid with the reranker" \
    "$bin/chronolog-eval" locomo "$locomo"
  {
    echo
    echo '![coverage against the token budget](coverage-locomo-dev.svg)'
  } >> "$tmp/report.md"
else
  echo "(no $locomo: the evaluation is skipped; set LOCOMO=FILE)" >&2
fi
if [ -f "$longmemeval" ]; then
  # Ingest and consolidation throughput (turns/s) on long histories, with
  # the static embedder; the reranker off (long turns make it seconds a
  # question).
  run "LongMemEval_S dev retrieval (judge-free), potion, no reranker" \
    "$bin/chronolog-eval" longmemeval "$longmemeval" --embedder potion --set rerank_depth=0
else
  echo "(no $longmemeval: skipped; set LONGMEMEVAL=FILE)" >&2
fi
if ! $quick; then
  # Criterion keeps its own reports (target/criterion/report/index.html);
  # the summary lines say each bench's median.
  echo "== criterion" >&2
  # Only the criterion targets (`--benches` would also run the library's
  # and the binaries' test harnesses, which refuse `--noplot`). A long
  # bench name stands on its own line, its time on the next.
  cargo bench -p chronolog-benches --bench '*' -- --noplot 2> "$tmp/criterion.err" \
    | awk '/time:/ { line = ($1 == "time:") ? prev " " $0 : $0
                     gsub(/ +/, " ", line); print line; next }
           NF { prev = $0 }' > "$tmp/criterion.out" || {
    echo "failed: cargo bench" >&2
    tail -20 "$tmp/criterion.err" >&2
    exit 1
  }
  {
    echo
    echo "## Criterion micro-benchmarks"
    echo
    echo '```sh'
    echo "cargo bench -p chronolog-benches"
    echo '```'
    echo
    echo '```text'
    cat "$tmp/criterion.out"
    echo '```'
  } >> "$tmp/report.md"
fi
mv "$tmp/report.md" "$out"
echo "wrote $out" >&2
