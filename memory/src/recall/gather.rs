//! The budget-free half of assembly: the fused candidates read from the
//! store once per question (facts as of the instant the question names,
//! scaled by salience stage; messages as of the search; the messages
//! behind the facts that may lead), from which [`super::fit`] cuts a
//! context at each budget.

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use chronolog_engine::{Engine, RelationId, Reranker, RowVersion, Store, Timestamp, Value};

use super::Instants;
use super::understand::Question;
use crate::error::Result;
use crate::lang::Language;
use crate::salience;
use crate::schema::{Entity, Episode, Fact, Relations};
use crate::tuning::Tuning;
use crate::view::{self, FactVersion, first_keyed};

/// The fused candidates read from the store, scored and in order: what
/// a context at any budget is cut from.
pub(crate) struct Gathered {
    /// Facts as of the instant, by score (scaled by salience stage).
    pub(super) facts: Vec<(FactVersion, f64)>,
    /// Per fact slot, its values that ended by the instant, most recent
    /// first, when the question asks about the past.
    pub(super) pasts: HashMap<String, Vec<FactVersion>>,
    /// Episodes in fused order.
    pub(super) episodes: Vec<(Episode, f64)>,
    /// The messages behind the facts that may lead, by id.
    pub(super) support: HashMap<String, Episode>,
    /// The messages around each of the first `neighbour_anchors`
    /// episodes, nearest first: read when a budget first reaches them
    /// (a small one never does).
    pub(super) neighbours: Vec<OnceCell<Vec<Episode>>>,
    /// Every candidate episode, the sources of the facts included, in
    /// fused order.
    pub(super) ranked_episodes: Vec<String>,
    /// Items' token counts by their text: each budget's fill (and the
    /// smaller fills it starts from) counts a candidate once.
    pub(super) tokens: RefCell<HashMap<String, usize>>,
    /// Each long message's excerpt by its id (`None`: shown whole): cut
    /// once per question, not once per budget's fill.
    pub(super) excerpts: RefCell<HashMap<String, Option<String>>>,
    /// Per word of the candidates, whether it is a topic word of the
    /// question ([`super::excerpt::excerpt`]).
    pub(super) topical: RefCell<FxHashMap<String, Vec<String>>>,
    /// The question's topic words, stemmed, for the excerpts.
    pub(super) wanted: OnceCell<HashSet<String>>,
    /// The reranker's scores of the facts asked, best first, for `explain`.
    pub(super) judged: Vec<(String, f32)>,
}

/// Which facts may lead a context, and which lead first.
#[derive(Clone, Copy)]
pub(crate) struct Leads<'a> {
    /// The facts a word search found (`None`: every fact may lead).
    pub worded: Option<&'a HashSet<&'a str>>,
    /// The facts the question asks about by their predicate: they lead
    /// first.
    pub asked: &'a [String],
    /// The reranker that orders the facts asked, when one reads the
    /// question's language.
    pub judge: Option<&'a dyn Reranker>,
}

