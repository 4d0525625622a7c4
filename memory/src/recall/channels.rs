//! The channels of a search, each a prepared query in the language over
//! one tenant's rows, read at the question's instants.

use std::collections::HashMap;

use chronolog_engine::{Embedding, Engine, Limits, Timestamp, Val, Value};

use super::readers::Lease;
use super::speakers::{speakers, user_role};
use super::understand::Question;
use super::{Caches, Channel, Instants, Reader, SearchOptions};
use crate::error::Result;
use crate::tuning::Tuning;

/// One channel's candidates, best first: ids (episode ids or fact slots)
/// and the channel's own scores.
#[derive(Clone, Debug)]
pub(crate) struct Ranked {
    pub channel: Channel,
    pub items: Vec<(String, f64)>,
}

/// Runs every channel `options` asks for.
pub(crate) fn run(
    reader: Reader<'_>,
    tenant: &str,
    question: &Question,
    at: Instants,
    options: &SearchOptions,
) -> Result<Vec<Ranked>> {
    let Reader {
        engine,
        caches,
        tuning,
        languages,
        ..
    } = reader;
    // A list question's evidence is many messages that each match a
    // little: its channels look deeper.
    let depth = if question.asks_list {
        options.k.saturating_mul(tuning.list_depth)
    } else {
        options.k
    };
    let wants = |c: Channel| options.channels.contains(&c);
    let meaning = wants(Channel::EpisodeMeaning)
        || wants(Channel::SentenceMeaning)
        || wants(Channel::FactMeaning)
        || wants(Channel::SpeakerMeaning)
        || wants(Channel::UserMeaning)
        || (wants(Channel::SaidThenMeaning) && question.period.is_some());
    let vector = if meaning && !question.text.trim().is_empty() {
        embedding(engine, caches, Embedding::Default, &question.text)?
            .map(|v| Value::Vector(v.into()))
    } else {
        None
    };
    // Across languages only the multilingual space is searched: the
    // English one would place the two languages' texts at random. A
    // memory that mixes languages is searched in both.
    let spaces = languages.spaces(tenant, question.lang)?;
    let multilingual = if wants(Channel::MultilingualMeaning)
        && spaces.multilingual
        && !question.text.trim().is_empty()
    {
        embedding(engine, caches, Embedding::Multilingual, &question.text)?
            .map(|v| Value::Vector(v.into()))
    } else {
        None
    };
    let mut runner = Runner {
        reader,
        caches,
        session: caches.readers.lease(engine)?,
        tenant,
        question,
        at,
        known: at.known_at.unwrap_or_else(Timestamp::now),
        k: depth.clamp(1, 1_000) as i64,
        channels: &options.channels,
        limits: options.stop.limits(),
        tuning,
        words: Value::str(&question.text),
        vector,
        english: spaces.english,
        same_language: spaces.same_language,
        multilingual,
        out: Vec::new(),
    };
    runner.meaning_and_words()?;
    runner.speakers()?;
    runner.user()?;
    runner.graph()?;
    runner.said_then()?;
    runner.recency()?;
    runner.salience()?;
    Ok(runner.out)
}

/// The question's embedding in `space`, from the cache or the model.
fn embedding(
    engine: &Engine,
    caches: &Caches,
    space: Embedding,
    text: &str,
) -> Result<Option<Vec<f32>>> {
    let key = (space, text.to_string());
    if let Some(v) = caches.vectors.lock().get(&key).cloned() {
        return Ok(Some(v));
    }
    let v = engine.embed_in(space, &[text])?.pop();
    if let Some(v) = &v {
        let mut cache = caches.vectors.lock();
        if cache.len() >= 4_096 {
            cache.clear();
        }
        cache.insert(key, v.clone());
    }
    Ok(v)
}

