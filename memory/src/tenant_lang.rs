//! Each tenant's language: what its last consolidated message was written
//! in; and whether its passages are in the multilingual space. A short question says too little to tell German from English
//! ("Was ist mein Job?" is 0.67 German to lingua), so it is read in its
//! tenant's language when detection leans that way
//! ([`crate::Lang::detect_with`]). Kept in RAM, updated by each pass, and
//! read back at open from the conversations' last messages.

use std::collections::{HashMap, HashSet};

use chronolog_engine::Store;
use parking_lot::RwLock;

use crate::consolidate::last_messages;
use crate::error::Result;
use crate::lang::Lang;
use crate::schema::{Multilingual, Relations};

/// Which meaning spaces a question reads ([`TenantLanguages::spaces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spaces {
    /// The multilingual space is searched.
    pub multilingual: bool,
    /// The question is in another language than the memory: only the
    /// multilingual space, and the word gates defer.
    pub crossing: bool,
}

/// Tenant name to the language of its last consolidated message, and the
/// tenants whose passages are in the multilingual space.
#[derive(Debug, Default)]
pub(crate) struct TenantLanguages(RwLock<HashMap<String, Lang>>, RwLock<HashSet<String>>);

impl TenantLanguages {
    /// The languages of the tenants in `store`, from the last message of
    /// each conversation (the commonest, where a tenant has several).
    pub(crate) fn load(store: &Store, rel: &Relations) -> Result<TenantLanguages> {
        let mut counts: HashMap<String, HashMap<Lang, usize>> = HashMap::new();
        for (tenant, text) in last_messages(store, rel)? {
            *counts
                .entry(tenant)
                .or_default()
                .entry(Lang::detect(&text))
                .or_default() += 1;
        }
        let languages = counts
            .into_iter()
            .filter_map(|(tenant, by_lang)| {
                let (lang, _) = by_lang.into_iter().max_by_key(|(l, n)| (*n, l.code()))?;
                Some((tenant, lang))
            })
            .collect();
        // A tenant is in the multilingual space when any of its passages is.
        let mut spanning = HashSet::new();
        let snapshot = store.snapshot();
        let rows = snapshot
            .scan(rel.multilingual)
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        for row in &rows {
            let tenant = crate::schema::declare::cell::<crate::schema::declare::Sym>(
                store,
                &row.values,
                Multilingual::RELATION,
                Multilingual::TENANT,
            )?;
            spanning.insert(tenant);
        }
        Ok(TenantLanguages(
            RwLock::new(languages),
            RwLock::new(spanning),
        ))
    }

    /// How a question in `lang` to `tenant`'s memory reads meaning: the
    /// engine's embedder reads English, so a question or a memory in
    /// another language needs the multilingual space, and a question in
    /// another language than the memory's is searched only there.
    pub(crate) fn spaces(&self, tenant: &str, lang: Lang) -> Spaces {
        let memory = self.get(tenant);
        Spaces {
            multilingual: lang != Lang::English || memory.is_some_and(|l| l != Lang::English),
            crossing: memory.is_some_and(|l| l != lang),
        }
    }

    /// Whether `tenant`'s passages are in the multilingual space.
    pub(crate) fn is_multilingual(&self, tenant: &str) -> bool {
        self.1.read().contains(tenant)
    }

    /// `tenant`'s passages are in the multilingual space from now on.
    pub(crate) fn enter_multilingual(&self, tenant: &str) {
        if !self.is_multilingual(tenant) {
            self.1.write().insert(tenant.to_string());
        }
    }

    /// `tenant`'s language, if any of its messages was consolidated.
    pub(crate) fn get(&self, tenant: &str) -> Option<Lang> {
        self.0.read().get(tenant).copied()
    }

    /// `tenant` just said something in `lang`.
    pub(crate) fn set(&self, tenant: &str, lang: Lang) {
        if self.get(tenant) != Some(lang) {
            self.0.write().insert(tenant.to_string(), lang);
        }
    }

    /// Forgets every tenant's language (after `forget` erased messages);
    /// the multilingual space keeps its tenants.
    pub(crate) fn clear(&self) {
        self.0.write().clear();
    }
}
