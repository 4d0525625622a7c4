//! Each tenant's languages: which languages its messages are written in,
//! and whether its passages are in the multilingual space. A search picks
//! its meaning spaces and whether its word gates can judge from these
//! ([`TenantLanguages::spaces`]).
//!
//! A tenant's languages are read from its messages the first time they
//! are asked for (one scan of its episodes, each detected as
//! consolidation detects it), and kept in RAM; consolidation adds each
//! message's language as it reads it, so a message committed while the
//! scan runs is not lost. `forget` drops them all, to be read again.

use std::collections::{HashMap, HashSet};

use chronolog_engine::{Store, Value};
use parking_lot::RwLock;

use crate::error::Result;
use crate::lang::Lang;
use crate::schema::{Episode, Multilingual, Relations};

/// Which meaning spaces a question reads, and whether its words can judge
/// ([`TenantLanguages::spaces`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spaces {
    /// The engine's (English) space is searched over episodes: an English
    /// question to a memory holding English.
    pub english: bool,
    /// The question's language is one the memory holds (or the memory is
    /// empty): facts are searched by meaning in the engine's space.
    pub same_language: bool,
    /// The multilingual space is searched: the question or some of the
    /// memory is not English.
    pub multilingual: bool,
    /// None of the memory is in the question's language: the word gates
    /// and the reranker defer.
    pub crossing: bool,
    /// The memory holds the question's language and another: both spaces
    /// are searched and the reranker reads, but the word gates defer (the
    /// answer may be in the other language).
    pub mixed: bool,
}

/// A set of languages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Held(u8);

impl Held {
    fn bit(lang: Lang) -> u8 {
        1 << Lang::ALL.iter().position(|&l| l == lang).unwrap_or(0)
    }

    fn with(self, lang: Lang) -> Held {
        Held(self.0 | Held::bit(lang))
    }

    /// Whether `lang` is one of them.
    pub(crate) fn contains(self, lang: Lang) -> bool {
        self.0 & Held::bit(lang) != 0
    }

    /// Whether there is none.
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The languages, in [`Lang::ALL`]'s order.
    pub(crate) fn iter(self) -> impl Iterator<Item = Lang> {
        Lang::ALL.into_iter().filter(move |&l| self.contains(l))
    }
}

/// What is known of one tenant's languages.
#[derive(Clone, Copy, Debug, Default)]
struct Known {
    held: Held,
    /// `held` includes every stored message (a scan ran), not only those
    /// consolidation added since.
    scanned: bool,
}

/// Tenant name to the languages its messages are written in, and the
/// tenants whose passages are in the multilingual space.
pub(crate) struct TenantLanguages {
    store: Store,
    episode: chronolog_engine::RelationId,
    held: RwLock<HashMap<String, Known>>,
    spanning: RwLock<HashSet<String>>,
}

impl std::fmt::Debug for TenantLanguages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TenantLanguages")
            .field("held", &*self.held.read())
            .field("spanning", &*self.spanning.read())
            .finish_non_exhaustive()
    }
}

impl TenantLanguages {
    /// The tenants of `store` in the multilingual space; their languages
    /// are read when first asked for.
    pub(crate) fn load(store: &Store, rel: &Relations) -> Result<TenantLanguages> {
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
        Ok(TenantLanguages {
            store: store.clone(),
            episode: rel.episode,
            held: RwLock::new(HashMap::new()),
            spanning: RwLock::new(spanning),
        })
    }

    /// How a question in `lang` to `tenant`'s memory reads meaning: the
    /// engine's embedder reads English, so a question or a memory in
    /// another language needs the multilingual space, and a question in a
    /// language the memory does not hold is searched only there. A memory
    /// that mixes languages is searched in both spaces; its words judge
    /// only where it holds the question's language.
    pub(crate) fn spaces(&self, tenant: &str, lang: Lang) -> Result<Spaces> {
        let held = self.held(tenant)?;
        let same_language = held.is_empty() || held.contains(lang);
        Ok(Spaces {
            english: lang == Lang::English && same_language,
            same_language,
            multilingual: lang != Lang::English || held.iter().any(|l| l != Lang::English),
            crossing: !same_language,
            mixed: same_language && held.iter().any(|l| l != lang),
        })
    }

    /// The languages `tenant`'s messages are written in.
    pub(crate) fn held(&self, tenant: &str) -> Result<Held> {
        if let Some(known) = self.held.read().get(tenant)
            && known.scanned
        {
            return Ok(known.held);
        }
        let mut scanned = Held::default();
        if let Some(sym) = self.store.symbol(tenant) {
            let mut texts: Vec<String> = Vec::new();
            self.store
                .snapshot()
                .scan(self.episode)
                .history()
                .eq(Episode::TENANT, Value::Sym(sym))
                .for_each(|row| {
                    if let Value::Str(text) = row.value(Episode::TEXT).to_owned() {
                        texts.push(text.to_string());
                    }
                })
                .map_err(chronolog_engine::Error::from)?;
            for text in &texts {
                scanned = scanned.with(Lang::detect(text));
            }
        }
        let mut held = self.held.write();
        let known = held.entry(tenant.to_string()).or_default();
        known.held = Held(known.held.0 | scanned.0);
        known.scanned = true;
        Ok(known.held)
    }

    /// Whether `tenant`'s passages are in the multilingual space.
    pub(crate) fn is_multilingual(&self, tenant: &str) -> bool {
        self.spanning.read().contains(tenant)
    }

    /// `tenant`'s passages are in the multilingual space from now on.
    pub(crate) fn enter_multilingual(&self, tenant: &str) {
        if !self.is_multilingual(tenant) {
            self.spanning.write().insert(tenant.to_string());
        }
    }

    /// `tenant` just said something in `lang`.
    pub(crate) fn add(&self, tenant: &str, lang: Lang) {
        if self
            .held
            .read()
            .get(tenant)
            .is_some_and(|k| k.held.contains(lang))
        {
            return;
        }
        let mut held = self.held.write();
        let known = held.entry(tenant.to_string()).or_default();
        known.held = known.held.with(lang);
    }

    /// Forgets every tenant's languages (after `forget` erased messages),
    /// to be read again; the multilingual space keeps its tenants.
    pub(crate) fn clear(&self) {
        self.held.write().clear();
    }
}
