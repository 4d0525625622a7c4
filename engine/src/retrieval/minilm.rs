//! all-MiniLM-L6-v2, the default sentence embedder: a 6-layer BERT run in
//! pure Rust on the CPU with candle, from local files (installed and
//! checksummed by `scripts/install-model.sh`). Sentence vectors are the
//! mean of the token vectors under the attention mask, L2-normalised, as
//! sentence-transformers computes them.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

use super::embed::Embedder;
use super::model_files::{model_error, require};
use crate::error::{Error, Result};

/// Texts run through the model together at most.
const BATCH: usize = 32;

/// Tokens per text at most (the model was trained with 256).
const MAX_TOKENS: usize = 256;

/// The model's directory below a data directory: the per-user install
/// (`~/.local/share/chronolog/models/all-MiniLM-L6-v2`), and, relative to
/// the working directory, a repository checkout's `models/`.
const MODEL_SUBDIR: &str = "all-MiniLM-L6-v2";

/// The files the model needs.
pub(crate) const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// The all-MiniLM-L6-v2 embedder.
pub struct MiniLm {
    model: BertModel,
    // `Tokenizer` is not `Sync`; one encoding at a time is enough (the
    // model dominates the cost).
    tokenizer: Mutex<Tokenizer>,
    device: Device,
}

impl MiniLm {
    /// Where the model is looked for: `CHRONOLOG_MODEL_DIR` when set; else
    /// the per-user install ([`MiniLm::user_dir`], where
    /// `scripts/install-model.sh` puts it), so a program finds it whatever
    /// directory it was started from; else `models/all-MiniLM-L6-v2` under
    /// the working directory (a checkout with an older install).
    pub fn default_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("CHRONOLOG_MODEL_DIR") {
            return PathBuf::from(dir);
        }
        let local = Path::new("models").join(MODEL_SUBDIR);
        match MiniLm::user_dir() {
            Some(user) if user.join(FILES[2]).is_file() || !local.join(FILES[2]).is_file() => user,
            _ => local,
        }
    }

    /// The per-user model directory: `$XDG_DATA_HOME/chronolog/models/
    /// all-MiniLM-L6-v2`, else `~/.local/share/chronolog/models/...`.
    /// `None` when neither variable is set.
    pub fn user_dir() -> Option<PathBuf> {
        Some(super::default_embedder::models_home()?.join(MODEL_SUBDIR))
    }

    /// Loads the model from `dir` (its `config.json`, `tokenizer.json` and
    /// `model.safetensors`).
    pub fn load(dir: &Path) -> Result<MiniLm> {
        require(dir, &FILES)?;
        let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| model_error(f, e));
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| model_error("config.json", e))?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| model_error("tokenizer.json", e))?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(|e| model_error("tokenizer.json", e))?;
        let device = Device::Cpu;
        let weights =
            VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DType::F32, &device)
                .map_err(|e| model_error("model.safetensors", e))?;
        let model =
            BertModel::load(weights, &config).map_err(|e| model_error("model.safetensors", e))?;
        Ok(MiniLm {
            model,
            tokenizer: Mutex::new(tokenizer),
            device,
        })
    }

    fn run(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = {
            let tokenizer = self
                .tokenizer
                .lock()
                .map_err(|_| Error::Internal("embedding model: tokenizer poisoned".into()))?;
            tokenizer
                .encode_batch(texts.to_vec(), true)
                .map_err(|e| model_error("tokenize", e))?
        };
        let rows = |f: fn(&tokenizers::Encoding) -> &[u32]| -> Result<Tensor> {
            let rows = encodings
                .iter()
                .map(|e| Tensor::new(f(e), &self.device))
                .collect::<candle_core::Result<Vec<_>>>()
                .map_err(|e| model_error("input", e))?;
            Tensor::stack(&rows, 0).map_err(|e| model_error("input", e))
        };
        let ids = rows(|e| e.get_ids())?;
        let mask = rows(|e| e.get_attention_mask())?;
        let types = ids.zeros_like().map_err(|e| model_error("input", e))?;
        let pooled = (|| -> candle_core::Result<Tensor> {
            let tokens = self.model.forward(&ids, &types, Some(&mask))?;
            let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let summed = tokens.broadcast_mul(&mask)?.sum(1)?;
            let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
            let mean = summed.broadcast_div(&counts)?;
            let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
            mean.broadcast_div(&norms)
        })()
        .map_err(|e| model_error("forward", e))?;
        pooled
            .to_vec2::<f32>()
            .map_err(|e| model_error("output", e))
    }
}

impl Embedder for MiniLm {
    fn dim(&self) -> usize {
        384
    }

    fn name(&self) -> String {
        "all-MiniLM-L6-v2".into()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        // A batch is padded to its longest text, and the model's cost grows
        // with the padded length: texts go through in order of length (a
        // byte count stands in for the token count), 32 at a time to keep
        // memory small, and come back in the caller's order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            for (&i, vector) in batch.iter().zip(self.run(&batch_texts)?) {
                out[i] = vector;
            }
        }
        Ok(out)
    }
}
