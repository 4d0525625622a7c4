//! Context assembly: the fused candidates become items a reader can
//! follow (current facts first, with their valid intervals and what they
//! replaced; then the episodes behind them, the best other episodes and
//! the ones said around the very best, in the order they were said), each
//! tagged with its provenance, within a token budget counted with
//! cl100k_base. An item that does not fit is left out whole, never cut.
//! `gather` reads the candidates once; `fit` cuts them to a budget, as
//! many times as there are budgets.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use chronolog_engine::{Engine, Interval, Timestamp, Value};

use super::render::{MessageBudget, message_line, render_messages, short_id, short_time};
use super::understand::Question;
use crate::consolidate::salience;
use crate::error::Result;
use crate::schema;
use crate::view::{self, FactVersion, relation};

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// A consolidated fact.
    Fact,
    /// A message as it was said.
    Episode,
}

/// One piece of evidence in a context.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Fact or episode.
    pub kind: ItemKind,
    /// The fact's slot or the episode's id.
    pub id: String,
    /// The item as the prompt shows it.
    pub text: String,
    /// What the memory was told: the message, or the sentence a fact was
    /// read from.
    pub said: String,
    /// Who said it (an episode's role; a fact's source speaker).
    pub speaker: Option<String>,
    /// When it was said.
    pub at: Option<Timestamp>,
    /// A fact's valid interval.
    pub valid: Option<Interval>,
    /// The value a fact replaced.
    pub supersedes: Option<String>,
    /// The episodes it came from.
    pub sources: Vec<String>,
    /// Its fused score.
    pub score: f64,
    /// Its tokens (cl100k_base) as rendered: for a message its line, not
    /// the time line it shares with the messages of its minute.
    pub tokens: usize,
}

/// What a search returns: the items, or an abstention and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// The memory holds too little to answer: the items are empty and
    /// `reason` says why.
    pub abstain: bool,
    /// Why it abstained.
    pub reason: Option<String>,
    /// Tokens the rendered text takes (cl100k_base).
    pub tokens: usize,
    /// The budget asked for.
    pub budget: usize,
    /// The valid-time instant the context's facts hold at (its messages
    /// are read as of the search, which may be later).
    pub as_of: Timestamp,
    /// Why that instant (a time the question named), if not now.
    pub as_of_because: Option<String>,
    /// The items, in reading order.
    pub items: Vec<Item>,
    /// How many candidates each channel found.
    pub channels: Vec<(String, usize)>,
    /// Every candidate as the episodes it rests on, best first, each
    /// once (a fact counts as its source episodes): the ranking recall is
    /// measured on, whatever the budget let into `items`.
    pub ranked_episodes: Vec<String>,
}

/// Tokens of `text` in cl100k_base (the tokenizer of GPT-4-class models),
/// loaded from the crate's bundled ranks: no network.
pub fn count_tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len()
}

const HEADER_FACTS: &str = "Facts:\n";
/// The most facts a context leads with.
const MAX_FACTS: usize = 8;
/// One leading fact per this many tokens of budget (2 at 500, 8 at 2,000),
/// and at least one: at small budgets the messages matter more (coverage
/// at 500 tokens on LoCoMo's dev split: 0.22 with 8 facts, 0.41 with this
/// rule), but the best fact is the cheapest answer at any budget.
const TOKENS_PER_LEADING_FACT: usize = 250;
/// A fact leads only with at least this share of the best fact's score.
const FACT_MIN_SHARE: f64 = 0.5;
const HEADER_EPISODES: &str = "Messages (times in UTC):\n";
/// The most past values shown under a leading fact when the question asks
/// about the past.
const PAST_PER_FACT: usize = 2;
/// The messages said around the best few ("Did you hear back?" then
/// "Yes, they offered me the job") come after the first
/// `NEIGHBOURS_AFTER` messages and before the rest: each of the first
/// `NEIGHBOUR_ANCHORS` messages brings the ones within `NEIGHBOUR_WINDOW`
/// places of it in its session. Chosen on LoCoMo's dev split
/// (`docs/evaluation.md`): the evidence a question needs is often the
/// turn next to the one that matches it, and a budget's first messages
/// are better spent on the best matches (neighbours first cost 0.035 of
/// coverage at 500 tokens). A question for several things
/// ([`Question::asks_list`]) gets no neighbours: its evidence is more
/// matches, each a little lower.
const NEIGHBOURS_AFTER: usize = 10;
const NEIGHBOUR_ANCHORS: usize = 5;
const NEIGHBOUR_WINDOW: usize = 2;
/// A neighbour's score, against its anchor's (what goes first should the
/// joined text overrun the budget).
const NEIGHBOUR_SHARE: f64 = 0.5;

