//! Every id the memory writes, built and parsed here and nowhere else.
//!
//! An id is `/`-separated parts and starts with its tenant (tenant names
//! hold no `/`), so no link can cross tenants and a tenant's ids are one
//! prefix range. Parts that come from what people said (a name, an
//! object) escape `\` and `/` with a `\`, and a leading `+`, `?`, `#` or `!` too,
//! so every id parses back into what built it. Text without those
//! characters (nearly all) is its own part, so ids written before this
//! module read the same.
//!
//! | id | shape |
//! |---|---|
//! | episode | `tenant/e<seq>` |
//! | passage | `<episode>/p` |
//! | entity, alias | `tenant/<name, normalised>` |
//! | slot, one-valued | `<entity>/<predicate>` |
//! | slot, many-valued | `<entity>/<predicate>/<object, normalised>` |
//! | elaboration of a slot | `<slot>/+<object>` |
//! | value contesting a slot | `<slot>/?<object>` |
//! | conversation (consolidation's state in a session) | `tenant/#<session>` |
//! | a slot a search returned, to reinforce | `tenant/!<n>` |

use std::fmt;

/// The id of `tenant`'s episode number `seq`.
pub fn episode(tenant: &str, seq: u64) -> String {
    format!("{tenant}/e{seq}")
}

/// The tenant and number of an episode id.
pub fn parse_episode(id: &str) -> Option<(&str, u64)> {
    let (tenant, seq) = id.split_once('/')?;
    Some((tenant, seq.strip_prefix('e')?.parse().ok()?))
}

/// The id of `episode`'s passage.
pub fn passage(episode: &str) -> String {
    format!("{episode}/p")
}

/// The episode a passage id belongs to.
pub fn passage_episode(passage: &str) -> &str {
    passage.strip_suffix("/p").unwrap_or(passage)
}

/// The id of `tenant`'s conversation `session`: the row consolidation
/// keeps its state in (the last message, the people named lately).
pub fn conversation(tenant: &str, session: &str) -> String {
    format!("{tenant}/#{}", escape(session))
}

/// The id of the `n`th reinforcement `tenant`'s searches queued.
pub fn retrieved(tenant: &str, n: u64) -> String {
    format!("{tenant}/!{n}")
}

/// The id of the entity (or alias key) `name` in `tenant`: names compare
/// by [`normalize`], so "Caroline" and "caroline " are one.
pub fn entity(tenant: &str, name: &str) -> String {
    format!("{tenant}/{}", escape(&normalize(name)))
}

/// The name a relative known by relation goes by, and its alias key's
/// name ("user's sister"): no name a person says takes this form's
/// apostrophe and canonical predicate together. "mom" and "mother" are
/// one person, whichever word (or language) said it.
pub fn relative(speaker: &str, relation: &str) -> String {
    let relation = match relation {
        "mom" => "mother",
        "dad" => "father",
        "grandma" => "grandmother",
        "grandpa" => "grandfather",
        other => other,
    };
    format!("{speaker}'s {}", relation.replace('_', " "))
}

/// The name part of an entity id (`caroline` of `conv-26/caroline`).
pub fn entity_name(id: &str) -> String {
    id.split_once('/')
        .map_or_else(|| id.to_string(), |(_, name)| unescape(name))
}

/// The tenant an id belongs to.
pub fn tenant_of(id: &str) -> &str {
    id.split_once('/').map_or(id, |(tenant, _)| tenant)
}

/// Lower case, single spaces: how names and objects compare.
pub fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What makes a slot other than its plain value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// A value that says more about the slot's (`Google Zurich` of
    /// `Google`), kept beside it.
    Elaborates(String),
    /// A value the adjudicator could not choose against the slot's, kept
    /// beside it, contested.
    Contests(String),
}

/// A fact slot: what a fact's versions share, the key of `mem_fact`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The subject's entity id.
    pub subject: String,
    /// The predicate (a shared slot's, `works_at` for `joined`).
    pub predicate: String,
    /// The object, normalised, for a many-valued predicate.
    pub object: Option<String>,
    /// An elaboration or a contesting value of that slot.
    pub variant: Option<Variant>,
}

impl Slot {
    /// The slot of a one-valued predicate: one value at a time.
    pub fn one(subject: &str, predicate: &str) -> Slot {
        Slot {
            subject: subject.to_string(),
            predicate: predicate.to_string(),
            object: None,
            variant: None,
        }
    }

    /// The slot of one value of a many-valued predicate.
    pub fn many(subject: &str, predicate: &str, object: &str) -> Slot {
        Slot {
            object: Some(object.to_string()),
            ..Slot::one(subject, predicate)
        }
    }

    /// The slot of `object`, an elaboration of this slot's value.
    pub fn elaborated_by(&self, object: &str) -> Slot {
        Slot {
            variant: Some(Variant::Elaborates(object.to_string())),
            ..self.clone()
        }
    }

    /// The slot of `object`, kept contesting this slot's value.
    pub fn contested_by(&self, object: &str) -> Slot {
        Slot {
            variant: Some(Variant::Contests(object.to_string())),
            ..self.clone()
        }
    }

