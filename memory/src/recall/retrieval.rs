//! One question's retrieval: understood, its channels run and fused, the
//! gate's budget-free checks asked and the candidates gathered, once; then
//! cut to each budget.

use std::collections::{HashMap, HashSet};

use chronolog_engine::{Engine, Timestamp};

use super::channels::{self, Ranked};
use super::gather::{self, Gathered};
use super::rerank::{self, Reread};
use super::understand::{self, Question};
use super::{Channel, Context, Instants, Reader, SearchOptions, abstain, fit, fuse};
use crate::error::Result;
use crate::lang::Lang;

/// One question's retrieval, done once: understanding, the channels,
/// fusion, the gate's budget-independent verdict and the candidates read
/// from the store. [`Retrieval::context_at`] cuts it to a budget, as many
/// times as there are budgets.
pub(crate) struct Retrieval<'e> {
    reader: Reader<'e>,
    tenant: String,
    /// The facts the question asks about by their predicate (slot ids).
    asked: Vec<String>,
    pub(super) understood: Question,
    pub(super) at: Instants,
    abstain: bool,
    /// The search's stop, checked again for each budget.
    stop: crate::Stop,
    pub(super) rankings: Vec<Ranked>,
    pub(super) fused: Vec<(String, f64)>,
    verdict: Option<String>,
    channel_counts: Vec<(String, usize)>,
    pub(super) gathered: Gathered,
    /// What the reranker read, in its order, and its name.
    pub(super) reread: Option<(String, Vec<Reread>)>,
    /// The reranker's score of the best message it read.
    evidence: Option<f32>,
    /// Whether that score says the message answers: the word gates defer.
    answered: bool,
    /// The question's words cannot judge: some of the memory is in
    /// another language, where no word of it need occur; the word gates
    /// defer to meaning.
    pub(super) crossing: bool,
    /// The memory holds the question's language and another
    /// ([`crate::tenant_lang::Spaces::mixed`]).
    pub(super) mixed: bool,
    /// The ownership check does not depend on the budget: asked once, and
    /// only of a context the other checks let through.
    owners: Option<Option<String>>,
}

