//! ONNX Runtime: the engine's runtime for transformer models quantised to
//! int8 (bge-small-en). Such a model runs about seven times faster per
//! layer than the same model in float32 through candle on this class of
//! CPU (its matrix products use the CPU's int8 instructions), which is what
//! makes a 12-layer embedder affordable on every message.
//!
//! The runtime is a shared library loaded when the first model is, from
//! the file `scripts/install-model.sh` installs (taken from the
//! `onnxruntime` wheel on PyPI and checksummed): nothing is linked or
//! downloaded at build time, and a build without the library installed
//! still runs, with the error naming the script when a model needs it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use ort::environment::Environment;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{EncodeInput, Encoding, Tokenizer, TruncationParams};

use super::model_files::{model_error, require};
use crate::error::{Error, Result, RetrievalError};

/// The most sessions a model keeps (each holds the weights again: about
/// 35 MB for the int8 models): twenty pairs gain little past four.
const MAX_SESSIONS: usize = 4;

/// The files every ONNX model's directory holds.
pub(crate) const FILES: [&str; 2] = ["model.onnx", "tokenizer.json"];

/// The runtime's directory below the models directory, and its library.
const SUBDIR: &str = "onnxruntime";
const LIBRARY: &str = "libonnxruntime.so";

/// Where the runtime's library is looked for: `CHRONOLOG_ONNXRUNTIME` (the
/// library file itself) when set, else `onnxruntime/libonnxruntime.so` in
/// the per-user models directory, else below `models/` in the working
/// directory.
pub fn runtime_path() -> PathBuf {
    if let Some(file) = std::env::var_os("CHRONOLOG_ONNXRUNTIME") {
        return PathBuf::from(file);
    }
    super::default_embedder::models_home()
        .unwrap_or_else(|| PathBuf::from("models"))
        .join(SUBDIR)
        .join(LIBRARY)
}

/// The process's one runtime environment, loaded on first use. A library
/// can be loaded once per process, so a failure is remembered, not retried.
fn environment() -> Result<&'static Environment> {
    static ENVIRONMENT: OnceLock<std::result::Result<Environment, String>> = OnceLock::new();
    ENVIRONMENT
        .get_or_init(|| {
            let path = runtime_path();
            if !path.is_file() {
                return Err(format!(
                    "{} is missing (run scripts/install-model.sh, or set CHRONOLOG_ONNXRUNTIME)",
                    path.display()
                ));
            }
            ort::init_from(&path)
                .map_err(|e| format!("loading ONNX Runtime from {}: {e}", path.display()))?
                .with_name("chronolog")
                .build()
                .map_err(|e| format!("starting ONNX Runtime: {e}"))
        })
        .as_ref()
        .map_err(|why| RetrievalError::Model(why.clone()).into())
}

/// A BERT-shaped ONNX model with its tokenizer: a text (or a pair) in, one
/// float tensor out (the last hidden state, or a classifier's logits).
///
/// Texts run one at a time, never batched: an int8 graph quantises each
/// layer's activations with one scale for the whole batch, so a batched
/// text's output would move with its batchmates (a cosine of 0.989 to
/// its own vector was seen), and a memory's vectors and scores would
/// depend on how its messages happened to arrive. Alone, a text's output
/// is its own, and nothing is padded; it costs about a quarter more time
/// than batches of 32 (LoCoMo dev consolidated in 28.8 s against 21.4 s).
///
/// One session per core, each on one thread: texts run side by side
/// ([`OnnxBert::map`]) rather than one text's operators split across the
/// cores, whose hand-offs cost more than a short text's work (the
/// reranker's twenty pairs of about 100 tokens: see docs/evaluation.md).
pub(crate) struct OnnxBert {
    sessions: Vec<Mutex<Session>>,
    /// Where the next run starts looking for a free session.
    next: AtomicUsize,
    // `Tokenizer` is not `Sync`; the model dominates the cost.
    tokenizer: Mutex<Tokenizer>,
    /// Whether the graph takes `token_type_ids` (an exported embedder may
    /// have dropped the input it never varies).
    takes_types: bool,
}

