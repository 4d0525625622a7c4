//! The symbol table: interned names shared by every relation.
//!
//! Ids are dense and assigned in order, so the durable log only needs to
//! record the names added since the last commit; replay reproduces the same
//! ids. Interning happens only on the write path (a reader that looks up an
//! unknown name simply gets `None` and an empty answer).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::value::Symbol;

/// Longest symbol name accepted, in bytes.
pub const MAX_SYMBOL_LEN: usize = 4096;

#[derive(Debug, Default)]
pub(crate) struct Interner {
    ids: FxHashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Interner {
    pub(crate) fn len(&self) -> u32 {
        self.names.len() as u32
    }

    pub(crate) fn get(&self, name: &str) -> Option<Symbol> {
        self.ids.get(name).map(|&id| Symbol(id))
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
        let name: Arc<str> = Arc::from(name);
        self.names.push(Arc::clone(&name));
        self.ids.insert(name, id);
        Ok(Symbol(id))
    }

    pub(crate) fn name(&self, sym: Symbol) -> Result<Arc<str>> {
        self.names
            .get(sym.0 as usize)
            .cloned()
            .ok_or(Error::UnknownSymbol { id: sym.0 })
    }

    /// Names with ids `from..`, for the log.
    pub(crate) fn names_from(&self, from: u32) -> Vec<String> {
        self.names[from as usize..]
            .iter()
            .map(|n| n.to_string())
            .collect()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.names.iter().map(|n| n.len() + 16).sum::<usize>() * 2 + self.ids.capacity() * 24
    }
}
