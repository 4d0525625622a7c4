//! The evaluation harness (`chronolog-eval locomo FILE`, `chronolog-eval
//! longmemeval FILE`): retrieval quality of the memory, judge-free,
//! against the full history. Its own crate and binary, not the shell's:
//! the shell ships without it (and without plotters, flate2 and
//! indicatif); `chronolog eval ...` runs this binary.
//! Each conversation (LoCoMo) or each question's haystack (LongMemEval) is
//! one tenant, ingested through the public `add_batch` (one episode per
//! turn, said by its speaker at its session's date, image captions kept as
//! text), consolidated, then every question is asked through the public
//! `search` with "now" a day after the last session (LoCoMo) or at the
//! question's date (LongMemEval). The harness reads a question's evidence
//! only to score what came back. docs/evaluation.md explains every number.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context as _, Result, anyhow};
use chronolog_engine::{Embedder, Engine, Store, Timestamp};
use chronolog_memory::{Channel, Context, Memory, Message, Options, SearchOptions, Tuning};
use serde_json::{Value as Json, json};

mod data;
pub mod extraction;
mod plot;
mod report;
mod score;
mod sweep;

use data::{Conversation, Qa, turn_line};
use score::{Scored, Stats, answer_forms, contains_answer, covers, percentile, prefix_covers};

/// The budgets coverage is measured at.
const BUDGETS: [usize; 4] = [500, 1_000, 2_000, 4_000];
/// Where 2,000 tokens, the budget the per-question rows report, is in
/// [`BUDGETS`].
const MAIN_BUDGET: usize = 2;
/// The ks recall is measured at.
const KS: [usize; 4] = [1, 5, 10, 20];

/// What the searches of one question returned.
struct Asked {
    /// The context at 2,000 tokens.
    main: Context,
    /// Whether the context covers the evidence, at each of [`BUDGETS`].
    covered: Vec<bool>,
    /// Whether the context holds the gold answer, at each of [`BUDGETS`],
    /// for an answer that is a short span.
    contained: Option<Vec<bool>>,
    /// The answer is spelled in one of the evidence messages: a
    /// retriever can bring it. An answer a reader must compute (a count,
    /// a total, a span of days) is in a context only by chance.
    stated: bool,
    /// Items a context held that the context at the next larger budget
    /// did not (budgets should nest; an abstention is not counted).
    unnested: usize,
    /// The hybrid's search at 2,000 tokens took this long, alone, the
    /// question's embedding cached; an ablation's retrieval at every
    /// budget, under contention.
    micros: u64,
    /// Embedding the question with the memory's embedder took this long
    /// (the hybrid, every tenth question).
    embed_micros: Option<u64>,
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
            channels: vec![EpisodeMeaning, SentenceMeaning, FactMeaning],
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
                SentenceMeaning,
                SpeakerWords,
                SpeakerMeaning,
                UserWords,
                UserMeaning,
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
    /// `hashing`, `model` (the default embedder: bge-small-en, else
    /// all-MiniLM-L6-v2) or an installed model by name.
    pub embedder: String,
    /// The multilingual space's embedder: `usem` (the default, Universal
    /// Sentence Encoder multilingual v3) or `hashing`.
    pub multilingual: String,
    /// Run every ablation and baseline, not only the hybrid.
    pub all: bool,
    /// Ask only this many items, spread evenly over the file.
    pub limit: Option<usize>,
    /// Ask only questions of these types (all when empty).
    pub types: Vec<String>,
    /// Ask only questions whose text holds this, in any case.
    pub matching: Option<String>,
    /// Print how each question was searched (`Memory::explain_search`)
    /// before the numbers.
    pub explain: bool,
    /// The memory's tuning, the defaults with `--set name=value` applied.
    pub tuning: Tuning,
    /// Fields to sweep, each with its values (`--sweep rrf_k=5,10,20`):
    /// then only the hybrid is asked, at each value (`sweep.rs`).
    pub sweeps: Vec<(String, Vec<String>)>,
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
    let mut conversations = data::read(
        &args.file,
        dataset,
        &data::Selection {
            types: &args.types,
            limit: args.limit,
            matching: args.matching.as_deref(),
        },
    )?;
    let embedder: Arc<dyn Embedder> = match args.embedder.as_str() {
        "model" => {
            let (embedder, notice) = chronolog_engine::default_embedder_with_notice();
            if let Some(notice) = notice {
                return Err(anyhow!("the model is not installed: {notice}"));
            }
            embedder
        }
        name => chronolog_engine::embedder_named(name)?,
    };
    let embedder_name = embedder.name();
    let multilingual = match args.multilingual.as_str() {
        "hashing" => Arc::new(chronolog_engine::HashingEmbedder::new(512)),
        name => chronolog_engine::embedder_named(name)?,
    };
    let multilingual_name = multilingual.name();
    let memory = Memory::with_engine(
        Engine::with_embedders(Store::in_memory(), embedder, multilingual),
        Options {
            tuning: args.tuning.clone(),
            ..Options::manual()
        },
    )?;

