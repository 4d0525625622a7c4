//! `chronolog-eval extraction FILE...`: what the memory comes to believe
//! from everyday sentences, scored against labelled sets
//! (`data/extraction/`, its README gives the format). Retrieval numbers
//! say whether a context holds the evidence; these say whether the facts
//! read from it are the ones a user meant, in each language served.
//!
//! Every case is its own tenant, told its messages a day apart through
//! the public `add`, consolidated, then read back with `timeline`: every
//! fact believed, over all of valid time. A label is found when a fact
//! matches it; a fact no label of its case matches is wrong.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result, anyhow, bail};
use chronolog_engine::{Engine, HashingEmbedder, Store, Timestamp};
use chronolog_memory::{FactVersion, Lang, Memory, Message, Options};
use serde_json::{Value as Json, json};

/// The day a case's first message is said; each next one a day later.
const FIRST_DAY: jiff::civil::Date = jiff::civil::date(2024, 6, 1);

/// Which cases a run scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// Cases that may guide changes to the rules.
    Dev,
    /// Cases only ever scored.
    HeldOut,
}

impl Split {
    fn name(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::HeldOut => "held-out",
        }
    }
}

/// One side of a label's interval.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Bound {
    /// Not checked.
    Any,
    /// The side's date starts with this (`2020-03`).
    Date(String),
    /// The fact still holds (the end only).
    Now,
    /// The fact has ended (the end only).
    Past,
}

/// What a fact must be to match a label.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Label {
    subject: String,
    predicates: Vec<String>,
    objects: Vec<String>,
    from: Bound,
    until: Bound,
    /// The fact may be held, not must.
    optional: bool,
    /// Where the label is, for messages.
    line: usize,
}

/// Messages and what they should leave believed.
#[derive(Clone, Debug)]
pub struct Case {
    split: Split,
    messages: Vec<String>,
    labels: Vec<Label>,
    /// The first message's line.
    line: usize,
}

/// A labelled file: its cases and the language its name says.
#[derive(Clone, Debug)]
pub struct LabelledSet {
    /// The file, for reports.
    pub path: PathBuf,
    /// The language its stem names (`de.txt`), pinned on every case's
    /// tenant so that what is scored is extraction, not detection; `None`
    /// leaves each message to detection.
    pub lang: Option<Lang>,
    cases: Vec<Case>,
}

/// Reads a labelled file (`data/extraction/README.md`).
pub fn read_set(path: &Path) -> Result<LabelledSet> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let lang = path
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(Lang::from_code);
    let cases = parse(&text).with_context(|| format!("in {}", path.display()))?;
    Ok(LabelledSet {
        path: path.to_path_buf(),
        lang,
        cases,
    })
}

fn parse(text: &str) -> Result<Vec<Case>> {
    let mut split = None;
    let mut cases: Vec<Case> = Vec::new();
    // Whether the case being read has had a label: a `>` after one
    // starts the next case.
    let mut labelled = true;
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match line {
            "[dev]" => {
                split = Some(Split::Dev);
                continue;
            }
            "[held-out]" => {
                split = Some(Split::HeldOut);
                continue;
            }
            _ => {}
        }
        let split =
            split.ok_or_else(|| anyhow!("line {number}: a case before [dev] or [held-out]"))?;
        if let Some(message) = line.strip_prefix('>') {
            if labelled {
                cases.push(Case {
                    split,
                    messages: Vec::new(),
                    labels: Vec::new(),
                    line: number,
                });
                labelled = false;
            }
            if let Some(case) = cases.last_mut() {
                case.messages.push(message.trim().to_string());
            }
        } else if let Some((optional, rest)) = line
            .strip_prefix('=')
            .map(|r| (false, r))
            .or_else(|| line.strip_prefix('?').map(|r| (true, r)))
        {
            let case = cases
                .last_mut()
                .filter(|c| !c.messages.is_empty())
                .ok_or_else(|| anyhow!("line {number}: a label before any message"))?;
            labelled = true;
            if rest.trim() == "none" {
                if optional {
                    bail!("line {number}: `? none` says nothing");
                }
                continue;
            }
            case.labels.push(label(rest, optional, number)?);
        } else {
            bail!("line {number}: expected `>`, `=`, `?`, a comment or a split, not {line:?}");
        }
    }
    if !labelled {
        bail!("the last case has no label (`= none` if nothing should be believed)");
    }
    Ok(cases)
}

