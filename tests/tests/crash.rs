//! Crash recovery: a child process commits numbered batches and acknowledges
//! each one after `commit` returns; we SIGKILL it at random moments, reopen
//! the database, and check that every acknowledged batch is there in full and
//! that no batch is there in part. The same directory is reused across rounds,
//! so recovery is also tested on a database that has crashed many times.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use chronolog_storage::Store;
use rand::{Rng, SeedableRng};

const ROUNDS: usize = 30;

#[test]
fn acknowledged_batches_survive_sigkill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xC4A5);
    let mut acked_max = 0i64;
    let mut total_acks = 0usize;
    for round in 0..ROUNDS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crash-writer"))
            .arg(&path)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn crash-writer");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(n) = line.strip_prefix("ack ") {
                    let _ = tx.send(n.parse::<i64>().expect("ack number"));
                }
            }
        });
        // Wait for the first ack (the child has opened and recovered), then
        // let it run for a random while before killing it mid-flight.
        let first = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("child made progress");
        std::thread::sleep(Duration::from_millis(rng.gen_range(5..150)));
        // On Unix, Child::kill sends SIGKILL: no flush, no destructor runs.
        child.kill().expect("SIGKILL the writer");
        child.wait().expect("wait child");
        reader.join().expect("reader thread");
        let acks: Vec<i64> = std::iter::once(first).chain(rx.try_iter()).collect();
        acked_max = acked_max.max(*acks.iter().max().expect("one ack"));
        total_acks += acks.len();

        let store = Store::open(&path).expect("reopen after kill");
        let max_present =
            chronolog_tests::check_batches(&store).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!(
            max_present >= acked_max,
            "round {round}: batch {acked_max} was acknowledged but only {max_present} survived"
        );
        drop(store);
    }
    assert!(total_acks >= ROUNDS, "the writer made progress every round");
}
