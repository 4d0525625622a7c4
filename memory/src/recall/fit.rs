//! The budget's half of assembly: the gathered candidates cut to a token
//! budget (cl100k_base). A few leading facts (those near the best), the
//! messages behind them, the best messages, the messages said around the
//! first few of those, then the rest; an item that does not fit is left
//! out whole (a long message is shown by its sentences about the question
//! at any budget, the same at each); messages end up in the order they
//! were said.

use std::collections::HashSet;

use chronolog_engine::{Engine, RelationId, Store, Timestamp};

use super::Instants;
use super::context::{
    Context, FactLine, HEADER_EPISODES, HEADER_FACTS, Item, count_tokens, episode_item, fact_item,
    more_words_than,
};
use super::excerpt::{excerpt, rough_tokens, wanted};
use super::gather::{Gathered, leading, neighbours, shown_name, source_speaker};
use super::render::{MessageBudget, message_line, short_id};
use super::understand::Question;
use crate::error::Result;
use crate::schema::{Episode, Relations};
use crate::tuning::Tuning;
use crate::view::FactVersion;

/// Budgets at least twice this nest by construction (see [`fit`]); below
/// it a context is filled from nothing.
const NEST_FLOOR: usize = 250;

/// The tokens of the two headers a context may show (facts, messages),
/// counted once per process.
static HEADER_TOKENS: std::sync::LazyLock<(usize, usize)> =
    std::sync::LazyLock::new(|| (count_tokens(HEADER_FACTS), count_tokens(HEADER_EPISODES)));

/// Cuts the gathered candidates to `budget`. Also says the fewest tokens
/// a budget needs to hold any candidate it left out (`None`: none was
/// left out), so a context emptied by its budget says so.
///
/// Budgets nest: the context at `budget` starts from the context at half
/// of it (when that is at least [`NEST_FLOOR`]) and fills the rest in the
/// usual order, so a caller who doubles the budget never loses an item. A
/// greedy fill alone does not nest: a short message that fills a small
/// budget's last room can be crowded out at a larger one by a fact's
/// source message that now fits before it. The same budget always gives
/// the same context, whether asked alone or among others.
pub(crate) fn fit(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    gathered: &Gathered,
    at: Instants,
    budget: usize,
    tuning: &Tuning,
) -> Result<(Context, Option<usize>)> {
    let call = Fill {
        engine,
        tenant,
        question,
        gathered,
        at,
        tuning,
    };
    call.run(budget)
}

/// What every fill of one question reads.
#[derive(Clone, Copy)]
struct Fill<'a> {
    engine: &'a Engine,
    tenant: &'a str,
    question: &'a Question,
    gathered: &'a Gathered,
    at: Instants,
    tuning: &'a Tuning,
}

impl Fill<'_> {
    /// The context at `budget`, from the one at half of it.
    fn run(self, budget: usize) -> Result<(Context, Option<usize>)> {
        let seed = if budget / 2 >= NEST_FLOOR {
            Some(self.run(budget / 2)?.0)
        } else {
            None
        };
        fill(
            self.engine,
            self.tenant,
            self.question,
            self.gathered,
            self.at,
            budget,
            self.tuning,
            seed,
        )
    }
}

/// One fill: `seed`'s items first, then the candidates in order.
#[allow(clippy::too_many_arguments)] // `fit`'s arguments and the seed.
fn fill(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    gathered: &Gathered,
    at: Instants,
    budget: usize,
    tuning: &Tuning,
    seed: Option<Context>,
) -> Result<(Context, Option<usize>)> {
    let store = engine.store();
    let headers = HEADER_TOKENS.0 + HEADER_TOKENS.1;
    let mut fitter = Fitter {
        store,
        episode_rel: Relations::of(store)?.episode,
        tenant_prefix: format!("{tenant}/"),
        question,
        gathered,
        at,
        budget,
        tuning,
        headers,
        used: headers,
        smallest_left_out: None,
        messages: MessageBudget::new(),
        facts: Vec::new(),
        episodes: Vec::new(),
        taken: HashSet::new(),
    };
    if let Some(seed) = seed {
        fitter.seed(seed);
    }
    let support = fitter.leading_facts();
    fitter.supporting_messages(support);
    fitter.best_messages()?;
    let smallest = fitter.smallest_left_out;
    Ok((fitter.finish(), smallest))
}

