//! `Reranker`: a second, costlier look at a short list of candidates. A
//! cross-encoder reads the question and one passage together, so it sees
//! what a bi-encoder's two separate vectors cannot ("Where do I work?"
//! against "I joined Moonshot last week"); too slow for a whole history, it
//! reorders the few dozen candidates fusion put first.
//!
//! `CrossEncoder` (behind the `reranker` feature) is
//! cross-encoder/ms-marco-MiniLM-L-12-v2, a 12-layer BERT with a one-logit
//! head, run with candle from the files `scripts/install-model.sh`
//! converts (see `scripts/convert-reranker.py`).

use crate::error::Result;

/// Scores passages against a question, for reordering a short list.
pub trait Reranker: Send + Sync {
    /// A short name for `explain` and evaluation reports.
    fn name(&self) -> String;
    /// The one language it was trained on, as an ISO 639-1 code (`"en"`),
    /// or `None` when it reads any: a question in another language keeps
    /// its fused order rather than be reordered by a model that cannot
    /// read it.
    fn language(&self) -> Option<&'static str> {
        None
    }
    /// One relevance score per passage, in order; higher is more relevant.
    /// Scores compare within one call, not across calls.
    fn score(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>>;
}

#[cfg(feature = "reranker")]
pub use cross_encoder::CrossEncoder;

/// The reranker a memory uses unless told otherwise: the cross-encoder
/// when its files are installed, loaded on its first question (a memory
/// that never searches never reads its 130 MB), once per process; `None`
/// when it is not installed or not built, and searches go without.
pub fn default_reranker() -> Option<std::sync::Arc<dyn Reranker>> {
    #[cfg(feature = "reranker")]
    {
        if CrossEncoder::is_installed() {
            return Some(std::sync::Arc::new(cross_encoder::Shared));
        }
    }
    None
}

#[cfg(feature = "reranker")]
mod cross_encoder {
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    use candle_core::{DType, Device, IndexOp, Tensor};
    use candle_nn::{Linear, Module, VarBuilder};
    use candle_transformers::models::bert::{BertModel, Config};
    use tokenizers::{EncodeInput, PaddingParams, Tokenizer, TruncationParams, TruncationStrategy};

    use super::Reranker;
    use crate::error::{Error, Result, RetrievalError};

    /// The model's directory below the models directory.
    const MODEL_SUBDIR: &str = "ms-marco-MiniLM-L-12-v2";

    /// The files the model needs.
    const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

    /// Tokens per (question, passage) pair at most. The model was trained
    /// on 512; a long passage's first 256 tokens almost always say what it
    /// is about, and attention's cost grows with the square of the length.
    const MAX_TOKENS: usize = 256;

    /// Pairs run through the model together at most.
    const BATCH: usize = 16;

    fn model_error(what: &str, e: impl std::fmt::Display) -> Error {
        Error::from(RetrievalError::Model(format!("reranker {what}: {e}")))
    }

    /// cross-encoder/ms-marco-MiniLM-L-12-v2.
    pub struct CrossEncoder {
        bert: BertModel,
        pooler: Linear,
        classifier: Linear,
        // `Tokenizer` is not `Sync`; the model dominates the cost.
        tokenizer: Mutex<Tokenizer>,
        device: Device,
    }

    impl CrossEncoder {
        /// Where the model is looked for: `CHRONOLOG_RERANKER_DIR` when
        /// set, else `ms-marco-MiniLM-L-12-v2` in the models directory
        /// (`~/.local/share/chronolog/models`), else under `models/` in the
        /// working directory.
        pub fn default_dir() -> PathBuf {
            if let Some(dir) = std::env::var_os("CHRONOLOG_RERANKER_DIR") {
                return PathBuf::from(dir);
            }
            let local = Path::new("models").join(MODEL_SUBDIR);
            match crate::retrieval::default_embedder::models_home() {
                Some(home)
                    if home.join(MODEL_SUBDIR).join(FILES[2]).is_file()
                        || !local.join(FILES[2]).is_file() =>
                {
                    home.join(MODEL_SUBDIR)
                }
                _ => local,
            }
        }

        /// Whether the model's files are in [`CrossEncoder::default_dir`].
        pub fn is_installed() -> bool {
            let dir = CrossEncoder::default_dir();
            FILES.iter().all(|f| dir.join(f).is_file())
        }

