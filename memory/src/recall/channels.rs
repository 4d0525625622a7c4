//! The channels of a search, each a prepared query in the language over
//! one tenant's rows, and their weighted reciprocal-rank fusion.

use std::collections::HashMap;

use chronolog_engine::{Engine, Limits, Session, Timestamp, Val, Value};

use super::SearchOptions;
use super::understand::Question;
use crate::consolidate::salience;
use crate::error::Result;

/// Where candidates come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Channel {
    /// `near` over episodes.
    EpisodeMeaning,
    /// `bm25` over episodes.
    EpisodeWords,
    /// `bm25` over the episodes said by a person the question names (who
    /// did what is mostly in that person's own words).
    SpeakerWords,
    /// `near` over the episodes said by a person the question names.
    SpeakerMeaning,
    /// `near` over facts.
    FactMeaning,
    /// `bm25` over facts.
    FactWords,
    /// `hops` from the question's entities: facts about them, episodes
    /// naming them.
    Graph,
    /// `bm25` over the episodes said in the period the question names
    /// ("What did Tim say on 16 November, 2023?").
    SaidThen,
    /// `near` over the episodes said in that period ("What did Joanna
    /// achieve in January 2022?" is "I finished my first screenplay").
    SaidThenMeaning,
    /// The tenant's latest episodes.
    Recency,
    /// The tenant's most salient facts (decayed to now).
    Salience,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 11] = [
        Channel::EpisodeMeaning,
        Channel::EpisodeWords,
        Channel::SpeakerWords,
        Channel::SpeakerMeaning,
        Channel::FactMeaning,
        Channel::FactWords,
        Channel::Graph,
        Channel::SaidThen,
        Channel::SaidThenMeaning,
        Channel::Recency,
        Channel::Salience,
    ];

    /// Its name in reports and options.
    pub fn name(self) -> &'static str {
        match self {
            Channel::EpisodeMeaning => "episode_meaning",
            Channel::EpisodeWords => "episode_words",
            Channel::SpeakerWords => "speaker_words",
            Channel::SpeakerMeaning => "speaker_meaning",
            Channel::FactMeaning => "fact_meaning",
            Channel::FactWords => "fact_words",
            Channel::Graph => "graph",
            Channel::SaidThen => "said_then",
            Channel::SaidThenMeaning => "said_then_meaning",
            Channel::Recency => "recency",
            Channel::Salience => "salience",
        }
    }

    /// The channel named `name`.
    pub fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Its weight in the fusion, chosen on LoCoMo's dev split
    /// (`chronolog eval locomo --all`, docs/evaluation.md): the episode
    /// channels carry the evidence; facts, the graph, recency and salience
    /// only reorder near the top (alone they find 4-7% of it).
    pub fn weight(self) -> f64 {
        match self {
            Channel::EpisodeWords => 1.0,
            Channel::SpeakerWords => SPEAKER_WEIGHT,
            Channel::SpeakerMeaning => SPEAKER_MEANING_WEIGHT,
            Channel::EpisodeMeaning => 0.3,
            Channel::FactWords => 0.3,
            Channel::FactMeaning => 0.15,
            Channel::Graph => 0.1,
            Channel::SaidThen | Channel::SaidThenMeaning => SAID_THEN_WEIGHT,
            Channel::Recency | Channel::Salience => 0.02,
        }
    }
}

/// One channel's candidates, best first: ids (episode ids or fact slots)
/// and the channel's own scores.
#[derive(Clone, Debug)]
pub(crate) struct Ranked {
    pub channel: Channel,
    pub items: Vec<(String, f64)>,
}

const SPEAKER_WEIGHT: f64 = 2.0;
const SPEAKER_MEANING_WEIGHT: f64 = 2.0;
const SAID_THEN_WEIGHT: f64 = 2.0;

/// How many of the tenant's best `bm25` (or `near`) matches the said-then
/// channels look through for those said in the period.
const SAID_THEN_CANDIDATES: i64 = 500;

/// The reciprocal-rank offset: 10, not the usual 60, chosen on LoCoMo's
/// dev split (a first rank counts for more against the ones after it).
const RRF_K: f64 = 10.0;
/// Seeds whose neighbourhood is larger than this (a speaker, named in all
/// their own messages) say nothing specific; their episodes are skipped.
const GRAPH_MAX_NEIGHBOURS: usize = 200;

