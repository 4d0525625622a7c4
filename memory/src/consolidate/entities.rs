//! Who and what a message is about. "I", "me", "my" are the speaker;
//! names merge through their aliases whatever their case; "he"/"she" is the
//! person last named in the same conversation, when that was within the
//! last few messages, and nobody otherwise; "my sister" is the person the
//! speaker named their sister, or one known only so until a name comes
//! (then the name is hers); a new entity is made only when no alias
//! matches. Entity ids start with their tenant (`acme/alice`), so
//! the graph of one tenant never touches another's.

use std::collections::HashMap;

use chronolog_engine::{Interval, RelationId, Store, WriteTxn};

use super::conversation::State;
use super::extract::{Claim, Subject};
use crate::error::Result;
use crate::ids;
use crate::lang::Lang;
use crate::schema::{Alias, Entity, Mention, Relations};

/// The kinds of entity a claim's object may name.
pub(crate) const KINDS: &[&str] = &["person", "organisation", "place"];

/// The message being resolved.
pub(crate) struct Context<'a> {
    pub tenant: &'a str,
    pub role: &'a str,
    pub text: &'a str,
    pub lang: Lang,
}

/// The entities of one message's claims, and what to write for them.
#[derive(Default)]
pub(crate) struct Resolved {
    /// Per claim: its subject's entity id (`None`: unresolved, dropped).
    pub subjects: Vec<Option<String>>,
    /// Per claim: its object's entity id, when the object is an entity.
    pub objects: Vec<Option<String>>,
    /// Entities to create: id, name, kind.
    new_entities: Vec<(String, String, &'static str)>,
    /// Aliases to add: alias key, entity id.
    new_aliases: Vec<(String, String)>,
    /// Entities the message mentions.
    mentions: Vec<String>,
    /// Claims of a name said by a pronoun ("Her name is Clara") that
    /// named a relative known only by relation: each claim's index and the
    /// relation, which the claim now states (the speaker's sister Clara).
    pub named_relatives: Vec<(usize, String)>,
}

/// The alias table, read once, then kept up to date. (The people each
/// conversation named lately are its [`State`], stored with it.)
pub(crate) struct Entities {
    aliases: HashMap<String, String>,
    /// Messages back within which a pronoun may refer to a name.
    pronoun_reach: u64,
    entity: RelationId,
    alias: RelationId,
    mention: RelationId,
}

impl Entities {
    /// The alias table of `store`; a pronoun reaches back `pronoun_reach`
    /// messages.
    pub(crate) fn new(store: &Store, rel: &Relations, pronoun_reach: u64) -> Result<Entities> {
        let mut aliases = HashMap::new();
        for row in store
            .snapshot()
            .scan(rel.alias)
            .collect()
            .map_err(chronolog_engine::Error::from)?
        {
            let row = Alias::from_values(store, &row.values)?;
            aliases.insert(row.alias, row.entity);
        }
        Ok(Entities {
            aliases,
            pronoun_reach,
            entity: rel.entity,
            alias: rel.alias,
            mention: rel.mention,
        })
    }

