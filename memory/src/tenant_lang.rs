//! Each tenant's languages: the one it pinned, which languages its
//! messages are written in, and whether its passages are in the
//! multilingual space. A search picks its meaning spaces and whether its
//! word gates can judge from these ([`TenantLanguages::spaces`]).
//!
//! A message is read in the language `add` was given, else its tenant's
//! pinned language, else the one detected from its words
//! ([`TenantLanguages::message_lang`]); consolidation records which in
//! `mem_said_in`. A tenant's languages are read back from those rows the
//! first time they are asked for (detecting only the messages not
//! consolidated yet) and kept in RAM; consolidation adds each message's
//! language as it reads it, so a message committed while the scan runs is
//! not lost. `forget` drops them all, to be read again. Pins are few and
//! all kept in RAM from the store's open.

use std::collections::{HashMap, HashSet};

use chronolog_engine::{Store, Value};
use parking_lot::RwLock;

use crate::consolidate::passage::Said;
use crate::error::Result;
use crate::lang::Lang;
use crate::schema::declare::{Sym, cell};
use crate::schema::{Episode, LanguagePin, Multilingual, Relations, SaidIn};

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

/// How a message's language was chosen (`mem_said_in.how`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chosen {
    /// `add` was given it with the message.
    Given,
    /// The tenant's pinned language.
    Pinned,
    /// Detected from the message's words.
    Detected,
}

impl Chosen {
    /// Its name in `mem_said_in`.
    pub(crate) fn code(self) -> &'static str {
        match self {
            Chosen::Given => "given",
            Chosen::Pinned => "pinned",
            Chosen::Detected => "detected",
        }
    }
}

/// Tenant name to its pinned language and the languages its messages are
/// written in, and the tenants whose passages are in the multilingual
/// space.
pub(crate) struct TenantLanguages {
    store: Store,
    episode: chronolog_engine::RelationId,
    said_in: chronolog_engine::RelationId,
    held: RwLock<HashMap<String, Known>>,
    pins: RwLock<HashMap<String, Lang>>,
    spanning: RwLock<HashSet<String>>,
}