impl Context {
    /// The context as text to paste into a prompt.
    pub fn to_text(&self) -> String {
        if self.abstain {
            return format!(
                "No memory answers this: {}.\n",
                self.reason.as_deref().unwrap_or("too little evidence")
            );
        }
        let mut out = String::new();
        let facts: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Fact)
            .collect();
        let episodes: Vec<&Item> = self
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Episode)
            .collect();
        if !facts.is_empty() {
            out.push_str(HEADER_FACTS);
            for item in facts {
                out.push_str(&item.text);
            }
        }
        if !episodes.is_empty() {
            out.push_str(HEADER_EPISODES);
            out.push_str(&render_messages(
                episodes
                    .iter()
                    .map(|i| (i.at.unwrap_or(Timestamp::MIN), i.text.as_str())),
            ));
        }
        out
    }
}

/// The fused candidates read from the store, scored and in order: what
/// a context at any budget is cut from.
pub(crate) struct Gathered {
    /// Facts as of the instant, by score (scaled by salience stage).
    facts: Vec<(FactVersion, f64)>,
    /// Per fact slot, its values that ended by the instant, most recent
    /// first, when the question asks about the past.
    pasts: HashMap<String, Vec<FactVersion>>,
    /// Episodes in fused order.
    episodes: Vec<(Episode, f64)>,
    /// The messages behind the facts that may lead, by id.
    support: HashMap<String, Episode>,
    /// The messages around each of the first [`NEIGHBOUR_ANCHORS`]
    /// episodes, nearest first: read when a budget first reaches them
    /// (a small one never does).
    neighbours: Vec<OnceCell<Vec<Episode>>>,
    /// Every candidate episode, the sources of the facts included, in
    /// fused order.
    ranked_episodes: Vec<String>,
}