impl OnnxBert {
    /// Loads `model.onnx` and `tokenizer.json` from `dir`, texts cut as
    /// `truncation` says, once per core (one thread each, at most
    /// [`MAX_SESSIONS`]); and ONNX Runtime with it when it is the first
    /// model to need it.
    pub(crate) fn load(dir: &Path, truncation: TruncationParams) -> Result<OnnxBert> {
        require(dir, &FILES)?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| model_error("tokenizer.json", e))?;
        // One text at a time: nothing to pad.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(truncation))
            .map_err(|e| model_error("tokenizer.json", e))?;
        let file = dir.join("model.onnx");
        let what = file.display().to_string();
        let environment = environment()?;
        let cores = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_SESSIONS);
        let failed = |e: &dyn std::fmt::Display| model_error(&what, e);
        let mut sessions = Vec::with_capacity(cores);
        for _ in 0..cores {
            let mut builder = Session::builder(environment)
                .map_err(|e| failed(&e))?
                .with_intra_threads(1)
                .map_err(|e| failed(&e))?;
            sessions.push(builder.commit_from_file(&file).map_err(|e| failed(&e))?);
        }
        let takes_types = sessions.first().is_some_and(|session| {
            session
                .inputs()
                .iter()
                .any(|input| input.name() == "token_type_ids")
        });
        Ok(OnnxBert {
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
            tokenizer: Mutex::new(tokenizer),
            takes_types,
        })
    }

    /// Runs the model on one text (or pair) and returns the output's shape
    /// (its first dimension 1) and values, row-major.
    pub(crate) fn run<'s>(
        &self,
        input: impl Into<EncodeInput<'s>>,
    ) -> Result<(Vec<usize>, Vec<f32>)> {
        let encoding: Encoding = self
            .tokenizer
            .lock()
            .map_err(|_| Error::Internal("ONNX model: tokenizer poisoned".into()))?
            .encode(input, true)
            .map_err(|e| model_error("tokenize", e))?;
        let len = encoding.get_ids().len();
        let column = |values: &[u32]| -> Result<Tensor<i64>> {
            let values: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
            Tensor::from_array(([1, len], values)).map_err(|e| model_error("input", e))
        };
        let mut inputs = vec![
            ("input_ids", column(encoding.get_ids())?.into_dyn()),
            (
                "attention_mask",
                column(encoding.get_attention_mask())?.into_dyn(),
            ),
        ];
        if self.takes_types {
            inputs.push((
                "token_type_ids",
                column(encoding.get_type_ids())?.into_dyn(),
            ));
        }
        let mut session = self.session()?;
        let outputs = session.run(inputs).map_err(|e| model_error("forward", e))?;
        let (shape, values) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| model_error("output", e))?;
        let shape = shape
            .iter()
            .map(|&d| usize::try_from(d).unwrap_or(0))
            .collect();
        Ok((shape, values.to_vec()))
    }

    /// A free session, or, when every one is running, the next in turn
    /// once it is free.
    fn session(&self) -> Result<std::sync::MutexGuard<'_, Session>> {
        let n = self.sessions.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            if let Ok(free) = self.sessions[(start + i) % n].try_lock() {
                return Ok(free);
            }
        }
        self.sessions[start % n]
            .lock()
            .map_err(|_| Error::Internal("ONNX model: session poisoned".into()))
    }

    /// `each` over `items`, on as many threads as there are sessions, the
    /// outputs in the items' order: each item's output is its own (every
    /// run is one text), so side by side gives what one by one gives.
    ///
    /// The items are taken longest first (by `cost`, a text's length), each
    /// thread taking the next as it comes free, so the last run of a call
    /// is a short one: in fixed halves, one thread could draw the long
    /// passages and the call wait on it (the reranker's twenty pairs are
    /// a few tokens to 256).
    pub(crate) fn map<I: Sync, T: Send>(
        &self,
        items: &[I],
        cost: impl Fn(&I) -> usize,
        each: impl Fn(&I) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        let threads = self.sessions.len().min(items.len());
        if threads <= 1 {
            return items.iter().map(&each).collect();
        }
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
        let taken = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let work = || {
            let mut done = Vec::new();
            while !failed.load(Ordering::Relaxed) {
                let Some(&i) = order.get(taken.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                let output = each(&items[i]);
                failed.fetch_or(output.is_err(), Ordering::Relaxed);
                done.push((i, output));
            }
            done
        };
        let work = &work;
        // Every run on a thread of its own, so a panic in one is an error
        // here, never an unwind through the caller.
        let done = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            let mut done = Vec::with_capacity(items.len());
            for worker in workers {
                let part = worker
                    .join()
                    .map_err(|_| Error::Internal("ONNX model: a run panicked".into()))?;
                done.extend(part);
            }
            Ok::<_, Error>(done)
        })?;
        let mut outputs: Vec<Option<T>> =
            std::iter::repeat_with(|| None).take(items.len()).collect();
        for (i, output) in done {
            outputs[i] = Some(output?);
        }
        outputs
            .into_iter()
            .map(|output| {
                output.ok_or_else(|| Error::Internal("ONNX model: an item was not run".into()))
            })
            .collect()
    }
}
