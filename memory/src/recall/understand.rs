//! What a question asks about: the entities it names (seeds for the graph
//! channel, through the tenant's aliases), the time it points at ("in
//! 2022", "last week", "before I moved to Berlin", "when I was at
//! Tencent"), resolved against the reference time, and whether it asks
//! *when* (then a fact's interval is the answer, not only its object).

use chronolog_engine::{Engine, Timestamp};

use crate::error::Result;
use crate::ids::{self, normalize};
use crate::lang::Lang;
use crate::view::{self, FactVersion};
use crate::when;

/// A question, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The words searched for (the question without the time expression
    /// that was read as an instant).
    pub text: String,
    /// The language it is asked in.
    pub lang: Lang,
    /// It asks in the first person about the memory's user ("Where do I
    /// work?"), not about what the one asked said ("what you
    /// recommended", "our last chat"): the user's own messages are
    /// searched apart.
    pub about_user: bool,
    /// Entity ids of this tenant the question names.
    pub entities: Vec<String>,
    /// Names the question seems to be about that this tenant has no
    /// entity for (capitalised words past the first).
    pub unknown_names: Vec<String>,
    /// The valid-time instant the question points at, if it points at one.
    pub as_of: Option<Timestamp>,
    /// Why `as_of` is what it is ("in 2022", "before Berlin").
    pub as_of_because: Option<String>,
    /// The period the question's own words name ("on 3 June, 2023", "in
    /// April 2022", "last week"): what was said then is searched on its
    /// own (`Channel::SaidThen`). `None` for a period taken from the
    /// timeline ("before Berlin") or none at all.
    pub period: Option<(Timestamp, Timestamp)>,
    /// The canonical predicates its words ask about ("employer" asks
    /// `works_at`): the entities' facts of these answer it whatever words
    /// their messages used.
    pub predicates: Vec<String>,
    /// It asks when, or for how long: intervals matter.
    pub asks_when: bool,
    /// It asks about the past without naming a time ("Where did I use to
    /// live?"): the values a fact held before are shown, marked past.
    pub asks_past: bool,
    /// It asks for several things ("What books has Tim read?", "Which
    /// cities has Jon visited?", "How many weddings have I attended?"):
    /// the evidence is many messages that each match a little, so a
    /// context's room goes to more matches rather than to the messages
    /// around the best few.
    pub asks_list: bool,
}

/// Reads `question`, written in `lang`, in `tenant`'s memory; relative
/// times resolve against `now`.
pub fn understand(
    engine: &Engine,
    tenant: &str,
    question: &str,
    lang: Lang,
    now: Timestamp,
) -> Result<Question> {
    let store = engine.store();
    let reader = lang.reader();
    let words = reader.read_question(question);
    let mut entities = Vec::new();
    let mut unknown_names = Vec::new();
    let add = |id: String, entities: &mut Vec<String>| {
        if !entities.contains(&id) {
            entities.push(id);
        }
    };
    // "I", "me", "my": the user, where the tenant has one.
    if words.first_person
        && let Some(user) = view::entity_of(store, tenant, "user")?
    {
        entities.push(store_name(engine, user));
    }
    // "my mom": the one the user named so, or known only so.
    for relation in &words.relatives {
        if let Some(entity) = view::entity_of(store, tenant, &ids::relative("user", relation))? {
            add(store_name(engine, entity), &mut entities);
        }
    }
    for readings in &words.names {
        let mut found = false;
        for name in readings {
            if let Some(entity) = view::entity_of(store, tenant, name)? {
                add(store_name(engine, entity), &mut entities);
                found = true;
                break;
            }
        }
        if !found && let Some(name) = readings.first() {
            unknown_names.push(name.clone());
        }
    }
    // Names the tenant knows, written in lower case ("where does mia live").
    for word in &words.lower_words {
        if store.symbol(&ids::entity(tenant, word)).is_some()
            && let Some(entity) = view::entity_of(store, tenant, word)?
        {
            add(store_name(engine, entity), &mut entities);
        }
    }

    let mut text = question.to_string();
    let mut as_of = None;
    let mut as_of_because = None;
    let mut period = None;
    // "before I moved to Berlin", "when I was at Tencent": the instant
    // comes from the tenant's own timeline.
    if let Some(anchor) = &words.anchor {
        let timeline = view::timeline(engine, tenant, None)?;
        if let Some(fact) = anchor_fact(&timeline, &anchor.object) {
            let instant = if anchor.before {
                Timestamp(fact.valid.from.micros().saturating_sub(1))
            } else {
                fact.valid.from
            };
            as_of = Some(instant);
            as_of_because = Some(format!("{} {}", anchor.word, fact.object));
        }
    }
    if as_of.is_none()
        && let Some(found) = when::find(reader, question, now, false)
    {
        let last = found
            .when
            .to
            .map_or(now, |to| Timestamp(to.micros().saturating_sub(1)));
        as_of = Some(if last > now { now } else { last });
        period = Some((found.when.from, if last > now { now } else { last }));
        as_of_because = Some(question[found.start..found.end].to_string());
        text = format!("{} {}", &question[..found.start], &question[found.end..]);
    }
    // A named time ("before Berlin", "in 2022") answers at that instant
    // instead.
    let asks_past = as_of.is_none() && words.asks_past;
    Ok(Question {
        text: text.trim().to_string(),
        lang,
        about_user: words.first_person && !words.about_listener,
        entities,
        unknown_names,
        as_of,
        as_of_because,
        period,
        predicates: reader
            .predicates_asked(question)
            .into_iter()
            .map(str::to_string)
            .collect(),
        asks_when: words.asks_when,
        asks_past,
        asks_list: words.asks_list,
    })
}

/// The fact of the timeline whose object is `name` (the earliest).
fn anchor_fact<'t>(timeline: &'t [FactVersion], name: &str) -> Option<&'t FactVersion> {
    let wanted = normalize(name);
    timeline
        .iter()
        .filter(|f| normalize(&f.object) == wanted)
        .min_by_key(|f| f.valid.from)
}

fn store_name(engine: &Engine, sym: chronolog_engine::Symbol) -> String {
    engine
        .store()
        .symbol_name(sym)
        .map(|n| n.to_string())
        .unwrap_or_default()
}