/// Reads the fused candidates: the part of assembly that does not depend
/// on the budget. A fact may lead a context only when `worded` (the facts
/// a word search found; `None`: every fact may lead) holds it: the
/// graph, meaning and salience channels bring a person's facts whatever
/// is asked (on LoCoMo's dev split their pet and hobby facts led a sixth
/// of all contexts), and a fact that shares no word with the question is
/// seldom its answer: leading, it takes the budget from the messages
/// (coverage at 500 tokens 0.592 -> 0.616, at 2,000 0.788 -> 0.792).
/// Its episodes still count in the ranking.
pub(crate) fn gather(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    fused: &[(String, f64)],
    worded: Option<&HashSet<&str>>,
    at: super::Instants,
    half_life_days: f64,
) -> Result<Gathered> {
    let (as_of, known_at) = (at.facts, at.known_at);
    let store = engine.store();
    let snapshot = store.snapshot();
    let fact_rel = relation(store, schema::FACT)?;
    let episode_rel = relation(store, schema::EPISODE)?;
    let tenant_prefix = format!("{tenant}/");
    let mut facts: Vec<(FactVersion, f64)> = Vec::new();
    // Per leading-fact slot, its values that ended by the instant, when
    // the question asks about the past: most recent first.
    let mut pasts: HashMap<String, Vec<FactVersion>> = HashMap::new();
    let mut episodes: Vec<(Episode, f64)> = Vec::new();
    let mut ranked_episodes: Vec<String> = Vec::new();
    let mut rank = |id: &str| {
        if !ranked_episodes.iter().any(|e| e == id) {
            ranked_episodes.push(id.to_string());
        }
    };
    for (id, score) in fused {
        // Ids name their tenant; anything else is not this tenant's.
        if !id.starts_with(&tenant_prefix) {
            continue;
        }
        let Some(sym) = store.symbol(id) else {
            continue;
        };
        let scan = |rel, instant| {
            let mut scan = snapshot.scan(rel).eq(0, Value::Sym(sym)).as_of(instant);
            if let Some(known) = known_at {
                scan = scan.known_at(known);
            }
            scan.collect().map_err(chronolog_engine::Error::from)
        };
        let fact_rows = scan(fact_rel, at.facts)?;
        if let Some(row) = fact_rows.first() {
            let history = snapshot
                .scan(fact_rel)
                .history()
                .eq(0, Value::Sym(sym))
                .collect()
                .map_err(chronolog_engine::Error::from)?;
            let fact = view::version(store, row, &history)?;
            for source in fact.source.iter().chain(&fact.sources) {
                rank(source);
            }
            if worded.is_some_and(|worded| !worded.contains(id.as_str())) {
                continue;
            }
            if question.asks_past {
                let believed = |r: &chronolog_engine::RowVersion| match known_at {
                    Some(k) => r.tx.from <= k && k < r.tx.to,
                    None => r.tx.to == Timestamp::MAX,
                };
                let mut ended: Vec<&chronolog_engine::RowVersion> = history
                    .iter()
                    .filter(|r| r.valid.to <= as_of && believed(r))
                    .collect();
                ended.sort_by_key(|r| std::cmp::Reverse(r.valid.from));
                let versions = ended
                    .into_iter()
                    .take(PAST_PER_FACT)
                    .map(|r| view::version(store, r, &history))
                    .collect::<Result<Vec<_>>>()?;
                pasts.insert(fact.slot.clone(), versions);
            }
            facts.push((fact, *score));
            continue;
        }
        if let Some(row) = scan(episode_rel, at.messages)?.first() {
            let episode = Episode::from_row(store, &row.values);
            rank(&episode.id);
            episodes.push((episode, *score));
        }
    }
    // Forgetting lowers eligibility: a fact's score is scaled by its
    // salience stage at the instant, so a fading or dormant fact leads
    // only when it matches clearly better than the active ones.
    let salience_rel = relation(store, schema::SALIENCE)?;
    for (fact, score) in &mut facts {
        if let Some((salience, _, last)) = salience::read(store, salience_rel, &fact.slot)? {
            let decayed = salience::decayed(salience, last, as_of, half_life_days);
            *score *= stage_weight(salience::stage(decayed));
        }
    }
    facts.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut support: HashMap<String, Episode> = HashMap::new();
    for (fact, _) in leading(&facts, MAX_FACTS) {
        let pasts = pasts.get(&fact.slot).into_iter().flatten();
        for id in fact
            .source
            .iter()
            .chain(pasts.filter_map(|p| p.source.as_ref()))
        {
            if support.contains_key(id) {
                continue;
            }
            if let Some(episode) = episode_by_id(store, episode_rel, id, at.messages, known_at)? {
                support.insert(id.clone(), episode);
            }
        }
    }
    let neighbours = (0..episodes.len().min(NEIGHBOUR_ANCHORS))
        .map(|_| OnceCell::new())
        .collect();
    Ok(Gathered {
        facts,
        pasts,
        episodes,
        support,
        neighbours,
        ranked_episodes,
    })
}

/// The facts that may lead a context: those scored near the best, at
/// most `most` of them.
fn leading(facts: &[(FactVersion, f64)], most: usize) -> impl Iterator<Item = &(FactVersion, f64)> {
    let best = facts.first().map_or(0.0, |(_, s)| *s);
    facts
        .iter()
        .filter(move |(_, s)| *s >= FACT_MIN_SHARE * best)
        .take(most)
}