/// Runs every channel `options` asks for.
pub(crate) fn run(
    engine: &Engine,
    vectors: &super::VectorCache,
    tenant: &str,
    question: &Question,
    at: super::Instants,
    options: &SearchOptions,
) -> Result<Vec<Ranked>> {
    let mut session = engine.session();
    let known = at.known_at.unwrap_or_else(Timestamp::now);
    // A list question's evidence is many messages that each match a
    // little: its channels look twice as deep.
    let depth = if question.asks_list {
        options.k.saturating_mul(2)
    } else {
        options.k
    };
    let k = depth.clamp(1, 1_000) as i64;
    let wants = |c: Channel| options.channels.contains(&c);
    let mut out = Vec::new();
    let base = |extra: &[(&str, Value)]| {
        let mut p: HashMap<String, Value> = HashMap::from([
            ("t".to_string(), Value::str(tenant)),
            ("k".to_string(), Value::Int(k)),
            ("at".to_string(), Value::Time(at.facts)),
            ("said".to_string(), Value::Time(at.messages)),
            ("known".to_string(), Value::Time(known)),
        ]);
        for (name, value) in extra {
            p.insert((*name).to_string(), value.clone());
        }
        p
    };
    let words = Value::str(&question.text);
    let meaning = wants(Channel::EpisodeMeaning)
        || wants(Channel::FactMeaning)
        || wants(Channel::SpeakerMeaning)
        || (wants(Channel::SaidThenMeaning) && question.period.is_some());
    let vector = if meaning && !question.text.trim().is_empty() {
        let cached = vectors.lock().get(&question.text).cloned();
        let v = match cached {
            Some(v) => Some(v),
            None => {
                let v = engine.embed(&[question.text.as_str()])?.pop();
                if let Some(v) = &v {
                    let mut cache = vectors.lock();
                    if cache.len() >= 4_096 {
                        cache.clear();
                    }
                    cache.insert(question.text.clone(), v.clone());
                }
                v
            }
        };
        v.map(|v| Value::Vector(v.into()))
    } else {
        None
    };
    let ranked = |session: &mut Session, text: &str, params: &HashMap<String, Value>| {
        ranked_ids(session, text, params)
    };
    for (channel, rel, instant) in [
        (Channel::EpisodeMeaning, "mem_passage", "said"),
        (Channel::FactMeaning, "mem_fact", "at"),
    ] {
        if let (true, Some(v)) = (wants(channel), &vector) {
            let text =
                format!("?- near({rel}, $v, $k, tenant = $t) as_of ${instant} known_at $known.");
            let items =
                episodes_of_passages(ranked(&mut session, &text, &base(&[("v", v.clone())]))?);
            out.push(Ranked { channel, items });
        }
    }
    for (channel, rel, instant) in [
        (Channel::EpisodeWords, "mem_episode", "said"),
        (Channel::FactWords, "mem_fact", "at"),
    ] {
        if wants(channel) && !question.text.trim().is_empty() {
            let text =
                format!("?- bm25({rel}, $q, $k, tenant = $t) as_of ${instant} known_at $known.");
            let items = ranked(&mut session, &text, &base(&[("q", words.clone())]))?;
            out.push(Ranked { channel, items });
        }
    }
    let speakers = if wants(Channel::SpeakerWords) || wants(Channel::SpeakerMeaning) {
        speakers(engine, tenant, question)
    } else {
        Vec::new()
    };
    for (channel, search, input) in [
        (
            Channel::SpeakerWords,
            "bm25(mem_episode, $q",
            Some(words.clone()),
        ),
        (
            Channel::SpeakerMeaning,
            "near(mem_passage, $q",
            vector.clone(),
        ),
    ] {
        let Some(input) = input.filter(|_| wants(channel) && !question.text.trim().is_empty())
        else {
            continue;
        };
        let mut items: Vec<(String, f64)> = Vec::new();
        for speaker in &speakers {
            let text =
                format!("?- {search}, $k, tenant = $t, role = $s) as_of $said known_at $known.");
            let seed = [("q", input.clone()), ("s", Value::Sym(*speaker))];
            items.extend(episodes_of_passages(ranked(
                &mut session,
                &text,
                &base(&seed),
            )?));
        }
        // Two speakers named: interleave by score, each id once.
        items.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut seen = std::collections::HashSet::new();
        items.retain(|(id, _)| seen.insert(id.clone()));
        items.truncate(k as usize);
        // Pushed even empty: a named speaker none of whose messages shares
        // a word with the question is the abstention gate's signal.
        if !speakers.is_empty() {
            out.push(Ranked { channel, items });
        }
    }
    if wants(Channel::Graph) && !question.entities.is_empty() {
        let mut items: Vec<(String, f64)> = Vec::new();
        for entity in &question.entities {
            let Some(sym) = engine.store().symbol(entity) else {
                continue;
            };
            let seed = [("e", Value::Sym(sym))];
            let about = ranked(
                &mut session,
                "?- hops($e, 1, [mem_about]) as_of $at known_at $known.",
                &base(&seed),
            )?;
            let mentions = ranked(
                &mut session,
                "?- hops($e, 1, [mem_mention]) as_of $said known_at $known.",
                &base(&seed),
            )?;
            items.extend(about);
            if mentions.len() <= GRAPH_MAX_NEIGHBOURS {
                items.extend(mentions);
            }
        }
        let mut seen = std::collections::HashSet::new();
        items.retain(|(id, _)| seen.insert(id.clone()));
        items.truncate(k as usize * 2);
        out.push(Ranked {
            channel: Channel::Graph,
            items,
        });
    }
    // What was said in the period the question names, found by its words
    // and by its meaning (the words of a question and of its answer often
    // differ): the tenant's widest matches, filtered on when they were
    // said. `id_at` is where the episode is in the rows.
    if let Some((from, to)) = question.period.filter(|_| !question.text.trim().is_empty()) {
        for (channel, search, id_at, input) in [
            (
                Channel::SaidThen,
                "bm25(mem_episode, $q, $wide, tenant = $t) as (E, S)",
                0,
                Some(words.clone()),
            ),
            (
                Channel::SaidThenMeaning,
                "near(mem_passage, $q, $wide, tenant = $t) as (P, S), mem_passage(P, E, _, _, _)",
                2,
                vector.clone(),
            ),
        ] {
            let Some(input) = input.filter(|_| wants(channel)) else {
                continue;
            };
            let text = format!(
                "?- {search}, mem_episode(E, _, _, _, _, At, _), At >= $from, At <= $to \
                 as_of $said known_at $known."
            );
            let params = base(&[
                ("q", input),
                ("wide", Value::Int(SAID_THEN_CANDIDATES)),
                ("from", Value::Time(from)),
                ("to", Value::Time(to)),
            ]);
            let mut items: Vec<(String, f64)> = rows(&mut session, &text, &params)?
                .into_iter()
                .filter_map(|r| {
                    let (id, score) = (r.get(id_at)?, r.get(1)?);
                    Some((session.render(id), score.as_f64().unwrap_or(0.0)))
                })
                .collect();
            items.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            items.truncate(k as usize);
            out.push(Ranked { channel, items });
        }
    }
    if wants(Channel::Recency) {
        let rows = rows(
            &mut session,
            "?- mem_episode(Id, $t, _, _, Seq, _, _) as_of $said known_at $known.",
            &base(&[]),
        )?;
        let mut items: Vec<(String, f64)> = rows
            .into_iter()
            .filter_map(|r| match r.as_slice() {
                [id, Val::Int(seq)] => Some((session.render(id), *seq as f64)),
                _ => None,
            })
            .collect();
        items.sort_by(|a, b| b.1.total_cmp(&a.1));
        items.truncate(k as usize);
        out.push(Ranked {
            channel: Channel::Recency,
            items,
        });
    }
    if wants(Channel::Salience) {
        let rows = rows(
            &mut session,
            "?- mem_salience(Slot, $t, Score, _, Last), mem_fact(Slot, $t, _, _, _, _, _) as_of $at known_at $known.",
            &base(&[]),
        )?;
        let mut items: Vec<(String, f64)> = rows
            .into_iter()
            .filter_map(|r| match r.as_slice() {
                [slot, score, Val::Time(last)] => Some((
                    session.render(slot),
                    salience::decayed(
                        score.as_f64().unwrap_or(0.0),
                        Timestamp(*last),
                        at.facts,
                        options.half_life_days,
                    ),
                )),
                _ => None,
            })
            .collect();
        items.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        items.truncate(k as usize);
        out.push(Ranked {
            channel: Channel::Salience,
            items,
        });
    }
    Ok(out)
}

