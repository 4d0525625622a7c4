//! `Reranker`: a second, costlier look at a short list of candidates. A
//! cross-encoder reads the question and one passage together, so it sees
//! what a bi-encoder's two separate vectors cannot ("Where do I work?"
//! against "I joined Moonshot last week"); too slow for a whole history, it
//! reorders the few dozen candidates fusion put first.
//!
//! `CrossEncoder` (behind the `reranker` feature) is
//! cross-encoder/ms-marco-MiniLM-L-12-v2, a 12-layer BERT with a one-logit
//! head, quantised to int8 and run by ONNX Runtime (`onnx.rs`) from the
//! files `scripts/install-model.sh` installs.

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

    use tokenizers::{TruncationParams, TruncationStrategy};

    use super::Reranker;
    use crate::error::{Error, Result, RetrievalError};
    use crate::retrieval::onnx::{FILES, OnnxBert};

    /// The model's directory below the models directory.
    const MODEL_SUBDIR: &str = "ms-marco-MiniLM-L-12-v2";

    /// Tokens per (question, passage) pair at most. The model was trained
    /// on 512; a long passage's first 256 tokens almost always say what it
    /// is about, and attention's cost grows with the square of the length.
    const MAX_TOKENS: usize = 256;

    fn model_error(what: &str, e: impl std::fmt::Display) -> Error {
        Error::from(RetrievalError::Model(format!("reranker {what}: {e}")))
    }

    /// cross-encoder/ms-marco-MiniLM-L-12-v2, int8, run by ONNX Runtime:
    /// the question and a passage in, one relevance logit out.
    pub struct CrossEncoder {
        model: OnnxBert,
    }

    impl CrossEncoder {
        /// Where the model is looked for: `CHRONOLOG_RERANKER_DIR` when
        /// set; else the per-user models directory (where
        /// `scripts/install-model.sh` puts it); else
        /// `models/ms-marco-MiniLM-L-12-v2` under the working directory.
        pub fn default_dir() -> PathBuf {
            if let Some(dir) = std::env::var_os("CHRONOLOG_RERANKER_DIR") {
                return PathBuf::from(dir);
            }
            let local = Path::new("models").join(MODEL_SUBDIR);
            match crate::retrieval::default_embedder::models_home() {
                Some(home)
                    if home.join(MODEL_SUBDIR).join(FILES[0]).is_file()
                        || !local.join(FILES[0]).is_file() =>
                {
                    home.join(MODEL_SUBDIR)
                }
                _ => local,
            }
        }

        /// Whether the model's files are where [`CrossEncoder::default_dir`]
        /// looks, and ONNX Runtime's library where it is looked for,
        /// without loading them: a memory reranks only when it can.
        pub fn is_installed() -> bool {
            let dir = CrossEncoder::default_dir();
            FILES.iter().all(|f| dir.join(f).is_file())
                && crate::retrieval::onnx::runtime_path().is_file()
        }

        /// Loads the model from `dir` (its `model.onnx` and
        /// `tokenizer.json`), and ONNX Runtime with it when it is the first
        /// model to need it.
        pub fn load(dir: &Path) -> Result<CrossEncoder> {
            let truncation = TruncationParams {
                max_length: MAX_TOKENS,
                strategy: TruncationStrategy::OnlySecond,
                ..TruncationParams::default()
            };
            Ok(CrossEncoder {
                model: OnnxBert::load(dir, truncation)?,
            })
        }

        fn run(&self, question: &str, passage: &str) -> Result<f32> {
            let (shape, logits) = self.model.run((question, passage))?;
            match (shape.as_slice(), logits.as_slice()) {
                ([1, 1], [logit]) => Ok(*logit),
                _ => Err(model_error("output", format!("shape {shape:?}"))),
            }
        }
    }

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
            self.model
                .map(passages, |p| p.len(), |p| self.run(question, p))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// onnxruntime's Python package, running the same int8 file one
        /// pair at a time, scores these pairs 2.671 and -11.280, and the
        /// dog -5.096 (batched, the first two score 2.239 and -11.294:
        /// why pairs run alone, see `OnnxBert`). The margin allows for
        /// the int8 kernels of other CPUs: without AVX-512 VNNI,
        /// onnxruntime's u8s8 kernel (AVX2 `vpmaddubsw`) saturates its
        /// 16-bit sums, and an AMD EPYC with AVX2 alone scores the pairs
        /// 2.538 and -11.082. A broken model misses by whole units.
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
            assert!((scores[0] - 2.671).abs() < 0.3, "{scores:?}");
            assert!((scores[1] + 11.280).abs() < 0.3, "{scores:?}");
            let dog = model
                .score(
                    "What is the name of my dog?",
                    &["My dog Rex needs a new collar."],
                )
                .expect("score");
            assert!((dog[0] + 5.096).abs() < 0.3, "{dog:?}");
        }

        /// The pairs run longest first, side by side; the scores still
        /// come back in the caller's order, each the pair's own.
        #[test]
        fn scores_come_back_in_the_callers_order_when_installed() {
            if !CrossEncoder::is_installed() {
                eprintln!("reranker not installed; skipped");
                return;
            }
            let model = CrossEncoder::load(&CrossEncoder::default_dir()).expect("load");
            let question = "Where does Caroline work?";
            let passages = [
                "Melanie: I painted a sunset.",
                "Caroline: I started at the LGBTQ center last week as a counselor, and I love the people there.",
                "Caroline: work is fine.",
                "Melanie: I painted a sunset over the lake yesterday, and then we swam in it until the stars came out.",
                "Caroline: I work at the LGBTQ center.",
            ];
            let together = model.score(question, &passages).expect("score");
            for (passage, score) in passages.iter().zip(&together) {
                let alone = model.score(question, &[*passage]).expect("score");
                assert_eq!(alone[0], *score, "{passage}");
            }
        }
    }
}
