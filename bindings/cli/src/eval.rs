//! `chronolog eval locomo FILE` and `chronolog eval longmemeval FILE`:
//! retrieval quality of the memory, judge-free, against the full history.
//! Each conversation (LoCoMo) or each question's haystack (LongMemEval) is
//! one tenant, ingested through the public `add_batch` (one episode per
//! turn, said by its speaker at its session's date, image captions kept as
//! text), consolidated, then every question is asked through the public
//! `search` with "now" a day after the last session (LoCoMo) or at the
//! question's date (LongMemEval). The harness reads a question's evidence
//! only to score what came back. docs/evaluation.md explains every number.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, Result, anyhow};
use chronolog_engine::{Embedder, Engine, HashingEmbedder, Store, Timestamp};
use chronolog_memory::{
    Channel, Context, ItemKind, Memory, Message, Options, SearchOptions, Tuning,
};
use serde_json::{Value as Json, json};

/// The budgets coverage is measured at.
const BUDGETS: [usize; 4] = [500, 1_000, 2_000, 4_000];
/// Where 2,000 tokens, the budget the per-question rows report, is in
/// [`BUDGETS`].
const MAIN_BUDGET: usize = 2;
/// The ks recall is measured at.
const KS: [usize; 4] = [1, 5, 10, 20];

/// One turn of a conversation.
struct Turn {
    dia_id: String,
    /// Its episode's id without the tenant, once ingested.
    episode: String,
    speaker: String,
    text: String,
    at: Option<Timestamp>,
    session: String,
}

/// One question with its gold evidence (read only when scoring).
struct Qa {
    question: String,
    answer: String,
    /// LoCoMo's category ("1".."5") or LongMemEval's question type.
    category: String,
    /// The right output is an abstention (LoCoMo 5, LongMemEval `_abs`).
    unanswerable: bool,
    /// "Now" for this question, when the dataset gives one.
    now: Option<Timestamp>,
    evidence: Vec<String>,
}

/// What the searches of one question returned.
struct Asked {
    /// The context at 2,000 tokens.
    main: Context,
    /// Whether the context covers the evidence, at each of [`BUDGETS`].
    covered: Vec<bool>,
    /// The hybrid's search at 2,000 tokens took this long, alone, the
    /// question's embedding cached; an ablation's retrieval at every
    /// budget, under contention.
    micros: u64,
    /// Embedding the question with the memory's embedder took this long
    /// (the hybrid, every tenth question).
    embed_micros: Option<u64>,
}

struct Conversation {
    id: String,
    turns: Vec<Turn>,
    qa: Vec<Qa>,
}

/// A way of searching, compared with the others in the same run.
struct Config {
    name: &'static str,
    channels: Vec<Channel>,
    abstain: bool,
}

fn configs(all: bool) -> Vec<Config> {
    use Channel::*;
    let full = Config {
        name: "hybrid",
        channels: Channel::ALL.to_vec(),
        abstain: true,
    };
    if !all {
        return vec![full];
    }
    vec![
        full,
        Config {
            name: "no abstention",
            channels: Channel::ALL.to_vec(),
            abstain: false,
        },
        Config {
            name: "bm25 only",
            channels: vec![EpisodeWords, FactWords],
            abstain: false,
        },
        Config {
            name: "dense only",
            channels: vec![EpisodeMeaning, FactMeaning],
            abstain: false,
        },
        Config {
            name: "graph only",
            channels: vec![Graph],
            abstain: false,
        },
        Config {
            name: "facts only",
            channels: vec![FactWords, FactMeaning, Salience],
            abstain: false,
        },
        Config {
            name: "episodes only",
            channels: vec![
                EpisodeWords,
                EpisodeMeaning,
                SpeakerWords,
                SpeakerMeaning,
                SaidThen,
                SaidThenMeaning,
                Recency,
            ],
            abstain: false,
        },
        Config {
            name: "speaker only",
            channels: vec![SpeakerWords, SpeakerMeaning],
            abstain: false,
        },
        Config {
            name: "hybrid without speaker",
            channels: Channel::ALL
                .into_iter()
                .filter(|c| !matches!(c, SpeakerWords | SpeakerMeaning))
                .collect(),
            abstain: true,
        },
    ]
}

