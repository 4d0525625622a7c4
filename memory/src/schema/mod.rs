//! The memory's relations: ordinary bi-temporal relations of the store,
//! declared once here as code (a row type per relation, its column
//! numbers, its conversions and its `:create` text), so that everything
//! memory holds can be queried, joined and time-travelled from Datalog
//! and no other file knows a column by its position. The tenant is a
//! column of every relation that holds content, and every id a row links
//! by (episode, entity, slot; [`crate::ids`]) starts with its tenant, so
//! links never cross tenants. docs/memory.md describes each column.

pub(crate) mod declare;

use chronolog_engine::{RelationId, Session, Store};

use crate::error::Result;
use declare::relation;

relation! {
    /// Episodes: one lossless message each, valid from when it was said,
    /// never rewritten. `seq` orders them across the store.
    Episode = "mem_episode" {
        /// `tenant/e<seq>` ([`crate::ids::episode`]).
        id / ID: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// The conversation it belongs to.
        session / SESSION: Sym,
        /// Who said it.
        role / ROLE: Sym,
        /// Its number, in the order `add` received it.
        seq / SEQ: Int,
        /// When it was said.
        at / AT: Time,
        /// What was said, exactly; its words cut in its own language
        /// (stores made before analyzers were named keep `search`,
        /// English, and read the same).
        text / TEXT: Str "search(multilingual)",
    }
}

relation! {
    /// Passages: each episode as the meaning channels read it, the message
    /// before it in its session and the speakers' names included ("The
    /// kids loved it!" says little alone), embedded by consolidation, never
    /// on `add`. A passage has an id of its own ([`crate::ids::passage`])
    /// so that forgetting the message before it can erase it whole.
    Passage = "mem_passage" {
        /// `<episode>/p`.
        id / ID: Sym "key",
        /// The episode it reads.
        episode / EPISODE: Sym,
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// Who said the episode.
        role / ROLE: Sym,
        /// What is embedded.
        text / TEXT: Str "embed",
    }
}

relation! {
    /// A person's message's sentences, each embedded alone after its
    /// speaker's name (a short one joined with the next; an assistant's
    /// replies are not split: `consolidate/sentence.rs`):
    /// the one sentence of a long message that answers is found by its own
    /// meaning, not diluted by the rest. Keyless: `near` answers each
    /// episode once, by its best sentence. Erased with the episode (its
    /// id is a column), never rewritten.
    Sentence = "mem_sentence" {
        /// The episode it is from; first, so `near` answers episodes.
        episode / EPISODE: Sym,
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// Who said it.
        role / ROLE: Sym,
        /// What is embedded: `<role>: <sentence>`.
        text / TEXT: Str "embed",
    }
}

relation! {
    /// Passages again, in the multilingual space: the same text, embedded
    /// by a model that puts Chinese, German and English in one space, so a
    /// question finds a message written in another language and a memory
    /// in any language has a meaning channel. Written with the passage, by
    /// the same id (forgetting the passage erases it).
    Multilingual = "mem_multilingual" {
        /// The passage's id.
        id / ID: Sym "key",
        /// The episode it reads.
        episode / EPISODE: Sym,
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// What is embedded.
        text / TEXT: Str "embed(multilingual)",
    }
}

relation! {
    /// Facts: one row per version of a slot (subject and predicate, and
    /// the object too for many-valued predicates); the slot is the key, so
    /// a new value cuts the old one at its start and supersedes it.
    Fact = "mem_fact" {
        /// The slot ([`crate::ids::Slot`]).
        slot / SLOT: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// The subject's entity id.
        subject / SUBJECT: Sym,
        /// `works_at`, `lives_in`, ....
        predicate / PREDICATE: Sym,
        /// The value, as said.
        object / OBJECT: Str,
        /// The sentence it was read from.
        text / TEXT: Str "search(multilingual) embed",
        /// How sure the extractor was.
        confidence / CONFIDENCE: Float,
    }
}