    /// Resolves the subjects and objects of `claims`, said in `ctx`, and
    /// counts the message and the people it names in its conversation's
    /// `state`.
    pub(crate) fn resolve(
        &mut self,
        ctx: Context<'_>,
        claims: &[Claim],
        state: &mut State,
    ) -> Result<Resolved> {
        let mut out = Resolved::default();
        state.turn += 1;
        let (turn, people) = (state.turn, state.people.clone());
        let speaker = self.entity(&mut out, ctx.tenant, ctx.role, "person");
        out.mentions.push(speaker.clone());
        // "My name is Alice": Alice is the speaker from now on.
        for claim in claims {
            if claim.predicate == "name" && claim.subject == Subject::Speaker {
                let alias = ids::entity(ctx.tenant, &claim.object);
                if !self.aliases.contains_key(&alias)
                    && !out.new_aliases.iter().any(|(a, _)| *a == alias)
                {
                    out.new_aliases.push((alias, speaker.clone()));
                }
            }
        }
        // "My sister is a nurse", then "My sister Clara...": the person
        // known by the relation takes the name, and a relative named
        // first is who "my sister" means after.
        for claim in claims {
            let relation = claim.predicate.as_str();
            if claim.subject != Subject::Speaker
                || claim.object_kind != Some("person")
                || claim.object.is_empty()
                || !crate::claim::known_by_relation(relation)
            {
                continue;
            }
            let by_relation = relative(ctx.tenant, ctx.role, relation);
            let by_name = ids::entity(ctx.tenant, &claim.object);
            match (self.alias(&out, &by_relation), self.alias(&out, &by_name)) {
                (Some(known), None) if known == by_relation => {
                    out.new_aliases.push((by_name, known.clone()));
                    out.new_entities
                        .push((known, claim.object.trim().to_string(), "person"));
                }
                (None, _) => {
                    let named = self.entity(&mut out, ctx.tenant, &claim.object, "person");
                    out.new_aliases.push((by_relation, named));
                }
                _ => {}
            }
        }
        // "My brother is Daniel and he is a dentist": a pronoun means the
        // one person the message itself names, where it names one; else
        // the person named last in the turns before.
        let mut named_here: Vec<String> = Vec::new();
        for claim in claims {
            let named = match (&claim.subject, claim.object_kind) {
                (Subject::Named(name), _) => Some(name.as_str()),
                (_, Some("person")) if !claim.object.is_empty() => Some(claim.object.as_str()),
                _ => None,
            };
            if let Some(name) = named {
                let id = self.entity(&mut out, ctx.tenant, name, "person");
                if id != speaker && !named_here.contains(&id) {
                    named_here.push(id);
                }
            }
        }
        let mut named_people = Vec::new();
        for (i, claim) in claims.iter().enumerate() {
            // "My sister is a nurse. Her name is Clara.": the relative
            // known only so takes the name, and the claim becomes hers.
            if let Subject::Pronoun(_) = claim.subject
                && claim.predicate == "name"
            {
                let who = named_people.last().cloned().or_else(|| {
                    people
                        .iter()
                        .rev()
                        .find(|(t, id)| turn - t <= self.pronoun_reach && *id != speaker)
                        .map(|(_, id)| id.clone())
                });
                let relation = who
                    .as_ref()
                    .and_then(|who| self.unnamed_relative(&out, &ctx, who, &claim.object));
                let (subject, object) = match (who, relation) {
                    (Some(who), Some(relation)) => {
                        let by_name = ids::entity(ctx.tenant, &claim.object);
                        out.new_aliases.push((by_name, who.clone()));
                        out.new_entities.push((
                            who.clone(),
                            claim.object.trim().to_string(),
                            "person",
                        ));
                        out.named_relatives.push((i, relation));
                        named_people.push(who.clone());
                        (Some(speaker.clone()), Some(who))
                    }
                    // A name for someone named already, or for no relative:
                    // nothing to learn.
                    _ => (None, None),
                };
                out.mentions.extend(object.iter().cloned());
                out.subjects.push(subject);
                out.objects.push(object);
                continue;
            }
            let subject = match &claim.subject {
                Subject::Speaker => Some(speaker.clone()),
                Subject::Named(name) => {
                    let id = self.entity(&mut out, ctx.tenant, name, "person");
                    named_people.push(id.clone());
                    Some(id)
                }
                Subject::Relative(relation) => {
                    let by_relation = relative(ctx.tenant, ctx.role, relation);
                    let id = match self.alias(&out, &by_relation) {
                        Some(id) => id,
                        None => {
                            let name = ids::entity_name(&by_relation);
                            self.entity(&mut out, ctx.tenant, &name, "person")
                        }
                    };
                    named_people.push(id.clone());
                    Some(id)
                }
                Subject::Pronoun(_) => match named_here.as_slice() {
                    [one] => Some(one.clone()),
                    _ => people
                        .iter()
                        .rev()
                        .find(|(t, id)| turn - t <= self.pronoun_reach && *id != speaker)
                        .map(|(_, id)| id.clone()),
                },
            };
            let object = match claim.object_kind {
                Some(kind) if !claim.object.is_empty() => {
                    let id = self.entity(&mut out, ctx.tenant, &claim.object, kind);
                    if kind == "person" {
                        named_people.push(id.clone());
                    }
                    Some(id)
                }
                _ => None,
            };
            out.mentions
                .extend(subject.iter().chain(object.iter()).cloned());
            out.subjects.push(subject);
            out.objects.push(object);
        }
        // Known names anywhere in the text are mentions too.
        for name in ctx.lang.reader().mentions(ctx.text) {
            if let Some(id) = self.aliases.get(&ids::entity(ctx.tenant, name)) {
                out.mentions.push(id.clone());
                named_people.push(id.clone());
            }
        }
        out.mentions.sort();
        out.mentions.dedup();
        for id in named_people {
            if id != speaker {
                state.people.retain(|(_, e)| *e != id);
                state.people.push((turn, id));
            }
        }
        if state.people.len() > 16 {
            state.people.remove(0);
        }
        Ok(out)
    }

