//! `chronolog-eval` from the outside, on small hand-written files in
//! LoCoMo's and LongMemEval's shapes: what it scores, the JSON it writes,
//! gzip, `--types`, `--limit`, `--matching` and `--explain`.

use std::path::Path;
use std::process::Command;

fn eval(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chronolog-eval"));
    command
        .env("CHRONOLOG_HOME", home)
        .env("CHRONOLOG_MODEL_DIR", home.join("no-model"))
        .env("CHRONOLOG_BGE_DIR", home.join("no-model"))
        .env("CHRONOLOG_RERANKER_DIR", home.join("no-model"));
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `chronolog-eval longmemeval` on `tests/data/<fixture>` with the hashing
/// embedder: the JSON it writes.
fn longmemeval_json(fixture: &str) -> serde_json::Value {
    let home = tempfile::tempdir().expect("home");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(fixture);
    let out = home.path().join("eval.json");
    let run = eval(home.path())
        .arg("longmemeval")
        .arg(&fixture)
        .args(["--embedder", "hashing", "--out"])
        .arg(&out)
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", text(&run.stderr));
    serde_json::from_str(&std::fs::read_to_string(&out).expect("out")).expect("json")
}

/// `chronolog-eval locomo` on a small file in LoCoMo's shape: every
/// question is scored, malformed evidence ids are split, and the JSON
/// holds the metrics and a row per question.
#[test]
fn eval_locomo_scores_a_small_conversation() {
    let home = tempfile::tempdir().expect("home");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/locomo_fixture.json");
    let out = home.path().join("eval.json");
    let export = home.path().join("contexts.jsonl");
    let run = eval(home.path())
        .arg("locomo")
        .arg(&fixture)
        .args(["--embedder", "hashing", "--all", "--out"])
        .arg(&out)
        .arg("--export")
        .arg(&export)
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(
        text(&run.stdout).contains("| hybrid |"),
        "{}",
        text(&run.stdout)
    );
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("out")).expect("json");
    assert_eq!(result["questions"], 4);
    assert_eq!(result["rows"].as_array().map(Vec::len), Some(4));
    // "D2:2; D1:3" is two evidence turns.
    assert_eq!(
        result["rows"][2]["evidence"],
        serde_json::json!(["D2:2", "D1:3"])
    );
    // The puppy's name is in one turn, which words alone find first.
    let bm25 = result["configs"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "baseline: bm25 over turns"))
        .expect("bm25 baseline");
    assert_eq!(bm25["metrics"]["by_category"]["4"]["recall"]["@5"], 1.0);
    // "Biscuit" is spelled in its evidence; "7 May 2023" is not (the turn
    // says "yesterday"): only a reader that dates it can answer it.
    assert_eq!(result["rows"][1]["answer_stated"], true);
    assert_eq!(result["rows"][0]["answer_stated"], false);
    let answerable = &result["configs"][0]["metrics"]["answerable"];
    assert_eq!(answerable["extractive_questions"], 3);
    assert_eq!(answerable["stated_questions"], 2);
    let lines = std::fs::read_to_string(&export).expect("export");
    assert_eq!(lines.lines().count(), 4);
    assert!(lines.contains("\"answer\":\"Biscuit\""));
}

/// `chronolog-eval longmemeval` on a hand-written file in LongMemEval's
/// schema: each question is its own tenant, dated by its question date
/// (an empty turn skipped);
/// `has_answer` turns are the evidence; an `_abs` question should be
/// abstained on, and this one is (no word of it is in its haystack).
#[test]
fn eval_longmemeval_scores_each_question_in_its_own_haystack() {
    let result = longmemeval_json("longmemeval_fixture.json");
    assert_eq!(result["dataset"], "LongMemEval");
    assert_eq!(result["questions"], 2);
    // An empty turn is no message; it is counted, not ingested.
    assert_eq!(result["empty_turns_skipped"], 1);
    assert_eq!(
        result["rows"][0]["evidence"],
        serde_json::json!(["sess_c:0"])
    );
    let hybrid = &result["configs"][0]["metrics"];
    assert_eq!(hybrid["unanswerable_questions"], 1);
    assert_eq!(hybrid["unanswerable_abstained"], 1.0);
    assert_eq!(
        hybrid["by_category"]["knowledge-update"]["recall"]["@5"],
        1.0
    );
    assert_eq!(result["rows"][1]["abstained"], true);
    // The answer session is ranked first, and "Porto" is in the context.
    let update = &hybrid["by_category"]["knowledge-update"];
    assert_eq!(update["session_recall_any"]["@5"], 1.0);
    assert_eq!(update["extractive_questions"], 1);
    assert_eq!(update["containment"]["2000"], 1.0);
    assert_eq!(update["stated_questions"], 1);
    assert_eq!(update["containment_stated"]["2000"], 1.0);
    assert_eq!(hybrid["by_category"]["abstention"]["questions"], 1);
}