/// Reads the fused candidates: the part of assembly that does not depend
/// on the budget. A fact may lead a context only when `worded` (the facts
/// a word search found; `None`: every fact may lead) holds it: the
/// graph, meaning and salience channels bring a person's facts whatever
/// is asked (on LoCoMo's dev split their pet and hobby facts led a sixth
/// of all contexts), and a fact that shares no word with the question is
/// seldom its answer: leading, it takes the budget from the messages
/// (coverage at 500 tokens 0.592 -> 0.616, at 2,000 0.788 -> 0.792).
/// Nor does one whose predicate (as the question's language says it)
/// and object name nothing the question asks about: a fact's words are
/// its sentence's. Its episodes still count in the
/// ranking. A fact in `asked` (what the question asks by its predicate)
/// leads first, whatever its words.
pub(crate) fn gather(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    fused: &[(String, f64)],
    leads: Leads<'_>,
    at: Instants,
    tuning: &Tuning,
) -> Result<Gathered> {
    let Leads { worded, asked, .. } = leads;
    let store = engine.store();
    let rel = Relations::of(store)?;
    let tenant_prefix = format!("{tenant}/");
    let mut read = Candidates {
        store,
        rel,
        at,
        question,
        tuning,
        facts: Vec::new(),
        pasts: HashMap::new(),
        episodes: Vec::new(),
        ranked_episodes: Vec::new(),
    };
    for (id, score) in fused {
        // Ids name their tenant; anything else is not this tenant's.
        if id.starts_with(&tenant_prefix) {
            read.candidate(id, *score, worded)?;
        }
    }
    let Candidates {
        mut facts,
        pasts,
        episodes,
        ranked_episodes,
        ..
    } = read;
    // Forgetting lowers eligibility: a fact's score is scaled by its
    // salience stage at the instant, so a fading or dormant fact leads
    // only when it matches clearly better than the active ones.
    for (fact, score) in &mut facts {
        if let Some((salience, _, last)) = salience::read(store, rel.salience, &fact.slot)? {
            let decayed = salience::decayed(salience, last, at.facts, tuning.half_life_days);
            *score *= stage_weight(salience::stage(decayed), tuning);
        }
    }
    // A fact whose sentence shares a word with the question leads only
    // when the fact itself does too, its predicate as the question's
    // language says it or its object: "What degree did I graduate with?"
    // shares words with the sentences behind `user feels_about better`,
    // and a fact that does not name what is asked takes the budget from
    // the messages that may. A plan's object is a clause of its sentence
    // (`CLAUSE_OBJECTS`): it leads only a question about plans.
    // The same topic stems the excerpts read: computed once, here.
    let wanted = OnceCell::new();
    if worded.is_some() {
        let reader = question.lang.reader();
        let wanted = wanted.get_or_init(|| super::excerpt::wanted(reader, &question.text));
        facts.retain(|(fact, _)| {
            asked.contains(&fact.slot)
                || (!crate::claim::CLAUSE_OBJECTS.contains(&fact.predicate.as_str())
                    && names_asked(
                        reader,
                        wanted,
                        &reader.fact_phrase("", &fact.predicate, &fact.object),
                    ))
        });
    }
    // A fact the question asks about by its predicate leads, at the best
    // fact's score: it is what was asked, whatever its words matched; of
    // those, the ones that answer first ([`super::asked`]).
    let reader = question.lang.reader();
    let topic = wanted.get_or_init(|| super::excerpt::wanted(reader, &question.text));
    let order = super::asked::order(store, question, &facts, asked, topic, leads.judge, tuning)?;
    let best = facts.iter().map(|(_, s)| *s).fold(0.0, f64::max);
    for (fact, score) in &mut facts {
        if order.leads(fact) {
            *score = score.max(best);
        }
    }
    facts.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| order.place(&a.0).cmp(&order.place(&b.0)))
    });
    let mut support: HashMap<String, Episode> = HashMap::new();
    for (fact, _) in leading(&facts, tuning.max_facts, tuning.fact_min_share) {
        let pasts = pasts.get(&fact.slot).into_iter().flatten();
        for id in fact
            .source
            .iter()
            .chain(pasts.filter_map(|p| p.source.as_ref()))
        {
            if support.contains_key(id) {
                continue;
            }
            if let Some(episode) = episode_by_id(store, rel.episode, id, at.messages, at.known_at)?
            {
                support.insert(id.clone(), episode);
            }
        }
    }
    let neighbours = (0..episodes.len().min(tuning.neighbour_anchors))
        .map(|_| OnceCell::new())
        .collect();
    Ok(Gathered {
        facts,
        pasts,
        episodes,
        support,
        neighbours,
        ranked_episodes,
        tokens: RefCell::new(HashMap::new()),
        excerpts: RefCell::new(HashMap::new()),
        topical: RefCell::new(FxHashMap::default()),
        wanted,
        judged: order.judged,
    })
}

/// The candidates read so far, in fused order.
struct Candidates<'a> {
    store: &'a Store,
    rel: Relations,
    at: Instants,
    question: &'a Question,
    tuning: &'a Tuning,
    facts: Vec<(FactVersion, f64)>,
    /// Per leading-fact slot, its values that ended by the instant, when
    /// the question asks about the past: most recent first.
    pasts: HashMap<String, Vec<FactVersion>>,
    episodes: Vec<(Episode, f64)>,
    ranked_episodes: Vec<String>,
}