fn label(text: &str, optional: bool, line: usize) -> Result<Label> {
    let fields: Vec<&str> = text.split('|').map(str::trim).collect();
    let (subject, predicate, object, interval) = match fields.as_slice() {
        [s, p, o] => (*s, *p, *o, ""),
        [s, p, o, i] => (*s, *p, *o, *i),
        _ => bail!("line {line}: a label is `subject | predicate | object [| interval]`"),
    };
    let (from, until) = match interval {
        "" => (Bound::Any, Bound::Any),
        i => {
            let (from, until) = i
                .split_once("..")
                .ok_or_else(|| anyhow!("line {line}: an interval is `from..until`, not {i:?}"))?;
            (bound(from, line)?, bound(until, line)?)
        }
    };
    if matches!(from, Bound::Now | Bound::Past) {
        bail!("line {line}: `now` and `past` say how a fact ends, not how it starts");
    }
    let objects: Vec<String> = object.split(" / ").map(normalise).collect();
    if subject.is_empty() || predicate.is_empty() || objects.iter().any(String::is_empty) {
        bail!("line {line}: a label's subject, predicate and objects are not empty");
    }
    Ok(Label {
        subject: subject.to_lowercase(),
        predicates: predicate.split('/').map(|p| p.trim().to_string()).collect(),
        objects,
        from,
        until,
        optional,
        line,
    })
}

fn bound(text: &str, line: usize) -> Result<Bound> {
    Ok(match text.trim() {
        "" => Bound::Any,
        "now" => Bound::Now,
        "past" => Bound::Past,
        date if date.starts_with(|c: char| c.is_ascii_digit()) => Bound::Date(date.to_string()),
        other => bail!("line {line}: {other:?} is no date prefix, `now` or `past`"),
    })
}

/// An object as labels and facts are compared: lower case, no article
/// or possessive before it, no punctuation after, spaces single.
fn normalise(object: &str) -> String {
    let lower = object.trim().to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let skip = usize::from(
        matches!(words.first(), Some(&("a" | "an" | "the" | "my" | "our"))) && words.len() > 1,
    );
    words[skip..]
        .join(" ")
        .trim_end_matches(|c: char| c.is_ascii_punctuation() || "。！？，".contains(c))
        .to_string()
}

/// The units an object is compared in: words, or characters where the
/// script writes no spaces.
fn units(object: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in object.split_whitespace() {
        if word.chars().any(is_cjk) {
            out.extend(word.chars().map(String::from));
        } else {
            out.push(word.to_string());
        }
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9fff}' | '\u{f900}'..='\u{faff}')
}

/// Whether a fact's object and a label's spelling name the same thing:
/// one runs, in order, inside the other and makes at least half of it.
fn objects_match(fact: &str, label: &str) -> bool {
    let (a, b) = (units(&normalise(fact)), units(label));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty()
        && short.len() * 2 >= long.len()
        && long.windows(short.len()).any(|w| w == short.as_slice())
}

fn bound_matches(bound: &Bound, at: Timestamp, end: bool) -> bool {
    let open = at == Timestamp::MAX || at >= Timestamp::NO_END_DATE;
    match bound {
        Bound::Any => true,
        Bound::Now => end && open,
        Bound::Past => end && !open,
        Bound::Date(prefix) => {
            at != Timestamp::MIN && !open && at.to_string().starts_with(prefix.as_str())
        }
    }
}

/// The subject's name in a fact (`tenant/clara` is `clara`).
fn subject_name(fact: &FactVersion) -> String {
    fact.subject
        .split_once('/')
        .map_or(fact.subject.as_str(), |(_, name)| name)
        .to_lowercase()
}

/// The name each entity goes by now, lower-cased, by id: a relative
/// known first by relation ("user's sister") and named later ("Clara")
/// keeps its id and takes the name.
fn current_names(memory: &Memory) -> Result<HashMap<String, String>> {
    let mut session = memory.engine().session();
    let out = session.run("?- mem_entity(Id, _, Name, _).")?;
    let mut names = HashMap::new();
    if let Some(chronolog_engine::Output::Rows(rows)) = out.last() {
        for row in rows {
            let values: Vec<_> = row.iter().collect();
            if let [id, name] = values.as_slice() {
                let name = session.render(name);
                names.insert(session.render(id), name.trim_matches('"').to_lowercase());
            }
        }
    }
    Ok(names)
}

fn matches(fact: &FactVersion, label: &Label, names: &HashMap<String, String>) -> bool {
    (subject_name(fact) == label.subject || names.get(&fact.subject) == Some(&label.subject))
        && label.predicates.contains(&fact.predicate)
        && label.objects.iter().any(|o| objects_match(&fact.object, o))
        && bound_matches(&label.from, fact.valid.from, false)
        && bound_matches(&label.until, fact.valid.to, true)
}