    /// The relation by which the speaker knows `who`, when they know them
    /// by it alone: no name of theirs yet, and `name` no one else's.
    fn unnamed_relative(
        &self,
        out: &Resolved,
        ctx: &Context<'_>,
        who: &str,
        name: &str,
    ) -> Option<String> {
        let named = |id: &str| {
            self.aliases
                .iter()
                .chain(out.new_aliases.iter().map(|(k, v)| (k, v)))
                .any(|(alias, entity)| entity == id && !alias.contains("'s "))
        };
        if named(who) || self.alias(out, &ids::entity(ctx.tenant, name)).is_some() {
            return None;
        }
        crate::claim::FAMILY
            .iter()
            .filter(|r| crate::claim::known_by_relation(r))
            .find(|r| {
                self.alias(out, &relative(ctx.tenant, ctx.role, r))
                    .as_deref()
                    == Some(who)
            })
            .map(|r| (*r).to_string())
    }

    /// The entity an alias key names, in the table or made by this message.
    fn alias(&self, out: &Resolved, alias: &str) -> Option<String> {
        self.aliases.get(alias).cloned().or_else(|| {
            out.new_aliases
                .iter()
                .find(|(a, _)| a == alias)
                .map(|(_, id)| id.clone())
        })
    }

    /// The entity `name` refers to in `tenant`, made (with `kind`) when no
    /// alias matches.
    fn entity(&self, out: &mut Resolved, tenant: &str, name: &str, kind: &'static str) -> String {
        let alias = ids::entity(tenant, name);
        if let Some(id) = self.alias(out, &alias) {
            return id;
        }
        let id = alias.clone();
        out.new_entities
            .push((id.clone(), name.trim().to_string(), kind));
        out.new_aliases.push((alias, id.clone()));
        id
    }

    /// Writes the new entities, aliases and the message's mentions.
    pub(crate) fn write(
        &self,
        txn: &mut WriteTxn<'_>,
        tenant: &str,
        episode: &str,
        resolved: &Resolved,
    ) -> chronolog_engine::Result<()> {
        txn.symbol(tenant)?;
        for (id, name, kind) in &resolved.new_entities {
            let row = Entity {
                id: id.clone(),
                tenant: tenant.to_string(),
                name: name.clone(),
                kind: kind.to_string(),
            };
            let values = row.to_values(txn)?;
            txn.assert(self.entity, values, Interval::ALWAYS, None)?;
        }
        for (alias, id) in &resolved.new_aliases {
            let row = Alias {
                alias: alias.clone(),
                entity: id.clone(),
            };
            let values = row.to_values(txn)?;
            txn.assert(self.alias, values, Interval::ALWAYS, None)?;
        }
        for id in &resolved.mentions {
            let row = Mention {
                episode: episode.to_string(),
                entity: id.clone(),
            };
            let values = row.to_values(txn)?;
            txn.assert(self.mention, values, Interval::ALWAYS, None)?;
        }
        Ok(())
    }

    /// The aliases of a committed message join the table.
    pub(crate) fn committed(&mut self, resolved: &Resolved) {
        for (alias, id) in &resolved.new_aliases {
            self.aliases.insert(alias.clone(), id.clone());
        }
    }
}

/// The alias key, and the id of a person known only so, of `speaker`'s
/// relative by `relation`.
fn relative(tenant: &str, speaker: &str, relation: &str) -> String {
    ids::entity(tenant, &ids::relative(speaker, relation))
}
