//! The shell on a real pseudo-terminal: a multi-line rule typed line by
//! line, a query, Ctrl-C during a runaway recursive query (the query stops,
//! the shell stays), tab completion, pasted statements, and Ctrl-D to
//! leave.

use std::process::Command;
use std::time::{Duration, Instant};

use expectrl::{ControlCode, Session};

#[test]
fn the_shell_survives_ctrl_c_and_leaves_on_ctrl_d() {
    let home = tempfile::tempdir().expect("temp");
    let mut command = Command::new(env!("CARGO_BIN_EXE_chronolog"));
    command
        .arg(home.path().join("db"))
        .env("CHRONOLOG_HOME", home.path())
        .env("CHRONOLOG_MODEL_DIR", home.path().join("no-model"))
        .env("CHRONOLOG_BGE_DIR", home.path().join("no-model"))
        .env("CHRONOLOG_RERANKER_DIR", home.path().join("no-model"))
        .env("TERM", "xterm");
    let mut shell = Session::spawn(command).expect("spawn on a pty");
    shell.set_expect_timeout(Some(Duration::from_secs(30)));
    shell.expect("Ctrl-D leaves.").expect("banner");
    shell.expect("chronolog> ").expect("prompt");

    shell
        .send_line(":create edge(a: int, b: int).")
        .expect("send");
    shell.expect("created edge").expect("created");
    shell.send_line("edge(1, 2).").expect("send");
    shell.expect("committed: 1 added").expect("committed");

    // A rule over three lines: the shell waits for the `.`.
    shell.send_line("count_up(X) :- edge(X, _).").expect("send");
    shell.expect("rule count_up").expect("first rule");
    shell.send_line("count_up(Y) :-").expect("send");
    shell.send_line("    count_up(X),").expect("send");
    shell.send_line("    Y = X + 1.").expect("send");
    shell.expect("rule count_up").expect("multi-line rule");

    // It never ends on its own; Ctrl-C stops it.
    shell.send_line("?- count_up(X), X < 0.").expect("send");
    std::thread::sleep(Duration::from_millis(1500));
    shell.send(ControlCode::EndOfText).expect("ctrl-c");
    shell.expect("query cancelled").expect("the query stops");

    // The shell is still there, with its data.
    shell.send_line("?- edge(A, B).").expect("send");
    shell.expect("(1 row)").expect("still answering");

    // Tab completes a relation name.
    shell.send("?- ed").expect("send");
    shell.send("\t").expect("tab");
    shell.send_line("(A, B), A > 0.").expect("send");
    shell.expect("(1 row)").expect("completed query ran");

    // Several statements pasted at once all run, in order: as raw bytes,
    // and as a bracketed paste (what terminals send when the editor asks).
    shell
        .send("?- edge(A, B), A = 1.\n?- edge(A, B), A = 7.\n")
        .expect("paste");
    shell.expect("(1 row)").expect("the first pasted query");
    shell.expect("(0 rows)").expect("the second pasted query");
    shell
        .send("\x1b[200~?- edge(A, B), B = 2.\n?- edge(A, B), B = 9.\x1b[201~\n")
        .expect("bracketed paste");
    shell.expect("(1 row)").expect("the first bracketed query");
    shell
        .expect("(0 rows)")
        .expect("the second bracketed query");

    shell.expect("chronolog> ").expect("prompt again");
    shell.send(ControlCode::EndOfTransmission).expect("ctrl-d");
    let deadline = Instant::now() + Duration::from_secs(20);
    while shell.is_alive().unwrap_or(false) {
        assert!(
            Instant::now() < deadline,
            "the shell did not exit on Ctrl-D"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // History persisted.
    let history = std::fs::read_to_string(home.path().join("history")).expect("history file");
    assert!(history.contains("edge(1, 2)."), "{history}");
}