/// Cuts the gathered candidates to `budget`: the leading facts, the
/// messages behind them, the best messages and their neighbours.
pub(crate) fn fit(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    gathered: &Gathered,
    at: super::Instants,
    budget: usize,
) -> Result<Context> {
    let store = engine.store();
    let episode_rel = relation(store, schema::EPISODE)?;
    let tenant_prefix = format!("{tenant}/");
    let (facts, pasts, episodes) = (&gathered.facts, &gathered.pasts, &gathered.episodes);
    // The episodes behind the chosen facts come next, then the others.
    let mut items: Vec<Item> = Vec::new();
    let mut used = count_tokens(HEADER_FACTS) + count_tokens(HEADER_EPISODES);
    let mut taken_episodes: HashSet<String> = HashSet::new();
    let fits = |item: &mut Item, used: &mut usize| {
        item.tokens = count_tokens(&item.text);
        if *used + item.tokens <= budget {
            *used += item.tokens;
            true
        } else {
            false
        }
    };
    // A message also costs its minute's time line, once per minute.
    let mut messages = MessageBudget::new();
    let mut fits_message = |item: &mut Item, used: &mut usize| {
        item.tokens = count_tokens(&item.text);
        let at = item.at.unwrap_or(Timestamp::MIN);
        let cost = messages.cost(at, item.tokens);
        if *used + cost <= budget {
            *used += cost;
            messages.take(at, item.tokens);
            true
        } else {
            false
        }
    };
    // Facts lead, but only those ranked near the best fact, and a few: a
    // long list of loosely related facts would take the budget from the
    // messages that hold the evidence (LoCoMo's dev split: coverage at
    // 2,000 tokens fell by half with every fact first).
    let mut support: Vec<String> = Vec::new();
    for (fact, score) in leading(
        facts,
        (budget / TOKENS_PER_LEADING_FACT).clamp(1, MAX_FACTS),
    ) {
        let mut item = fact_item(
            store,
            fact,
            *score,
            question.asks_when,
            false,
            &tenant_prefix,
        );
        if fits(&mut item, &mut used) {
            support.extend(fact.source.iter().cloned());
            items.push(item);
            // "Where did I use to live?": what the slot held before, marked
            // past, right after what it holds now.
            for past in pasts.get(&fact.slot).into_iter().flatten() {
                let mut item = fact_item(store, past, *score, true, true, &tenant_prefix);
                if fits(&mut item, &mut used) {
                    support.extend(past.source.iter().cloned());
                    items.push(item);
                }
            }
        }
    }
    let mut episode_items: Vec<Item> = Vec::new();
    for id in support {
        if taken_episodes.contains(&id) {
            continue;
        }
        let score = episodes
            .iter()
            .find(|(e, _)| e.id == id)
            .map_or(0.0, |(_, s)| *s);
        if let Some(episode) = gathered.support.get(&id) {
            let mut item = episode_item(episode, score, &tenant_prefix);
            if fits_message(&mut item, &mut used) {
                taken_episodes.insert(id);
                episode_items.push(item);
            }
        }
    }
    // The best messages, then the ones said around the first few of them,
    // then the rest: `None` stands for the neighbours.
    let after = NEIGHBOURS_AFTER.min(episodes.len());
    let plan = (0..after)
        .map(Some)
        .chain(std::iter::once(None))
        .chain((after..episodes.len()).map(Some));
    for step in plan {
        let Some(i) = step else {
            if question.asks_list {
                continue;
            }
            let anchors = episodes.iter().zip(&gathered.neighbours);
            for ((episode, score), around) in anchors {
                if !taken_episodes.contains(&episode.id) || used >= budget {
                    continue;
                }
                let around = match around.get() {
                    Some(read) => read,
                    None => {
                        let read = neighbours(
                            store,
                            episode_rel,
                            episode,
                            NEIGHBOUR_WINDOW,
                            at.messages,
                            at.known_at,
                        )?;
                        around.get_or_init(|| read)
                    }
                };
                for near in around {
                    if taken_episodes.contains(&near.id) {
                        continue;
                    }
                    let mut item = episode_item(near, score * NEIGHBOUR_SHARE, &tenant_prefix);
                    if fits_message(&mut item, &mut used) {
                        taken_episodes.insert(near.id.clone());
                        episode_items.push(item);
                    }
                }
            }
            continue;
        };
        let (episode, score) = &episodes[i];
        if taken_episodes.contains(&episode.id) {
            continue;
        }
        let mut item = episode_item(episode, *score, &tenant_prefix);
        if fits_message(&mut item, &mut used) {
            taken_episodes.insert(episode.id.clone());
            episode_items.push(item);
        }
    }
    // Messages in the order they were said.
    episode_items.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
    items.extend(episode_items);
    let mut context = Context {
        abstain: false,
        reason: None,
        tokens: 0,
        budget,
        as_of: at.facts,
        as_of_because: question.as_of_because.clone(),
        items,
        channels: Vec::new(),
        ranked_episodes: gathered.ranked_episodes.clone(),
    };
    context.tokens = count_tokens(&context.to_text());
    // Items were counted one by one; should the joined text tokenize
    // longer, the least-scored items go until it fits.
    while context.tokens > budget && !context.items.is_empty() {
        let weakest = context
            .items
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.score.total_cmp(&b.1.score))
            .map_or(0, |(i, _)| i);
        context.items.remove(weakest);
        context.tokens = count_tokens(&context.to_text());
    }
    Ok(context)
}