relation! {
    /// Every episode that stated or restated a slot's value (provenance
    /// beyond the row's own).
    Source = "mem_source" {
        /// The slot.
        slot / SLOT: Sym,
        /// The episode that said it.
        episode / EPISODE: Sym,
        /// The value it said.
        object / OBJECT: Str,
    }
}

relation! {
    /// Entities (people, places, organisations, ...) of a tenant.
    Entity = "mem_entity" {
        /// `tenant/<normalised name>` ([`crate::ids::entity`]).
        id / ID: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// The name as first said.
        name / NAME: Str "search(simple)",
        /// `person`, `place`, ....
        kind / KIND: Sym,
    }
}

relation! {
    /// Names and words that refer to an entity, tenant-prefixed.
    Alias = "mem_alias" {
        /// `tenant/<normalised name>`.
        alias / ALIAS: Sym "key",
        /// The entity it names.
        entity / ENTITY: Sym,
    }
}

relation! {
    /// Which entities an episode mentions.
    Mention = "mem_mention" {
        /// The episode.
        episode / EPISODE: Sym,
        /// An entity it names.
        entity / ENTITY: Sym,
    }
}

relation! {
    /// Which entities a fact slot is about (its subject and object).
    About = "mem_about" {
        /// The slot.
        slot / SLOT: Sym,
        /// Its subject or object.
        entity / ENTITY: Sym,
    }
}

relation! {
    /// Salience of a slot: a score, when it was last reinforced, how often.
    Salience = "mem_salience" {
        /// The slot.
        slot / SLOT: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// The score when last reinforced (it decays from there).
        score / SCORE: Float,
        /// How often it was stated or returned.
        reinforced / REINFORCED: Int,
        /// When it was last reinforced.
        last / LAST: Time,
    }
}

relation! {
    /// Pairs of slots an adjudicator could not choose between.
    Contested = "mem_contested" {
        /// The value kept beside the other.
        slot / SLOT: Sym,
        /// The slot it contests.
        other / OTHER: Sym,
    }
}

relation! {
    /// Facts that elaborate another's value ("Google Zurich" of "Google"):
    /// kept beside it, not in conflict.
    Elaborates = "mem_elaborates" {
        /// The elaboration's slot.
        slot / SLOT: Sym,
        /// The slot whose value it says more about.
        base / BASE: Sym,
    }
}

relation! {
    /// How far consolidation has read the episodes.
    Cursor = "mem_cursor" {
        /// The cursor's name.
        name / NAME: Sym "key",
        /// The last episode consolidated.
        seq / SEQ: Int,
    }
}

relation! {
    /// Consolidation's state in one conversation (a tenant's session),
    /// written in the commit of each episode it consolidates, so that a
    /// pass after a restart writes what an uninterrupted one would.
    Conversation = "mem_conversation" {
        /// `tenant/#<session>` ([`crate::ids::conversation`]).
        id / ID: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// How many of its messages consolidation has read.
        turn / TURN: Int,
        /// The last of them: the message the next one's passage begins with.
        previous / PREVIOUS: Sym,
        /// The people named lately, one `<turn> <entity id>` line each
        /// (what "he" and "she" may refer to).
        people / PEOPLE: Str,
    }
}

relation! {
    /// The fact slots searches returned, waiting for the next pass to
    /// reinforce them (salience), so a search never writes salience itself
    /// and a search from a process that ends at once still counts.
    Retrieved = "mem_retrieved" {
        /// `tenant/!<n>`: one row per slot a search returned.
        id / ID: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// The slot returned.
        slot / SLOT: Sym,
        /// When (the search's now).
        at / AT: Time,
    }
}