        /// Loads the model from `dir`.
        pub fn load(dir: &Path) -> Result<CrossEncoder> {
            crate::retrieval::model_files::require(dir, &FILES)?;
            let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| model_error(f, e));
            let config: Config = serde_json::from_slice(&read("config.json")?)
                .map_err(|e| model_error("config.json", e))?;
            let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
                .map_err(|e| model_error("tokenizer.json", e))?;
            tokenizer.with_padding(Some(PaddingParams::default()));
            tokenizer
                .with_truncation(Some(TruncationParams {
                    max_length: MAX_TOKENS,
                    // The passage gives way first; the question is short.
                    strategy: TruncationStrategy::OnlySecond,
                    ..TruncationParams::default()
                }))
                .map_err(|e| model_error("tokenizer.json", e))?;
            let device = Device::Cpu;
            let weights = VarBuilder::from_buffered_safetensors(
                read("model.safetensors")?,
                DType::F32,
                &device,
            )
            .map_err(|e| model_error("model.safetensors", e))?;
            let hidden = config.hidden_size;
            let load = || -> candle_core::Result<(BertModel, Linear, Linear)> {
                Ok((
                    BertModel::load(weights.pp("bert"), &config)?,
                    candle_nn::linear(hidden, hidden, weights.pp("bert.pooler.dense"))?,
                    candle_nn::linear(hidden, 1, weights.pp("classifier"))?,
                ))
            };
            let (bert, pooler, classifier) =
                load().map_err(|e| model_error("model.safetensors", e))?;
            Ok(CrossEncoder {
                bert,
                pooler,
                classifier,
                tokenizer: Mutex::new(tokenizer),
                device,
            })
        }

        fn run(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>> {
            let encodings = {
                let tokenizer = self
                    .tokenizer
                    .lock()
                    .map_err(|_| Error::Internal("reranker: tokenizer poisoned".into()))?;
                let pairs: Vec<EncodeInput> = passages
                    .iter()
                    .map(|p| EncodeInput::Dual(question.into(), (*p).into()))
                    .collect();
                tokenizer
                    .encode_batch(pairs, true)
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
            let types = rows(|e| e.get_type_ids())?;
            let mask = rows(|e| e.get_attention_mask())?;
            let logits = (|| -> candle_core::Result<Tensor> {
                let tokens = self.bert.forward(&ids, &types, Some(&mask))?;
                // BERT's pooler: the [CLS] token through a dense layer and
                // tanh; then the one-logit classifier.
                let cls = tokens.i((.., 0))?;
                let pooled = self.pooler.forward(&cls)?.tanh()?;
                self.classifier.forward(&pooled)?.squeeze(1)
            })()
            .map_err(|e| model_error("forward", e))?;
            logits
                .to_vec1::<f32>()
                .map_err(|e| model_error("output", e))
        }
    }

    /// The process's one cross-encoder, loaded on first use.
    pub(super) struct Shared;

    impl Shared {
        fn model() -> Result<&'static CrossEncoder> {
            static MODEL: std::sync::OnceLock<std::result::Result<CrossEncoder, String>> =
                std::sync::OnceLock::new();
            MODEL
                .get_or_init(|| {
                    CrossEncoder::load(&CrossEncoder::default_dir()).map_err(|e| e.to_string())
                })
                .as_ref()
                .map_err(|why| RetrievalError::Model(why.clone()).into())
        }
    }

    impl Reranker for Shared {
        fn name(&self) -> String {
            MODEL_SUBDIR.into()
        }

        fn language(&self) -> Option<&'static str> {
            // Trained on MS MARCO's English questions and passages.
            Some("en")
        }

        fn score(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>> {
            Shared::model()?.score(question, passages)
        }
    }

    impl Reranker for CrossEncoder {
        fn name(&self) -> String {
            MODEL_SUBDIR.into()
        }

        fn language(&self) -> Option<&'static str> {
            // Trained on MS MARCO's English questions and passages.
            Some("en")
        }

        fn score(&self, question: &str, passages: &[&str]) -> Result<Vec<f32>> {
            // Shortest first, so a batch pads little (see `MiniLm::embed`).
            let mut order: Vec<usize> = (0..passages.len()).collect();
            order.sort_by_key(|&i| passages[i].len());
            let mut out = vec![0.0f32; passages.len()];
            for batch in order.chunks(BATCH) {
                let texts: Vec<&str> = batch.iter().map(|&i| passages[i]).collect();
                for (&i, score) in batch.iter().zip(self.run(question, &texts)?) {
                    out[i] = score;
                }
            }
            Ok(out)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A plain numpy forward pass over the converted weights scores
        /// these pairs 1.863, -11.275 and -5.306 (onnxruntime, running the
        /// int8 original with its activations quantised too, 2.580,
        /// -11.289 and -4.969). Padding a batch changes nothing.
        #[test]
        fn scores_match_a_reference_forward_pass_when_installed() {
            if !CrossEncoder::is_installed() {
                eprintln!("reranker not installed; skipped");
                return;
            }
            let model = CrossEncoder::load(&CrossEncoder::default_dir()).expect("load");
            let scores = model
                .score(
                    "Where does Caroline work?",
                    &[
                        "Caroline: I started at the LGBTQ center last week as a counselor.",
                        "Melanie: I painted a sunset over the lake yesterday.",
                    ],
                )
                .expect("score");
            assert!((scores[0] - 1.863).abs() < 0.01, "{scores:?}");
            assert!((scores[1] + 11.275).abs() < 0.01, "{scores:?}");
            let dog = model
                .score(
                    "What is the name of my dog?",
                    &["My dog Rex needs a new collar."],
                )
                .expect("score");
            assert!((dog[0] + 5.306).abs() < 0.01, "{dog:?}");
        }
    }
}