impl Context {
    /// The context as JSON: `{"abstain", "reason", "tokens", "budget",
    /// "as_of", "items": [{"kind", "id", "text", "speaker", "at",
    /// "valid_from", "valid_to", "supersedes", "sources", "score"}]}`;
    /// times in ISO 8601, `null` for an open end.
    pub fn to_json(&self) -> serde_json::Value {
        // An open end (a fact that still holds) is null, as in
        // `FactVersion::to_json`.
        let time = |t: Option<Timestamp>| {
            t.filter(|t| *t != Timestamp::MIN && *t != Timestamp::MAX)
                .map(|t| serde_json::Value::String(t.to_string()))
        };
        serde_json::json!({
            "abstain": self.abstain,
            "reason": self.reason,
            "tokens": self.tokens,
            "budget": self.budget,
            "as_of": self.as_of.to_string(),
            "as_of_because": self.as_of_because,
            "channels": self.channels.iter().map(|(c, n)| serde_json::json!({"channel": c, "candidates": n})).collect::<Vec<_>>(),
            "items": self.items.iter().map(|i| serde_json::json!({
                "kind": match i.kind { ItemKind::Fact => "fact", ItemKind::Episode => "episode" },
                "id": i.id,
                "text": i.text.trim_end(),
                "speaker": i.speaker,
                "at": time(i.at),
                "valid_from": time(i.valid.map(|v| v.from)),
                "valid_to": time(i.valid.map(|v| v.to)),
                "supersedes": i.supersedes,
                "sources": i.sources,
                // Four decimals: enough to order by, and stable to print.
                "score": (i.score * 1e4).round() / 1e4,
            })).collect::<Vec<_>>(),
        })
    }
}

/// How much of its fused score a fact keeps at each salience stage: an
/// active memory all, a fading one half, a dormant one a quarter.
fn stage_weight(stage: salience::Stage) -> f64 {
    match stage {
        salience::Stage::Active => 1.0,
        salience::Stage::Fading => 0.5,
        salience::Stage::Dormant => 0.25,
    }
}

/// An episode as a context shows it.
pub(crate) struct Episode {
    pub(crate) id: String,
    pub(crate) role: String,
    pub(crate) at: Timestamp,
    pub(crate) text: String,
    /// Its tenant and session (symbols) and its place in the write order:
    /// what finds the messages around it.
    tenant: Value,
    session: Value,
    seq: i64,
}

impl Episode {
    fn from_row(store: &chronolog_engine::Store, values: &[Value]) -> Episode {
        let name = |v: Option<&Value>| view::text_of(store, v);
        Episode {
            id: name(values.first()),
            role: name(values.get(3)),
            at: match values.get(5) {
                Some(Value::Time(t)) => *t,
                _ => Timestamp(0),
            },
            text: name(values.get(6)),
            tenant: values.get(1).cloned().unwrap_or(Value::Null),
            session: values.get(2).cloned().unwrap_or(Value::Null),
            seq: match values.get(4) {
                Some(Value::Int(n)) => *n,
                _ => 0,
            },
        }
    }
}