relation! {
    /// The language each message is read in: the one `add` was given
    /// (`given`), the tenant's pinned language (`pinned`), or the one
    /// detected from its words (`detected`). Written by `add` for a given
    /// language and by consolidation otherwise, so a tenant's languages
    /// read back without detecting anything again; keyed by the episode,
    /// so forgetting the episode erases it.
    SaidIn = "mem_said_in" {
        /// The episode.
        episode / EPISODE: Sym "key",
        /// Whose memory it is.
        tenant / TENANT: Sym,
        /// `en`, `zh` or `de` ([`crate::Lang::code`]).
        lang / LANG: Sym,
        /// `given`, `pinned` or `detected`.
        how / HOW: Sym,
    }
}

relation! {
    /// A tenant's pinned language: its messages and questions are read in
    /// it, not detected, unless a call names another. Retracted by
    /// unpinning.
    LanguagePin = "mem_language" {
        /// The tenant.
        tenant / TENANT: Sym "key",
        /// `en`, `zh` or `de`.
        lang / LANG: Sym,
    }
}

/// Every relation's name, in creation order.
pub const NAMES: [&str; 18] = [
    Episode::RELATION,
    Passage::RELATION,
    Fact::RELATION,
    Source::RELATION,
    Entity::RELATION,
    Alias::RELATION,
    Mention::RELATION,
    About::RELATION,
    Salience::RELATION,
    Contested::RELATION,
    Elaborates::RELATION,
    Cursor::RELATION,
    Conversation::RELATION,
    Retrieved::RELATION,
    Multilingual::RELATION,
    SaidIn::RELATION,
    LanguagePin::RELATION,
    Sentence::RELATION,
];

/// Every relation's name and `:create` statement, in creation order.
fn declarations() -> [(&'static str, String); 18] {
    [
        (Episode::RELATION, Episode::create()),
        (Passage::RELATION, Passage::create()),
        (Fact::RELATION, Fact::create()),
        (Source::RELATION, Source::create()),
        (Entity::RELATION, Entity::create()),
        (Alias::RELATION, Alias::create()),
        (Mention::RELATION, Mention::create()),
        (About::RELATION, About::create()),
        (Salience::RELATION, Salience::create()),
        (Contested::RELATION, Contested::create()),
        (Elaborates::RELATION, Elaborates::create()),
        (Cursor::RELATION, Cursor::create()),
        (Conversation::RELATION, Conversation::create()),
        (Retrieved::RELATION, Retrieved::create()),
        (Multilingual::RELATION, Multilingual::create()),
        (SaidIn::RELATION, SaidIn::create()),
        (LanguagePin::RELATION, LanguagePin::create()),
        (Sentence::RELATION, Sentence::create()),
    ]
}

/// Creates whichever relations are missing (a store opened before gets
/// none twice), and says which it created.
pub fn ensure(session: &mut Session) -> Result<Vec<&'static str>> {
    let mut created = Vec::new();
    for (name, create) in declarations() {
        if session.store().relation_id(name).is_err() {
            session.run(&create)?;
            created.push(name);
        }
    }
    Ok(created)
}

/// The store's ids of the memory's relations, looked up once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relations {
    pub episode: RelationId,
    pub passage: RelationId,
    pub fact: RelationId,
    pub source: RelationId,
    pub entity: RelationId,
    pub alias: RelationId,
    pub mention: RelationId,
    pub about: RelationId,
    pub salience: RelationId,
    pub contested: RelationId,
    pub elaborates: RelationId,
    pub cursor: RelationId,
    pub conversation: RelationId,
    pub retrieved: RelationId,
    pub multilingual: RelationId,
    pub said_in: RelationId,
    pub language_pin: RelationId,
    pub sentence: RelationId,
}