/// What one case came to.
#[derive(Clone, Debug)]
struct Outcome {
    /// Labels that must hold, and whether each was found.
    required: Vec<(Label, bool)>,
    /// Facts believed, each with whether a label of the case matches it.
    facts: Vec<(FactVersion, bool)>,
}

impl Outcome {
    fn exact(&self) -> bool {
        self.required.iter().all(|(_, found)| *found) && self.facts.iter().all(|(_, ok)| *ok)
    }
}

/// The counts of one language and split.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scores {
    /// Cases scored.
    pub cases: usize,
    /// Cases with every required label found and no wrong fact.
    pub exact: usize,
    /// Required labels.
    pub labels: usize,
    /// Required labels found.
    pub found: usize,
    /// Facts believed.
    pub facts: usize,
    /// Facts some label of their case matches.
    pub right: usize,
}

impl Scores {
    /// Found labels over required ones (1 where none are required).
    pub fn recall(&self) -> f64 {
        ratio(self.found, self.labels)
    }

    /// Right facts over facts believed (1 where none are).
    pub fn precision(&self) -> f64 {
        ratio(self.right, self.facts)
    }

    /// The harmonic mean of recall and precision.
    pub fn f1(&self) -> f64 {
        let (r, p) = (self.recall(), self.precision());
        if r + p == 0.0 {
            0.0
        } else {
            2.0 * r * p / (r + p)
        }
    }