impl Candidates<'_> {
    fn rank(&mut self, id: &str) {
        if !self.ranked_episodes.iter().any(|e| e == id) {
            self.ranked_episodes.push(id.to_string());
        }
    }

    /// Reads the fact slot or episode `id`, as of its instant.
    fn candidate(&mut self, id: &str, score: f64, worded: Option<&HashSet<&str>>) -> Result<()> {
        let Some(sym) = self.store.symbol(id) else {
            return Ok(());
        };
        let snapshot = self.store.snapshot();
        let known_at = self.at.known_at;
        let scan = |rel, instant| {
            // The id is the key column of both relations it may name.
            let mut scan = snapshot
                .scan(rel)
                .eq(Fact::SLOT, Value::Sym(sym))
                .as_of(instant);
            if let Some(known) = known_at {
                scan = scan.known_at(known);
            }
            scan.collect().map_err(chronolog_engine::Error::from)
        };
        let current = scan(self.rel.fact, self.at.facts)?;
        let history = || {
            snapshot
                .scan(self.rel.fact)
                .history()
                .eq(Fact::SLOT, Value::Sym(sym))
                .collect()
                .map_err(chronolog_engine::Error::from)
        };
        if let Some(row) = current.first() {
            let history = history()?;
            let fact = view::version(self.store, row, &history)?;
            for source in fact.source.iter().chain(&fact.sources) {
                self.rank(source);
            }
            if worded.is_some_and(|worded| !worded.contains(id)) {
                return Ok(());
            }
            if self.question.asks_past {
                let pasts = self.pasts_of(&history)?;
                self.pasts.insert(fact.slot.clone(), pasts);
            }
            self.facts.push((fact, score));
            return Ok(());
        }
        if let Some(row) = scan(self.rel.episode, self.at.messages)?.first() {
            let episode = Episode::from_values(self.store, &row.values)?;
            self.rank(&episode.id);
            self.episodes.push((episode, score));
            return Ok(());
        }
        // "Do I still play the cello?": a slot whose every value ended by
        // the instant answers with its last value, marked past, when the
        // question asks about the past.
        if self.question.asks_past && worded.is_none_or(|worded| worded.contains(id)) {
            let history = history()?;
            let mut pasts = self.pasts_of(&history)?.into_iter();
            if let Some(last) = pasts.next() {
                for source in last.source.iter().chain(&last.sources) {
                    self.rank(source);
                }
                self.pasts.insert(last.slot.clone(), pasts.collect());
                self.facts.push((last, score));
            }
        }
        Ok(())
    }

    /// A slot's values that ended by the instant, as believed then, most
    /// recent first.
    fn pasts_of(&self, history: &[RowVersion]) -> Result<Vec<FactVersion>> {
        let believed = |r: &RowVersion| match self.at.known_at {
            Some(k) => r.tx.from <= k && k < r.tx.to,
            None => r.tx.to == Timestamp::MAX,
        };
        let mut ended: Vec<&RowVersion> = history
            .iter()
            .filter(|r| r.valid.to <= self.at.facts && believed(r))
            .collect();
        ended.sort_by_key(|r| std::cmp::Reverse(r.valid.from));
        ended
            .into_iter()
            .take(self.tuning.past_per_fact)
            .map(|r| view::version(self.store, r, history))
            .collect()
    }
}

/// The facts that may lead a context: those scored near the best, at
/// most `most` of them.
pub(super) fn leading(
    facts: &[(FactVersion, f64)],
    most: usize,
    min_share: f64,
) -> impl Iterator<Item = &(FactVersion, f64)> {
    let best = facts.first().map_or(0.0, |(_, s)| *s);
    facts
        .iter()
        .filter(move |(_, s)| *s >= min_share * best)
        .take(most)
}

/// Whether `phrase` (a fact said without its subject) has a word whose
/// stem is one of the question's topic words (`wanted`), read by `lang`.
pub(super) fn names_asked(lang: &dyn Language, wanted: &HashSet<String>, phrase: &str) -> bool {
    lang.words(phrase)
        .iter()
        .any(|word| wanted.contains(&lang.stem(word)))
}

