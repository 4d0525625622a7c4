//! `chronolog-eval`: the memory's retrieval on a benchmark's file,
//! judge-free (docs/evaluation.md). `chronolog eval ...` runs this binary.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use chronolog_eval::{Dataset, EvalArgs};

/// Measure the memory's retrieval on a benchmark's file (judge-free).
#[derive(Parser, Debug)]
#[command(name = "chronolog-eval", version)]
struct Cli {
    #[command(subcommand)]
    dataset: EvalDataset,
}

#[derive(Subcommand, Debug)]
enum EvalDataset {
    /// LoCoMo (`locomo10.json` and its dev split): evidence recall@k,
    /// coverage at token budgets, abstention, latency; prints a markdown
    /// table (docs/evaluation.md).
    Locomo(EvalOptions),
    /// LongMemEval (`longmemeval_s.json` and friends, plain or gzipped):
    /// each question is a tenant with its haystack; evidence is the turns
    /// marked has_answer; `_abs` questions should be abstained on.
    Longmemeval(EvalOptions),
    /// Labelled sets of everyday sentences (`benches/eval/data/extraction/`):
    /// what the memory comes to believe from each, scored for recall and
    /// precision per language and split.
    Extraction(ExtractionOptions),
}

/// What `extraction` takes.
#[derive(clap::Args, Debug)]
struct ExtractionOptions {
    /// The labelled files; a file named for a language served (`de.txt`)
    /// is read in that language.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Score only this split: dev or held-out.
    #[arg(long, value_name = "SPLIT")]
    split: Option<String>,
    /// Print every dev case the memory did not get exactly right: what it
    /// missed and what it believed wrongly (held-out cases never are).
    #[arg(long)]
    explain: bool,
    /// Write the scores as JSON here.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// What every evaluation takes.
#[derive(clap::Args, Debug)]
struct EvalOptions {
    /// The dataset's JSON file.
    file: PathBuf,
    /// Write every number and the per-question rows as JSON here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write one JSON line per question (question, context, gold answer)
    /// for an LLM reader and judge elsewhere.
    #[arg(long)]
    export: Option<PathBuf>,
    /// Draw coverage against the token budget, one line per configuration,
    /// as an SVG file here.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// model (the default embedder: bge-small-en, int8 through ONNX
    /// Runtime, else all-MiniLM-L6-v2), bge, minilm, potion
    /// (potion-base-8M), usem (Universal Sentence Encoder multilingual v3)
    /// or hashing; the models are installed by scripts/install-model.sh.
    #[arg(long, default_value = "model")]
    embedder: String,
    /// The multilingual space's embedder: usem (Universal Sentence Encoder
    /// multilingual v3, as a memory has by default) or hashing. Only
    /// questions in another language than English, or to a memory in
    /// another language, search that space, and only the passages of
    /// tenants with such a message or question are embedded in it.
    #[arg(long, default_value = "usem")]
    multilingual: String,
    /// Every ablation and baseline too, not only the hybrid.
    #[arg(long)]
    all: bool,
    /// Ask only N items (conversations for LoCoMo, questions for
    /// LongMemEval), evenly spaced over the file so that every question
    /// type is sampled.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Ask only questions of these types, comma-separated (LoCoMo's
    /// categories 1..5, LongMemEval's question types such as
    /// temporal-reasoning).
    #[arg(long, value_delimiter = ',', value_name = "TYPES")]
    types: Vec<String>,
    /// Ask only questions whose text holds TEXT, in any case.
    #[arg(long, value_name = "TEXT")]
    matching: Option<String>,
    /// Print how each question asked was searched (the question as
    /// understood, each channel's candidates, the fusion, the verdict)
    /// before the numbers: with --matching, one question looked at closely.
    #[arg(long)]
    explain: bool,
    /// Vary one field of the memory's tuning, `name=value` (`--set
    /// rrf_k=20`; repeat for several). The fields are listed in
    /// memory/src/tuning.rs and printed by `chronolog recall --explain`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Sweep one field of the tuning over values, `name=v1,v2,...`
    /// (repeat for several fields, each swept alone): only the hybrid is
    /// asked, at each value, over one consolidation, and the value is
    /// fitted leaving one conversation out (LoCoMo) or by five folds of
    /// the questions (LongMemEval), the left-out figure printed beside
    /// the fitted one.
    #[arg(long = "sweep", value_name = "NAME=V1,V2,...")]
    sweep: Vec<String>,
}

/// `name=v1,v2,...` as the field and its values, each checked against
/// the tuning before anything is ingested.
fn sweep_of(text: &str) -> anyhow::Result<(String, Vec<String>)> {
    let (name, values) = text
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("--sweep takes name=v1,v2,..., not {text:?}"))?;
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    for value in &values {
        chronolog_memory::Tuning::default().set(name.trim(), value)?;
    }
    Ok((name.trim().to_string(), values))
}

fn extraction(options: ExtractionOptions) -> ExitCode {
    use chronolog_eval::extraction::{self, Split};
    let splits = match options.split.as_deref() {
        None => vec![Split::Dev, Split::HeldOut],
        Some("dev") => vec![Split::Dev],
        Some("held-out") => vec![Split::HeldOut],
        Some(other) => {
            eprintln!("error: --split takes dev or held-out, not {other:?}");
            return ExitCode::FAILURE;
        }
    };
    let args = extraction::ExtractionArgs {
        files: options.files,
        splits,
        explain: options.explain,
        out: options.out,
    };
    match extraction::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (dataset, options) = match cli.dataset {
        EvalDataset::Locomo(options) => (Dataset::Locomo, options),
        EvalDataset::Longmemeval(options) => (Dataset::LongMemEval, options),
        EvalDataset::Extraction(options) => return extraction(options),
    };
    let run = || -> anyhow::Result<()> {
        let args = EvalArgs {
            file: options.file,
            out: options.out,
            export: options.export,
            plot: options.plot,
            embedder: options.embedder,
            multilingual: options.multilingual,
            all: options.all,
            limit: options.limit,
            types: options.types,
            matching: options.matching,
            explain: options.explain,
            tuning: chronolog_memory::Tuning::default()
                .with_assignments(options.set.iter().map(String::as_str))?,
            sweeps: options
                .sweep
                .iter()
                .map(|s| sweep_of(s))
                .collect::<anyhow::Result<_>>()?,
        };
        chronolog_eval::run(dataset, &args)
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