    fn add(&mut self, outcome: &Outcome) {
        self.cases += 1;
        self.exact += usize::from(outcome.exact());
        self.labels += outcome.required.len();
        self.found += outcome.required.iter().filter(|(_, f)| *f).count();
        self.facts += outcome.facts.len();
        self.right += outcome.facts.iter().filter(|(_, ok)| *ok).count();
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// A memory in RAM for scoring: the rules name their predicates
/// canonically and never consult a model, so the hashing embedder reads
/// the same facts as the real ones and the scores do not depend on what
/// is installed.
pub fn scoring_memory() -> Result<Memory> {
    let engine = Engine::with_embedders(
        Store::in_memory(),
        Arc::new(HashingEmbedder::new(64)),
        Arc::new(HashingEmbedder::new(64)),
    );
    Ok(Memory::with_engine(
        engine,
        Options {
            reranker: None,
            ..Options::manual()
        },
    )?)
}

fn run_case(memory: &Memory, tenant: &str, lang: Option<Lang>, case: &Case) -> Result<Outcome> {
    memory.pin_language(tenant, lang)?;
    for (day, text) in case.messages.iter().enumerate() {
        let date = FIRST_DAY
            .checked_add(jiff::Span::new().days(day as i64))
            .map_err(|e| anyhow!("{e}"))?;
        let at = Timestamp::parse(&date.to_string())?;
        memory.add(tenant, Message::new("user", text.as_str()).at(at))?;
    }
    memory.consolidate_now()?;
    let believed = memory.timeline(tenant)?;
    let names = current_names(memory)?;
    let required = case
        .labels
        .iter()
        .filter(|l| !l.optional)
        .map(|l| (l.clone(), believed.iter().any(|f| matches(f, l, &names))))
        .collect();
    let facts = believed
        .into_iter()
        .map(|f| {
            let ok = case.labels.iter().any(|l| matches(&f, l, &names));
            (f, ok)
        })
        .collect();
    Ok(Outcome { required, facts })
}

/// Scores `set`'s cases of `split` in `memory`, each under its own tenant
/// (`prefix` and its line). With `explain`, a dev case that is not exact
/// is printed with what it missed and what it got wrong; a held-out case
/// never is.
pub fn score(memory: &Memory, set: &LabelledSet, split: Split, explain: bool) -> Result<Scores> {
    let stem = set
        .path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("set");
    let mut scores = Scores::default();
    for case in set.cases.iter().filter(|c| c.split == split) {
        let tenant = format!("x-{stem}-{}", case.line);
        let outcome = run_case(memory, &tenant, set.lang, case)?;
        if explain && split == Split::Dev && !outcome.exact() {
            print_case(set, case, &outcome);
        }
        scores.add(&outcome);
    }
    Ok(scores)
}

fn print_case(set: &LabelledSet, case: &Case, outcome: &Outcome) {
    println!("{}:{}", set.path.display(), case.line);
    for message in &case.messages {
        println!("  > {message}");
    }
    for (label, found) in &outcome.required {
        if !found {
            println!(
                "  missed (line {}): {} | {} | {}",
                label.line,
                label.subject,
                label.predicates.join("/"),
                label.objects.join(" / ")
            );
        }
    }
    for (fact, ok) in &outcome.facts {
        if !ok {
            println!(
                "  wrong: {} | {} | {} ({} .. {})",
                subject_name(fact),
                fact.predicate,
                fact.object,
                fact.valid.from,
                fact.valid.to
            );
        }
    }
}

/// What `chronolog-eval extraction` takes.
#[derive(Clone, Debug)]
pub struct ExtractionArgs {
    /// The labelled files.
    pub files: Vec<PathBuf>,
    /// The splits scored.
    pub splits: Vec<Split>,
    /// Print each dev case that is not exact.
    pub explain: bool,
    /// Where the scores go as JSON.
    pub out: Option<PathBuf>,
}

/// Scores every file's splits and prints a markdown table (and the JSON
/// to `out`).
pub fn run(args: &ExtractionArgs) -> Result<()> {
    let memory = scoring_memory()?;
    let mut rows = Vec::new();
    let mut table = String::from(
        "| set | split | cases | exact | labels | found | recall | facts | right | precision | F1 |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for file in &args.files {
        let set = read_set(file)?;
        let name = file
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("set")
            .to_string();
        for &split in &args.splits {
            let s = score(&memory, &set, split, args.explain)?;
            table.push_str(&format!(
                "| {name} | {} | {} | {} | {} | {} | {:.3} | {} | {} | {:.3} | {:.3} |\n",
                split.name(),
                s.cases,
                s.exact,
                s.labels,
                s.found,
                s.recall(),
                s.facts,
                s.right,
                s.precision(),
                s.f1()
            ));
            rows.push(json!({
                "set": name,
                "language": set.lang.map(|l| l.code()),
                "split": split.name(),
                "cases": s.cases,
                "exact": s.exact,
                "labels": s.labels,
                "found": s.found,
                "recall": s.recall(),
                "facts": s.facts,
                "right": s.right,
                "precision": s.precision(),
                "f1": s.f1(),
            }));
        }
    }
    print!("{table}");
    if let Some(out) = &args.out {
        let json: Json = json!({ "extraction": rows });
        std::fs::write(out, serde_json::to_string_pretty(&json)?)
            .with_context(|| format!("writing {}", out.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_into_cases_with_their_labels_and_splits() {
        let cases = parse(
            "[dev]\n> I moved to Berlin.\n= user | lives_in | Berlin | 2020-03..now\n\
             ? user | moved_to | Berlin\n> Hi.\n= none\n[held-out]\n> A.\n> B.\n= user | mom/mother | Linda / Lin\n",
        )
        .expect("parses");
        assert_eq!(cases.len(), 3);
        assert_eq!(cases[0].split, Split::Dev);
        assert_eq!(cases[0].labels.len(), 2);
        assert_eq!(cases[0].labels[0].from, Bound::Date("2020-03".into()));
        assert_eq!(cases[0].labels[0].until, Bound::Now);
        assert!(cases[0].labels[1].optional);
        assert!(cases[1].labels.is_empty());
        assert_eq!(cases[2].split, Split::HeldOut);
        assert_eq!(cases[2].messages, ["A.", "B."]);
        assert_eq!(cases[2].labels[0].predicates, ["mom", "mother"]);
        assert_eq!(cases[2].labels[0].objects, ["linda", "lin"]);
    }

    #[test]
    fn malformed_files_are_refused_with_the_line() {
        for (text, says) in [
            ("> Hi.\n= none\n", "before [dev]"),
            ("[dev]\n= none\n", "before any message"),
            ("[dev]\n> Hi.\n", "no label"),
            ("[dev]\n> Hi.\n= user | likes\n", "line 3"),
            ("[dev]\n> Hi.\n= user | likes | tea | soon\n", "line 3"),
            ("[dev]\n> Hi.\n= user | likes | tea | now..\n", "line 3"),
        ] {
            let err = format!("{:#}", parse(text).expect_err(text));
            assert!(err.contains(says), "{text:?}: {err}");
        }
    }

    #[test]
    fn objects_match_when_one_runs_inside_the_other_and_makes_half_of_it() {
        assert!(objects_match("Google Zurich", "google"));
        assert!(objects_match("the bank", "bank"));
        assert!(objects_match(
            "moving to Portland next year",
            "moving to portland"
        ));
        assert!(!objects_match("hiking in the hills on weekends", "hiking"));
        assert!(!objects_match("Markus", "mark"));
        assert!(objects_match("协和医院", "协和医院"));
        assert!(objects_match("Acme公司", "acme公司"));
        assert!(!objects_match("年糕", "猫"));
    }
}
