//! The `chronolog` binary from the outside: modes, exit statuses, formats,
//! persistence, and `chronolog demo`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn chronolog(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chronolog"));
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

fn run_stdin(mut command: Command, input: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

const SETUP: &str = ":create works_at(person: sym key, company: sym).
works_at(alice, tencent) valid 2021-03-01.
works_at(alice, moonshot) valid 2024-06-01.";

#[test]
fn execute_writes_to_the_database_directory_and_a_later_run_reads_it() {
    let home = tempfile::tempdir().expect("temp");
    let db = home.path().join("db");
    let out = chronolog(home.path())
        .arg(&db)
        .args(["-e", SETUP])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = chronolog(home.path())
        .arg(&db)
        .args(["-e", "?- works_at(alice, Y) as_of 2022-01-01."])
        .output()
        .expect("run");
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("tencent") && stdout.contains("(1 row)"),
        "{stdout}"
    );
}

#[test]
fn read_only_reads_and_refuses_writes_without_touching_a_file() {
    let home = tempfile::tempdir().expect("temp");
    let db = home.path().join("db");
    let out = chronolog(home.path())
        .arg(&db)
        .args(["-e", SETUP])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let files = |dir: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut all: Vec<_> = std::fs::read_dir(dir)
            .expect("list")
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| (e.path(), std::fs::read(e.path()).expect("read")))
            .collect();
        all.sort();
        all
    };
    let before = files(&db);
    let read = chronolog(home.path())
        .arg(&db)
        .args([
            "--read-only",
            "-e",
            "?- works_at(alice, Y) as_of 2022-01-01.",
        ])
        .output()
        .expect("run");
    assert!(read.status.success(), "{}", text(&read.stderr));
    assert!(text(&read.stdout).contains("tencent"));
    let write = chronolog(home.path())
        .arg(&db)
        .args(["--read-only", "-e", "works_at(bob, acme)."])
        .output()
        .expect("run");
    assert!(!write.status.success());
    let said = text(&write.stdout) + &text(&write.stderr);
    assert!(said.contains("read-only"), "{said}");
    assert_eq!(files(&db), before, "a read-only run changed a file");
}

#[test]
fn without_a_directory_the_default_database_lives_in_chronolog_home() {
    let home = tempfile::tempdir().expect("temp");
    let out = chronolog(home.path())
        .args(["-e", SETUP])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(home.path().join("default").is_dir());
    let out = chronolog(home.path())
        .args(["-e", "?- works_at(alice, Y)."])
        .output()
        .expect("run");
    assert!(text(&out.stdout).contains("moonshot"));
}

#[test]
fn a_script_on_standard_input_runs_and_an_error_exits_non_zero_with_a_caret() {
    let home = tempfile::tempdir().expect("temp");
    let mut command = chronolog(home.path());
    command.arg(home.path().join("db"));
    let script = format!("{SETUP}\n?- works_at(alice Y).\n:create never(a: sym).\n");
    let out = run_stdin(command, &script);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("expected `)`, found `Y`"), "{stderr}");
    assert!(stderr.contains("--> 4:19"), "{stderr}");
    assert!(stderr.contains("^"), "{stderr}");
    // It stopped at the error: what came after did not run.
    let out = chronolog(home.path())
        .arg(home.path().join("db"))
        .args(["-e", ":relations"])
        .output()
        .expect("run");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("works_at") && !stdout.contains("never"),
        "{stdout}"
    );
}

#[test]
fn json_output_is_one_object_per_statement() {
    let home = tempfile::tempdir().expect("temp");
    let out = chronolog(home.path())
        .arg(home.path().join("db"))
        .args(["--format", "json", "-e", SETUP])
        .args(["-e", "?- works_at(P, C) as_of 2022-01-01."])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(lines[0]["created"], "works_at");
    assert_eq!(lines[1]["committed"]["added"], 2);
    assert_eq!(
        lines[2]["rows"],
        serde_json::json!({"columns": ["P", "C"], "rows": [["alice", "tencent"]]})
    );
}

#[test]
fn csv_output_has_a_header_and_quotes_where_needed() {
    let home = tempfile::tempdir().expect("temp");
    let out = chronolog(home.path())
        .arg(home.path().join("db"))
        .args(["--format", "csv", "-e"])
        .arg(":create note(id: sym key, text: str).\nnote(n1, \"hello, world\").\n?- note(I, T).")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "I,T\nn1,\"hello, world\"\n");
}

#[test]
fn a_bad_option_is_a_usage_error() {
    let home = tempfile::tempdir().expect("temp");
    let out = chronolog(home.path())
        .args(["--format", "xml", "-e", "?- p(X)."])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown format `xml`"));
}

