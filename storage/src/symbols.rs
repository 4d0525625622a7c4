//! The symbol table: interned names shared by every relation.
//!
//! Ids are dense and assigned in order, so the durable log only needs to
//! record the names added since the last commit; replay reproduces the same
//! ids. Interning happens only on the write path (a reader that looks up an
//! unknown name simply gets `None` and an empty answer).
//!
//! Agent memory interns one symbol per entity, so the table is kept compact:
//! all names end to end in one byte arena, an offset per id, and a hash table
//! of bare ids (about 14 bytes per symbol plus its text, where a map of
//! reference-counted strings costs several times that).

use std::sync::Arc;

use hashbrown::HashTable;
use roaring::RoaringBitmap;

use crate::chunked::ChunkedVec;
use crate::error::{Error, Result};
use crate::value::Symbol;

/// Longest symbol name accepted, in bytes.
pub const MAX_SYMBOL_LEN: usize = 4096;

#[derive(Default)]
pub(crate) struct Interner {
    /// Every name, end to end.
    bytes: Vec<u8>,
    /// `ends[id]` is one past the last byte of name `id`.
    ends: ChunkedVec<u64>,
    /// Ids, hashed by their name.
    ids: HashTable<u32>,
    /// Ids whose name was purged: zeroed in `bytes`, gone from `ids`.
    purged: RoaringBitmap,
}

/// What a purged symbol's name reads as.
pub(crate) const PURGED_NAME: &str = "<purged>";

/// The name a purged symbol is logged under: unique per id and impossible
/// for a user to intern (names cannot contain NUL), so replay keeps ids dense.
pub(crate) fn tombstone(id: u32) -> String {
    format!("\0purged:{id}")
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Interner({} symbols)", self.len())
    }
}

fn hash(name: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(name)
}

impl Interner {
    pub(crate) fn len(&self) -> u32 {
        self.ends.len() as u32
    }

    fn text(&self, id: u32) -> &str {
        // Only whole `&str`s are ever appended, so every slice is UTF-8.
        std::str::from_utf8(self.text_bytes(id)).unwrap_or("")
    }

    fn text_bytes(&self, id: u32) -> &[u8] {
        let id = id as usize;
        let start = if id == 0 {
            0
        } else {
            self.ends.get(id - 1) as usize
        };
        &self.bytes[start..self.ends.get(id) as usize]
    }

    pub(crate) fn get(&self, name: &str) -> Option<Symbol> {
        self.ids
            .find(hash(name), |&id| self.text_bytes(id) == name.as_bytes())
            .map(|&id| Symbol(id))
    }

    pub(crate) fn intern(&mut self, name: &str) -> Result<Symbol> {
        if let Some(sym) = self.get(name) {
            return Ok(sym);
        }
        if name.len() > MAX_SYMBOL_LEN {
            return Err(Error::LimitReached {
                what: format!("symbol names are at most {MAX_SYMBOL_LEN} bytes"),
            });
        }
        if name.contains('\0') {
            return Err(Error::InvalidSymbol {
                reason: "a symbol name cannot contain NUL".into(),
            });
        }
        self.push(name)
    }

    /// Interns a name read back from the log, where tombstones of purged
    /// symbols (which contain NUL) are allowed.
    pub(crate) fn replay(&mut self, name: &str) -> Result<Symbol> {
        if let Some(id) = name.strip_prefix("\0purged:") {
            let sym = self.push(name)?;
            if id.parse::<u32>().ok() != Some(sym.0) {
                return Err(Error::corrupt(format!(
                    "tombstone `{id}` replayed as symbol {}",
                    sym.0
                )));
            }
            self.redact(sym);
            return Ok(sym);
        }
        if self.get(name).is_some() {
            return Err(Error::corrupt(format!("symbol `{name}` is logged twice")));
        }
        self.push(name)
    }