/// Retrieves `tenant`'s candidates for `question`, read in `lang`
/// (`options.budget` is not used here: see [`Retrieval::context_at`]).
pub(crate) fn retrieve<'e>(
    reader: Reader<'e>,
    tenant: &str,
    question: &str,
    lang: Lang,
    options: &SearchOptions,
) -> Result<Retrieval<'e>> {
    let Reader {
        engine,
        tuning,
        reranker,
        ..
    } = reader;
    options.stop.check()?;
    let now = options.now.unwrap_or_else(Timestamp::now);
    let understood = understand::understand(engine, tenant, question, lang, now)?;
    let at = Instants {
        facts: options.as_of.or(understood.as_of).unwrap_or(now),
        messages: options.as_of.unwrap_or(now),
        known_at: options.known_at,
    };
    let parts = lang.reader().question_parts(question);
    let mut rankings = Vec::new();
    for part in &parts {
        let part_understood = if parts.len() == 1 {
            understood.clone()
        } else {
            understand::understand(engine, tenant, part, lang, now)?
        };
        rankings.extend(channels::run(
            reader,
            tenant,
            &part_understood,
            at,
            options,
        )?);
    }
    options.stop.check()?;
    let mut fused = fuse::fuse(&rankings, tuning);
    let asked = asked_facts(engine, tenant, &understood, at)?;
    // What the channels found, before the facts asked about join it.
    let found = fused.len();
    // A fact the question asks about by its predicate is a candidate,
    // after everything the channels found.
    let last = fused.last().map_or(0.0, |(_, score)| *score);
    for slot in &asked {
        if !fused.iter().any(|(id, _)| id == slot) {
            fused.push((slot.clone(), last));
        }
    }
    let channel_counts = channel_counts(&rankings);
    let worded = worded_leads(&rankings, &asked, options);
    // Words judge only within one language: where none of the memory is
    // in the question's, the reranker (which reads only its own language,
    // in the question and in the memory) keeps fused order; where any of
    // it is in another, the word gates and the reranker's floor defer.
    let spaces = reader.languages.spaces(tenant, lang)?;
    let crossing = spaces.crossing || spaces.mixed;
    let judge = reranker.filter(|reranker| {
        options.rerank_depth > 1
            && !spaces.crossing
            && reranker.language().is_none_or(|code| code == lang.code())
    });
    let mut gathered = gather::gather(
        engine,
        tenant,
        &understood,
        &fused,
        gather::Leads {
            worded: worded.as_ref(),
            asked: &asked,
            judge,
        },
        at,
        tuning,
    )?;
    options.stop.check()?;
    let candidates = gathered.episodes.len();
    let reread = match judge {
        Some(reranker) => {
            let order = rerank::rerank(
                engine,
                &mut gathered,
                question,
                reranker,
                options.rerank_depth,
                tuning,
            )?;
            Some((reranker.name(), order))
        }
        _ => None,
    };
    let evidence = reread
        .as_ref()
        .and_then(|(_, order)| order.first())
        .map(|best| best.score);
    // A low score says nothing here answers only of what was read: in a
    // memory with more candidate messages than the reranker reads, the
    // answer may be among the rest (LongMemEval's temporal questions,
    // whose evidence ranks below the first 20).
    let read_all = reread
        .as_ref()
        .is_some_and(|(_, order)| order.len() >= candidates);
    options.stop.check()?;
    // The reranker's judgement that the best message answers stands in
    // for shared words ("Which city am I living in now?" beside "I live
    // in Osaka"); its judgement that none does outweighs them.
    let answered = evidence.is_some_and(|e| f64::from(e) >= tuning.evidence_answers);
    let verdict = abstain::judge(
        &understood,
        &rankings,
        &fused[..found],
        !asked.is_empty() || answered,
        crossing,
    )
    .or_else(|| {
        weak_evidence(
            evidence.filter(|_| read_all && !crossing),
            &asked,
            tuning.evidence_floor,
        )
    });
    Ok(Retrieval {
        reader,
        tenant: tenant.to_string(),
        asked,
        understood,
        at,
        abstain: options.abstain,
        stop: options.stop.clone(),
        rankings,
        fused,
        verdict,
        channel_counts,
        gathered,
        reread,
        evidence,
        answered,
        crossing,
        mixed: spaces.mixed,
        owners: None,
    })
}

/// `Some(reason)` when the reranker read every candidate message and
/// judged none an answer: the words the question shares with this memory
/// ("year" in "How much do I earn per year?", "Tom" in "When is Tom's
/// birthday?") are then no evidence. A fact the question asks about by
/// its predicate is evidence of its own, whatever the messages say.
fn weak_evidence(evidence: Option<f32>, asked: &[String], floor: f64) -> Option<String> {
    let best = f64::from(evidence?);
    (asked.is_empty() && best < floor).then(|| {
        format!(
            "nothing found answers the question (the best message read scores {best:.1}, below {floor:.1})"
        )
    })
}

/// How many candidates each channel gave, by channel name.
fn channel_counts(rankings: &[Ranked]) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = rankings
        .iter()
        .map(|r| (r.channel.name().to_string(), r.items.len()))
        .collect::<HashMap<_, _>>()
        .into_iter()
        .collect();
    counts.sort();
    counts
}

