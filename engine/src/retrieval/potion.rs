//! potion-base-8M, a static sentence embedder (model2vec, MIT): every
//! token of the vocabulary has one 256-float vector distilled from a
//! sentence transformer, and a text's vector is the mean of its tokens'
//! vectors, L2-normalised. No network runs, so it embeds a long turn in
//! microseconds where a transformer takes tens of milliseconds: the
//! embedder for histories too long to run a transformer over.
//!
//! It computes what model2vec's `StaticModel.encode` computes: the text
//! tokenized without special tokens, unknown tokens dropped, the first
//! `MAX_TOKENS` kept, their rows averaged (the Zipf weights are baked into
//! the table), then normalised.

use std::path::{Path, PathBuf};

use tokenizers::Tokenizer;

use super::embed::Embedder;
use super::model_files::{model_error, require};
use crate::error::Result;

/// Tokens per text at most (model2vec's default `max_length`).
const MAX_TOKENS: usize = 512;

/// Bytes of a text read at most before tokenizing: model2vec cuts a text
/// at `max_length` times the vocabulary's median token length before
/// tokenizing; eight bytes a token is more than any English token needs.
const MAX_BYTES: usize = MAX_TOKENS * 8;

/// The model's directory name below `chronolog/models/`.
pub(crate) const SUBDIR: &str = "potion-base-8M";

/// The files the model needs.
pub(crate) const FILES: [&str; 2] = ["tokenizer.json", "model.safetensors"];

/// The potion-base-8M embedder.
pub struct Potion {
    tokenizer: Tokenizer,
    /// Row-major, `dim` floats per token id.
    table: Vec<f32>,
    dim: usize,
    unknown: Option<u32>,
}

impl Potion {
    /// Where the model is looked for: `CHRONOLOG_POTION_DIR` when set, else
    /// the per-user install (`$XDG_DATA_HOME/chronolog/models/
    /// potion-base-8M`, where `scripts/install-model.sh` puts it).
    pub fn default_dir() -> PathBuf {
        super::model_files::model_dir("CHRONOLOG_POTION_DIR", SUBDIR)
    }

    /// Loads the model from `dir` (its `tokenizer.json` and
    /// `model.safetensors`, whose `embeddings` tensor is the table).
    pub fn load(dir: &Path) -> Result<Potion> {
        require(dir, &FILES)?;
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| model_error("tokenizer.json", e))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| model_error("tokenizer.json", e))?;
        let unknown = tokenizer.token_to_id("[UNK]");
        let bytes = std::fs::read(dir.join("model.safetensors"))
            .map_err(|e| model_error("model.safetensors", e))?;
        let tensors = safetensors::SafeTensors::deserialize(&bytes)
            .map_err(|e| model_error("model.safetensors", e))?;
        let embeddings = tensors
            .tensor("embeddings")
            .map_err(|e| model_error("model.safetensors", e))?;
        let shape = embeddings.shape();
        if embeddings.dtype() != safetensors::Dtype::F32 || shape.len() != 2 || shape[1] == 0 {
            return Err(model_error(
                "model.safetensors",
                format!(
                    "expected an F32 matrix `embeddings`, found {:?} {shape:?}",
                    embeddings.dtype()
                ),
            ));
        }
        let table: Vec<f32> = embeddings
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if table.len() != shape[0] * shape[1] {
            return Err(model_error("model.safetensors", "the table is truncated"));
        }
        Ok(Potion {
            tokenizer,
            table,
            dim: shape[1],
            unknown,
        })
    }

    fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        let mut cut = text.len().min(MAX_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let encoding = self
            .tokenizer
            .encode(&text[..cut], false)
            .map_err(|e| model_error("tokenize", e))?;
        let mut sum = vec![0.0f32; self.dim];
        let mut count = 0usize;
        for &id in encoding
            .get_ids()
            .iter()
            .filter(|&&id| Some(id) != self.unknown)
            .take(MAX_TOKENS)
        {
            let start = id as usize * self.dim;
            // An id past the table is the tokenizer's and the table's
            // disagreement, not the text's fault: it counts as unknown.
            let Some(row) = self.table.get(start..start + self.dim) else {
                continue;
            };
            for (s, x) in sum.iter_mut().zip(row) {
                *s += x;
            }
            count += 1;
        }
        if count == 0 {
            return Ok(sum);
        }
        // The mean's direction is the sum's: normalising the sum is enough.
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            for s in &mut sum {
                *s /= norm;
            }
        }
        Ok(sum)
    }
}

impl Embedder for Potion {
    fn dim(&self) -> usize {
        self.dim
    }

    fn name(&self) -> String {
        SUBDIR.into()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|t| self.embed_one(t)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The installed model; `None` (the test skips) when it is not
    /// installed, a failure where `CHRONOLOG_REQUIRE_MODEL` is set (CI).
    fn model() -> Option<Potion> {
        let dir = Potion::default_dir();
        let installed = FILES.iter().all(|f| dir.join(f).is_file());
        assert!(
            installed || std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
            "CHRONOLOG_REQUIRE_MODEL is set but potion-base-8M is not in {}",
            dir.display()
        );
        installed.then(|| Potion::load(&dir).expect("an installed model loads"))
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn paraphrases_are_closer_than_unrelated_sentences() {
        let Some(model) = model() else {
            eprintln!("potion-base-8M is not installed; skipped");
            return;
        };
        let v = model
            .embed(&[
                "Where do I work now?",
                "I joined a new company as an engineer last week.",
                "My favourite dessert is chocolate cake.",
                "",
            ])
            .expect("embeds");
        assert_eq!(v[0].len(), 256);
        let norm = cosine(&v[0], &v[0]);
        assert!((norm - 1.0).abs() < 1e-4, "unit length, got {norm}");
        assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]));
        // A text with no known token is the zero vector, not NaN.
        assert!(v[3].iter().all(|&x| x == 0.0));
    }

    #[test]
    fn a_missing_model_is_a_typed_error() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let err = Potion::load(dir.path()).err().expect("no files, no model");
        assert!(err.to_string().contains("install-model.sh"), "{err}");
    }
}
