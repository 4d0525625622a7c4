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
        let id = id as usize;
        let start = if id == 0 {
            0
        } else {
            self.ends.get(id - 1) as usize
        };
        // Only whole `&str`s are ever appended, so every slice is UTF-8.
        std::str::from_utf8(&self.bytes[start..self.ends.get(id) as usize]).unwrap_or("")
    }

    pub(crate) fn get(&self, name: &str) -> Option<Symbol> {
        self.ids
            .find(hash(name), |&id| self.text(id) == name)
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
        let id = self.len();
        if id == u32::MAX {
            return Err(Error::LimitReached {
                what: "the symbol table is full".into(),
            });
        }
        self.bytes.extend_from_slice(name.as_bytes());
        self.ends.push(self.bytes.len() as u64);
        let Interner { bytes, ends, ids } = self;
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

    pub(crate) fn name(&self, sym: Symbol) -> Result<Arc<str>> {
        if !self.contains(sym) {
            return Err(Error::UnknownSymbol { id: sym.0 });
        }
        Ok(Arc::from(self.text(sym.0)))
    }

    /// Names with ids `from..`, for the log.
    pub(crate) fn names_from(&self, from: u32) -> Vec<String> {
        (from..self.len())
            .map(|id| self.text(id).to_string())
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
    }
}
