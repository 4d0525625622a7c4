//! Symbols a session's queries name: the store's ids for names it knows,
//! and virtual ids for names it has never seen, which compare and print
//! but match no stored row (so a query about an unknown person answers
//! nothing rather than failing).

use std::collections::HashMap;

use chronolog_storage::Store;

/// Symbols named by queries: interned ids, or virtual ids for names the
/// store has never seen (they compare and print, but match no stored row).
#[derive(Default, Debug, Clone)]
pub struct SymbolResolver {
    virtual_names: Vec<String>,
    virtual_ids: HashMap<String, u32>,
}

impl SymbolResolver {
    pub(crate) fn resolve(&mut self, store: &Store, name: &str) -> u32 {
        if let Some(sym) = store.symbol(name) {
            return sym.0;
        }
        if let Some(&id) = self.virtual_ids.get(name) {
            return id;
        }
        let id = u32::MAX - 1 - self.virtual_names.len() as u32;
        self.virtual_names.push(name.to_string());
        self.virtual_ids.insert(name.to_string(), id);
        id
    }

    pub(crate) fn is_virtual(&self, id: u32) -> bool {
        id < u32::MAX && (u32::MAX - 1 - id) < self.virtual_names.len() as u32
    }

    /// Every query-only symbol, as `(id, name)`.
    pub(crate) fn virtual_names(&self) -> Vec<(u32, &str)> {
        self.virtual_names
            .iter()
            .enumerate()
            .map(|(i, n)| (u32::MAX - 1 - i as u32, n.as_str()))
            .collect()
    }

    /// The name of a query-only symbol (one the store does not know).
    pub(crate) fn virtual_name(&self, id: u32) -> Option<&str> {
        if self.is_virtual(id) {
            self.virtual_names
                .get((u32::MAX - 1 - id) as usize)
                .map(String::as_str)
        } else {
            None
        }
    }
}
