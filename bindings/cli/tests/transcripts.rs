//! Golden transcripts: each `tests/transcripts/*.dl` runs through the real
//! `chronolog` binary (`--echo --keep-going -f`, on a fresh database, from
//! the transcripts folder so that `data/...` paths resolve) and its output,
//! with the exit status, must equal the `.out` file beside it.
//!
//! Transaction times and durations are wall-clock; they are replaced by
//! `tx1`, `tx2`, ... and `<time>` before comparing (the scripts print such
//! answers as CSV or JSON, where no column width depends on them).
//!
//! Refresh with `UPDATE_GOLDEN=1 cargo test -p chronolog-cli --test transcripts`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts")
}

fn run_transcript(script: &Path) -> String {
    let home = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_chronolog"))
        .arg(home.path().join("db"))
        .args(["--echo", "--keep-going", "-f"])
        .arg(script)
        .current_dir(transcripts_dir())
        .env("CHRONOLOG_HOME", home.path())
        // The hashing embedder and no reranker, so that scores do not
        // depend on whether the models are installed.
        .env("CHRONOLOG_MODEL_DIR", home.path().join("no-model"))
        .env("CHRONOLOG_BGE_DIR", home.path().join("no-model"))
        .env("CHRONOLOG_RERANKER_DIR", home.path().join("no-model"))
        .output()
        .expect("run chronolog");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    text.push_str(&format!(
        "exit status: {}\n",
        output.status.code().unwrap_or(-1)
    ));
    normalize(&text)
}

/// Replaces each distinct datetime with a fraction of a second (only
/// transaction times have one here) by `txN`, and each `time: ...` line's
/// duration by `<time>`.
fn normalize(text: &str) -> String {
    let mut labels: Vec<String> = Vec::new();
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        if let Some(len) = datetime_at(&bytes[i..]) {
            let stamp = &text[i..i + len];
            let n = match labels.iter().position(|l| l == stamp) {
                Some(n) => n,
                None => {
                    labels.push(stamp.to_string());
                    labels.len() - 1
                }
            };
            out.push_str(&format!("tx{}", n + 1));
            i += len;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out.lines()
        .map(|line| match line.strip_prefix("time: ") {
            Some(_) => "time: <time>".to_string(),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The length of `dddd-dd-ddTdd:dd:dd.d+Z` at the start of `b`, if there.
fn datetime_at(b: &[u8]) -> Option<usize> {
    let shape = b"dddd-dd-ddTdd:dd:dd.";
    if b.len() < shape.len() + 2 {
        return None;
    }
    for (&c, &s) in b.iter().zip(shape) {
        let ok = if s == b'd' {
            c.is_ascii_digit()
        } else {
            c == s
        };
        if !ok {
            return None;
        }
    }
    let digits = b[shape.len()..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    (digits > 0 && b.get(shape.len() + digits) == Some(&b'Z')).then_some(shape.len() + digits + 1)
}

#[test]
fn transcripts_match_their_expected_output() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .expect("transcripts dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dl"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 4, "transcripts missing");
    let mut failures = Vec::new();
    for script in &scripts {
        let actual = run_transcript(script);
        let expected_path = script.with_extension("out");
        if update {
            std::fs::write(&expected_path, &actual).expect("write transcript");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- actual\n{actual}",
                script.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "transcript mismatches (refresh with UPDATE_GOLDEN=1):\n{}",
        failures.join("\n")
    );
}

#[test]
fn transaction_times_become_labels() {
    let text = "a,2026-11-30T09:55:01.263328Z,2026-11-30T09:55:01.2Z\nb,2026-11-30T09:55:01.263328Z,2021-03-01\ntime: 3.2 ms\n";
    assert_eq!(
        normalize(text),
        "a,tx1,tx2\nb,tx1,2021-03-01\ntime: <time>\n"
    );
}