/// How much of its fused score a fact keeps at each salience stage: an
/// active memory all, a fading one half, a dormant one a quarter.
fn stage_weight(stage: salience::Stage, tuning: &Tuning) -> f64 {
    match stage {
        salience::Stage::Active => 1.0,
        salience::Stage::Fading => tuning.fading_weight,
        salience::Stage::Dormant => tuning.dormant_weight,
    }
}

/// The messages of `episode`'s session within `window` places of it in
/// the order they were written, nearest first (the one before, the one
/// after, then the next pair out).
pub(super) fn neighbours(
    store: &Store,
    rel: RelationId,
    episode: &Episode,
    window: usize,
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Result<Vec<Episode>> {
    let (Some(session), Some(tenant)) = (
        store.symbol(&episode.session),
        store.symbol(&episode.tenant),
    ) else {
        return Ok(Vec::new());
    };
    if window == 0 {
        return Ok(Vec::new());
    }
    let snapshot = store.snapshot();
    let mut scan = snapshot
        .scan(rel)
        .eq(Episode::SESSION, Value::Sym(session))
        .eq(Episode::TENANT, Value::Sym(tenant))
        .as_of(as_of);
    if let Some(known) = known_at {
        scan = scan.known_at(known);
    }
    // The session's order from its seqs alone; only the chosen rows are
    // read whole (a long session is thousands of messages).
    let mut order: Vec<(i64, Vec<Value>)> = Vec::new();
    let mut seqs: Vec<i64> = Vec::new();
    scan.for_each(|row| {
        if let Value::Int(seq) = row.value(Episode::SEQ).to_owned() {
            seqs.push(seq);
        }
    })
    .map_err(chronolog_engine::Error::from)?;
    seqs.sort_unstable();
    let Ok(at) = seqs.binary_search(&episode.seq) else {
        return Ok(Vec::new());
    };
    let mut wanted: Vec<i64> = Vec::new();
    for step in 1..=window {
        if let Some(i) = at.checked_sub(step) {
            wanted.push(seqs[i]);
        }
        if let Some(&seq) = seqs.get(at + step) {
            wanted.push(seq);
        }
    }
    scan.for_each(|row| {
        if let Value::Int(seq) = row.value(Episode::SEQ).to_owned()
            && wanted.contains(&seq)
        {
            order.push((seq, row.values()));
        }
    })
    .map_err(chronolog_engine::Error::from)?;
    // Nearest first, as `wanted` lists them.
    order.sort_by_key(|(seq, _)| wanted.iter().position(|w| w == seq));
    order
        .into_iter()
        .map(|(_, values)| Episode::from_values(store, &values))
        .collect()
}

/// The episode `id` as of `as_of`, as known at `known_at`.
fn episode_by_id(
    store: &Store,
    rel: RelationId,
    id: &str,
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Result<Option<Episode>> {
    let row = first_keyed(store, rel, Episode::ID, id, |scan| {
        let scan = scan.as_of(as_of);
        match known_at {
            Some(known) => scan.known_at(known),
            None => scan,
        }
    })?;
    row.map(|r| Episode::from_values(store, &r.values))
        .transpose()
}

/// The name an entity goes by ("Clara" for `t/clara`, a name corrected
/// since it was first said), for a context to write its facts with: the
/// id keeps the name's normalised form, lower-cased. The id's own name
/// when no entity row is stored.
pub(super) fn shown_name(store: &Store, entity: &str) -> String {
    let stored = Relations::of(store).ok().and_then(|rel| {
        let row = first_keyed(store, rel.entity, Entity::ID, entity, |s| s).ok()??;
        Entity::from_values(store, &row.values).ok().map(|e| e.name)
    });
    stored.unwrap_or_else(|| crate::ids::entity_name(entity))
}

/// Who said the episode `id` (a fact's source).
pub(super) fn source_speaker(store: &Store, episode: &str) -> Option<String> {
    let rel = Relations::of(store).ok()?.episode;
    let row = first_keyed(store, rel, Episode::ID, episode, |s| s.history()).ok()??;
    Episode::from_values(store, &row.values)
        .ok()
        .map(|e| e.role)
}
