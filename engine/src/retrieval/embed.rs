//! `Embedder`: text to vectors, wherever `near` is given text.
//!
//! The default is a real sentence-embedding model when its files are
//! installed (see `MiniLm`, behind the `minilm` feature), and otherwise
//! `HashingEmbedder`: deterministic feature hashing of words and character
//! trigrams. It knows no synonyms, but shares words and word stems, needs no
//! files, and embeds in microseconds, so tests and small deployments run
//! with no model at all.

use std::hash::{BuildHasher, Hasher};

use crate::error::Result;

/// Turns text into fixed-dimension vectors.
pub trait Embedder: Send + Sync {
    /// Floats per vector.
    fn dim(&self) -> usize;
    /// A short name for messages and `:explain` (`hashing-384`, ...). It
    /// identifies the vectors the embedder makes: embeddings kept on disk
    /// are filed under it, so two embedders that differ must not share it.
    fn name(&self) -> String;
    /// One vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// Feature hashing of lower-cased words (weight 1) and of their character
/// trigrams (weight 1/2), signed, then L2-normalised.
#[derive(Clone, Debug)]
pub struct HashingEmbedder {
    dim: usize,
}

impl HashingEmbedder {
    /// An embedder of `dim` floats (at least 1).
    pub fn new(dim: usize) -> HashingEmbedder {
        HashingEmbedder { dim: dim.max(1) }
    }

    fn add(&self, v: &mut [f32], feature: &[u8], weight: f32) {
        let mut h = rustc_hash::FxBuildHasher.build_hasher();
        h.write(feature);
        let x = crate::val::mix64(h.finish());
        let i = (x % self.dim as u64) as usize;
        let sign = if x >> 63 == 0 { 1.0 } else { -1.0 };
        v[i] += sign * weight;
    }

    fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dim];
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let word = word.to_lowercase();
            self.add(&mut v, word.as_bytes(), 1.0);
            let padded: Vec<char> = format!("^{word}$").chars().collect();
            for gram in padded.windows(3) {
                let gram: String = gram.iter().collect();
                self.add(&mut v, gram.as_bytes(), 0.5);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

impl Embedder for HashingEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn name(&self) -> String {
        format!("hashing-{}", self.dim)
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.embed_one(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    #[test]
    fn shared_words_are_close_and_the_output_is_stable() {
        let e = HashingEmbedder::new(384);
        let v = e
            .embed(&[
                "Alice works at Tencent",
                "where does alice work",
                "the cat sat on a mat",
                "",
            ])
            .expect("embed");
        assert_eq!(v[0].len(), 384);
        assert!((cos(&v[0], &v[0]) - 1.0).abs() < 1e-5);
        assert!(cos(&v[0], &v[1]) > cos(&v[0], &v[2]) + 0.2);
        assert!(v[3].iter().all(|x| *x == 0.0), "empty text embeds to zeros");
        assert_eq!(
            v[0],
            e.embed(&["Alice works at Tencent"]).expect("embed")[0]
        );
    }
}
