//! A SentencePiece unigram tokenizer read from a `.model` file, for the
//! multilingual sentence encoder (`usem.rs`), whose 128,000-piece model
//! the `tokenizers` crate cannot load as it is.
//!
//! It computes what the reference C++ library computes for a unigram model
//! with the `nmt_nfkc` normalizer: the text normalised through the model's
//! precompiled character map (a darts-clone double-array trie of byte
//! strings, each mapped to its replacement), whitespace runs collapsed and
//! escaped as U+2581 with one in front, then the Viterbi segmentation that
//! maximises the pieces' summed log-probabilities. Characters no piece
//! covers become `<unk>`. Control and unknown pieces (`<s>`, `</s>`,
//! `<unk>`) are never matched in text.

use rustc_hash::FxHashMap;

use crate::error::{Result, RetrievalError};

/// The piece id of `<unk>`, `<s>` and `</s>` in models trained with the
/// library's defaults (this one is).
pub(crate) const UNK: u32 = 0;
pub(crate) const BOS: u32 = 1;
pub(crate) const EOS: u32 = 2;

/// What the tokenizer's escape turns a space into.
const SPACE: &str = "\u{2581}";

/// A unigram SentencePiece model.
pub(crate) struct SentencePiece {
    /// Log-probability of each piece, by id.
    scores: Vec<f32>,
    /// The pieces as a trie over characters: `(node, char) -> child`, node
    /// 0 the root. A node's piece, when it ends one, is in `piece_at`.
    children: FxHashMap<(u32, char), u32>,
    piece_at: Vec<Option<u32>>,
    /// What an unknown character scores: the library's
    /// `min_score - 10`.
    unk_score: f32,
    normalizer: Normalizer,
}

fn bad_model(why: impl std::fmt::Display) -> crate::error::Error {
    RetrievalError::Model(format!("sp.model: {why}")).into()
}

impl SentencePiece {
    /// Reads a serialised `ModelProto`.
    pub(crate) fn from_bytes(data: &[u8]) -> Result<SentencePiece> {
        let mut scores = Vec::new();
        let mut children = FxHashMap::default();
        let mut piece_at: Vec<Option<u32>> = vec![None];
        let mut charsmap: &[u8] = &[];
        for field in Fields::new(data) {
            match field.map_err(bad_model)? {
                // ModelProto.pieces: { piece = 1, score = 2, type = 3 }.
                (1, Value::Bytes(piece)) => {
                    let (mut text, mut score, mut kind) = ("", 0.0f32, 1u64);
                    for inner in Fields::new(piece) {
                        match inner.map_err(bad_model)? {
                            (1, Value::Bytes(b)) => {
                                text = std::str::from_utf8(b).map_err(bad_model)?
                            }
                            (2, Value::Fixed32(bits)) => score = f32::from_bits(bits),
                            (3, Value::Varint(v)) => kind = v,
                            _ => {}
                        }
                    }
                    let id = u32::try_from(scores.len()).map_err(bad_model)?;
                    scores.push(score);
                    // 2 = UNKNOWN, 3 = CONTROL: not pieces of text.
                    if kind == 2 || kind == 3 || text.is_empty() {
                        continue;
                    }
                    let mut node = 0u32;
                    for c in text.chars() {
                        let next = piece_at.len() as u32;
                        node = *children.entry((node, c)).or_insert_with(|| {
                            piece_at.push(None);
                            next
                        });
                    }
                    piece_at[node as usize] = Some(id);
                }
                // ModelProto.normalizer_spec: { precompiled_charsmap = 2 }.
                (3, Value::Bytes(spec)) => {
                    for inner in Fields::new(spec) {
                        if let (2, Value::Bytes(map)) = inner.map_err(bad_model)? {
                            charsmap = map;
                        }
                    }
                }
                _ => {}
            }
        }
        if scores.len() <= EOS as usize {
            return Err(bad_model("fewer pieces than <unk>, <s> and </s>"));
        }
        let min = scores.iter().copied().fold(f32::INFINITY, f32::min);
        Ok(SentencePiece {
            scores,
            children,
            piece_at,
            unk_score: min - 10.0,
            normalizer: Normalizer::new(charsmap)?,
        })
    }

    /// The piece ids of `text`, without `<s>` and `</s>`; `[<unk>]` for a
    /// text that normalises to nothing (as the library answers).
    pub(crate) fn encode(&self, text: &str) -> Vec<u32> {
        let normalized: Vec<char> = self.normalizer.normalize(text).chars().collect();
        if normalized.is_empty() {
            return vec![UNK];
        }
        self.viterbi(&normalized)
    }

