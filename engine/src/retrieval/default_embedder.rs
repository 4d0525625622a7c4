//! The default sentence embedder: all-MiniLM-L6-v2 when its files are
//! installed, else the hashing stand-in, and how a way in finds out which
//! (and why) to tell its user.

use std::sync::Arc;

use super::embed::{Embedder, HashingEmbedder};
use crate::error::Result;

/// The embedder a new session uses: all-MiniLM-L6-v2 when its files are
/// installed (see [`default_embedder_with_notice`]), else 384-dimension
/// feature hashing (the same dimension, so stored vectors fit either).
///
/// The model is loaded on first use, not here: a session that never embeds
/// text (most tests, the crash test's writer) never reads its 90 MB.
pub fn default_embedder() -> Arc<dyn Embedder> {
    Arc::new(DefaultEmbedder)
}

/// Resolves to [`default_embedder_with_notice`] when first asked to embed.
struct DefaultEmbedder;

impl Embedder for DefaultEmbedder {
    fn dim(&self) -> usize {
        // Both candidates embed into 384 floats.
        384
    }

    fn name(&self) -> String {
        default_embedder_with_notice().0.name()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        default_embedder_with_notice().0.embed(texts)
    }
}

/// Why the default embedder would be the hashing stand-in, found without
/// loading the model (a look for its files): `None` when the model is
/// installed. For a way in to warn before any text is embedded.
pub fn stand_in_reason() -> Option<String> {
    #[cfg(feature = "minilm")]
    {
        use super::minilm::MiniLm;
        let dir = MiniLm::default_dir();
        let missing = ["config.json", "tokenizer.json", "model.safetensors"]
            .iter()
            .find(|f| !dir.join(f).is_file())?;
        Some(format!(
            "the all-MiniLM-L6-v2 model is not installed ({} is missing; run scripts/install-model.sh or set CHRONOLOG_MODEL_DIR): text is embedded with the hashing stand-in, whose search quality is far lower",
            dir.join(missing).display()
        ))
    }
    #[cfg(not(feature = "minilm"))]
    {
        Some(
            "built without the `minilm` feature: text is embedded with the hashing stand-in".into(),
        )
    }
}

/// The default embedder, and when it is the hashing fallback, a sentence
/// saying why and how to install the model (for the REPL and the demo to
/// print). The model is loaded once per process.
pub fn default_embedder_with_notice() -> (Arc<dyn Embedder>, Option<String>) {
    #[cfg(feature = "minilm")]
    {
        use super::minilm::MiniLm;
        static MODEL: std::sync::OnceLock<std::result::Result<Arc<MiniLm>, String>> =
            std::sync::OnceLock::new();
        let loaded = MODEL.get_or_init(|| {
            MiniLm::load(&MiniLm::default_dir())
                .map(Arc::new)
                .map_err(|e| e.to_string())
        });
        match loaded {
            Ok(model) => (model.clone(), None),
            Err(why) => (
                Arc::new(HashingEmbedder::new(384)),
                Some(format!("{why}; using the hashing embedder instead")),
            ),
        }
    }
    #[cfg(not(feature = "minilm"))]
    {
        (
            Arc::new(HashingEmbedder::new(384)),
            Some("built without the `minilm` feature; using the hashing embedder".into()),
        )
    }
}
