//! What a subject given to forget names in a tenant's memory: the
//! entities it is (by name or alias, or a relative by relation, "my mom";
//! a person also by a first or last name alone, when that names one
//! person of the tenant) and the written forms
//! to look for in text.

use chronolog_engine::{Store, Symbol, Value};

use crate::error::{Error, Result};
use crate::ids;
use crate::lang::Lang;
use crate::names::NameForms;
use crate::schema::{Alias, Entity, Relations};
use crate::view::entity_of;

/// A subject to forget, resolved.
pub(crate) struct Subject {
    /// The entities it names.
    pub entities: Vec<Symbol>,
    /// How it is written: the name given, the entities' names and
    /// aliases, and a person's unambiguous first and last names.
    pub forms: NameForms,
}

/// One entity of the tenant: its id and the name it was first said as.
struct Known {
    id: Symbol,
    name: String,
    person: bool,
}

/// Resolves `subject` in `tenant`'s memory. A part of a name that fits
/// several people ("Quentin" with two Quentins) is refused with the
/// candidates, so nobody is erased by a guess; a name no entity has is
/// still looked for in the messages.
pub(crate) fn resolve(store: &Store, tenant: &str, subject: &str) -> Result<Subject> {
    let known = entities(store, tenant)?;
    let given = words(subject);
    let mut matched: Vec<&Known> = Vec::new();
    let exact = match entity_of(store, tenant, subject)? {
        Some(exact) => Some(exact),
        None => relative_named(store, tenant, subject)?,
    };
    if let Some(exact) = exact {
        matched.extend(known.iter().filter(|k| k.id == exact));
    } else {
        // "Quentin" of "Quentin Zorblax": one person, or refused.
        let wider: Vec<&Known> = known
            .iter()
            .filter(|k| k.person && contains(&words(&k.name), &given))
            .collect();
        if wider.len() > 1 {
            return Err(Error::AmbiguousSubject {
                subject: subject.to_string(),
                candidates: wider.iter().map(|k| k.name.clone()).collect(),
            });
        }
        matched.extend(wider);
    }
    // "Quentin" and "Zorblax" of a forgotten "Quentin Zorblax".
    let parts: Vec<&Known> = known
        .iter()
        .filter(|k| {
            k.person
                && given.len() > 1
                && contains(&given, &words(&k.name))
                && !matched.iter().any(|m| m.id == k.id)
        })
        .collect();
    matched.extend(parts);
    let entities: Vec<Symbol> = matched.iter().map(|k| k.id).collect();
    let mut names: Vec<String> = vec![subject.to_string()];
    names.extend(matched.iter().map(|k| k.name.clone()));
    names.extend(aliases_of(store, &entities)?);
    // A person's first or last name alone, when no other entity of the
    // tenant has it and it is written as a name (capitalised, not a
    // function word in any language served).
    let others: Vec<Vec<String>> = known
        .iter()
        .filter(|k| !entities.contains(&k.id))
        .map(|k| words(&k.name))
        .collect();
    let people: Vec<&str> = matched
        .iter()
        .filter(|k| k.person)
        .map(|k| k.name.as_str())
        .chain(matched.iter().any(|k| k.person).then_some(subject))
        .collect();
    let mut parts: Vec<String> = Vec::new();
    for name in people {
        for part in name.split_whitespace() {
            let lowered = part.to_lowercase();
            let is_name = part.chars().next().is_some_and(char::is_uppercase)
                && part.chars().count() > 1
                && !Lang::ALL
                    .iter()
                    .any(|lang| lang.reader().is_stop_word(&lowered));
            if is_name
                && name.split_whitespace().count() > 1
                && !others.iter().any(|other| other.contains(&lowered))
            {
                parts.push(part.to_string());
            }
        }
    }
    names.extend(parts);
    Ok(Subject {
        entities,
        forms: NameForms::new(names.iter().map(String::as_str)),
    })
}

/// "my mom", "meine Mutter", "我妈妈": the relative the subject names by
/// relation, in whichever language served says it so.
fn relative_named(store: &Store, tenant: &str, subject: &str) -> Result<Option<Symbol>> {
    for lang in Lang::ALL {
        for relation in lang.reader().read_question(subject).relatives {
            if let Some(entity) = entity_of(store, tenant, &ids::relative("user", &relation))? {
                return Ok(Some(entity));
            }
        }
    }
    Ok(None)
}

/// The tenant's entities, each once.
fn entities(store: &Store, tenant: &str) -> Result<Vec<Known>> {
    let Some(tenant) = store.symbol(tenant) else {
        return Ok(Vec::new());
    };
    let rel = Relations::of(store)?;
    let rows = store
        .snapshot()
        .scan(rel.entity)
        .history()
        .eq(Entity::TENANT, Value::Sym(tenant))
        .collect()
        .map_err(chronolog_engine::Error::from)?;
    let mut out: Vec<Known> = Vec::new();
    for row in rows {
        let Value::Sym(id) = row.values[Entity::ID] else {
            continue;
        };
        if out.iter().any(|k| k.id == id) {
            continue;
        }
        let entity = Entity::from_values(store, &row.values)?;
        out.push(Known {
            id,
            name: entity.name,
            person: entity.kind == "person",
        });
    }
    Ok(out)
}

/// The names the `entities` went by (their aliases, as written in ids).
fn aliases_of(store: &Store, entities: &[Symbol]) -> Result<Vec<String>> {
    let rel = Relations::of(store)?;
    let snapshot = store.snapshot();
    let mut out = Vec::new();
    for &entity in entities {
        snapshot
            .scan(rel.alias)
            .history()
            .eq(Alias::ENTITY, Value::Sym(entity))
            .for_each(|row| {
                if let Value::Sym(alias) = row.value(Alias::ALIAS).to_owned()
                    && let Ok(name) = store.symbol_name(alias)
                {
                    out.push(ids::entity_name(&name));
                }
            })
            .map_err(chronolog_engine::Error::from)?;
    }
    Ok(out)
}

fn words(name: &str) -> Vec<String> {
    name.split_whitespace().map(str::to_lowercase).collect()
}

/// Whether `part` is a run of `whole`'s words.
fn contains(whole: &[String], part: &[String]) -> bool {
    !part.is_empty() && whole.windows(part.len()).any(|w| w == part)
}
