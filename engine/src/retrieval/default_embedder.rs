//! The default sentence embedder: bge-small-en when it is installed, else
//! all-MiniLM-L6-v2, else the hashing stand-in, and how a way in finds out
//! which (and why) to tell its user.

use std::sync::Arc;

use super::embed::{Embedder, HashingEmbedder};
use crate::error::Result;

/// The embedder a new session uses: bge-small-en when it is installed,
/// else all-MiniLM-L6-v2, else 384-dimension feature hashing (see
/// [`default_embedder_with_notice`]; the same dimension, so stored vectors
/// fit any of them).
///
/// The model is loaded on first use, not here: a session that never embeds
/// text (most tests, the crash test's writer) never reads its weights.
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
/// loading a model (a look for the files): `None` when bge-small-en (its
/// files and ONNX Runtime's library) or all-MiniLM-L6-v2 is installed. For
/// a way in to warn before any text is embedded.
pub fn stand_in_reason() -> Option<String> {
    let mut missing = Vec::new();
    #[cfg(feature = "bge")]
    {
        let dir = super::bge::BgeSmall::default_dir();
        let runtime = super::onnx::runtime_path();
        match super::onnx::FILES
            .iter()
            .map(|f| dir.join(f))
            .chain([runtime])
            .find(|f| !f.is_file())
        {
            None => return None,
            Some(file) => missing.push(format!("bge-small-en ({} is missing)", file.display())),
        }
    }
    #[cfg(feature = "minilm")]
    {
        use super::minilm::MiniLm;
        let dir = MiniLm::default_dir();
        match super::minilm::FILES
            .iter()
            .map(|f| dir.join(f))
            .find(|f| !f.is_file())
        {
            None => return None,
            Some(file) => missing.push(format!("all-MiniLM-L6-v2 ({} is missing)", file.display())),
        }
    }
    if missing.is_empty() {
        return Some(
            "built without a sentence model (the `bge` and `minilm` features): text is embedded with the hashing stand-in"
                .into(),
        );
    }
    Some(format!(
        "no sentence model is installed: {} (run scripts/install-model.sh, or set CHRONOLOG_BGE_DIR / CHRONOLOG_MODEL_DIR): text is embedded with the hashing stand-in, whose search quality is far lower",
        missing.join("; ")
    ))
}

/// The default embedder, and when it is the hashing fallback, a sentence
/// saying why and how to install a model (for the REPL and the demo to
/// print). Resolved once per process, in order of retrieval quality:
/// bge-small-en (twelve layers run int8: on LoCoMo dev it ranks and covers
/// better than all-MiniLM-L6-v2 and embeds about three times faster,
/// docs/evaluation.md), else all-MiniLM-L6-v2 (pure Rust, no runtime
/// library), else the hashing stand-in.
pub fn default_embedder_with_notice() -> (Arc<dyn Embedder>, Option<String>) {
    static RESOLVED: std::sync::OnceLock<(Arc<dyn Embedder>, Option<String>)> =
        std::sync::OnceLock::new();
    RESOLVED
        .get_or_init(|| {
            let mut why: Vec<String> = Vec::new();
            for name in DEFAULT_ORDER {
                match embedder_named(name) {
                    Ok(model) => return (model, None),
                    Err(e) => why.push(e.to_string()),
                }
            }
            if why.is_empty() {
                why.push("built without a sentence model (the `bge` and `minilm` features)".into());
            }
            (
                Arc::new(HashingEmbedder::new(384)),
                Some(format!(
                    "{}; using the hashing embedder instead",
                    why.join("; ")
                )),
            )
        })
        .clone()
}

/// The models the default embedder tries, best first (each 384 floats,
/// as the stand-in is).
const DEFAULT_ORDER: &[&str] = &[
    #[cfg(feature = "bge")]
    "bge",
    #[cfg(feature = "minilm")]
    "minilm",
];

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