    /// The best segmentation. Every lattice node that starts at a position
    /// shares that position's best predecessor, so a left-to-right pass
    /// over positions is the lattice; ties go to the earlier start (the
    /// library's strict `>`), which this pass reproduces by visiting
    /// shorter pieces first.
    fn viterbi(&self, text: &[char]) -> Vec<u32> {
        let n = text.len();
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        best[0] = 0.0;
        let mut start_of = vec![0usize; n + 1];
        let mut piece_of = vec![UNK; n + 1];
        for i in 0..n {
            let base = best[i];
            let mut node = 0u32;
            let mut single = false;
            for (j, &c) in text.iter().enumerate().skip(i) {
                let Some(&next) = self.children.get(&(node, c)) else {
                    break;
                };
                node = next;
                if let Some(id) = self.piece_at[node as usize] {
                    let score = base + self.scores[id as usize];
                    if score > best[j + 1] {
                        best[j + 1] = score;
                        start_of[j + 1] = i;
                        piece_of[j + 1] = id;
                    }
                    single |= j == i;
                }
            }
            if !single {
                let score = base + self.unk_score;
                if score > best[i + 1] {
                    best[i + 1] = score;
                    start_of[i + 1] = i;
                    piece_of[i + 1] = UNK;
                }
            }
        }
        let mut ids = Vec::new();
        let mut end = n;
        while end > 0 {
            ids.push(piece_of[end]);
            end = start_of[end];
        }
        ids.reverse();
        ids
    }
}

/// The `nmt_nfkc` normalizer of a model: its precompiled character map
/// and the whitespace rules (a dummy space in front, runs of spaces made
/// one, none at the end, each escaped as U+2581).
struct Normalizer {
    /// The darts-clone double array.
    units: Vec<u32>,
    /// NUL-terminated replacement strings the trie's values point into.
    replacements: Vec<u8>,
}

impl Normalizer {
    fn new(charsmap: &[u8]) -> Result<Normalizer> {
        if charsmap.is_empty() {
            return Ok(Normalizer {
                units: Vec::new(),
                replacements: Vec::new(),
            });
        }
        let size = charsmap
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| bad_model("the character map is truncated"))?;
        let trie = charsmap
            .get(4..4 + size)
            .filter(|t| t.len() % 4 == 0 && !t.is_empty())
            .ok_or_else(|| bad_model("the character map's trie is truncated"))?;
        Ok(Normalizer {
            units: trie
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            replacements: charsmap[4 + size..].to_vec(),
        })
    }

    fn offset(unit: u32) -> usize {
        ((unit >> 10) << ((unit & 0x200) >> 6)) as usize
    }

    /// The longest key of the map that starts `bytes`: its length and the
    /// replacement's offset.
    fn longest_match(&self, bytes: &[u8]) -> Option<(usize, usize)> {
        let first = *self.units.first()?;
        let mut node = Self::offset(first);
        let mut found = None;
        for (i, &b) in bytes.iter().enumerate() {
            node ^= b as usize;
            let unit = *self.units.get(node)?;
            if unit & 0x8000_00FF != b as u32 {
                break;
            }
            node ^= Self::offset(unit);
            if unit & 0x100 != 0 {
                let value = (*self.units.get(node)? & 0x7FFF_FFFF) as usize;
                found = Some((i + 1, value));
            }
        }
        found
    }

    /// What the text at the start of `rest` normalises to, and how many
    /// bytes of it that consumed: the map's replacement for its longest
    /// key there, else the character itself.
    fn prefix<'a>(&'a self, rest: &'a str) -> (&'a str, usize) {
        if let Some((len, value)) = self.longest_match(rest.as_bytes())
            && let Some(tail) = self.replacements.get(value..)
        {
            let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
            // A key always ends on a character boundary in a valid map; a
            // replacement that is not UTF-8 is the map's fault, and the
            // character is kept as it is.
            if rest.is_char_boundary(len)
                && let Ok(replacement) = std::str::from_utf8(&tail[..end])
            {
                return (replacement, len);
            }
        }
        let len = rest.chars().next().map_or(1, char::len_utf8);
        (&rest[..len], len)
    }

    fn normalize(&self, text: &str) -> String {
        let mut pos = 0;
        // Leading whitespace (after mapping) goes.
        while pos < text.len() {
            let (piece, len) = self.prefix(&text[pos..]);
            if piece != " " {
                break;
            }
            pos += len;
        }
        if pos >= text.len() {
            return String::new();
        }
        let mut out = String::with_capacity(text.len() + 8);
        out.push_str(SPACE);
        let mut after_space = true;
        while pos < text.len() {
            let (mut piece, len) = self.prefix(&text[pos..]);
            pos += len;
            if after_space {
                piece = piece.trim_start_matches(' ');
            }
            if piece.is_empty() {
                continue;
            }
            for c in piece.chars() {
                if c == ' ' {
                    out.push_str(SPACE);
                } else {
                    out.push(c);
                }
            }
            after_space = piece.ends_with(' ');
        }
        while out.ends_with(SPACE) {
            out.truncate(out.len() - SPACE.len());
        }
        out
    }
}