/// A context being filled.
struct Fitter<'a> {
    store: &'a Store,
    episode_rel: RelationId,
    tenant_prefix: String,
    question: &'a Question,
    gathered: &'a Gathered,
    at: Instants,
    budget: usize,
    tuning: &'a Tuning,
    /// The headers' tokens.
    headers: usize,
    /// Tokens taken so far, the headers included.
    used: usize,
    /// The fewest tokens a budget needs to hold a candidate left out.
    smallest_left_out: Option<usize>,
    /// A message also costs its minute's time line, once per minute.
    messages: MessageBudget,
    facts: Vec<Item>,
    episodes: Vec<Item>,
    /// The episodes taken, by id.
    taken: HashSet<String>,
}

impl Fitter<'_> {
    /// Takes what the context at a smaller budget holds, as it holds it.
    fn seed(&mut self, seed: Context) {
        for item in seed.items {
            match item.kind {
                super::ItemKind::Fact => {
                    self.used += item.tokens;
                    self.facts.push(item);
                }
                super::ItemKind::Episode => self.take_message(item),
            }
        }
    }

    /// `text`'s tokens, counted once per question.
    fn tokens_of(&self, text: &str) -> usize {
        if let Some(&n) = self.gathered.tokens.borrow().get(text) {
            return n;
        }
        let n = count_tokens(text);
        self.gathered
            .tokens
            .borrow_mut()
            .insert(text.to_string(), n);
        n
    }

    /// Whether this very fact item is taken already (from the seed).
    fn holds_fact(&self, item: &Item) -> bool {
        self.facts
            .iter()
            .any(|f| f.id == item.id && f.text == item.text)
    }

    /// Takes a fact item if it fits and is not taken already.
    fn fits(&mut self, item: &mut Item) -> bool {
        if self.holds_fact(item) {
            return false;
        }
        item.tokens = self.tokens_of(&item.text);
        if self.used + item.tokens <= self.budget {
            self.used += item.tokens;
            true
        } else {
            self.left_out(item.tokens);
            false
        }
    }

    /// A candidate message as the context shows it: a long one by its
    /// sentences about the question ([`excerpt`]).
    fn message_item(&self, episode: &Episode, score: f64) -> Item {
        let mut item = episode_item(episode, score, &self.tenant_prefix);
        let most = self.tuning.excerpt_tokens;
        if most == 0 || rough_tokens(&episode.text) <= most {
            return item;
        }
        let cached = self.gathered.excerpts.borrow().get(&episode.id).cloned();
        let shown = match cached {
            Some(shown) => shown,
            None => {
                let lang = self.question.lang.reader();
                let wanted = self
                    .gathered
                    .wanted
                    .get_or_init(|| wanted(lang, &self.question.text));
                let shown = excerpt(
                    lang,
                    wanted,
                    &episode.text,
                    most,
                    &mut self.gathered.topical.borrow_mut(),
                );
                self.gathered
                    .excerpts
                    .borrow_mut()
                    .insert(episode.id.clone(), shown.clone());
                shown
            }
        };
        if let Some(shown) = shown {
            item.text = message_line(
                short_id(&episode.id, &self.tenant_prefix),
                &episode.role,
                &shown,
            );
        }
        item
    }

    /// Takes a message item if it fits, with its minute's time line.
    fn take_message(&mut self, mut item: Item) {
        if self.taken.contains(&item.id) {
            return;
        }
        // Once the context holds something, the smallest item left out is
        // not asked for, and a message with more words than there are
        // tokens left cannot fit: it is left out uncounted (most of a
        // long history's candidates, once the budget is nearly spent).
        let holds_something = !self.facts.is_empty() || !self.episodes.is_empty();
        if holds_something && more_words_than(&item.text, self.budget.saturating_sub(self.used)) {
            return;
        }
        item.tokens = self.tokens_of(&item.text);
        let at = item.at.unwrap_or(Timestamp::MIN);
        let cost = self
            .messages
            .cost_with(at, item.tokens, |line| self.tokens_of(line));
        if self.used + cost <= self.budget {
            self.used += cost;
            self.messages.take_at_cost(at, cost);
            self.taken.insert(item.id.clone());
            self.episodes.push(item);
        } else {
            self.left_out(cost);
        }
    }

    /// A candidate costing `tokens` did not fit.
    fn left_out(&mut self, tokens: usize) {
        let needed = self.headers + tokens;
        self.smallest_left_out = Some(self.smallest_left_out.map_or(needed, |n| n.min(needed)));
    }

    /// Facts lead, but only those ranked near the best fact, and a few: a
    /// long list of loosely related facts would take the budget from the
    /// messages that hold the evidence (LoCoMo's dev split: coverage at
    /// 2,000 tokens fell by half with every fact first). Returns the
    /// episodes the facts taken came from.
    fn leading_facts(&mut self) -> Vec<String> {
        let tuning = self.tuning;
        let most =
            (self.budget / tuning.tokens_per_leading_fact.max(1)).clamp(1, tuning.max_facts.max(1));
        let mut support = Vec::new();
        for (fact, score) in leading(&self.gathered.facts, most, tuning.fact_min_share) {
            // A value that ended by the instant leads only when the
            // question asks about the past: it is said past.
            let mut item = self.fact_item(fact, *score, fact.valid.to <= self.at.facts);
            // A fact the seed holds keeps its place; its past may fit now.
            let seeded = self.holds_fact(&item);
            if !seeded && !self.fits(&mut item) {
                continue;
            }
            support.extend(fact.source.iter().cloned());
            if !seeded {
                self.facts.push(item);
            }
            // "Where did I use to live?": what the slot held before, marked
            // past, right after what it holds now.
            for past in self.gathered.pasts.get(&fact.slot).into_iter().flatten() {
                let mut item = self.fact_item(past, *score, true);
                if self.fits(&mut item) {
                    support.extend(past.source.iter().cloned());
                    self.facts.push(item);
                }
            }
        }
        support
    }

    /// `fact` as a context writes it: by its subject's name, its
    /// message's speaker, and when it held as the question asks (`past`:
    /// it ended, and is said so).
    fn fact_item(&self, fact: &FactVersion, score: f64, past: bool) -> Item {
        let line = FactLine {
            subject: &shown_name(self.store, &fact.subject),
            speaker: source_speaker(self.store, fact.source.as_deref().unwrap_or_default()),
            asks_when: self.question.asks_when,
            past,
        };
        fact_item(fact, line, score, &self.tenant_prefix, self.question.lang)
    }

    /// The messages the leading facts were read from.
    fn supporting_messages(&mut self, support: Vec<String>) {
        for id in support {
            let score = self
                .gathered
                .episodes
                .iter()
                .find(|(e, _)| e.id == id)
                .map_or(0.0, |(_, s)| *s);
            if let Some(episode) = self.gathered.support.get(&id) {
                let item = self.message_item(episode, score);
                self.take_message(item);
            }
        }
    }

    /// The best messages, then the ones said around the first few of
    /// them, then the rest.
    fn best_messages(&mut self) -> Result<()> {
        let episodes = &self.gathered.episodes;
        let after = self.tuning.neighbours_after.min(episodes.len());
        for (episode, score) in &episodes[..after] {
            let item = self.message_item(episode, *score);
            self.take_message(item);
        }
        if !self.question.asks_list {
            self.neighbours()?;
        }
        for (episode, score) in &episodes[after..] {
            let item = self.message_item(episode, *score);
            self.take_message(item);
        }
        Ok(())
    }

    /// The messages around each anchor taken (read the first time a
    /// budget reaches them).
    fn neighbours(&mut self) -> Result<()> {
        let gathered = self.gathered;
        for ((episode, score), around) in gathered.episodes.iter().zip(&gathered.neighbours) {
            if !self.taken.contains(&episode.id) || self.used >= self.budget {
                continue;
            }
            let around = match around.get() {
                Some(read) => read,
                None => {
                    let read = neighbours(
                        self.store,
                        self.episode_rel,
                        episode,
                        self.tuning.neighbour_window,
                        self.at.messages,
                        self.at.known_at,
                    )?;
                    around.get_or_init(|| read)
                }
            };
            for near in around {
                let item = self.message_item(near, score * self.tuning.neighbour_share);
                self.take_message(item);
            }
        }
        Ok(())
    }

    /// The context: facts, then messages in the order they were said.
    /// Its tokens are the fill's sum, less a header the text leaves out:
    /// cl100k counts a text of newline-ended lines, each starting with a
    /// non-space, as the sum of its lines' counts (its pre-tokenizer never
    /// joins a line's last newline to what follows), and every line of a
    /// context is one; `count_tokens_is_additive_over_a_contexts_lines`
    /// holds it to that, and debug builds recount every context.
    fn finish(self) -> Context {
        let mut episodes = self.episodes;
        episodes.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
        let mut tokens = self.used;
        let (facts_header, episodes_header) = *HEADER_TOKENS;
        if self.facts.is_empty() {
            tokens -= facts_header;
        }
        if episodes.is_empty() {
            tokens -= episodes_header;
        }
        let mut items = self.facts;
        items.extend(episodes);
        let context = Context {
            abstain: false,
            reason: None,
            tokens,
            budget: self.budget,
            as_of: self.at.facts,
            as_of_because: self.question.as_of_because.clone(),
            items,
            channels: Vec::new(),
            ranked_episodes: self.gathered.ranked_episodes.clone(),
            evidence_score: None,
        };
        debug_assert_eq!(context.tokens, count_tokens(&context.to_text()));
        context
    }
}