impl std::fmt::Debug for TenantLanguages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TenantLanguages")
            .field("held", &*self.held.read())
            .field("pins", &*self.pins.read())
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
        let mut pins = HashMap::new();
        let rows = snapshot
            .scan(rel.language_pin)
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        for row in &rows {
            let tenant = cell::<Sym>(
                store,
                &row.values,
                LanguagePin::RELATION,
                LanguagePin::TENANT,
            )?;
            let code = cell::<Sym>(store, &row.values, LanguagePin::RELATION, LanguagePin::LANG)?;
            // A code this build does not serve (a newer one wrote it) pins
            // nothing here.
            if let Some(lang) = Lang::from_code(&code) {
                pins.insert(tenant, lang);
            }
        }
        Ok(TenantLanguages {
            store: store.clone(),
            episode: rel.episode,
            said_in: rel.said_in,
            held: RwLock::new(HashMap::new()),
            pins: RwLock::new(pins),
            spanning: RwLock::new(spanning),
        })
    }

    /// `tenant`'s pinned language.
    pub(crate) fn pinned(&self, tenant: &str) -> Option<Lang> {
        self.pins.read().get(tenant).copied()
    }

    /// Pins `tenant` to `lang` (`None`: unpins), once the store holds it.
    pub(crate) fn set_pin(&self, tenant: &str, lang: Option<Lang>) {
        let mut pins = self.pins.write();
        match lang {
            Some(lang) => pins.insert(tenant.to_string(), lang),
            None => pins.remove(tenant),
        };
    }

    /// The language `add` was given with `episode`, if it was.
    pub(crate) fn given(&self, episode: &str) -> Result<Option<Lang>> {
        let Some(sym) = self.store.symbol(episode) else {
            return Ok(None);
        };
        let mut given = None;
        self.store
            .snapshot()
            .scan(self.said_in)
            .eq(SaidIn::EPISODE, Value::Sym(sym))
            .for_each(|row| {
                let how = row.value(SaidIn::HOW).to_owned();
                let lang = row.value(SaidIn::LANG).to_owned();
                if let (Value::Sym(how), Value::Sym(lang)) = (how, lang)
                    && self.store.symbol_name(how).ok().as_deref() == Some(Chosen::Given.code())
                {
                    given = self
                        .store
                        .symbol_name(lang)
                        .ok()
                        .and_then(|code| Lang::from_code(&code));
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        Ok(given)
    }

    /// The language a message of `tenant` is read in, and how it was
    /// chosen: `given` with it, else the tenant's pin, else detected (a
    /// tenant who has written only German leaning German).
    pub(crate) fn message_lang(
        &self,
        tenant: &str,
        given: Option<Lang>,
        text: &str,
    ) -> (Lang, Chosen) {
        match (given, self.pinned(tenant)) {
            (Some(lang), _) => (lang, Chosen::Given),
            (None, Some(lang)) => (lang, Chosen::Pinned),
            (None, None) => {
                // A tenant who has written only German is heard in German
                // wherever lingua finds a message more German than not, as
                // a question is ("Ups, ich meinte Emily, nicht Emma": names
                // make a short message look English).
                // (What is known of the tenant so far, not `held`, which
                // reads the messages still to come in the language this
                // decides.)
                let german_only = self.held.read().get(tenant).is_some_and(|k| {
                    k.held.contains(Lang::German) && !k.held.contains(Lang::English)
                });
                let lang = if german_only {
                    Lang::detect_question(text)
                } else {
                    Lang::detect(text)
                };
                (lang, Chosen::Detected)
            }
        }
    }

    /// The language a question to `tenant` is read in: `named` by the
    /// call, else the tenant's pin, else detected.
    pub(crate) fn question_lang(&self, tenant: &str, named: Option<Lang>, question: &str) -> Lang {
        named
            .or_else(|| self.pinned(tenant))
            .unwrap_or_else(|| Lang::detect_question(question))
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

    /// The languages `tenant`'s messages are written in: those
    /// `mem_said_in` records, and for a message it does not (not
    /// consolidated yet, or by a build from before it) the language it
    /// will be read in.
    pub(crate) fn held(&self, tenant: &str) -> Result<Held> {
        if let Some(known) = self.held.read().get(tenant)
            && known.scanned
        {
            return Ok(known.held);
        }
        let mut scanned = Held::default();
        if let Some(sym) = self.store.symbol(tenant) {
            let snapshot = self.store.snapshot();
            let mut recorded: HashSet<chronolog_engine::Symbol> = HashSet::new();
            let mut codes: HashSet<chronolog_engine::Symbol> = HashSet::new();
            snapshot
                .scan(self.said_in)
                .eq(SaidIn::TENANT, Value::Sym(sym))
                .for_each(|row| {
                    if let (Value::Sym(episode), Value::Sym(lang)) = (
                        row.value(SaidIn::EPISODE).to_owned(),
                        row.value(SaidIn::LANG).to_owned(),
                    ) {
                        recorded.insert(episode);
                        codes.insert(lang);
                    }
                })
                .map_err(chronolog_engine::Error::from)?;
            for code in codes {
                if let Some(lang) = self
                    .store
                    .symbol_name(code)
                    .ok()
                    .and_then(|c| Lang::from_code(&c))
                {
                    scanned = scanned.with(lang);
                }
            }
            let mut texts: Vec<String> = Vec::new();
            snapshot
                .scan(self.episode)
                .history()
                .eq(Episode::TENANT, Value::Sym(sym))
                .for_each(|row| {
                    let recorded = matches!(row.value(Episode::ID).to_owned(),
                        Value::Sym(id) if recorded.contains(&id));
                    if !recorded && let Value::Str(text) = row.value(Episode::TEXT).to_owned() {
                        texts.push(text.to_string());
                    }
                })
                .map_err(chronolog_engine::Error::from)?;
            for text in &texts {
                scanned = scanned.with(self.message_lang(tenant, None, text).0);
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

/// Records in `mem_said_in` that the message `said` is read in `lang`,
/// chosen as `chosen`, valid from when it was said.
pub(crate) fn write_said_in(
    txn: &mut chronolog_engine::WriteTxn<'_>,
    rel: chronolog_engine::RelationId,
    said: &Said<'_>,
    lang: Lang,
    chosen: Chosen,
) -> chronolog_engine::Result<()> {
    let row = SaidIn {
        episode: said.episode.to_string(),
        tenant: said.tenant.to_string(),
        lang: lang.code().to_string(),
        how: chosen.code().to_string(),
    };
    let values = row.to_values(txn)?;
    txn.assert(
        rel,
        values,
        chronolog_engine::Interval::starting(said.at),
        None,
    )?;
    Ok(())
}
