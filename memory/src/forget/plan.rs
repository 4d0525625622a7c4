//! What one forget erases, read from the tenant's rows before anything is
//! written: the names (symbols) whose every row goes, the single rows that
//! go although no name of theirs does, and what is written again after.

use chronolog_engine::{Interval, RelationId, RowId, Store, Symbol, Timestamp, Value};

use crate::error::Result;
use crate::forget::subject::Subject;
use crate::ids::{self, Slot, Variant};
use crate::schema::{Alias, Conversation, Entity, Episode, Fact, Mention, Relations, Source};

/// A forget's erasure and rewrites.
#[derive(Default)]
pub(super) struct Plan {
    /// Symbols to purge: erased with every row that holds them.
    pub names: Vec<String>,
    /// Single rows to erase.
    pub rows: Vec<(RelationId, RowId)>,
    /// Messages that named the subject.
    pub episodes: usize,
    /// Fact versions erased.
    pub facts: usize,
    /// Names the subject went by.
    pub aliases: usize,
    /// Believed facts recorded again with the subject cut from their text.
    pub kept: Vec<KeptFact>,
    /// The message after each erased one, whose passage quoted it.
    pub followers: Vec<Follower>,
}

/// A fact that stays, its sentence without the subject.
pub(super) struct KeptFact {
    pub fact: Fact,
    pub valid: Interval,
}

/// An episode that follows a forgotten one in its session.
pub(super) struct Follower {
    pub id: String,
    pub role: String,
    pub at: Timestamp,
    pub text: String,
}

impl Plan {
    /// Whether there is nothing to erase.
    pub(super) fn is_empty(&self) -> bool {
        self.names.is_empty() && self.rows.is_empty()
    }

    /// Reads what forgetting `subject` erases from `tenant`'s memory.
    pub(super) fn of(store: &Store, tenant: &str, subject: &Subject) -> Result<Plan> {
        let mut plan = Plan::default();
        let Some(tenant_sym) = store.symbol(tenant) else {
            return Ok(plan);
        };
        let scope = Scope {
            store,
            rel: Relations::of(store)?,
            tenant: tenant_sym,
            prefix: format!("{tenant}/"),
            subject,
        };
        let entities = scope.entities(&mut plan)?;
        scope.aliases(&entities, &mut plan)?;
        let episodes = scope.episodes(&entities, &mut plan)?;
        scope.facts(&entities, &mut plan)?;
        scope.sources(&mut plan)?;
        if plan.is_empty() {
            return Ok(plan);
        }
        plan.followers = scope.followers(&episodes)?;
        plan.names.extend(
            plan.followers
                .iter()
                .map(|f| ids::passage(&f.id))
                .collect::<Vec<_>>(),
        );
        // Consolidation's state of the tenant's conversations names people
        // lately named and quotes the last message: it starts afresh.
        scope.each_sym(
            scope.rel.conversation,
            Conversation::TENANT,
            tenant_sym,
            Conversation::ID,
            |id| plan.names.push(id.to_string()),
        )?;
        plan.names.sort();
        plan.names.dedup();
        Ok(plan)
    }
}

/// The tenant and subject a plan is read for.
struct Scope<'a> {
    store: &'a Store,
    rel: Relations,
    tenant: Symbol,
    /// Every id of the tenant begins with it.
    prefix: String,
    subject: &'a Subject,
}