/// The facts that may lead a context: those the question's words found
/// and those it asks about by their predicate; the others would take the
/// room of the messages. `None` (every fact may lead) when no channel
/// over messages ran: there is nothing else to show.
fn worded_leads<'r>(
    rankings: &'r [Ranked],
    asked: &'r [String],
    options: &SearchOptions,
) -> Option<HashSet<&'r str>> {
    let messages_searched = options.channels.iter().any(|c| {
        matches!(
            c,
            Channel::EpisodeMeaning
                | Channel::SentenceMeaning
                | Channel::MultilingualMeaning
                | Channel::EpisodeWords
                | Channel::SpeakerWords
                | Channel::SpeakerMeaning
                | Channel::UserWords
                | Channel::UserMeaning
                | Channel::SaidThen
                | Channel::SaidThenMeaning
        )
    });
    (messages_searched && options.channels.contains(&Channel::FactWords)).then(|| {
        rankings
            .iter()
            .filter(|r| r.channel == Channel::FactWords)
            .flat_map(|r| r.items.iter().map(|(id, _)| id.as_str()))
            .chain(asked.iter().map(String::as_str))
            .collect()
    })
}

/// The slots of the facts `question` asks about by their predicate (its
/// words, read by its language: "employer" asks `works_at`), held at the
/// question's instant by the entities it names ("my" names the user).
/// None when it names no entity: the question is then about someone this
/// memory does not know, and another's facts are no answer. A question
/// about the past ("Do I still play the cello?", "Where did I use to
/// work?") also asks the slots whose every value ended by then: that it
/// ended is the answer.
fn asked_facts(
    engine: &Engine,
    tenant: &str,
    question: &Question,
    at: Instants,
) -> Result<Vec<String>> {
    if question.predicates.is_empty() || question.entities.is_empty() {
        return Ok(Vec::new());
    }
    let asks = |f: &crate::view::FactVersion| {
        question.predicates.contains(&f.predicate) && question.entities.contains(&f.subject)
    };
    let mut slots: Vec<String> = crate::view::facts(engine, tenant, Some(at.facts), at.known_at)?
        .into_iter()
        .filter(asks)
        .map(|f| f.slot)
        .collect();
    if question.asks_past {
        let mut ended: Vec<String> = crate::view::timeline(engine, tenant, at.known_at)?
            .into_iter()
            .filter(|f| asks(f) && f.valid.to <= at.facts && !slots.contains(&f.slot))
            .map(|f| f.slot)
            .collect();
        ended.sort();
        ended.dedup();
        slots.extend(ended);
    }
    Ok(slots)
}

impl Retrieval<'_> {
    /// The context within `budget` tokens, or the gate's abstention: what
    /// a search at that budget returns.
    pub(crate) fn context_at(&mut self, budget: usize) -> Result<Context> {
        self.stop.check()?;
        let (mut context, smallest_left_out) = fit::fit(
            self.reader.engine,
            &self.tenant,
            &self.understood,
            &self.gathered,
            self.at,
            budget,
            self.reader.tuning,
        )?;
        context.channels = self.channel_counts.clone();
        context.evidence_score = self.evidence;
        // A budget that holds nothing of what was found is a budget
        // problem, not an empty memory.
        if let (true, None, Some(needed)) =
            (context.items.is_empty(), &self.verdict, smallest_left_out)
        {
            context.abstain = true;
            context.reason = Some(format!(
                "a budget of {budget} tokens holds nothing that was found: the smallest item needs {needed}"
            ));
            return Ok(context);
        }
        let texts: Vec<&str> = context.items.iter().map(|i| i.said.as_str()).collect();
        // A fact the question asks about by its predicate covers the words
        // that asked for it.
        let asked_shown = context
            .items
            .iter()
            .any(|i| i.kind == super::ItemKind::Fact && self.asked.contains(&i.id));
        let verdict = match self.verdict.clone().or_else(|| {
            (!self.answered && !self.crossing)
                .then(|| abstain::uncovered(&self.understood, &texts, asked_shown))
                .flatten()
        }) {
            Some(reason) => Some(reason),
            None => match &self.owners {
                Some(known) => known.clone(),
                None => {
                    let found = abstain::owners_words(
                        self.reader,
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
        Ok(context)
    }
}