    /// The slot an id names, `None` for an id of another shape.
    pub fn parse(id: &str) -> Option<Slot> {
        let parts = split(id);
        let [tenant, name, predicate, rest @ ..] = parts.as_slice() else {
            return None;
        };
        let subject = format!("{}/{}", tenant.text, escape(&name.text));
        let mut slot = Slot::one(&subject, &predicate.text);
        let mut rest = rest.iter();
        let mut next = rest.next();
        if let Some(part) = next
            && part.marker.is_none()
        {
            slot.object = Some(part.text.clone());
            next = rest.next();
        }
        if let Some(part) = next {
            slot.variant = Some(match part.marker? {
                '+' => Variant::Elaborates(part.text.clone()),
                _ => Variant::Contests(part.text.clone()),
            });
        }
        (rest.next().is_none() && !tenant.text.is_empty()).then_some(slot)
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.subject, escape(&self.predicate))?;
        if let Some(object) = &self.object {
            write!(f, "/{}", escape(object))?;
        }
        match &self.variant {
            Some(Variant::Elaborates(object)) => write!(f, "/+{}", escape(object)),
            Some(Variant::Contests(object)) => write!(f, "/?{}", escape(object)),
            None => Ok(()),
        }
    }
}

/// One part of an id: its text unescaped, and the marker before it.
struct Part {
    marker: Option<char>,
    text: String,
}

/// `text` as one part of an id.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        if c == '\\' || c == '/' || (i == 0 && matches!(c, '+' | '?' | '#' | '!')) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn unescape(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    let mut chars = part.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.extend(chars.next());
        } else {
            out.push(c);
        }
    }
    out
}

/// An id's parts, split at the `/`s no `\` escapes.
fn split(id: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut marker = None;
    let mut at_start = true;
    let mut chars = id.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => text.extend(chars.next()),
            '/' => {
                parts.push(Part {
                    marker: marker.take(),
                    text: std::mem::take(&mut text),
                });
                at_start = true;
                continue;
            }
            '+' | '?' if at_start => marker = Some(c),
            c => text.push(c),
        }
        at_start = false;
    }
    parts.push(Part { marker, text });
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_relative_is_one_person_whichever_word_names_the_relation() {
        assert_eq!(relative("user", "mom"), "user's mother");
        assert_eq!(relative("user", "mom"), relative("user", "mother"));
        assert_eq!(
            relative("Caroline", "best_friend"),
            "Caroline's best friend"
        );
    }

    #[test]
    fn ids_written_before_this_module_keep_their_shape() {
        assert_eq!(episode("conv-26", 3), "conv-26/e3");
        assert_eq!(parse_episode("conv-26/e3"), Some(("conv-26", 3)));
        assert_eq!(passage("conv-26/e3"), "conv-26/e3/p");
        assert_eq!(passage_episode("conv-26/e3/p"), "conv-26/e3");
        assert_eq!(entity("acme", " Caroline  Smith"), "acme/caroline smith");
        assert_eq!(entity_name("acme/caroline smith"), "caroline smith");
        assert_eq!(conversation("acme", "D1"), "acme/#D1");
        assert_ne!(conversation("acme", "x"), entity("acme", "#x"));
        let one = Slot::one("acme/user", "works_at");
        assert_eq!(one.to_string(), "acme/user/works_at");
        let many = Slot::many("acme/user", "likes", "old westerns");
        assert_eq!(many.to_string(), "acme/user/likes/old westerns");
    }

    #[test]
    fn an_elaboration_and_a_contesting_value_differ() {
        let base = Slot::one("acme/user", "works_at");
        let elaboration = base.elaborated_by("google zurich").to_string();
        let contest = base.contested_by("google zurich").to_string();
        assert_ne!(elaboration, contest);
        assert_eq!(
            Slot::parse(&elaboration).expect("a slot").variant,
            Some(Variant::Elaborates("google zurich".into()))
        );
        assert_eq!(
            Slot::parse(&contest).expect("a slot").variant,
            Some(Variant::Contests("google zurich".into()))
        );
    }

    #[test]
    fn names_with_separators_parse_back() {
        let subject = entity("t", "AC/DC");
        assert_eq!(entity_name(&subject), "ac/dc");
        let slot = Slot::many(&subject, "likes", "+44 / c:\\x").contested_by("?");
        assert_eq!(Slot::parse(&slot.to_string()), Some(slot));
        assert_eq!(Slot::parse("no-slot"), None);
    }

    proptest! {
        #[test]
        fn every_slot_parses_back(
            name in "[a-z/+?\\\\ ]{1,8}",
            predicate in "[a-z_]{1,8}",
            object in proptest::option::of("[a-z/+?\\\\ ]{1,8}"),
            variant in proptest::option::of((any::<bool>(), "[a-z/+?\\\\ ]{0,8}")),
        ) {
            let subject = entity("t", &name);
            let mut slot = match &object {
                Some(o) => Slot::many(&subject, &predicate, o),
                None => Slot::one(&subject, &predicate),
            };
            if let Some((elaborates, o)) = variant {
                slot = if elaborates { slot.elaborated_by(&o) } else { slot.contested_by(&o) };
            }
            prop_assert_eq!(Slot::parse(&slot.to_string()), Some(slot));
        }
    }
}