/// A question the file dates before a session of its own day is asked
/// after it: the evidence said later that day is history, found and in
/// the context (at the question's date the memory would not see it).
#[test]
fn eval_longmemeval_asks_after_a_session_dated_later_the_same_day() {
    let result = longmemeval_json("longmemeval_late_session.json");
    let row = &result["rows"][0];
    assert_eq!(row["evidence"], serde_json::json!(["sess_b:0"]));
    assert_eq!(row["abstained"], false, "{row}");
    assert_eq!(row["covered_at_2000"], true, "{row}");
}

/// A gzipped file is read as it is shipped; `--types` keeps the questions
/// of those types and `--limit` an even sample of the items; a type the
/// file does not have is an error that lists the ones it has.
#[test]
fn eval_longmemeval_reads_gzip_and_selects_questions() {
    use std::io::Write;
    let home = tempfile::tempdir().expect("home");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/longmemeval_fixture.json");
    let gz = home.path().join("fixture.json.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).expect("create"),
        flate2::Compression::default(),
    );
    encoder
        .write_all(&std::fs::read(&fixture).expect("fixture"))
        .expect("write");
    encoder.finish().expect("finish");
    let questions = |extra: &[&str]| {
        let out = home.path().join("eval.json");
        let run = eval(home.path())
            .arg("longmemeval")
            .arg(&gz)
            .args(["--embedder", "hashing", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .expect("run");
        assert!(run.status.success(), "{}", text(&run.stderr));
        let result: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("out")).expect("json");
        result["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r["question"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(questions(&[]).len(), 2);
    assert_eq!(
        questions(&["--types", "abstention"]),
        ["What is the name of my pet iguana?"]
    );
    assert_eq!(
        questions(&["--limit", "1"]),
        ["Which city do I live in now?"]
    );
    assert_eq!(
        questions(&["--matching", "PET IGUANA"]),
        ["What is the name of my pet iguana?"]
    );
    // One question looked at closely: how it was searched, its evidence
    // by the episode ids the explanation names.
    let run = eval(home.path())
        .arg("longmemeval")
        .arg(&gz)
        .args(["--embedder", "hashing", "--matching", "city", "--explain"])
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", text(&run.stderr));
    let explained = text(&run.stdout);
    assert!(
        explained.contains("Which city do I live in now?")
            && explained.contains("fused (")
            && explained.contains("verdict:")
            && !explained.contains("iguana"),
        "{explained}"
    );
    assert!(explained.contains(" = q0-"), "{explained}");
    let run = eval(home.path())
        .arg("longmemeval")
        .arg(&gz)
        .args(["--embedder", "hashing", "--types", "multi-session"])
        .output()
        .expect("run");
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("abstention, knowledge-update"),
        "{}",
        text(&run.stderr)
    );
}

/// `--sweep`: each field asked at each value over one consolidation, the
/// value fitted on every question and fold by fold, both figures written;
/// a field the tuning does not have is refused before anything is read.
#[test]
fn a_sweep_fits_each_field_and_reports_the_left_out_figure() {
    let home = tempfile::tempdir().expect("home");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/longmemeval_fixture.json");
    let out = home.path().join("sweep.json");
    let run = eval(home.path())
        .arg("longmemeval")
        .arg(&fixture)
        .args([
            "--embedder",
            "hashing",
            "--sweep",
            "k=1,20",
            "--sweep",
            "rrf_k=10,60",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", text(&run.stderr));
    let stdout = text(&run.stdout);
    assert!(stdout.contains("five folds of the questions"), "{stdout}");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("out")).expect("json");
    let sweeps = result["sweeps"].as_array().expect("sweeps");
    assert_eq!(sweeps.len(), 2);
    assert_eq!(sweeps[0]["field"], "k");
    assert_eq!(sweeps[0]["current"], "20");
    assert_eq!(sweeps[0]["values"].as_array().map(Vec::len), Some(2));
    // Two questions: folds 0 and 1, each fitted on the other.
    assert_eq!(sweeps[0]["folds"], 2);
    assert_eq!(
        sweeps[0]["chosen_per_fold"].as_array().map(Vec::len),
        Some(2)
    );
    // The one answerable question's evidence is found at the run's value.
    assert_eq!(sweeps[0]["values"][1]["covered_at_2000"], 1.0);
    assert!(sweeps[1]["left_out_covered_at_2000"].is_number());

    let refused = eval(home.path())
        .arg("longmemeval")
        .arg(&fixture)
        .args(["--embedder", "hashing", "--sweep", "no_such_field=1,2"])
        .output()
        .expect("run");
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("no tuning field `no_such_field`"),
        "{}",
        text(&refused.stderr)
    );
}