#[test]
fn demo_tells_the_story_and_exits_when_not_on_a_terminal() {
    let home = tempfile::tempdir().expect("temp");
    let out = run_stdin(
        {
            let mut c = chronolog(home.path());
            c.arg("demo");
            c
        },
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for expected in [
        "?- works_at(alice, Y) as_of t1.",
        "known_at",
        "?- history works_at(bob, Y).",
        "?- reach(alice, Y), not blocked(Y).",
        "?- rrf(near(episode",
        "embedder: hashing",
    ] {
        assert!(
            stdout.contains(expected),
            "missing {expected:?} in:\n{stdout}"
        );
    }
    // The as-of answer: alice was at tencent in 2022.
    let after = stdout
        .split("?- works_at(alice, Y) as_of t1.")
        .nth(1)
        .expect("as-of question");
    assert!(
        after.lines().take(3).any(|l| l.contains("tencent")),
        "{after}"
    );
    // A fresh temporary database each time, removed afterwards.
    let dir = stdout
        .lines()
        .find_map(|l| l.strip_prefix("database: "))
        .expect("the database line");
    assert!(!Path::new(dir).exists(), "{dir} was left behind");
}

#[test]
fn a_broken_fact_aborts_its_whole_run_in_scripts_as_in_the_c_abi() {
    let home = tempfile::tempdir().expect("temp");
    let db = home.path().join("db");
    let script = ":create w(p: sym key, c: sym).
w(ann, acme).
w(bob acme).
w(cat, acme).
?- w(P, C).
";
    for keep_going in [false, true] {
        let dir = db.join(format!("keep-{keep_going}"));
        let mut command = chronolog(home.path());
        command.arg(&dir);
        if keep_going {
            command.arg("--keep-going");
        }
        let out = run_stdin(command, script);
        assert!(!out.status.success(), "the error shows in the status");
        assert!(
            text(&out.stderr).contains("3:"),
            "the error points at line 3: {}",
            text(&out.stderr)
        );
        let after = chronolog(home.path())
            .arg(&dir)
            .args(["--format", "csv", "-e", "?- w(P, C)."])
            .output()
            .expect("run");
        assert_eq!(
            text(&after.stdout),
            "P,C\n",
            "keep-going {keep_going}: no fact of the broken run committed"
        );
    }
}

/// `chronolog remember` prints episode ids, `chronolog consolidate` turns
/// them into facts the language can read; a bad line of a file names its
/// line number and stores nothing of the file.
#[test]
fn remember_and_consolidate_from_the_command_line() {
    let home = tempfile::tempdir().expect("home");
    let db = home.path().join("db");
    let remember = |args: &[&str]| {
        chronolog(home.path())
            .arg("remember")
            .arg(&db)
            .args(args)
            .output()
            .expect("run")
    };
    let out = remember(&[
        "--tenant",
        "acme",
        "--role",
        "user",
        "--at",
        "2021-03-01",
        "I work at Tencent.",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "acme/e1\n");
    let file = home.path().join("chat.jsonl");
    std::fs::write(
        &file,
        "{\"role\": \"user\", \"text\": \"I just joined Moonshot!\", \"at\": \"2024-06-01\"}\n{\"role\": \"user\"}\n",
    )
    .expect("write");
    let out = remember(&["--tenant", "acme", "--jsonl", file.to_str().expect("path")]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("line 2: no `text`"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(
        &file,
        "{\"role\": \"user\", \"text\": \"I just joined Moonshot!\", \"at\": \"2024-06-01\"}\n",
    )
    .expect("write");
    let out = remember(&["--tenant", "acme", "--jsonl", file.to_str().expect("path")]);
    assert_eq!(
        text(&out.stdout),
        "acme/e2\n",
        "the bad file stored nothing"
    );
    let out = chronolog(home.path())
        .arg("consolidate")
        .arg(&db)
        .output()
        .expect("run");
    assert!(
        text(&out.stdout).starts_with("consolidated 2 episodes"),
        "{}",
        text(&out.stdout)
    );
    let out = chronolog(home.path())
        .arg(&db)
        .args([
            "--format",
            "csv",
            "-e",
            "?- mem_fact(_, acme, _, works_at, C, _, _) as_of 2022-01-01.",
            "-e",
            "?- mem_fact(_, acme, _, works_at, C, _, _).",
        ])
        .output()
        .expect("run");
    assert_eq!(text(&out.stdout), "C\nTencent\nC\nMoonshot\n");
    // Forgotten from the command line: the fact and the message that
    // named it, as of any time.
    let out = chronolog(home.path())
        .args(["forget"])
        .arg(&db)
        .args(["--tenant", "acme", "Tencent"])
        .output()
        .expect("run");
    assert!(
        text(&out.stdout).starts_with("forgot 1 message, "),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = chronolog(home.path())
        .arg(&db)
        .args([
            "--format",
            "csv",
            "-e",
            "?- mem_fact(_, acme, _, works_at, C, _, _) as_of 2022-01-01.",
            "-e",
            "?- mem_episode(_, acme, _, _, _, _, T).",
        ])
        .output()
        .expect("run");
    assert!(
        !text(&out.stdout).contains("Tencent"),
        "{}",
        text(&out.stdout)
    );
}

/// `chronolog language` pins a tenant's language before its first
/// message, `remember --lang` names one message's, `recall --lang` a
/// question's; a code not served is refused and changes nothing.
#[test]
fn a_tenant_language_is_pinned_and_a_message_or_question_names_its_own() {
    let home = tempfile::tempdir().expect("home");
    let db = home.path().join("db");
    let run = |args: &[&str]| {
        let out = chronolog(home.path())
            .arg(args[0])
            .arg(&db)
            .args(&args[1..])
            .output()
            .expect("run");
        (out.status.success(), text(&out.stdout), text(&out.stderr))
    };
    let (ok, out, _) = run(&["language", "--tenant", "jana"]);
    assert!(ok);
    assert_eq!(
        out,
        "jana: not pinned (each message's language is detected)\n"
    );
    let (ok, _, err) = run(&["language", "--tenant", "jana", "fr"]);
    assert!(!ok);
    assert!(err.contains("\"fr\" is not a language served"), "{err}");
    let (ok, out, _) = run(&["language", "--tenant", "jana", "de"]);
    assert!(ok);
    assert_eq!(out, "jana: pinned to de\n");
    // Detection alone reads these as English and finds nothing in them.
    let said = ["remember", "--role", "user", "--at", "2024-01-01"];
    let (ok, _, err) = run(&[&said[..], &["--tenant", "jana", "Ich mag Jazz."]].concat());
    assert!(ok, "{err}");
    let (ok, _, err) = run(&[
        &said[..],
        &["--tenant", "otto", "--lang", "de", "Ich hasse Golf."],
    ]
    .concat());
    assert!(ok, "{err}");
    let (ok, _, err) = run(&[
        &said[..],
        &["--tenant", "otto", "--lang", "xx", "Ich hasse Golf."],
    ]
    .concat());
    assert!(!ok && err.contains("bad --lang"), "{err}");
    let (ok, _, _) = run(&["consolidate"]);
    assert!(ok);
    let (ok, out, _) = run(&["recall", "--tenant", "jana", "Was mag ich?"]);
    assert!(ok);
    assert!(out.contains("Jazz"), "{out}");
    let (ok, out, _) = run(&[
        "recall",
        "--tenant",
        "otto",
        "--lang",
        "de",
        "--explain",
        "Was hasse ich?",
    ]);
    assert!(ok);
    assert!(out.contains("\"Was hasse ich?\" (de)"), "{out}");
    assert!(out.contains("otto/user/feels_about/golf"), "{out}");
    let (ok, out, _) = run(&["language", "--tenant", "jana", "none"]);
    assert!(ok);
    assert_eq!(
        out,
        "jana: not pinned (each message's language is detected)\n"
    );
}

/// `chronolog eval ...` runs the harness's own binary with its
/// arguments and passes its exit status on; without the binary it says
/// how to build it.
#[test]
fn eval_runs_the_harness_binary_or_says_how_to_build_it() {
    let home = tempfile::tempdir().expect("home");
    let missing = chronolog(home.path())
        .env("CHRONOLOG_EVAL_BIN", home.path().join("no-such-binary"))
        .args(["eval", "locomo", "x.json"])
        .output()
        .expect("run");
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("cargo build --release -p chronolog-eval"),
        "{}",
        text(&missing.stderr)
    );
    // A stand-in harness: a script that prints its arguments and fails.
    let script = home.path().join("fake-eval");
    std::fs::write(&script, "#!/bin/sh\necho \"args: $*\"\nexit 3\n").expect("script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let ran = chronolog(home.path())
            .env("CHRONOLOG_EVAL_BIN", &script)
            .args(["eval", "locomo", "x.json", "--set", "rrf_k=20", "--help"])
            .output()
            .expect("run");
        assert_eq!(ran.status.code(), Some(3));
        assert_eq!(
            text(&ran.stdout),
            "args: locomo x.json --set rrf_k=20 --help\n"
        );
    }
}