/// What the command was asked to do.
pub struct EvalArgs {
    /// LoCoMo's JSON file.
    pub file: PathBuf,
    /// Where the JSON with every number and per-question row goes.
    pub out: Option<PathBuf>,
    /// One JSON line per question: question, context, gold answer.
    pub export: Option<PathBuf>,
    /// An SVG plot of coverage against the token budget.
    pub plot: Option<PathBuf>,
    /// `hashing` or `model` (all-MiniLM-L6-v2, when installed).
    pub embedder: String,
    /// Run every ablation and baseline, not only the hybrid.
    pub all: bool,
    /// The memory's tuning, the defaults with `--set name=value` applied.
    pub tuning: Tuning,
}

/// The benchmarks the harness reads.
#[derive(Clone, Copy, Debug)]
pub enum Dataset {
    /// LoCoMo (`locomo10.json`): conversations with questions.
    Locomo,
    /// LongMemEval (`longmemeval_s.json` and friends): questions, each
    /// with its haystack of sessions.
    LongMemEval,
}

/// Runs the evaluation and prints the markdown table.
pub fn run(dataset: Dataset, args: &EvalArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let data: Json = serde_json::from_str(&text).context("not JSON")?;
    let items = data
        .as_array()
        .ok_or_else(|| anyhow!("expected a JSON list"))?;
    let mut conversations: Vec<Conversation> = match dataset {
        Dataset::Locomo => items.iter().map(load).collect(),
        Dataset::LongMemEval => items
            .iter()
            .enumerate()
            .map(|(i, q)| load_longmemeval(i, q))
            .collect::<Result<_>>()?,
    };
    let embedder: Arc<dyn Embedder> = match args.embedder.as_str() {
        "hashing" => Arc::new(HashingEmbedder::new(384)),
        "model" => {
            let (embedder, notice) = chronolog_engine::default_embedder_with_notice();
            if let Some(notice) = notice {
                return Err(anyhow!("the model is not installed: {notice}"));
            }
            embedder
        }
        other => return Err(anyhow!("--embedder is hashing or model, not {other}")),
    };
    let embedder_name = embedder.name();
    let memory = Memory::with_engine(
        Engine::with_embedder(Store::in_memory(), embedder),
        Options {
            tuning: args.tuning.clone(),
            ..Options::manual()
        },
    )?;

    // Ingest and consolidate, timed.
    let started = Instant::now();
    let mut dia_of: HashMap<String, (String, String)> = HashMap::new();
    let mut now_of: HashMap<String, Timestamp> = HashMap::new();
    let mut full_tokens: HashMap<String, usize> = HashMap::new();
    for conv in &mut conversations {
        let messages: Vec<Message> = conv
            .turns
            .iter()
            .map(|t| {
                let mut m =
                    Message::new(t.speaker.as_str(), t.text.as_str()).session(t.session.as_str());
                m.at = t.at;
                m
            })
            .collect();
        let ids = memory.add_batch(&conv.id, &messages)?;
        let prefix = format!("{}/", conv.id);
        for (id, turn) in ids.into_iter().zip(conv.turns.iter_mut()) {
            turn.episode = id.strip_prefix(&prefix).unwrap_or(&id).to_string();
            dia_of.insert(id, (turn.dia_id.clone(), turn.session.clone()));
        }
        let last = conv
            .turns
            .iter()
            .filter_map(|t| t.at)
            .max()
            .unwrap_or_else(Timestamp::now);
        now_of.insert(conv.id.clone(), Timestamp(last.micros() + 86_400_000_000));
        // The full-context baseline: every turn, as the context renders one.
        let lines: Vec<String> = conv.turns.iter().map(turn_line).collect();
        let all = chronolog_memory::render_messages(
            conv.turns
                .iter()
                .zip(&lines)
                .map(|(t, l)| (t.at.unwrap_or(Timestamp::MIN), l.as_str())),
        );
        full_tokens.insert(conv.id.clone(), chronolog_memory::count_tokens(&all));
    }
    let ingested = started.elapsed().as_secs_f64();
    let report = memory.consolidate_now()?;
    let consolidated = started.elapsed().as_secs_f64() - ingested;

    let mut rows: Vec<Json> = Vec::new();
    let mut table: BTreeMap<(usize, String), Json> = BTreeMap::new();
    let mut export = match &args.export {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => None,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let questions: Vec<(&Conversation, &Qa)> = conversations
        .iter()
        .flat_map(|conv| conv.qa.iter().map(move |qa| (conv, qa)))
        .collect();
    let mut embeddings: Vec<u64> = Vec::new();
    for (order, config) in configs(args.all).iter().enumerate() {
        let mut stats = Stats::default();
        let options = |conv: &Conversation, qa: &Qa| SearchOptions {
            channels: config.channels.clone(),
            abstain: config.abstain,
            now: qa.now.or_else(|| now_of.get(&conv.id).copied()),
            ..SearchOptions::with_tuning(&args.tuning)
        };
        // One question's retrieval assembled at every budget; for an
        // ablation, the time that took (under contention) is its latency.
        let ask = |(conv, qa): &(&Conversation, &Qa)| -> Result<Asked> {
            let options = options(conv, qa);
            let t = Instant::now();
            let mut contexts =
                memory.search_at_budgets(&conv.id, &qa.question, &options, &BUDGETS)?;
            let micros = t.elapsed().as_micros() as u64;
            let covered = contexts
                .iter()
                .map(|c| covers(c, &qa.evidence, &dia_of))
                .collect();
            let main = contexts.swap_remove(MAIN_BUDGET);
            Ok(Asked {
                main,
                covered,
                micros,
                embed_micros: None,
            })
        };
        // Every configuration asks on every core at once.
        let mut asked: Vec<Asked> = if threads == 1 {
            questions.iter().map(ask).collect::<Result<_>>()?
        } else {
            let chunk = questions.len().div_ceil(threads).max(1);
            std::thread::scope(|scope| {
                let handles: Vec<_> = questions
                    .chunks(chunk)
                    .map(|part| {
                        scope.spawn(move || part.iter().map(ask).collect::<Result<Vec<_>>>())
                    })
                    .collect();
                let mut all = Vec::new();
                for handle in handles {
                    let part = handle
                        .join()
                        .map_err(|_| anyhow!("an evaluation thread panicked"))??;
                    all.extend(part);
                }
                Ok::<_, anyhow::Error>(all)
            })?
        };
        // The hybrid's latency is the one reported: its searches at 2,000
        // tokens again, one at a time, the question's embedding already
        // in the memory's cache; and the embedding alone, every tenth
        // question.
        if order == 0 {
            for (index, ((conv, qa), asked)) in questions.iter().zip(&mut asked).enumerate() {
                if index % 10 == 0 {
                    let t = Instant::now();
                    memory.engine().embed(&[qa.question.as_str()])?;
                    asked.embed_micros = Some(t.elapsed().as_micros() as u64);
                }
                let t = Instant::now();
                memory.search(&conv.id, &qa.question, &options(conv, qa))?;
                asked.micros = t.elapsed().as_micros() as u64;
            }
        }
        for (
            (conv, qa),
            Asked {
                main,
                covered,
                micros,
                embed_micros,
            },
        ) in questions.iter().zip(asked)
        {
            embeddings.extend(embed_micros);
            let ranked: Vec<&(String, String)> = main
                .ranked_episodes
                .iter()
                .filter_map(|id| dia_of.get(id))
                .collect();
            let row = stats.add(
                qa,
                &ranked,
                &covered,
                Some(&main),
                micros,
                full_tokens[&conv.id],
            );
            if order == 0 {
                rows.push(json!({
                    "conversation": conv.id, "question": qa.question, "category": qa.category,
                    "evidence": qa.evidence, "retrieved": ranked.iter().take(20).map(|(d, _)| d).collect::<Vec<_>>(),
                    "items": main.items.iter().map(|i| &i.id).collect::<Vec<_>>(),
                    "tokens": main.tokens, "abstained": main.abstain, "reason": main.reason,
                    "recall_at_5": row.0, "covered_at_2000": row.1,
                }));
                if let Some(out) = export.as_mut() {
                    use std::io::Write;
                    writeln!(
                        out,
                        "{}",
                        json!({
                            "conversation": conv.id, "question": qa.question, "category": qa.category,
                            "context": main.to_text(), "answer": qa.answer,
                        })
                    )?;
                }
            }
        }
        table.insert((order, config.name.to_string()), stats.summary());
    }
    // Baselines: plain BM25 over turns, and the last turns (recency).
    let mut bm25 = Stats::default();
    let mut recency = Stats::default();
    for conv in &conversations {
        for qa in &conv.qa {
            let ranked = bm25_turns(&memory, &conv.id, &qa.question)?;
            let ranked: Vec<&(String, String)> =
                ranked.iter().filter_map(|id| dia_of.get(id)).collect();
            let covered: Vec<bool> = BUDGETS
                .iter()
                .map(|&b| prefix_covers(&ranked, &qa.evidence, b, conv))
                .collect();
            bm25.add(qa, &ranked, &covered, None, 0, full_tokens[&conv.id]);
            let latest: Vec<(String, String)> = conv
                .turns
                .iter()
                .rev()
                .map(|t| (t.dia_id.clone(), t.session.clone()))
                .collect();
            let latest: Vec<&(String, String)> = latest.iter().collect();
            let covered: Vec<bool> = BUDGETS
                .iter()
                .map(|&b| prefix_covers(&latest, &qa.evidence, b, conv))
                .collect();
            recency.add(qa, &latest, &covered, None, 0, full_tokens[&conv.id]);
        }
    }
    if args.all {
        table.insert((100, "baseline: bm25 over turns".into()), bm25.summary());
        table.insert(
            (101, "baseline: recency (last turns)".into()),
            recency.summary(),
        );
    }
    let total_full: usize = full_tokens.values().sum();
    let result = json!({
        "dataset": match dataset { Dataset::Locomo => "LoCoMo", Dataset::LongMemEval => "LongMemEval" },
        "file": args.file.display().to_string(),
        "embedder": embedder_name,
        // The fields `--set` changed from the defaults: a run is read
        // with the tuning it ran with.
        "tuning": args
            .tuning
            .values()
            .into_iter()
            .zip(Tuning::default().values())
            .filter(|(set, default)| set != default)
            .map(|((name, value), _)| (name.to_string(), json!(value)))
            .collect::<serde_json::Map<_, _>>(),
        "conversations": conversations.len(),
        "turns": conversations.iter().map(|c| c.turns.len()).sum::<usize>(),
        "questions": conversations.iter().map(|c| c.qa.len()).sum::<usize>(),
        "ingest_seconds": ingested,
        "consolidate_seconds": consolidated,
        "consolidation": format!("{report:?}"),
        "full_context_tokens_per_conversation": total_full / conversations.len().max(1),
        "question_embedding_ms": {
            "p50": percentile(&mut embeddings, 0.50) as f64 / 1000.0,
            "p95": percentile(&mut embeddings, 0.95) as f64 / 1000.0,
            "questions": embeddings.len(),
        },
        "configs": table.iter().map(|((_, name), v)| json!({"name": name, "metrics": v})).collect::<Vec<_>>(),
        "rows": rows,
    });
    if let Some(out) = &args.out {
        std::fs::write(out, serde_json::to_string_pretty(&result)?)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    print_table(&result);
    if let Some(plot) = &args.plot {
        crate::plot::coverage(&result, plot)?;
    }
    Ok(())
}

/// Whether every evidence turn is in the context (as a message, or as the
/// source of a fact it shows).
fn covers(
    context: &Context,
    evidence: &[String],
    dia_of: &HashMap<String, (String, String)>,
) -> bool {
    if evidence.is_empty() || context.abstain {
        return false;
    }
    let mut inside: HashSet<&str> = HashSet::new();
    for item in &context.items {
        let ids: Vec<&String> = match item.kind {
            ItemKind::Episode => vec![&item.id],
            ItemKind::Fact => item.sources.iter().collect(),
        };
        for id in ids {
            if let Some((dia, _)) = dia_of.get(id) {
                inside.insert(dia.as_str());
            }
        }
    }
    evidence.iter().all(|e| inside.contains(e.as_str()))
}

/// Whether the first turns of `ranked` that fit in `budget` tokens hold
/// all the evidence (for the baselines, which have no facts).
fn prefix_covers(
    ranked: &[&(String, String)],
    evidence: &[String],
    budget: usize,
    conv: &Conversation,
) -> bool {
    if evidence.is_empty() {
        return false;
    }
    let by_dia: HashMap<&str, &Turn> = conv.turns.iter().map(|t| (t.dia_id.as_str(), t)).collect();
    let mut spent = chronolog_memory::MessageBudget::new();
    let mut inside = HashSet::new();
    for (dia, _) in ranked {
        let Some(turn) = by_dia.get(dia.as_str()) else {
            continue;
        };
        let at = turn.at.unwrap_or(Timestamp::MIN);
        let tokens = chronolog_memory::count_tokens(&turn_line(turn));
        if spent.used() + spent.cost(at, tokens) > budget {
            break;
        }
        spent.take(at, tokens);
        inside.insert(dia.as_str());
    }
    evidence.iter().all(|e| inside.contains(e.as_str()))
}

/// A turn as a context renders its message (baselines count the same
/// tokens per message as the memory's contexts, time lines included).
fn turn_line(turn: &Turn) -> String {
    chronolog_memory::message_line(&turn.episode, &turn.speaker, &turn.text)
}

/// Plain BM25 over one conversation's turns (the baseline).
fn bm25_turns(memory: &Memory, tenant: &str, question: &str) -> Result<Vec<String>> {
    let mut session = memory.engine().session();
    let prepared = session.prepare("?- bm25(mem_episode, $q, 50, tenant = $t).")?;
    let params = HashMap::from([
        ("q".to_string(), chronolog_engine::Value::str(question)),
        ("t".to_string(), chronolog_engine::Value::str(tenant)),
    ]);
    let rows = session.execute(&prepared, &params, &chronolog_engine::Limits::default())?;
    Ok(rows.iter().map(|r| session.render(&r[0])).collect())
}

/// Sums of the per-question metrics, per category.
#[derive(Default)]
struct Stats {
    by_category: BTreeMap<String, Sums>,
    unanswerable: Sums,
    micros: Vec<u64>,
}

#[derive(Default, Clone)]
struct Sums {
    questions: usize,
    with_evidence: usize,
    recall: [f64; 4],
    session_recall: [f64; 4],
    ndcg10: f64,
    covered: [usize; 4],
    abstained: usize,
    context_ratio: f64,
}

impl Stats {
    /// Adds one question; returns (recall@5, covered at 2,000) for its row.
    fn add(
        &mut self,
        qa: &Qa,
        ranked: &[&(String, String)],
        covered: &[bool],
        answer: Option<&Context>,
        micros: u64,
        full_tokens: usize,
    ) -> (f64, bool) {
        if qa.unanswerable {
            self.unanswerable.questions += 1;
            if let Some(context) = answer {
                self.unanswerable.abstained += usize::from(context.abstain);
            }
        }
        let sums = self.by_category.entry(qa.category.clone()).or_default();
        sums.questions += 1;
        if let Some(context) = answer {
            sums.abstained += usize::from(context.abstain);
            sums.context_ratio += context.tokens as f64 / full_tokens.max(1) as f64;
        }
        if micros > 0 {
            self.micros.push(micros);
        }
        let evidence: HashSet<&str> = qa.evidence.iter().map(String::as_str).collect();
        if evidence.is_empty() {
            return (0.0, false);
        }
        sums.with_evidence += 1;
        let sessions: HashSet<String> = qa.evidence.iter().map(|e| session_of(e)).collect();
        let mut r5 = 0.0;
        for (i, k) in KS.iter().enumerate() {
            let top: HashSet<&str> = ranked.iter().take(*k).map(|(d, _)| d.as_str()).collect();
            let hit =
                evidence.iter().filter(|e| top.contains(*e)).count() as f64 / evidence.len() as f64;
            sums.recall[i] += hit;
            if *k == 5 {
                r5 = hit;
            }
            let top_sessions: HashSet<&str> =
                ranked.iter().take(*k).map(|(_, s)| s.as_str()).collect();
            sums.session_recall[i] += sessions
                .iter()
                .filter(|s| top_sessions.contains(s.as_str()))
                .count() as f64
                / sessions.len() as f64;
        }
        let dcg: f64 = ranked
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, (d, _))| evidence.contains(d.as_str()))
            .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
            .sum();
        let ideal: f64 = (0..evidence.len().min(10))
            .map(|i| 1.0 / ((i + 2) as f64).log2())
            .sum();
        sums.ndcg10 += dcg / ideal;
        for (i, c) in covered.iter().enumerate() {
            sums.covered[i] += usize::from(*c);
        }
        (r5, covered.get(2).copied().unwrap_or(false))
    }

    fn summary(&self) -> Json {
        let mut answerable = Sums::default();
        for (cat, s) in &self.by_category {
            if !self.unanswerable_categories().contains(cat) {
                answerable.questions += s.questions;
                answerable.with_evidence += s.with_evidence;
                answerable.abstained += s.abstained;
                answerable.ndcg10 += s.ndcg10;
                answerable.context_ratio += s.context_ratio;
                for i in 0..4 {
                    answerable.recall[i] += s.recall[i];
                    answerable.session_recall[i] += s.session_recall[i];
                    answerable.covered[i] += s.covered[i];
                }
            }
        }
        let show = |s: &Sums| {
            let n = s.with_evidence.max(1) as f64;
            json!({
                "questions": s.questions,
                "recall": KS.iter().zip(s.recall).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "session_recall": KS.iter().zip(s.session_recall).map(|(k, r)| (format!("@{k}"), r / n)).collect::<BTreeMap<_, _>>(),
                "ndcg@10": s.ndcg10 / n,
                "coverage": BUDGETS.iter().zip(s.covered).map(|(b, c)| (format!("{b}"), c as f64 / n)).collect::<BTreeMap<_, _>>(),
                "abstained": s.abstained as f64 / s.questions.max(1) as f64,
                "context_to_full": s.context_ratio / s.questions.max(1) as f64,
            })
        };
        let mut micros = self.micros.clone();
        json!({
            "answerable": show(&answerable),
            "by_category": self.by_category.iter().map(|(c, s)| (c.clone(), show(s))).collect::<BTreeMap<_, _>>(),
            "unanswerable_abstained": self.unanswerable.abstained as f64 / self.unanswerable.questions.max(1) as f64,
            "unanswerable_questions": self.unanswerable.questions,
            "search_p50_us": percentile(&mut micros, 0.5),
            "search_p95_us": percentile(&mut micros, 0.95),
        })
    }
}