impl Scope<'_> {
    fn names(&self, text: &str) -> bool {
        self.subject.forms.occur_in(text)
    }

    /// Calls `f` with the name of the `take` column's symbol of each row
    /// of `rel` (history included) whose `column` holds `value`.
    fn each_sym(
        &self,
        rel: RelationId,
        column: usize,
        value: Symbol,
        take: usize,
        mut f: impl FnMut(&str),
    ) -> Result<()> {
        let mut seen: Vec<Symbol> = Vec::new();
        self.store
            .snapshot()
            .scan(rel)
            .history()
            .eq(column, Value::Sym(value))
            .for_each(|row| {
                if let Value::Sym(s) = row.value(take).to_owned()
                    && !seen.contains(&s)
                {
                    seen.push(s);
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        for sym in seen {
            if let Ok(name) = self.store.symbol_name(sym) {
                f(&name);
            }
        }
        Ok(())
    }

    /// The entities erased: the subject's, and any whose name names it
    /// ("Quentin's mother").
    fn entities(&self, plan: &mut Plan) -> Result<Vec<Symbol>> {
        let mut out = self.subject.entities.clone();
        let rows = self
            .store
            .snapshot()
            .scan(self.rel.entity)
            .history()
            .eq(Entity::TENANT, Value::Sym(self.tenant))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        for row in rows {
            let entity = Entity::from_values(self.store, &row.values)?;
            if let Value::Sym(id) = row.values[Entity::ID]
                && !out.contains(&id)
                && self.names(&entity.name)
            {
                out.push(id);
            }
        }
        for &id in &out {
            if let Ok(name) = self.store.symbol_name(id) {
                plan.names.push(name.to_string());
            }
        }
        Ok(out)
    }

    /// The erased entities' aliases, and any alias that names the subject.
    fn aliases(&self, entities: &[Symbol], plan: &mut Plan) -> Result<()> {
        let mut erased: Vec<String> = Vec::new();
        self.store
            .snapshot()
            .scan(self.rel.alias)
            .history()
            .for_each(|row| {
                let (Value::Sym(alias), Value::Sym(entity)) = (
                    row.value(Alias::ALIAS).to_owned(),
                    row.value(Alias::ENTITY).to_owned(),
                ) else {
                    return;
                };
                let Ok(name) = self.store.symbol_name(alias) else {
                    return;
                };
                if name.starts_with(&self.prefix)
                    && (entities.contains(&entity) || self.names(&ids::entity_name(&name)))
                    && !erased.iter().any(|e| **e == *name)
                {
                    erased.push(name.to_string());
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        plan.aliases = erased.len();
        plan.names.extend(erased);
        Ok(())
    }

    /// The tenant's messages that name the subject (in their text, or by
    /// a mention consolidation found, or as their speaker).
    fn episodes(&self, entities: &[Symbol], plan: &mut Plan) -> Result<Vec<Symbol>> {
        let snapshot = self.store.snapshot();
        let mut mentioned: Vec<Symbol> = Vec::new();
        for &entity in entities {
            snapshot
                .scan(self.rel.mention)
                .history()
                .eq(Mention::ENTITY, Value::Sym(entity))
                .for_each(|row| {
                    if let Value::Sym(e) = row.value(Mention::EPISODE).to_owned() {
                        mentioned.push(e);
                    }
                })
                .map_err(chronolog_engine::Error::from)?;
        }
        let rows = snapshot
            .scan(self.rel.episode)
            .history()
            .eq(Episode::TENANT, Value::Sym(self.tenant))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let mut out: Vec<Symbol> = Vec::new();
        let mut roles: Vec<Symbol> = Vec::new();
        for row in &rows {
            let (Value::Sym(id), Value::Sym(role)) =
                (&row.values[Episode::ID], &row.values[Episode::ROLE])
            else {
                continue;
            };
            let episode = Episode::from_values(self.store, &row.values)?;
            let by_subject = self.names(&episode.role);
            if by_subject && !roles.contains(role) {
                roles.push(*role);
            }
            if !out.contains(id)
                && (by_subject || mentioned.contains(id) || self.names(&episode.text))
            {
                out.push(*id);
                plan.names.push(episode.id);
            }
        }
        plan.episodes = out.len();
        // A speaker's name goes too, unless another tenant's messages
        // still use it.
        for role in roles {
            let mut shared = false;
            snapshot
                .scan(self.rel.episode)
                .history()
                .eq(Episode::ROLE, Value::Sym(role))
                .for_each(|row| {
                    shared |= row.value(Episode::TENANT).to_owned() != Value::Sym(self.tenant)
                })
                .map_err(chronolog_engine::Error::from)?;
            if !shared && let Ok(name) = self.store.symbol_name(role) {
                plan.names.push(name.to_string());
            }
        }
        Ok(out)
    }

    /// Facts about an erased entity, or whose slot names the subject, go
    /// whole; a version whose value names it goes alone; a believed one
    /// whose sentence alone names it is recorded again without it.
    fn facts(&self, entities: &[Symbol], plan: &mut Plan) -> Result<()> {
        let rows = self
            .store
            .snapshot()
            .scan(self.rel.fact)
            .history()
            .eq(Fact::TENANT, Value::Sym(self.tenant))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let mut doomed_slots: Vec<Symbol> = Vec::new();
        let mut kept_slots: Vec<Symbol> = Vec::new();
        for row in &rows {
            let (Value::Sym(slot), Value::Sym(about)) =
                (&row.values[Fact::SLOT], &row.values[Fact::SUBJECT])
            else {
                continue;
            };
            if doomed_slots.contains(slot) {
                plan.facts += 1;
                continue;
            }
            let name = self
                .store
                .symbol_name(*slot)
                .map_err(chronolog_engine::Error::from)?;
            let doomed = !kept_slots.contains(slot)
                && (entities.contains(about)
                    || Slot::parse(&name).is_some_and(|s| self.slot_names(&s)));
            if doomed {
                doomed_slots.push(*slot);
                plan.names.push(name.to_string());
                plan.facts += 1;
                continue;
            }
            kept_slots.push(*slot);
            let fact = Fact::from_values(self.store, &row.values)?;
            if self.names(&fact.object) {
                plan.rows.push((self.rel.fact, row.id));
                plan.facts += 1;
            } else if self.names(&fact.text) {
                plan.rows.push((self.rel.fact, row.id));
                if row.tx.to == Timestamp::MAX {
                    plan.kept.push(KeptFact {
                        fact: Fact {
                            text: self.subject.forms.cut_from(&fact.text),
                            ..fact
                        },
                        valid: row.valid,
                    });
                }
            }
        }
        Ok(())
    }

    /// Whether a slot's id names the subject (the value of a many-valued
    /// predicate, an elaboration's or a contesting value).
    fn slot_names(&self, slot: &Slot) -> bool {
        let variant = match &slot.variant {
            Some(Variant::Elaborates(v) | Variant::Contests(v)) => Some(v),
            None => None,
        };
        slot.object
            .iter()
            .chain(variant)
            .any(|text| self.names(text))
    }

    /// Provenance rows of kept slots whose value names the subject.
    fn sources(&self, plan: &mut Plan) -> Result<()> {
        let mut out = Vec::new();
        self.store
            .snapshot()
            .scan(self.rel.source)
            .history()
            .for_each(|row| {
                let (Value::Sym(slot), Value::Str(object)) = (
                    row.value(Source::SLOT).to_owned(),
                    row.value(Source::OBJECT).to_owned(),
                ) else {
                    return;
                };
                if self.names(&object)
                    && self
                        .store
                        .symbol_name(slot)
                        .is_ok_and(|name| name.starts_with(&self.prefix))
                {
                    out.push((self.rel.source, row.id()));
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        plan.rows.extend(out);
        Ok(())
    }

    /// The episode right after each of `episodes` in its session, those
    /// being forgotten left out.
    fn followers(&self, episodes: &[Symbol]) -> Result<Vec<Follower>> {
        let snapshot = self.store.snapshot();
        let rel = self.rel.episode;
        let mut out: Vec<Follower> = Vec::new();
        for &sym in episodes {
            let rows = snapshot
                .scan(rel)
                .history()
                .eq(Episode::ID, Value::Sym(sym))
                .collect()
                .map_err(chronolog_engine::Error::from)?;
            let Some(row) = rows.first() else { continue };
            let forgotten = Episode::from_values(self.store, &row.values)?;
            let conversation = snapshot
                .scan(rel)
                .history()
                .eq(Episode::TENANT, row.values[Episode::TENANT].clone())
                .eq(Episode::SESSION, row.values[Episode::SESSION].clone())
                .collect()
                .map_err(chronolog_engine::Error::from)?;
            let mut next: Option<Episode> = None;
            for r in conversation {
                let Value::Sym(id) = r.values[Episode::ID] else {
                    continue;
                };
                if episodes.contains(&id) {
                    continue;
                }
                let episode = Episode::from_values(self.store, &r.values)?;
                if episode.seq > forgotten.seq && next.as_ref().is_none_or(|n| episode.seq < n.seq)
                {
                    next = Some(episode);
                }
            }
            if let Some(episode) = next
                && !out.iter().any(|f| f.id == episode.id)
            {
                out.push(Follower {
                    id: episode.id,
                    role: episode.role,
                    at: episode.at,
                    text: episode.text,
                });
            }
        }
        Ok(out)
    }
}
