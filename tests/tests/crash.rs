//! Crash recovery: a child process commits numbered batches and acknowledges
//! each one after `commit` returns; we SIGKILL it at random moments, reopen
//! the database, and check that every acknowledged batch is there in full and
//! that no batch is there in part. The same directory is reused across rounds,
//! so recovery is also tested on a database that has crashed many times.

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
        // Killed at a random moment after its first acknowledgement.
        let run_for = Duration::from_millis(rng.gen_range(5..150));
        let acks =
            chronolog_tests::run_and_kill(env!("CARGO_BIN_EXE_crash-writer"), &path, run_for)
                .expect("run and kill crash-writer");
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
