//! Who and what a message is about. "I", "me", "my" are the speaker;
//! names merge through their aliases whatever their case; "he"/"she" is the
//! person last named in the same conversation, when that was within the
//! last few messages, and nobody otherwise; a new entity is made only when
//! no alias matches. Entity ids start with their tenant (`acme/alice`), so
//! the graph of one tenant never touches another's.

use std::collections::HashMap;
use std::sync::LazyLock;

use chronolog_engine::{Interval, RelationId, Store, Symbol, Value, WriteTxn};
use regex::Regex;

use super::extract::{Claim, Subject};
use crate::error::Result;
use crate::schema;
use crate::view::{alias_key, normalize, relation};

/// Messages back within which a pronoun may refer to a name.
const PRONOUN_REACH: u64 = 3;

/// The message being resolved.
pub(crate) struct Context<'a> {
    pub tenant: &'a str,
    pub session: &'a str,
    pub role: &'a str,
    pub text: &'a str,
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
}

/// The alias table (read once, then kept up to date) and the recent
/// people of each conversation.
pub(crate) struct Entities {
    aliases: HashMap<String, String>,
    recent: HashMap<(String, String), Recent>,
    entity: RelationId,
    alias: RelationId,
    mention: RelationId,
}

/// A conversation's message count and the people it named lately, each
/// with the message it was last named in.
type Recent = (u64, Vec<(u64, String)>);

static CAPITALISED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Z][a-zA-Z]+(?: [A-Z][a-zA-Z]+)?\b").unwrap_or_else(|e| unreachable!("{e}"))
});

impl Entities {
    pub(crate) fn new(store: &Store) -> Result<Entities> {
        let alias = relation(store, schema::ALIAS)?;
        let mut aliases = HashMap::new();
        store
            .snapshot()
            .scan(alias)
            .for_each(|row| {
                if let (Value::Sym(a), Value::Sym(e)) =
                    (row.value(0).to_owned(), row.value(1).to_owned())
                    && let (Ok(a), Ok(e)) = (store.symbol_name(a), store.symbol_name(e))
                {
                    aliases.insert(a.to_string(), e.to_string());
                }
            })
            .map_err(chronolog_engine::Error::from)?;
        Ok(Entities {
            aliases,
            recent: HashMap::new(),
            entity: relation(store, schema::ENTITY)?,
            alias,
            mention: relation(store, schema::MENTION)?,
        })
    }

    /// Resolves the subjects and objects of `claims`, said in `ctx`.
    pub(crate) fn resolve(&mut self, ctx: Context<'_>, claims: &[Claim]) -> Result<Resolved> {
        let mut out = Resolved::default();
        let key = (ctx.tenant.to_string(), ctx.session.to_string());
        let (turn, people) = {
            let entry = self.recent.entry(key.clone()).or_default();
            entry.0 += 1;
            (entry.0, entry.1.clone())
        };
        let speaker = self.entity(&mut out, ctx.tenant, ctx.role, "person");
        out.mentions.push(speaker.clone());
        // "My name is Alice": Alice is the speaker from now on.
        for claim in claims {
            if claim.predicate == "name" && claim.subject == Subject::Speaker {
                let alias = alias_key(ctx.tenant, &claim.object);
                if !self.aliases.contains_key(&alias)
                    && !out.new_aliases.iter().any(|(a, _)| *a == alias)
                {
                    out.new_aliases.push((alias, speaker.clone()));
                }
            }
        }
        let mut named_people = Vec::new();
        for claim in claims {
            let subject = match &claim.subject {
                Subject::Speaker => Some(speaker.clone()),
                Subject::Named(name) => {
                    let id = self.entity(&mut out, ctx.tenant, name, "person");
                    named_people.push(id.clone());
                    Some(id)
                }
                Subject::Pronoun(_) => people
                    .iter()
                    .rev()
                    .find(|(t, id)| turn - t <= PRONOUN_REACH && *id != speaker)
                    .map(|(_, id)| id.clone()),
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
        for m in CAPITALISED.find_iter(ctx.text) {
            if let Some(id) = self.aliases.get(&alias_key(ctx.tenant, m.as_str())) {
                out.mentions.push(id.clone());
                named_people.push(id.clone());
            }
        }
        out.mentions.sort();
        out.mentions.dedup();
        let entry = self.recent.entry(key).or_default();
        for id in named_people {
            if id != speaker {
                entry.1.retain(|(_, e)| *e != id);
                entry.1.push((turn, id));
            }
        }
        if entry.1.len() > 16 {
            entry.1.remove(0);
        }
        Ok(out)
    }

    /// The entity `name` refers to in `tenant`, made (with `kind`) when no
    /// alias matches.
    fn entity(&self, out: &mut Resolved, tenant: &str, name: &str, kind: &'static str) -> String {
        let alias = alias_key(tenant, name);
        if let Some(id) = self.aliases.get(&alias) {
            return id.clone();
        }
        if let Some((_, id)) = out.new_aliases.iter().find(|(a, _)| *a == alias) {
            return id.clone();
        }
        let id = format!("{tenant}/{}", normalize(name));
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
        episode: Symbol,
        resolved: &Resolved,
    ) -> chronolog_engine::Result<()> {
        let tenant = txn.symbol(tenant)?;
        for (id, name, kind) in &resolved.new_entities {
            let values = vec![
                Value::Sym(txn.symbol(id)?),
                Value::Sym(tenant),
                Value::str(name),
                Value::Sym(txn.symbol(kind)?),
            ];
            txn.assert(self.entity, values, Interval::ALWAYS, None)?;
        }
        for (alias, id) in &resolved.new_aliases {
            let values = vec![Value::Sym(txn.symbol(alias)?), Value::Sym(txn.symbol(id)?)];
            txn.assert(self.alias, values, Interval::ALWAYS, None)?;
        }
        for id in &resolved.mentions {
            let values = vec![Value::Sym(episode), Value::Sym(txn.symbol(id)?)];
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