impl Stats {
    /// Categories made only of unanswerable questions (LoCoMo's 5); a
    /// LongMemEval type mixes both, and its `_abs` questions are counted
    /// apart by `unanswerable`.
    fn unanswerable_categories(&self) -> Vec<String> {
        if self.by_category.contains_key("5") && self.unanswerable.questions > 0 {
            vec!["5".to_string()]
        } else {
            Vec::new()
        }
    }
}

/// The `p` quantile (0 to 1) of `values`, nearest rank; 0 when empty.
fn percentile(values: &mut [u64], p: f64) -> u64 {
    values.sort_unstable();
    values
        .get(((values.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(0)
}

/// "D3:12" -> "D3".
fn session_of(dia_id: &str) -> String {
    dia_id.split(':').next().unwrap_or(dia_id).to_string()
}

fn print_table(result: &Json) {
    println!(
        "{} ({} conversations, {} turns, {} questions), embedder {}; ingest {:.2} s, consolidation {:.1} s; full context {} tokens per conversation; a question's embedding p50 / p95 {:.1} / {:.1} ms ({} questions)\n",
        result["dataset"].as_str().unwrap_or(""),
        result["conversations"],
        result["turns"],
        result["questions"],
        result["embedder"],
        result["ingest_seconds"].as_f64().unwrap_or(0.0),
        result["consolidate_seconds"].as_f64().unwrap_or(0.0),
        result["full_context_tokens_per_conversation"],
        result["question_embedding_ms"]["p50"]
            .as_f64()
            .unwrap_or(0.0),
        result["question_embedding_ms"]["p95"]
            .as_f64()
            .unwrap_or(0.0),
        result["question_embedding_ms"]["questions"],
    );
    println!(
        "| config | R@1 | R@5 | R@10 | R@20 | session R@5 | NDCG@10 | cov@500 | cov@1000 | cov@2000 | cov@4000 | ctx/full | abstained, answerable | abstained, unanswerable | p50 / p95 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for config in result["configs"].as_array().into_iter().flatten() {
        let m = &config["metrics"];
        let a = &m["answerable"];
        let f = |v: &Json| v.as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} / {:.1} |",
            config["name"].as_str().unwrap_or(""),
            f(&a["recall"]["@1"]),
            f(&a["recall"]["@5"]),
            f(&a["recall"]["@10"]),
            f(&a["recall"]["@20"]),
            f(&a["session_recall"]["@5"]),
            f(&a["ndcg@10"]),
            f(&a["coverage"]["500"]),
            f(&a["coverage"]["1000"]),
            f(&a["coverage"]["2000"]),
            f(&a["coverage"]["4000"]),
            f(&a["context_to_full"]),
            f(&a["abstained"]),
            f(&m["unanswerable_abstained"]),
            m["search_p50_us"].as_f64().unwrap_or(0.0) / 1000.0,
            m["search_p95_us"].as_f64().unwrap_or(0.0) / 1000.0,
        );
    }
}

fn load(conv: &Json) -> Conversation {
    let id = conv["sample_id"]
        .as_str()
        .unwrap_or("conv")
        .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_");
    let mut turns = Vec::new();
    if let Some(sessions) = conv["conversation"].as_object() {
        let mut keys: Vec<(u32, &String)> = sessions
            .keys()
            .filter_map(|k| {
                k.strip_prefix("session_")
                    .and_then(|n| n.parse().ok())
                    .map(|n| (n, k))
            })
            .collect();
        keys.sort();
        for (n, key) in keys {
            let at = sessions
                .get(&format!("session_{n}_date_time"))
                .and_then(Json::as_str)
                .and_then(parse_date);
            for turn in sessions[key].as_array().into_iter().flatten() {
                let mut text = turn["text"].as_str().unwrap_or_default().to_string();
                if let Some(caption) = turn["blip_caption"].as_str() {
                    text = format!("{text} [image: {caption}]");
                }
                turns.push(Turn {
                    dia_id: turn["dia_id"].as_str().unwrap_or_default().to_string(),
                    episode: String::new(),
                    speaker: turn["speaker"].as_str().unwrap_or("unknown").to_string(),
                    text,
                    at,
                    session: format!("D{n}"),
                });
            }
        }
    }
    let qa = conv["qa"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Qa {
            question: q["question"].as_str().unwrap_or_default().to_string(),
            answer: match &q["answer"] {
                Json::String(s) => s.clone(),
                Json::Null => q["adversarial_answer"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                other => other.to_string(),
            },
            category: q["category"].as_i64().unwrap_or(0).to_string(),
            unanswerable: q["category"].as_i64() == Some(5),
            now: None,
            // A few ids are malformed ("D8:6; D9:17"): split and trim.
            evidence: q["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .flat_map(|e| e.split([';', ',']).map(|s| s.trim().to_string()))
                .filter(|e| e.starts_with('D') && e.contains(':'))
                .collect(),
        })
        .collect();
    Conversation { id, turns, qa }
}

/// "1:56 pm on 8 May, 2023" as UTC.
fn parse_date(text: &str) -> Option<Timestamp> {
    let dt = jiff::civil::DateTime::strptime("%I:%M %p on %d %B, %Y", text.trim()).ok()?;
    let ts = jiff::tz::TimeZone::UTC.to_timestamp(dt).ok()?;
    Some(Timestamp(ts.as_microsecond()))
}

/// One LongMemEval question as a conversation of its own: its haystack's
/// sessions in order, each turn an episode (`<session id>:<index>`), the
/// turns marked `has_answer` its evidence, "now" its question date.
fn load_longmemeval(index: usize, q: &Json) -> Result<Conversation> {
    let question_id = q["question_id"].as_str().unwrap_or_default();
    let id = format!(
        "q{index}-{}",
        question_id.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")
    );
    let sessions = q["haystack_sessions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let session_ids = q["haystack_session_ids"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let dates = q["haystack_dates"].as_array().cloned().unwrap_or_default();
    let mut turns = Vec::new();
    let mut evidence = Vec::new();
    for (s, session) in sessions.iter().enumerate() {
        let session_id = session_ids
            .get(s)
            .and_then(Json::as_str)
            .map_or_else(|| format!("s{s}"), str::to_string);
        let at = dates
            .get(s)
            .and_then(Json::as_str)
            .and_then(parse_longmemeval_date);
        for (t, turn) in session.as_array().into_iter().flatten().enumerate() {
            let dia_id = format!("{session_id}:{t}");
            if turn["has_answer"].as_bool() == Some(true) {
                evidence.push(dia_id.clone());
            }
            turns.push(Turn {
                dia_id,
                episode: String::new(),
                speaker: turn["role"].as_str().unwrap_or("user").to_string(),
                text: turn["content"].as_str().unwrap_or_default().to_string(),
                at,
                session: session_id.clone(),
            });
        }
    }
    let qa = Qa {
        question: q["question"].as_str().unwrap_or_default().to_string(),
        answer: match &q["answer"] {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        },
        category: q["question_type"].as_str().unwrap_or("unknown").to_string(),
        unanswerable: question_id.ends_with("_abs"),
        now: q["question_date"].as_str().and_then(parse_longmemeval_date),
        evidence,
    };
    Ok(Conversation {
        id,
        turns,
        qa: vec![qa],
    })
}

/// "2023/05/30 (Tue) 23:40" as UTC.
fn parse_longmemeval_date(text: &str) -> Option<Timestamp> {
    let dt = jiff::civil::DateTime::strptime("%Y/%m/%d (%a) %H:%M", text.trim()).ok()?;
    let ts = jiff::tz::TimeZone::UTC.to_timestamp(dt).ok()?;
    Some(Timestamp(ts.as_microsecond()))
}
