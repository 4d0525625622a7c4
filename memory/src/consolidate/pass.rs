//! The consolidation pass: reads the episodes after the cursor, in order,
//! and turns each into facts in one transaction holding its passage,
//! entities, facts, links, salience and the cursor past it, so a crash in
//! the middle loses nothing and a rerun duplicates nothing. A pass ends
//! with one sync and waits for the indexes.

use std::collections::{HashMap, HashSet};

use chronolog_engine::{Interval, Session, Store, Value};

use super::apply::{Written, apply};
use super::conflict::{Adjudicator, Claimed, Plan, decide};
use super::conversation::{self, State};
use super::entities::{self, Entities, Resolved};
use super::extract::{
    Claim, ClaimKind, EpisodeView, Extractor, Subject, is_functional, slot_predicate,
};
use super::misspoken;
use super::paraphrase::Paraphrases;
use super::passage::{self, Said};
use super::report::Report;
use super::sentence;
use super::slots::Slots;
use crate::error::Result;
use crate::ids::{Slot, normalize};
use crate::lang::Lang;
use crate::salience::{self, Level};
use crate::schema::{Cursor, Episode, Relations, Retrieved};
use crate::tenant_lang::{Chosen, TenantLanguages, write_said_in};
use crate::tuning::Tuning;

mod backfill;
use backfill::write_multilingual;

/// The cursor's row key.
const CURSOR_NAME: &str = "consolidated";

/// The worker's state: a session of its own, the extractor, the entity
/// cache, and the recent entities of each conversation.
pub(crate) struct Consolidator {
    session: Session,
    extractor: Box<dyn Extractor>,
    adjudicator: Box<dyn Adjudicator>,
    tuning: Tuning,
    entities: Entities,
    rel: Relations,
    /// Rows of `mem_episode` before this one are consolidated.
    next_row: u32,
    /// The state of each (tenant, session) read or written so far (the
    /// store holds every one; this saves reading it per message).
    conversations: HashMap<(String, String), State>,
    /// Each tenant's language, told of every message read.
    languages: std::sync::Arc<TenantLanguages>,
    /// Free predicates read as paraphrases of one-valued slots.
    paraphrases: Paraphrases,
}

impl Consolidator {
    pub(crate) fn new(
        session: Session,
        extractor: Box<dyn Extractor>,
        adjudicator: Box<dyn Adjudicator>,
        tuning: Tuning,
        languages: std::sync::Arc<TenantLanguages>,
    ) -> Result<Consolidator> {
        let rel = Relations::of(session.store())?;
        let entities = Entities::new(session.store(), &rel, tuning.pronoun_reach as u64)?;
        Ok(Consolidator {
            session,
            extractor,
            adjudicator,
            tuning,
            entities,
            rel,
            next_row: 0,
            paraphrases: Paraphrases::default(),
            conversations: HashMap::new(),
            languages,
        })
    }

    /// Reads the alias table and the conversations' states again (after
    /// `forget` erased some).
    pub(crate) fn reload(&mut self) -> Result<()> {
        self.entities = Entities::new(
            self.session.store(),
            &self.rel,
            self.tuning.pronoun_reach as u64,
        )?;
        self.conversations.clear();
        self.languages.clear();
        Ok(())
    }

    /// Consolidates every pending episode, then waits for the indexes.
    /// `stop` is checked before each episode (each is its own
    /// transaction): a stopped pass keeps what it finished, and the next
    /// goes on from there.
    pub(crate) fn run(&mut self, stop: &crate::Stop) -> Result<Report> {
        let mut report = Report::default();
        stop.check()?;
        self.reinforce(&mut report)?;
        let cursor = self.cursor()?;
        let (pending, end) = self.episodes_after(cursor, self.next_row)?;
        for episode in &pending {
            stop.check()?;
            self.episode(episode, &mut report)?;
        }
        // Every row before `end` is consolidated: the next pass starts there.
        self.next_row = end;
        if report.episodes > 0 || report.reinforced > 0 {
            self.session
                .store()
                .sync()
                .map_err(chronolog_engine::Error::from)?;
        }
        self.session.sync_indexes()?;
        Ok(report)
    }

    /// Raises the salience of the fact slots searches returned (queued
    /// in `mem_retrieved`, in the order queued) and empties the queue, in
    /// one buffered commit.
    fn reinforce(&mut self, report: &mut Report) -> Result<()> {
        let store = self.session.store().clone();
        let queued = store
            .snapshot()
            .scan(self.rel.retrieved)
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        if queued.is_empty() {
            return Ok(());
        }
        let mut levels: Vec<(String, String, Level)> = Vec::new();
        for row in &queued {
            let queued = Retrieved::from_values(&store, &row.values)?;
            let current = match levels.iter().find(|(slot, _, _)| *slot == queued.slot) {
                Some((_, _, level)) => Some(*level),
                None => salience::read(&store, self.rel.salience, &queued.slot)?,
            };
            let next = salience::reinforced(current, queued.at, &self.tuning);
            levels.retain(|(slot, _, _)| *slot != queued.slot);
            levels.push((queued.slot, queued.tenant, next));
        }
        let rel = self.rel;
        self.session.write(|txn| {
            txn.buffered();
            for (slot, tenant, level) in &levels {
                salience::write(txn, rel.salience, slot, tenant, *level)?;
            }
            for row in &queued {
                txn.correct(rel.retrieved, row.values.clone())?;
            }
            Ok(())
        })?;
        report.reinforced += levels.len();
        Ok(())
    }