    fn push(&mut self, name: &str) -> Result<Symbol> {
        let id = self.len();
        if id == u32::MAX {
            return Err(Error::LimitReached {
                what: "the symbol table is full".into(),
            });
        }
        self.bytes.extend_from_slice(name.as_bytes());
        self.ends.push(self.bytes.len() as u64);
        let Interner {
            bytes, ends, ids, ..
        } = self;
        let text_of = |id: u32| {
            let id = id as usize;
            let start = if id == 0 {
                0
            } else {
                ends.get(id - 1) as usize
            };
            &bytes[start..ends.get(id) as usize]
        };
        ids.insert_unique(hash(name), id, |&other| {
            hash(std::str::from_utf8(text_of(other)).unwrap_or(""))
        });
        Ok(Symbol(id))
    }

    pub(crate) fn contains(&self, sym: Symbol) -> bool {
        sym.0 < self.len()
    }

    /// A symbol's name borrowed from the table (`None` for an unknown id),
    /// for callers that read many names under one lock.
    pub(crate) fn name_ref(&self, sym: Symbol) -> Option<&str> {
        if !self.contains(sym) {
            return None;
        }
        if self.purged.contains(sym.0) {
            return Some(PURGED_NAME);
        }
        Some(self.text(sym.0))
    }

    pub(crate) fn name(&self, sym: Symbol) -> Result<Arc<str>> {
        if !self.contains(sym) {
            return Err(Error::UnknownSymbol { id: sym.0 });
        }
        if self.purged.contains(sym.0) {
            return Ok(Arc::from(PURGED_NAME));
        }
        Ok(Arc::from(self.text(sym.0)))
    }

    /// Forgets a symbol's name: it can no longer be looked up, reads as
    /// `<purged>`, and its bytes are zeroed. The id stays taken.
    pub(crate) fn redact(&mut self, sym: Symbol) {
        if !self.contains(sym) || !self.purged.insert(sym.0) {
            return;
        }
        let hash = hash(self.text(sym.0));
        if let Ok(entry) = self.ids.find_entry(hash, |&id| id == sym.0) {
            entry.remove();
        }
        let id = sym.0 as usize;
        let start = if id == 0 {
            0
        } else {
            self.ends.get(id - 1) as usize
        };
        self.bytes[start..self.ends.get(id) as usize].fill(0);
    }

    /// Names with ids `from..`, for the log (tombstones for purged ones).
    pub(crate) fn names_from(&self, from: u32) -> Vec<String> {
        (from..self.len())
            .map(|id| {
                if self.purged.contains(id) {
                    tombstone(id)
                } else {
                    self.text(id).to_string()
                }
            })
            .collect()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.heap_bytes() + self.ids.capacity() * 5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_idempotent_and_ids_are_dense() {
        let mut table = Interner::default();
        let names: Vec<String> = (0..10_000).map(|i| format!("entity-{i}")).collect();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(table.intern(name).expect("intern"), Symbol(i as u32));
        }
        for (i, name) in names.iter().enumerate() {
            assert_eq!(table.intern(name).expect("intern"), Symbol(i as u32));
            assert_eq!(table.get(name), Some(Symbol(i as u32)));
            assert_eq!(&*table.name(Symbol(i as u32)).expect("name"), name.as_str());
        }
        assert_eq!(table.get("nobody"), None);
        assert_eq!(table.intern("").expect("empty name"), Symbol(10_000));
        assert!(table.name(Symbol(10_001)).is_err());
        assert_eq!(
            table.names_from(9_999),
            vec!["entity-9999".to_string(), String::new()]
        );
        assert!(table.intern("nul\0inside").is_err());
    }

    #[test]
    fn a_redacted_name_is_gone_and_replays_as_a_tombstone() {
        let mut table = Interner::default();
        let a = table.intern("alice").expect("intern");
        let b = table.intern("bob").expect("intern");
        table.redact(a);
        assert_eq!(table.get("alice"), None);
        assert_eq!(&*table.name(a).expect("name"), PURGED_NAME);
        assert_eq!(table.get("bob"), Some(b));
        assert!(!table.bytes.windows(5).any(|w| w == b"alice"));
        let logged = table.names_from(0);
        let mut replayed = Interner::default();
        for name in &logged {
            replayed.replay(name).expect("replay");
        }
        assert_eq!(replayed.get("alice"), None);
        assert_eq!(replayed.get("bob"), Some(b));
        // A new "alice" is a new symbol.
        assert_eq!(replayed.intern("alice").expect("intern"), Symbol(2));
    }
}