/// The messages of `episode`'s session within `window` places of it in
/// the order they were written, nearest first (the one before, the one
/// after, then the next pair out).
fn neighbours(
    store: &chronolog_engine::Store,
    rel: chronolog_engine::RelationId,
    episode: &Episode,
    window: usize,
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Result<Vec<Episode>> {
    if window == 0 || matches!(episode.session, Value::Null) {
        return Ok(Vec::new());
    }
    let snapshot = store.snapshot();
    let mut scan = snapshot
        .scan(rel)
        .eq(2, episode.session.clone())
        .eq(1, episode.tenant.clone())
        .as_of(as_of);
    if let Some(known) = known_at {
        scan = scan.known_at(known);
    }
    // The session's order from its seqs alone; only the chosen rows are
    // read whole (a long session is thousands of messages).
    let mut order: Vec<(i64, Vec<Value>)> = Vec::new();
    let mut seqs: Vec<i64> = Vec::new();
    scan.for_each(|row| {
        if let Value::Int(seq) = row.value(4).to_owned() {
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
        if let Value::Int(seq) = row.value(4).to_owned()
            && wanted.contains(&seq)
        {
            order.push((seq, row.values()));
        }
    })
    .map_err(chronolog_engine::Error::from)?;
    // Nearest first, as `wanted` lists them.
    order.sort_by_key(|(seq, _)| wanted.iter().position(|w| w == seq));
    Ok(order
        .into_iter()
        .map(|(_, values)| Episode::from_row(store, &values))
        .collect())
}

pub(crate) fn episode_by_id(
    store: &chronolog_engine::Store,
    rel: chronolog_engine::RelationId,
    id: &str,
    as_of: Timestamp,
    known_at: Option<Timestamp>,
) -> Result<Option<Episode>> {
    let Some(sym) = store.symbol(id) else {
        return Ok(None);
    };
    let snapshot = store.snapshot();
    let mut scan = snapshot.scan(rel).eq(0, Value::Sym(sym)).as_of(as_of);
    if let Some(known) = known_at {
        scan = scan.known_at(known);
    }
    let rows = scan.collect().map_err(chronolog_engine::Error::from)?;
    Ok(rows.first().map(|r| Episode::from_row(store, &r.values)))
}

fn episode_item(episode: &Episode, score: f64, tenant_prefix: &str) -> Item {
    Item {
        kind: ItemKind::Episode,
        id: episode.id.clone(),
        text: message_line(
            short_id(&episode.id, tenant_prefix),
            &episode.role,
            &episode.text,
        ),
        said: episode.text.clone(),
        speaker: Some(episode.role.clone()),
        at: Some(episode.at),
        valid: None,
        supersedes: None,
        sources: vec![episode.id.clone()],
        score,
        tokens: 0,
    }
}

fn fact_item(
    store: &chronolog_engine::Store,
    fact: &FactVersion,
    score: f64,
    asks_when: bool,
    past: bool,
    tenant_prefix: &str,
) -> Item {
    let subject = fact
        .subject
        .split_once('/')
        .map_or(fact.subject.as_str(), |(_, name)| name);
    let until = if fact.valid.to == Timestamp::MAX {
        "now".to_string()
    } else {
        short_time(fact.valid.to)
    };
    let replaced = fact
        .supersedes
        .as_ref()
        .map_or(String::new(), |s| format!("; replaced {s}"));
    let when = if past {
        format!(
            " (past: from {} until {until}{replaced})",
            short_time(fact.valid.from)
        )
    } else if asks_when {
        format!(
            " (from {} until {until}{replaced})",
            short_time(fact.valid.from)
        )
    } else {
        format!(" ({} .. {until}{replaced})", short_time(fact.valid.from))
    };
    let source = fact.source.clone().unwrap_or_default();
    let speaker = source_speaker(store, &source);
    Item {
        kind: ItemKind::Fact,
        id: fact.slot.clone(),
        text: format!(
            "- {subject} {} {}{when} [from {}]\n",
            fact.predicate.replace('_', " "),
            fact.object,
            short_id(&source, tenant_prefix)
        ),
        said: fact.text.clone(),
        speaker,
        at: None,
        valid: Some(fact.valid),
        supersedes: fact.supersedes.clone(),
        sources: fact.sources.clone(),
        score,
        tokens: 0,
    }
}

fn source_speaker(store: &chronolog_engine::Store, episode: &str) -> Option<String> {
    let rel = relation(store, schema::EPISODE).ok()?;
    let sym = store.symbol(episode)?;
    let rows = store
        .snapshot()
        .scan(rel)
        .history()
        .eq(0, Value::Sym(sym))
        .collect()
        .ok()?;
    match rows.first()?.values.get(3) {
        Some(Value::Sym(s)) => store.symbol_name(*s).ok().map(|n| n.to_string()),
        _ => None,
    }
}