    // Ingest and consolidate each conversation in turn, timed apart.
    let progress = indicatif::ProgressBar::new(conversations.len() as u64).with_style(
        indicatif::ProgressStyle::with_template(
            "{msg} {bar:30} {pos}/{len} conversations, {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    progress.set_message("ingesting and consolidating");
    let (mut ingested, mut consolidated) = (0.0, 0.0);
    let mut report = chronolog_memory::Report::default();
    let mut dia_of: HashMap<String, (String, String)> = HashMap::new();
    let mut now_of: HashMap<String, Timestamp> = HashMap::new();
    let mut full_tokens: HashMap<String, usize> = HashMap::new();
    for conv in &mut conversations {
        let started = Instant::now();
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
        ingested += started.elapsed().as_secs_f64();
        let started = Instant::now();
        report += &memory.consolidate_now()?;
        consolidated += started.elapsed().as_secs_f64();
        progress.inc(1);
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
    progress.finish_and_clear();
    let turns: usize = conversations.iter().map(|c| c.turns.len()).sum();

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
    let asking = Asking {
        questions: &questions,
        now_of: &now_of,
        dia_of: &dia_of,
        threads,
    };
    if args.explain {
        for (conv, qa) in &questions {
            let options = asking.options(&configs(false)[0], &args.tuning, conv, qa);
            // The evidence by its episode ids too, as the explanation names them.
            let evidence: Vec<String> = qa
                .evidence
                .iter()
                .map(|dia| match conv.turns.iter().find(|t| &t.dia_id == dia) {
                    Some(turn) => format!("{dia} = {}/{}", conv.id, turn.episode),
                    None => dia.clone(),
                })
                .collect();
            println!(
                "## {} ({}): {}\nevidence: {}\n{}",
                conv.id,
                qa.category,
                qa.question,
                evidence.join(", "),
                memory.explain_search(&conv.id, &qa.question, &options)?
            );
        }
    }
    if !args.sweeps.is_empty() {
        let folds: Vec<usize> = conversations
            .iter()
            .enumerate()
            .flat_map(|(i, conv)| conv.qa.iter().map(move |_| sweep::fold_of(dataset, i)))
            .collect();
        let mut swept = Vec::new();
        for (field, values) in &args.sweeps {
            swept.push(sweep::sweep(
                &memory,
                &asking,
                &folds,
                &args.tuning,
                field,
                values,
            )?);
        }
        if let Some(out) = &args.out {
            let result = json!({"file": args.file.display().to_string(), "embedder": embedder_name, "sweeps": swept});
            std::fs::write(out, serde_json::to_string_pretty(&result)?)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        sweep::print(dataset, &swept);
        return Ok(());
    }
    let mut embeddings: Vec<u64> = Vec::new();
    for (order, config) in configs(args.all).iter().enumerate() {
        let mut stats = Stats::default();
        // Budgets that did not nest: questions, and items lost.
        let (mut unnested_items, mut unnested_questions) = (0usize, 0usize);
        let options = |conv: &Conversation, qa: &Qa| asking.options(config, &args.tuning, conv, qa);
        let mut asked = asking.ask_all(&memory, config, &args.tuning)?;
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
                contained,
                stated,
                unnested,
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
            unnested_items += unnested;
            unnested_questions += usize::from(unnested > 0);
            let row = stats.add(
                qa,
                &Scored {
                    ranked: &ranked,
                    covered: &covered,
                    contained: contained.as_deref(),
                    stated,
                    context: Some(&main),
                    micros,
                    full_tokens: full_tokens[&conv.id],
                },
            );
            if order == 0 {
                rows.push(json!({
                    "conversation": conv.id, "question": qa.question, "category": qa.category,
                    "evidence": qa.evidence, "retrieved": ranked.iter().take(20).map(|(d, _)| d).collect::<Vec<_>>(),
                    "items": main.items.iter().map(|i| &i.id).collect::<Vec<_>>(),
                    "tokens": main.tokens, "abstained": main.abstain, "reason": main.reason, "evidence_score": main.evidence_score, "unanswerable": qa.unanswerable,
                    "evidence_ranks": qa.evidence.iter().map(|e| ranked.iter().position(|(d, _)| d == e)).collect::<Vec<_>>(),
                    "recall_at_5": row.0, "covered_at_2000": row.1, "unnested_items": unnested,
                    "contained_at_2000": contained.as_ref().map(|c| c[MAIN_BUDGET]), "answer_stated": stated,
                    "search_ms": micros as f64 / 1000.0,
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
        let mut summary = stats.summary();
        summary["unnested_questions"] = json!(unnested_questions);
        summary["unnested_items"] = json!(unnested_items);
        table.insert((order, config.name.to_string()), summary);
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
            bm25.add(qa, &baseline(&ranked, &covered, full_tokens[&conv.id]));
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
            recency.add(qa, &baseline(&latest, &covered, full_tokens[&conv.id]));
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
        "multilingual_embedder": multilingual_name,
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
        "turns": turns,
        "empty_turns_skipped": conversations.iter().map(|c| c.empty_turns).sum::<usize>(),
        "questions": conversations.iter().map(|c| c.qa.len()).sum::<usize>(),
        "ingest_seconds": ingested,
        "consolidate_seconds": consolidated,
        "turns_per_second": turns as f64 / (ingested + consolidated).max(1e-9),
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
    report::print_table(&result);
    report::print_types(&result);
    report::print_nesting(&result);
    if let Some(plot) = &args.plot {
        plot::coverage(&result, plot)?;
    }
    Ok(())
}

/// What asking every question needs beside the memory: the questions,
/// each tenant's "now", where each episode came from, and the cores.
struct Asking<'a> {
    questions: &'a [(&'a Conversation, &'a Qa)],
    now_of: &'a HashMap<String, Timestamp>,
    dia_of: &'a HashMap<String, (String, String)>,
    threads: usize,
}

impl Asking<'_> {
    /// How `config` searches for `qa` with `tuning`.
    fn options(
        &self,
        config: &Config,
        tuning: &Tuning,
        conv: &Conversation,
        qa: &Qa,
    ) -> SearchOptions {
        SearchOptions {
            channels: config.channels.clone(),
            abstain: config.abstain,
            now: qa.now.or_else(|| self.now_of.get(&conv.id).copied()),
            ..SearchOptions::with_tuning(tuning)
        }
    }

    /// One question's retrieval assembled at every budget; for an
    /// ablation, the time that took (under contention) is its latency.
    fn ask(
        &self,
        memory: &Memory,
        config: &Config,
        tuning: &Tuning,
        conv: &Conversation,
        qa: &Qa,
    ) -> Result<Asked> {
        let options = self.options(config, tuning, conv, qa);
        let t = Instant::now();
        let mut contexts = memory.search_at_budgets(&conv.id, &qa.question, &options, &BUDGETS)?;
        let micros = t.elapsed().as_micros() as u64;
        let covered = contexts
            .iter()
            .map(|c| covers(c, &qa.evidence, self.dia_of))
            .collect();
        // An abstention holds nothing, whatever its text.
        let forms = answer_forms(&qa.answer);
        let contained = forms.as_ref().map(|forms| {
            contexts
                .iter()
                .map(|c| !c.abstain && contains_answer(&c.to_text(), forms))
                .collect()
        });
        let stated = forms.is_some_and(|forms| {
            conv.turns.iter().any(|turn| {
                qa.evidence.contains(&turn.dia_id) && contains_answer(&turn.text, &forms)
            })
        });
        let unnested = contexts
            .windows(2)
            .filter(|pair| !pair[0].abstain && !pair[1].abstain)
            .map(|pair| {
                pair[0]
                    .items
                    .iter()
                    .filter(|i| !pair[1].items.iter().any(|j| j.id == i.id))
                    .count()
            })
            .sum();
        let main = contexts.swap_remove(MAIN_BUDGET);
        Ok(Asked {
            main,
            covered,
            contained,
            stated,
            unnested,
            micros,
            embed_micros: None,
        })
    }

    /// Every question asked, in order, on every core at once.
    fn ask_all(&self, memory: &Memory, config: &Config, tuning: &Tuning) -> Result<Vec<Asked>> {
        let ask = |(conv, qa): &(&Conversation, &Qa)| self.ask(memory, config, tuning, conv, qa);
        if self.threads == 1 {
            return self.questions.iter().map(ask).collect();
        }
        let chunk = self.questions.len().div_ceil(self.threads).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .questions
                .chunks(chunk)
                .map(|part| scope.spawn(move || part.iter().map(ask).collect::<Result<Vec<_>>>()))
                .collect();
            let mut all = Vec::new();
            for handle in handles {
                let part = handle
                    .join()
                    .map_err(|_| anyhow!("an evaluation thread panicked"))??;
                all.extend(part);
            }
            Ok(all)
        })
    }
}

/// A baseline's ranking as the sums score it: no context of its own, so
/// neither containment nor latency.
fn baseline<'a>(
    ranked: &'a [&'a (String, String)],
    covered: &'a [bool],
    full_tokens: usize,
) -> Scored<'a> {
    Scored {
        ranked,
        covered,
        contained: None,
        stated: false,
        context: None,
        micros: 0,
        full_tokens,
    }
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
