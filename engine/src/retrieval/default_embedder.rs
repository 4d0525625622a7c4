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

/// The embedder of `embed(multilingual)` columns: Universal Sentence
/// Encoder multilingual v3 when its files are installed, else 512-float
/// feature hashing (words alone, in any script). Loaded on first use.
pub(crate) fn multilingual_embedder() -> Arc<dyn Embedder> {
    Arc::new(DefaultMultilingual)
}

/// Resolves to the multilingual model, or its stand-in, when first asked.
struct DefaultMultilingual;

impl DefaultMultilingual {
    fn resolved() -> &'static Arc<dyn Embedder> {
        static MODEL: std::sync::OnceLock<Arc<dyn Embedder>> = std::sync::OnceLock::new();
        // The same loaded model as `embedder_named("usem")`: one copy of
        // its table per process.
        MODEL.get_or_init(|| {
            embedder_named("usem")
                .unwrap_or_else(|_| Arc::new(HashingEmbedder::new(MULTILINGUAL_DIM)))
        })
    }
}

/// The multilingual model's dimension, which its stand-in shares.
const MULTILINGUAL_DIM: usize = 512;

impl Embedder for DefaultMultilingual {
    fn dim(&self) -> usize {
        MULTILINGUAL_DIM
    }

    fn name(&self) -> String {
        Self::resolved().name()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Self::resolved().embed(texts)
    }
}

/// Where installed models live, one directory each:
/// `$XDG_DATA_HOME/chronolog/models`, else `~/.local/share/chronolog/models`
/// (`scripts/install-model.sh` puts them there). `None` when neither
/// variable is set.
pub(crate) fn models_home() -> Option<std::path::PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| std::path::PathBuf::from(h).join(".local/share"))
        })?;
    Some(data.join("chronolog/models"))
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

/// The embedder called `name`, loaded now, for a way in that lets its user
/// choose: `minilm` (all-MiniLM-L6-v2), `bge` (bge-small-en: twelve
/// layers run int8, stronger at retrieval), `potion` (potion-base-8M, about a
/// hundred times cheaper per text: for long histories), `usem` (Universal
/// Sentence Encoder multilingual v3: one space for Chinese, German,
/// English and more) or `hashing`; each
/// also by the full name its vectors are filed under. A model that is not
/// installed is an error here, not a silent stand-in.
pub fn embedder_named(name: &str) -> Result<Arc<dyn Embedder>> {
    /// A model loaded once per process, on first success (a failure is
    /// retried: the files may be installed meanwhile).
    type Loaded<M> = std::sync::OnceLock<Arc<M>>;
    fn loaded_once<M: Embedder + 'static>(
        cell: &'static Loaded<M>,
        load: impl FnOnce() -> Result<M>,
    ) -> Result<Arc<dyn Embedder>> {
        if let Some(model) = cell.get() {
            return Ok(model.clone());
        }
        let model = Arc::new(load()?);
        Ok(cell.get_or_init(|| model).clone())
    }

    use crate::error::RetrievalError;
    match name {
        "hashing" | "hashing-384" => Ok(Arc::new(HashingEmbedder::new(384))),
        #[cfg(feature = "minilm")]
        "minilm" | "all-MiniLM-L6-v2" => {
            static MODEL: Loaded<super::minilm::MiniLm> = std::sync::OnceLock::new();
            loaded_once(&MODEL, || {
                super::minilm::MiniLm::load(&super::minilm::MiniLm::default_dir())
            })
        }
        #[cfg(feature = "bge")]
        "bge" | "bge-small-en" => {
            static MODEL: Loaded<super::bge::BgeSmall> = std::sync::OnceLock::new();
            loaded_once(&MODEL, || {
                super::bge::BgeSmall::load(&super::bge::BgeSmall::default_dir())
            })
        }
        #[cfg(feature = "potion")]
        "potion" | "potion-base-8M" => {
            static MODEL: Loaded<super::potion::Potion> = std::sync::OnceLock::new();
            loaded_once(&MODEL, || {
                super::potion::Potion::load(&super::potion::Potion::default_dir())
            })
        }
        #[cfg(feature = "usem")]
        "usem" | "use-multilingual-v3" => {
            static MODEL: Loaded<super::usem::UseMultilingual> = std::sync::OnceLock::new();
            loaded_once(&MODEL, || {
                super::usem::UseMultilingual::load(&super::usem::UseMultilingual::default_dir())
            })
        }
        other => Err(RetrievalError::Model(format!(
            "no embedder is called `{other}` in this build (minilm, bge, potion, usem or hashing)"
        ))
        .into()),
    }
}