/// One search's channels being run, and their rankings so far.
struct Runner<'a> {
    reader: Reader<'a>,
    /// Prepared queries (and embeddings) kept between searches.
    caches: &'a Caches,
    session: Lease<'a>,
    tenant: &'a str,
    question: &'a Question,
    at: Instants,
    /// The transaction time everything is read at.
    known: Timestamp,
    /// How many candidates each channel returns.
    k: i64,
    channels: &'a [Channel],
    /// The search's stop, for every query it runs.
    limits: Limits,
    tuning: &'a Tuning,
    /// The question's words, as a parameter.
    words: Value,
    /// The question's embedding, when a meaning channel runs.
    vector: Option<Value>,
    /// The question is English and the memory holds English (the
    /// engine's embedder's language): episodes are searched in its space.
    english: bool,
    /// The memory holds the question's language: facts are searched by
    /// meaning in the engine's space.
    same_language: bool,
    /// The question's embedding in the multilingual space, when that
    /// channel runs.
    multilingual: Option<Value>,
    out: Vec<Ranked>,
}

impl Runner<'_> {
    fn wants(&self, channel: Channel) -> bool {
        self.channels.contains(&channel)
    }

    fn has_words(&self) -> bool {
        !self.question.text.trim().is_empty()
    }

    /// The parameters every query takes, with `extra`.
    fn params(&self, extra: &[(&str, Value)]) -> HashMap<String, Value> {
        let mut p: HashMap<String, Value> = HashMap::from([
            ("t".to_string(), Value::str(self.tenant)),
            ("k".to_string(), Value::Int(self.k)),
            ("at".to_string(), Value::Time(self.at.facts)),
            ("said".to_string(), Value::Time(self.at.messages)),
            ("known".to_string(), Value::Time(self.known)),
        ]);
        for (name, value) in extra {
            p.insert((*name).to_string(), value.clone());
        }
        p
    }

    fn ranked(&mut self, text: &str, extra: &[(&str, Value)]) -> Result<Vec<(String, f64)>> {
        let params = self.params(extra);
        let rows = self.rows(text, &params)?;
        Ok(rows
            .into_iter()
            .filter_map(|r| match r.as_slice() {
                // A lone ranked operator answers (id, score, rank), best first.
                [id, score, _rank] => {
                    Some((self.session.render(id), score.as_f64().unwrap_or(0.0)))
                }
                _ => None,
            })
            .collect())
    }

    /// Runs the query `text`, planned the first time a search of this
    /// memory ran it.
    fn rows(&mut self, text: &str, params: &HashMap<String, Value>) -> Result<Vec<Vec<Val>>> {
        let prepared = self.caches.prepared(&self.session, text)?;
        let rows = self.session.execute(&prepared, params, &self.limits)?;
        Ok(rows.to_vecs())
    }

    /// `near` and `bm25` over episodes (their passages, and their
    /// sentences: `near` answers each episode once) and over facts.
    fn meaning_and_words(&mut self) -> Result<()> {
        for (channel, rel, instant, vector) in [
            (
                Channel::EpisodeMeaning,
                "mem_passage",
                "said",
                self.vector.clone().filter(|_| self.english),
            ),
            (
                Channel::SentenceMeaning,
                "mem_sentence",
                "said",
                self.vector.clone().filter(|_| self.english),
            ),
            (
                Channel::MultilingualMeaning,
                "mem_multilingual",
                "said",
                self.multilingual.clone(),
            ),
            (
                Channel::FactMeaning,
                "mem_fact",
                "at",
                self.vector.clone().filter(|_| self.same_language),
            ),
        ] {
            if let (true, Some(v)) = (self.wants(channel), vector) {
                let text = format!(
                    "?- near({rel}, $v, $k, tenant = $t) as_of ${instant} known_at $known."
                );
                let items = episodes_of_passages(self.ranked(&text, &[("v", v)])?);
                self.out.push(Ranked { channel, items });
            }
        }
        for (channel, rel, instant) in [
            (Channel::EpisodeWords, "mem_episode", "said"),
            (Channel::FactWords, "mem_fact", "at"),
        ] {
            if self.wants(channel) && self.has_words() {
                let text = format!(
                    "?- bm25({rel}, $q, $k, tenant = $t) as_of ${instant} known_at $known."
                );
                let items = self.ranked(&text, &[("q", self.words.clone())])?;
                self.out.push(Ranked { channel, items });
            }
        }
        Ok(())
    }

    /// Words and meaning over the messages of the people the question
    /// names.
    fn speakers(&mut self) -> Result<()> {
        let speakers = if self.wants(Channel::SpeakerWords) || self.wants(Channel::SpeakerMeaning) {
            speakers(self.reader.engine, self.tenant, self.question)
        } else {
            Vec::new()
        };
        // Pushed even empty: a named speaker none of whose messages
        // shares a word with the question is the abstention gate's signal.
        self.said_by(&speakers, [Channel::SpeakerWords, Channel::SpeakerMeaning])
    }

    /// Words and meaning over the messages of the user, for a question in
    /// the first person.
    fn user(&mut self) -> Result<()> {
        let user = if self.wants(Channel::UserWords) || self.wants(Channel::UserMeaning) {
            user_role(self.reader.engine, self.tenant, self.question)
        } else {
            None
        };
        self.said_by(user.as_slice(), [Channel::UserWords, Channel::UserMeaning])
    }

    /// `bm25` and `near` (the two `channels`, in that order) over the
    /// messages said by `roles`, interleaved by score; nothing when no
    /// role is given.
    fn said_by(
        &mut self,
        roles: &[chronolog_engine::Symbol],
        channels: [Channel; 2],
    ) -> Result<()> {
        if roles.is_empty() {
            return Ok(());
        }
        let inputs = [
            (
                channels[0],
                "bm25(mem_episode, $q",
                Some(self.words.clone()),
            ),
            (channels[1], "near(mem_passage, $q", self.vector.clone()),
        ];
        for (channel, search, input) in inputs {
            let Some(input) = input.filter(|_| self.wants(channel) && self.has_words()) else {
                continue;
            };
            let mut items: Vec<(String, f64)> = Vec::new();
            for role in roles {
                let text = format!(
                    "?- {search}, $k, tenant = $t, role = $s) as_of $said known_at $known."
                );
                let seed = [("q", input.clone()), ("s", Value::Sym(*role))];
                items.extend(episodes_of_passages(self.ranked(&text, &seed)?));
            }
            // Two speakers named: interleave by score, each id once.
            items.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let mut seen = std::collections::HashSet::new();
            items.retain(|(id, _)| seen.insert(id.clone()));
            items.truncate(self.k as usize);
            self.out.push(Ranked { channel, items });
        }
        Ok(())
    }

    /// `hops` from the question's entities: facts about them, messages
    /// naming them (unless they are named everywhere).
    fn graph(&mut self) -> Result<()> {
        if !self.wants(Channel::Graph) || self.question.entities.is_empty() {
            return Ok(());
        }
        let mut items: Vec<(String, f64)> = Vec::new();
        for entity in &self.question.entities {
            let Some(sym) = self.reader.engine.store().symbol(entity) else {
                continue;
            };
            let seed = [("e", Value::Sym(sym))];
            let about = self.ranked(
                "?- hops($e, 1, [mem_about]) as_of $at known_at $known.",
                &seed,
            )?;
            let mentions = self.ranked(
                "?- hops($e, 1, [mem_mention]) as_of $said known_at $known.",
                &seed,
            )?;
            items.extend(about);
            if mentions.len() <= self.tuning.graph_max_neighbours {
                items.extend(mentions);
            }
        }
        let mut seen = std::collections::HashSet::new();
        items.retain(|(id, _)| seen.insert(id.clone()));
        items.truncate(self.k as usize * 2);
        self.out.push(Ranked {
            channel: Channel::Graph,
            items,
        });
        Ok(())
    }

    /// What was said in the period the question names, found by its
    /// words and by its meaning (the words of a question and of its
    /// answer often differ): the tenant's widest matches, filtered on when
    /// they were said. `id_at` is where the episode is in the rows.
    ///
    /// Read at the store's present, with "said by the search's instant"
    /// a filter (`At <= $said`), not an `as_of`: a message is never
    /// invalidated (forget erases it from every read), so the two keep the
    /// same messages; but the join reads all of `mem_episode`, whose copy
    /// the engine keeps between queries only for the same live rows, and
    /// an `as_of` at each question's own instant made a fresh copy of the
    /// whole store's messages per question (LongMemEval dev, 100 tenants in
    /// one store: search p95 35 -> 16.5 ms, every figure equal). The one
    /// difference: in a search set in the past, messages said after it may
    /// take some of the `said_then_candidates` places before the filter.
    fn said_then(&mut self) -> Result<()> {
        let Some((from, to)) = self.question.period.filter(|_| self.has_words()) else {
            return Ok(());
        };
        let inputs = [
            (
                Channel::SaidThen,
                "bm25(mem_episode, $q, $wide, tenant = $t) as (E, S)",
                0,
                Some(self.words.clone()),
            ),
            (
                Channel::SaidThenMeaning,
                "near(mem_passage, $q, $wide, tenant = $t) as (P, S), mem_passage(P, E, _, _, _)",
                2,
                self.vector.clone(),
            ),
        ];
        for (channel, search, id_at, input) in inputs {
            let Some(input) = input.filter(|_| self.wants(channel)) else {
                continue;
            };
            let text = format!(
                "?- {search}, mem_episode(E, _, _, _, _, At, _), At >= $from, At <= $to, At <= $said \
                 known_at $known."
            );
            let params = self.params(&[
                ("q", input),
                ("wide", Value::Int(self.tuning.said_then_candidates as i64)),
                ("from", Value::Time(from)),
                ("to", Value::Time(to)),
            ]);
            let found = self.rows(&text, &params)?;
            let session = &self.session;
            let mut items: Vec<(String, f64)> = found
                .into_iter()
                .filter_map(|r| {
                    let (id, score) = (r.get(id_at)?, r.get(1)?);
                    Some((session.render(id), score.as_f64().unwrap_or(0.0)))
                })
                .collect();
            items.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            items.truncate(self.k as usize);
            self.out.push(Ranked { channel, items });
        }
        Ok(())
    }

    /// The tenant's latest messages: `top` by sequence number.
    fn recency(&mut self) -> Result<()> {
        if !self.wants(Channel::Recency) {
            return Ok(());
        }
        let items = self.ranked(
            "?- top(mem_episode, seq, $k, tenant = $t) as_of $said known_at $known.",
            &[],
        )?;
        self.out.push(Ranked {
            channel: Channel::Recency,
            items,
        });
        Ok(())
    }

    /// The tenant's most salient facts, decayed to the question's instant
    /// (`decayed`), among the slots holding a fact then. A slot without one
    /// (ended, or not yet said) takes no place: the operator is asked for
    /// more until `k` live ones are found or it has no more to give.
    fn salience(&mut self) -> Result<()> {
        if !self.wants(Channel::Salience) {
            return Ok(());
        }
        const LIVE: &str = "?- decayed(mem_salience, score, last, $half_life, $wide, tenant = $t) \
                            as (Slot, Score, _), mem_fact(Slot, $t, _, _, _, _, _) \
                            as_of $at known_at $known.";
        const FULL: &str = "?- decayed(mem_salience, score, last, $half_life, $wide, tenant = $t) \
                            as (_, _, Rank), Rank >= $wide as_of $at known_at $known.";
        let k = self.k as usize;
        let mut wide = self.k;
        let half_life = ("half_life", Value::Float(self.tuning.half_life_days));
        let mut items = loop {
            let params = self.params(&[half_life.clone(), ("wide", Value::Int(wide))]);
            let rows = self.rows(LIVE, &params)?;
            let at_most = (wide as u64)
                .saturating_mul(2)
                .min(chronolog_engine::MAX_RANKED_K);
            if rows.len() >= k || self.rows(FULL, &params)?.is_empty() || wide as u64 >= at_most {
                break rows;
            }
            wide = at_most as i64;
        }
        .into_iter()
        .filter_map(|r| match r.as_slice() {
            [slot, score] => Some((self.session.render(slot), score.as_f64().unwrap_or(0.0))),
            _ => None,
        })
        .collect::<Vec<_>>();
        items.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        items.truncate(k);
        self.out.push(Ranked {
            channel: Channel::Salience,
            items,
        });
        Ok(())
    }
}

/// Passage ids as the episodes they stand for (other ids as they are).
fn episodes_of_passages(items: Vec<(String, f64)>) -> Vec<(String, f64)> {
    items
        .into_iter()
        .map(|(id, score)| (crate::ids::passage_episode(&id).to_string(), score))
        .collect()
}