    fn cursor(&self) -> Result<u64> {
        consolidated(self.session.store(), &self.rel)
    }

    /// The episodes numbered after `cursor` among the rows from `from_row`
    /// on, in order, and the row id one past the last row read. Episodes
    /// are appended in `seq` order (one writer assigns and commits them),
    /// so only rows from the last pass's end on can be pending: each pass
    /// reads what is new, not the whole log.
    fn episodes_after(&self, cursor: u64, from_row: u32) -> Result<(Vec<Episode>, u32)> {
        let store = self.session.store();
        let mut rows: Vec<Episode> = Vec::new();
        let mut bad = None;
        let end = store
            .snapshot()
            .rows_from(self.rel.episode, from_row, |row| {
                let after = matches!(row.value(Episode::SEQ).to_owned(), Value::Int(s) if s > cursor as i64);
                if after {
                    match Episode::from_values(store, &row.values()) {
                        Ok(episode) => rows.push(episode),
                        Err(e) => bad = Some(e),
                    }
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        if let Some(e) = bad {
            return Err(e);
        }
        rows.sort_by_key(|e| e.seq);
        rows.dedup_by_key(|e| e.seq);
        Ok((rows, end))
    }

    /// The claims of `episode`, predicates mapped to the slots they
    /// paraphrase, and of two claims on one slot only the last said.
    fn claims(&mut self, episode: &Episode, lang: Lang, report: &mut Report) -> Result<Vec<Claim>> {
        let view = EpisodeView {
            id: &episode.id,
            role: &episode.role,
            text: &episode.text,
            at: episode.at,
            lang,
        };
        let mut claims = self.extractor.extract(&view);
        report.claims += claims.len();
        report.dropped += misspoken::resolve(
            self.session.store(),
            self.rel,
            &episode.tenant,
            &episode.role,
            &mut claims,
        )?;
        for claim in &mut claims {
            if let Some(slot) =
                self.paraphrases
                    .slot_of(self.session.engine(), &claim.predicate, &self.tuning)?
            {
                claim.predicate = slot.to_string();
                report.paraphrased += 1;
            }
        }
        let mut seen = HashSet::new();
        claims.reverse();
        claims.retain(|c| {
            seen.insert((
                c.subject.clone(),
                slot_predicate(&c.predicate).to_string(),
                c.kind == ClaimKind::Happened || !is_functional(&c.predicate),
                normalize(&c.object),
            ))
        });
        claims.reverse();
        Ok(claims)
    }

    /// Consolidates one episode in one transaction, cursor included.
    fn episode(&mut self, episode: &Episode, report: &mut Report) -> Result<()> {
        report.episodes += 1;
        let given = self.languages.given(&episode.id)?;
        let (lang, chosen) = self
            .languages
            .message_lang(&episode.tenant, given, &episode.text);
        self.languages.add(&episode.tenant, lang);
        let mut claims = self.claims(episode, lang, report)?;
        let context = entities::Context {
            tenant: &episode.tenant,
            role: &episode.role,
            text: &episode.text,
            lang,
        };
        let key = (episode.tenant.clone(), episode.session.clone());
        let mut state = match self.conversations.get(&key) {
            Some(state) => state.clone(),
            None => State::load(
                self.session.store(),
                &self.rel,
                &episode.tenant,
                &episode.session,
                episode.seq,
            )?,
        };
        let before = state
            .previous
            .as_ref()
            .map(|p| (p.role.as_str(), p.text.as_str()));
        let passage = passage::text(before, &said(episode));
        let resolved = self.entities.resolve(context, &claims, &mut state)?;
        // "Her name is Clara" of the sister known only so: the speaker's
        // sister Clara.
        for (i, relation) in &resolved.named_relatives {
            if let Some(claim) = claims.get_mut(*i) {
                claim.subject = Subject::Speaker;
                claim.predicate.clone_from(relation);
                claim.object_kind = Some("person");
            }
        }
        state.previous = Some(conversation::Said {
            episode: episode.id.clone(),
            role: episode.role.clone(),
            text: episode.text.clone(),
        });
        let plans = self.plan(episode, &claims, &resolved, report)?;
        let rel = self.rel;
        let written = Written {
            episode: &episode.id,
            tenant: &episode.tenant,
            at: episode.at,
            emphasised: lang.reader().emphasised(&episode.text),
        };
        // A message in another language than English brings its tenant's
        // passages into the multilingual space (see `enter_multilingual`).
        let spans = self.languages.is_multilingual(&episode.tenant);
        let entering = if lang != Lang::English && !spans {
            self.multilingual_rows(&episode.tenant)?
        } else {
            Vec::new()
        };
        let multilingual = spans || lang != Lang::English;
        let entities = &mut self.entities;
        self.session.write(|txn| {
            // Redoable work: a crash that loses this commit loses its cursor
            // move with it, and the episode is consolidated again. The pass
            // syncs once at its end.
            txn.buffered();
            txn.symbol(&episode.id)?;
            txn.symbol(&episode.tenant)?;
            entities.write(txn, &episode.tenant, &episode.id, &resolved)?;
            write_multilingual(txn, rel.multilingual, &entering)?;
            if chosen != Chosen::Given {
                write_said_in(txn, rel.said_in, &said(episode), lang, chosen)?;
            }
            passage::write(txn, &rel, &said(episode), passage, multilingual)?;
            sentence::write(txn, &rel, &said(episode), lang.reader())?;
            for plan in &plans {
                apply(txn, &rel, plan, &written)?;
            }
            state.write(txn, rel.conversation, &episode.tenant, &episode.session)?;
            let cursor = Cursor {
                name: CURSOR_NAME.to_string(),
                seq: episode.seq,
            };
            let values = cursor.to_values(txn)?;
            txn.assert(rel.cursor, values, Interval::ALWAYS, None)?;
            Ok(())
        })?;
        if multilingual {
            self.languages.enter_multilingual(&episode.tenant);
        }
        self.entities.committed(&resolved);
        self.conversations.insert(key, state);
        Ok(())
    }

    /// What the store believes now about claims' slots.
    fn slots(&self) -> Slots<'_> {
        Slots {
            store: self.session.store(),
            rel: self.rel,
        }
    }

    /// What each claim does to its slot, decided against what the store
    /// believes now. A restatement reinforces its slot; two in one
    /// episode build on each other.
    fn plan(
        &self,
        episode: &Episode,
        claims: &[Claim],
        resolved: &Resolved,
        report: &mut Report,
    ) -> Result<Vec<Plan>> {
        let store = self.session.store();
        let mut restated: HashMap<String, Level> = HashMap::new();
        let mut reinforce = |slot: &str| -> Result<Level> {
            let current = match restated.get(slot) {
                Some(level) => Some(*level),
                None => salience::read(store, self.rel.salience, slot)?,
            };
            let level = salience::reinforced(current, episode.at, &self.tuning);
            restated.insert(slot.to_string(), level);
            Ok(level)
        };
        let mut plans = Vec::new();
        for (i, claim) in claims.iter().enumerate() {
            let Some(subject) = resolved.subjects.get(i).cloned().flatten() else {
                report.dropped += 1;
                continue;
            };
            let functional = is_functional(&claim.predicate) && claim.kind != ClaimKind::Happened;
            let predicate = slot_predicate(&claim.predicate);
            if self.slots().held_already(claim, &subject, predicate)? {
                report.count(super::conflict::Outcome::Restated);
                continue;
            }
            let mut slot = if functional {
                Slot::one(&subject, predicate)
            } else {
                Slot::many(&subject, predicate, &normalize(&claim.object))
            };
            // "My dog passed away" ends the pet known as Rex ("my dog
            // Rex"): an ending of a many-valued slot that holds nothing is
            // about the one value it describes.
            let described;
            let claim = if !functional
                && claim.kind == ClaimKind::Ended
                && self.slots().believed(&slot.to_string())?.is_empty()
                && let Some((found, object)) =
                    self.slots().described(&subject, predicate, &claim.object)?
            {
                slot = found;
                described = Claim {
                    object,
                    ..claim.clone()
                };
                &described
            } else {
                claim
            };
            let mut state = self.slots().state(slot, &claim.object)?;
            // A version an earlier claim of this message withdraws bounds
            // nothing the later ones say ("I left Google last month and
            // joined Stripe").
            state.versions.retain(|v| {
                !plans
                    .iter()
                    .any(|p| matches!(p, Plan::Withdraw { values } if *values == v.row.values))
            });
            let object = normalize(&claim.object);
            let period_told = claims.iter().any(|c| {
                c.kind != ClaimKind::Ended
                    && c.predicate == claim.predicate
                    && normalize(&c.object) == object
            });
            let claimed = Claimed {
                claim,
                subject: &subject,
                object_entity: resolved.objects.get(i).cloned().flatten(),
                functional,
                said_at: episode.at,
                records_past: !period_told,
            };
            let (decided, outcome) =
                decide(&claimed, &state, self.adjudicator.as_ref(), &mut reinforce)?;
            report.count(outcome);
            plans.extend(decided);
        }
        Ok(plans)
    }
}

/// The number of the last episode consolidated in `store` (the cursor).
pub(crate) fn consolidated(store: &Store, rel: &Relations) -> Result<u64> {
    match crate::view::first_keyed(store, rel.cursor, Cursor::NAME, CURSOR_NAME, |s| s)? {
        Some(row) => Ok(u64::try_from(Cursor::from_values(store, &row.values)?.seq).unwrap_or(0)),
        None => Ok(0),
    }
}

fn said(episode: &Episode) -> Said<'_> {
    Said {
        episode: &episode.id,
        tenant: &episode.tenant,
        role: &episode.role,
        at: episode.at,
        text: &episode.text,
    }
}