/// A protobuf field's value, as far as this reader needs it.
enum Value<'a> {
    Varint(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
    Fixed64,
}

/// The fields of one protobuf message, in order.
struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    fn new(data: &'a [u8]) -> Fields<'a> {
        Fields { data, pos: 0 }
    }

    fn varint(&mut self) -> std::result::Result<u64, &'static str> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.data.get(self.pos).ok_or("a truncated varint")?;
            self.pos += 1;
            value |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a varint longer than ten bytes")
    }

    fn take(&mut self, n: usize) -> std::result::Result<&'a [u8], &'static str> {
        let end = self.pos.checked_add(n).ok_or("a field past the end")?;
        let bytes = self.data.get(self.pos..end).ok_or("a field past the end")?;
        self.pos = end;
        Ok(bytes)
    }

    fn field(&mut self) -> std::result::Result<(u64, Value<'a>), &'static str> {
        let key = self.varint()?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let n = usize::try_from(self.varint()?).map_err(|_| "a field past the end")?;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            _ => return Err("an unknown wire type"),
        };
        Ok((key >> 3, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = std::result::Result<(u64, Value<'a>), &'static str>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.data.len() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            // One error ends the message.
            self.pos = self.data.len();
        }
        Some(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny serialised model: pieces with scores, no character map.
    fn model(pieces: &[(&str, f32, u64)]) -> Vec<u8> {
        fn varint(mut v: u64, out: &mut Vec<u8>) {
            loop {
                let b = (v & 0x7F) as u8;
                v >>= 7;
                if v == 0 {
                    out.push(b);
                    return;
                }
                out.push(b | 0x80);
            }
        }
        let mut out = Vec::new();
        for (text, score, kind) in pieces {
            let mut piece = vec![0x0A];
            varint(text.len() as u64, &mut piece);
            piece.extend_from_slice(text.as_bytes());
            piece.push(0x15);
            piece.extend_from_slice(&score.to_le_bytes());
            piece.push(0x18);
            varint(*kind, &mut piece);
            out.push(0x0A);
            varint(piece.len() as u64, &mut out);
            out.extend_from_slice(&piece);
        }
        out
    }

    #[test]
    fn the_most_probable_segmentation_wins_and_unknown_characters_are_unk() {
        let sp = SentencePiece::from_bytes(&model(&[
            ("<unk>", 0.0, 2),
            ("<s>", 0.0, 3),
            ("</s>", 0.0, 3),
            ("\u{2581}", -2.0, 1),
            ("\u{2581}ab", -1.0, 1),
            ("a", -3.0, 1),
            ("b", -3.0, 1),
            ("c", -3.0, 1),
        ]))
        .expect("a valid model");
        // "▁ab" (-1) beats "▁" + "a" + "b" (-8).
        assert_eq!(sp.encode("ab"), vec![4]);
        // Runs of spaces are one; "x" is in no piece.
        assert_eq!(sp.encode("  ab   cx "), vec![4, 3, 7, UNK]);
        assert_eq!(sp.encode("   "), vec![UNK]);
        // Control pieces are not matched in text.
        assert_eq!(sp.encode("<s>"), vec![3, UNK, UNK, UNK]);
    }

    #[test]
    fn a_damaged_model_is_an_error_not_a_panic() {
        let good = model(&[("<unk>", 0.0, 2), ("<s>", 0.0, 3), ("</s>", 0.0, 3)]);
        for cut in 1..good.len() {
            let _ = SentencePiece::from_bytes(&good[..cut]);
        }
        assert!(SentencePiece::from_bytes(&[0x0A, 0xFF]).is_err());
        assert!(SentencePiece::from_bytes(&good[..good.len() - 3]).is_err());
    }
}