impl Relations {
    /// The ids in `store`, which [`ensure`] has prepared.
    pub(crate) fn of(store: &Store) -> Result<Relations> {
        let id = |name: &str| -> Result<RelationId> {
            Ok(store
                .relation_id(name)
                .map_err(chronolog_engine::Error::from)?)
        };
        Ok(Relations {
            episode: id(Episode::RELATION)?,
            passage: id(Passage::RELATION)?,
            fact: id(Fact::RELATION)?,
            source: id(Source::RELATION)?,
            entity: id(Entity::RELATION)?,
            alias: id(Alias::RELATION)?,
            mention: id(Mention::RELATION)?,
            about: id(About::RELATION)?,
            salience: id(Salience::RELATION)?,
            contested: id(Contested::RELATION)?,
            elaborates: id(Elaborates::RELATION)?,
            cursor: id(Cursor::RELATION)?,
            conversation: id(Conversation::RELATION)?,
            retrieved: id(Retrieved::RELATION)?,
            multilingual: id(Multilingual::RELATION)?,
            said_in: id(SaidIn::RELATION)?,
            language_pin: id(LanguagePin::RELATION)?,
            sentence: id(Sentence::RELATION)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statements the relations were created with before they were
    /// declared as code: a store made then must read as one made now.
    #[test]
    fn declarations_create_what_older_stores_hold() {
        let expected = [
            ":create mem_episode(id: sym key, tenant: sym, session: sym, role: sym, seq: int, at: time, text: str search).",
            ":create mem_passage(id: sym key, episode: sym, tenant: sym, role: sym, text: str embed).",
            ":create mem_fact(slot: sym key, tenant: sym, subject: sym, predicate: sym, object: str, text: str search embed, confidence: float).",
            ":create mem_source(slot: sym, episode: sym, object: str).",
            ":create mem_entity(id: sym key, tenant: sym, name: str search(simple), kind: sym).",
            ":create mem_alias(alias: sym key, entity: sym).",
            ":create mem_mention(episode: sym, entity: sym).",
            ":create mem_about(slot: sym, entity: sym).",
            ":create mem_salience(slot: sym key, tenant: sym, score: float, reinforced: int, last: time).",
            ":create mem_contested(slot: sym, other: sym).",
            ":create mem_elaborates(slot: sym, base: sym).",
            ":create mem_cursor(name: sym key, seq: int).",
        ];
        // Only the analyzer of the searched text changed since: a store
        // made then keeps English, whose rows read the same.
        let made: Vec<String> = declarations()
            .into_iter()
            .map(|(_, c)| c)
            .take(12)
            .collect();
        let as_then: Vec<String> = made
            .iter()
            .map(|c| c.replace("search(multilingual)", "search"))
            .collect();
        assert_eq!(as_then, expected);
        assert!(
            made[0].ends_with("text: str search(multilingual))."),
            "{}",
            made[0]
        );
        assert!(
            made[2].contains("text: str search(multilingual) embed,"),
            "{}",
            made[2]
        );
    }

    #[test]
    fn rows_round_trip_through_the_store() {
        let engine = chronolog_engine::Engine::in_memory();
        let mut session = engine.session();
        ensure(&mut session).expect("schema");
        let rel = Relations::of(session.store()).expect("relations");
        let row = Episode {
            id: "t/e1".into(),
            tenant: "t".into(),
            session: "s".into(),
            role: "user".into(),
            seq: 1,
            at: chronolog_engine::Timestamp::parse("2024-01-02").expect("time"),
            text: "hello".into(),
        };
        session
            .write(|txn| {
                let values = row.to_values(txn)?;
                txn.assert(
                    rel.episode,
                    values,
                    chronolog_engine::Interval::ALWAYS,
                    None,
                )?;
                Ok(())
            })
            .expect("write");
        let store = session.store();
        let stored = store.snapshot().scan(rel.episode).collect().expect("scan");
        assert_eq!(
            Episode::from_values(store, &stored[0].values).expect("an episode"),
            row
        );
        assert_eq!((Episode::SEQ, Episode::TEXT, Episode::ARITY), (4, 6, 7));
        let err = Fact::from_values(store, &stored[0].values).expect_err("not a fact");
        assert!(matches!(
            err,
            crate::Error::BadRow {
                relation: "mem_fact",
                ..
            }
        ));
    }
}