/// The roles (as stored symbols) of the people the question names who
/// speak in this tenant's memory.
pub(crate) fn speakers(
    engine: &Engine,
    tenant: &str,
    question: &Question,
) -> Vec<chronolog_engine::Symbol> {
    let store = engine.store();
    let (Ok(rel), Some(tenant_sym)) = (
        crate::view::relation(store, crate::schema::EPISODE),
        store.symbol(tenant),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for name in question
        .entities
        .iter()
        .filter_map(|e| e.strip_prefix(&format!("{tenant}/")))
        .filter(|name| *name != "user")
    {
        let mut capitalised = name.to_string();
        if let Some(first) = capitalised.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        for candidate in [name.to_string(), capitalised] {
            let Some(sym) = store.symbol(&candidate) else {
                continue;
            };
            let speaks = store
                .snapshot()
                .scan(rel)
                .eq(1, Value::Sym(tenant_sym))
                .eq(3, Value::Sym(sym))
                .count()
                .is_ok_and(|n| n > 0);
            if speaks && !out.contains(&sym) {
                out.push(sym);
            }
        }
    }
    out
}

/// Weighted reciprocal-rank fusion of the channels: an id's score is the
/// sum over channels of `weight / (RRF_K + rank)` (ranks from 1); ties by
/// id.
pub(crate) fn fuse(rankings: &[Ranked]) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for r in rankings {
        for (rank, (id, _)) in r.items.iter().enumerate() {
            *scores.entry(id.as_str()).or_default() +=
                r.channel.weight() / (RRF_K + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(String, f64)> = scores
        .into_iter()
        .map(|(id, s)| (id.to_string(), s))
        .collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    fused
}

/// Passage ids as the episodes they stand for (other ids as they are).
fn episodes_of_passages(items: Vec<(String, f64)>) -> Vec<(String, f64)> {
    items
        .into_iter()
        .map(|(id, score)| (crate::schema::passage_episode(&id).to_string(), score))
        .collect()
}

/// A message a word search found: its id and score, who said it, what
/// they said.
pub(crate) struct Found {
    pub id: String,
    pub score: f64,
    pub role: String,
    pub text: String,
}

/// `bm25` over `tenant`'s messages for `words`, those said by `role`
/// only when given: the abstention gate's own searches, with the
/// question's topic words alone (its names would favour whoever says them).
pub(crate) fn episode_words(
    engine: &Engine,
    tenant: &str,
    words: &str,
    role: Option<chronolog_engine::Symbol>,
    k: usize,
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Result<Vec<Found>> {
    let mut session = engine.session();
    let mut params: HashMap<String, Value> = HashMap::from([
        ("t".to_string(), Value::str(tenant)),
        ("q".to_string(), Value::str(words)),
        ("k".to_string(), Value::Int(k as i64)),
        ("at".to_string(), Value::Time(as_of)),
        (
            "known".to_string(),
            Value::Time(known_at.unwrap_or_else(Timestamp::now)),
        ),
    ]);
    let filter = match role {
        Some(role) => {
            params.insert("s".to_string(), Value::Sym(role));
            ", role = $s"
        }
        None => "",
    };
    let text = format!(
        "?- bm25(mem_episode, $q, $k, tenant = $t{filter}) as (E, S), \
         mem_episode(E, _, _, Role, _, _, Text) as_of $at known_at $known."
    );
    Ok(rows(&mut session, &text, &params)?
        .into_iter()
        .filter_map(|r| match r.as_slice() {
            [id, score, role, text] => Some(Found {
                id: session.render(id),
                score: score.as_f64().unwrap_or(0.0),
                role: session.render(role),
                text: session.render(text),
            }),
            _ => None,
        })
        .collect())
}

fn ranked_ids(
    session: &mut Session,
    text: &str,
    params: &HashMap<String, Value>,
) -> Result<Vec<(String, f64)>> {
    Ok(rows(session, text, params)?
        .into_iter()
        .filter_map(|r| match r.as_slice() {
            // A lone ranked operator answers (id, score, rank), best first.
            [id, score, _rank] => Some((session.render(id), score.as_f64().unwrap_or(0.0))),
            _ => None,
        })
        .collect())
}

fn rows(
    session: &mut Session,
    text: &str,
    params: &HashMap<String, Value>,
) -> Result<Vec<Vec<Val>>> {
    let prepared = session.prepare(text)?;
    let rows = session.execute(&prepared, params, &Limits::default())?;
    Ok(rows.to_vecs())
}
