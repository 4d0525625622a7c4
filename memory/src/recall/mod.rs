//! The read side: a question in, the smallest context that holds the
//! evidence out, or an abstention with its reason.
//!
//! 1. [`understand`]: the question's entities, its time, whether it asks when.
//! 2. Channels, each a query in the language restricted to the tenant's
//!    rows (`tenant = $t`) and read at the question's instants: meaning
//!    (`near`) and words (`bm25`) over episodes and over facts, words over
//!    the messages of a speaker the question names, the graph around the
//!    question's entities (`hops`), recency and salience.
//! 3. Weighted reciprocal-rank fusion (`rrf`).
//! 4. [`abstain`]: too little evidence is said, not padded; a question
//!    about one person whose words are another's is refused.
//! 5. [`assemble`]: facts first, then the episodes behind them and the best
//!    other episodes, within a token budget (cl100k_base).

pub mod abstain;
pub mod assemble;
mod channels;
pub mod render;
pub mod understand;

use std::collections::HashMap;

use chronolog_engine::{Engine, Timestamp};

use crate::error::Result;
pub use assemble::{Context, Item, ItemKind};
pub use channels::Channel;
use understand::Question;

/// Questions' embeddings, kept so that asking the same question again
/// (at another budget or instant) runs no model. Emptied past 4,096.
pub(crate) type VectorCache = parking_lot::Mutex<HashMap<String, Vec<f32>>>;

/// How a search runs.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// The valid-time instant to answer at: facts and messages alike are
    /// read as of it, so nothing said later is seen. Default: now, with
    /// the facts read at the time the question names, if it names one.
    pub as_of: Option<Timestamp>,
    /// The transaction time to answer as known at (default: now).
    pub known_at: Option<Timestamp>,
    /// The most tokens (cl100k_base) the context may hold.
    pub budget: usize,
    /// How many items each channel contributes before fusion (twice as
    /// many for a question for several things, "What books has Tim
    /// read?", whose evidence is many messages).
    pub k: usize,
    /// The channels to use (default: all).
    pub channels: Vec<Channel>,
    /// "Now" for relative times in the question ("last week").
    pub now: Option<Timestamp>,
    /// Let the abstention gate speak (`false`: always assemble, for
    /// measuring what the gate costs and saves).
    pub abstain: bool,
    /// Salience halves in this many days (the salience channel decays
    /// scores to the question's instant); [`crate::Memory::search`] sets
    /// it from the memory's [`crate::Options`].
    pub half_life_days: f64,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            as_of: None,
            known_at: None,
            budget: 2_000,
            k: 20,
            channels: Channel::ALL.to_vec(),
            now: None,
            abstain: true,
            half_life_days: 30.0,
        }
    }
}

/// The instants a search reads at. A question's own time ("in 2022", "4
/// years ago", "last year") picks the facts that held then, but not the
/// messages: what was said later often tells of that time ("we went
/// camping last year"), and reading messages as of a time before the
/// memory began left nothing to search. Messages are read as of the
/// search itself (the caller's `as_of`, or now); the period the question
/// names still ranks what was said in it (`Channel::SaidThen`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instants {
    /// The valid time facts are read at.
    pub facts: Timestamp,
    /// The valid time messages are read at.
    pub messages: Timestamp,
    /// The transaction time both are read at; `None` is what is believed
    /// now.
    pub known_at: Option<Timestamp>,
}

/// One question's retrieval, done once: understanding, the channels,
/// fusion, the gate's budget-independent verdict and the candidates read
/// from the store. [`Retrieval::context_at`] cuts it to a budget, as many
/// times as there are budgets.
pub(crate) struct Retrieval<'e> {
    engine: &'e Engine,
    tenant: String,
    understood: Question,
    at: Instants,
    abstain: bool,
    rankings: Vec<channels::Ranked>,
    fused: Vec<(String, f64)>,
    verdict: Option<String>,
    channel_counts: Vec<(String, usize)>,
    gathered: assemble::Gathered,
    /// The ownership check does not depend on the budget: asked once, and
    /// only of a context the other checks let through.
    owners: Option<Option<String>>,
}

/// Retrieves `tenant`'s candidates for `question` (`options.budget` is
/// not used here: see [`Retrieval::context_at`]).
pub(crate) fn retrieve<'e>(
    engine: &'e Engine,
    vectors: &VectorCache,
    tenant: &str,
    question: &str,
    options: &SearchOptions,
) -> Result<Retrieval<'e>> {
    let now = options.now.unwrap_or_else(Timestamp::now);
    let understood = understand::understand(engine, tenant, question, now)?;
    let at = Instants {
        facts: options.as_of.or(understood.as_of).unwrap_or(now),
        messages: options.as_of.unwrap_or(now),
        known_at: options.known_at,
    };
    let parts = understand::parts(question);
    let mut rankings = Vec::new();
    for part in &parts {
        let part_understood = if parts.len() == 1 {
            understood.clone()
        } else {
            understand::understand(engine, tenant, part, now)?
        };
        rankings.extend(channels::run(
            engine,
            vectors,
            tenant,
            &part_understood,
            at,
            options,
        )?);
    }
    let fused = channels::fuse(&rankings);
    let verdict = abstain::judge(&understood, &rankings, &fused);
    let mut channel_counts: Vec<(String, usize)> = rankings
        .iter()
        .map(|r| (r.channel.name().to_string(), r.items.len()))
        .collect::<HashMap<_, _>>()
        .into_iter()
        .collect();
    channel_counts.sort();
    // Facts the question's words found lead; the others would take the
    // room of the messages, unless no channel over messages ran (then
    // every fact may lead: there is nothing else to show).
    let messages_searched = options.channels.iter().any(|c| {
        matches!(
            c,
            Channel::EpisodeMeaning
                | Channel::EpisodeWords
                | Channel::SpeakerWords
                | Channel::SpeakerMeaning
                | Channel::SaidThen
                | Channel::SaidThenMeaning
        )
    });
    let worded: Option<std::collections::HashSet<&str>> =
        (messages_searched && options.channels.contains(&Channel::FactWords)).then(|| {
            rankings
                .iter()
                .filter(|r| r.channel == Channel::FactWords)
                .flat_map(|r| r.items.iter().map(|(id, _)| id.as_str()))
                .collect()
        });
    let gathered = assemble::gather(
        engine,
        tenant,
        &understood,
        &fused,
        worded.as_ref(),
        at,
        options.half_life_days,
    )?;
    Ok(Retrieval {
        engine,
        tenant: tenant.to_string(),
        understood,
        at,
        abstain: options.abstain,
        rankings,
        fused,
        verdict,
        channel_counts,
        gathered,
        owners: None,
    })
}

impl Retrieval<'_> {
    /// The context within `budget` tokens, or the gate's abstention: what
    /// a search at that budget returns.
    pub(crate) fn context_at(&mut self, budget: usize) -> Result<Context> {
        let mut context = assemble::fit(
            self.engine,
            &self.tenant,
            &self.understood,
            &self.gathered,
            self.at,
            budget,
        )?;
        let texts: Vec<&str> = context.items.iter().map(|i| i.said.as_str()).collect();
        let verdict = match self
            .verdict
            .clone()
            .or_else(|| abstain::uncovered(&self.understood.text, &texts))
        {
            Some(reason) => Some(reason),
            None => match &self.owners {
                Some(known) => known.clone(),
                None => {
                    let found = abstain::owners_words(
                        self.engine,
                        &self.tenant,
                        &self.understood,
                        self.at,
                    )?;
                    self.owners = Some(found.clone());
                    found
                }
            },
        };
        if let (true, Some(reason)) = (self.abstain, verdict) {
            context.abstain = true;
            context.reason = Some(reason);
            context.items.clear();
            context.tokens = 0;
        } else if context.items.is_empty() {
            context.abstain = true;
            context.reason = Some("nothing in this memory holds at that time".into());
        }
        context.channels = self.channel_counts.clone();
        Ok(context)
    }
}

/// Why a search finds what it finds: the question as understood, each
/// channel's first candidates, the fusion with each candidate's channels
/// and ranks, and the gate's verdict. For analysts (`:recall --explain`).
pub(crate) fn explain(
    engine: &Engine,
    vectors: &VectorCache,
    tenant: &str,
    question: &str,
    options: &SearchOptions,
) -> Result<String> {
    use std::fmt::Write;
    let mut retrieval = retrieve(engine, vectors, tenant, question, options)?;
    let context = retrieval.context_at(options.budget)?;
    let Retrieval {
        understood,
        at,
        rankings,
        fused,
        ..
    } = &retrieval;
    let mut out = String::new();
    let _ = writeln!(out, "question: {question:?}");
    let _ = writeln!(out, "  words searched: {:?}", understood.text);
    let _ = writeln!(
        out,
        "  entities: {:?}; names unknown here: {:?}",
        understood.entities, understood.unknown_names
    );
    let _ = writeln!(
        out,
        "  as of {}{}{}; asks when: {}",
        at.facts,
        if at.messages == at.facts {
            String::new()
        } else {
            format!(" (messages as of {})", at.messages)
        },
        understood
            .as_of_because
            .as_deref()
            .map_or(String::new(), |w| format!(" ({w})")),
        understood.asks_when
    );
    for r in rankings {
        let _ = writeln!(
            out,
            "channel {} (weight {}): {} candidates",
            r.channel.name(),
            r.channel.weight(),
            r.items.len()
        );
        for (rank, (id, score)) in r.items.iter().take(5).enumerate() {
            let _ = writeln!(out, "  {}. {id} ({score:.3})", rank + 1);
        }
    }
    let _ = writeln!(out, "fused (weight / (10 + rank), summed):");
    for (rank, (id, score)) in fused.iter().take(10).enumerate() {
        let from: Vec<String> = rankings
            .iter()
            .filter_map(|r| {
                r.items
                    .iter()
                    .position(|(i, _)| i == id)
                    .map(|p| format!("{} #{}", r.channel.name(), p + 1))
            })
            .collect();
        let _ = writeln!(out, "  {}. {id} {score:.3} [{}]", rank + 1, from.join(", "));
    }
    let _ = match &context.reason {
        Some(reason) if context.abstain => writeln!(out, "verdict: abstain ({reason})"),
        _ => writeln!(
            out,
            "verdict: {} items, {} of {} tokens",
            context.items.len(),
            context.tokens,
            context.budget
        ),
    };
    Ok(out)
}
