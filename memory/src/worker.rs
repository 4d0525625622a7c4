//! The background consolidation worker, and where consolidation stands.

use chronolog_engine::Timestamp;
use crossbeam_channel::Receiver;
use parking_lot::Mutex;

use crate::consolidate::Report;
use crate::error::Result;

/// The background worker: consolidate whenever episodes arrive, taking
/// everything queued at once; stop when the memory is dropped. A pass
/// that fails (a full disk, say) leaves the cursor where it was; the
/// failure is kept for [`crate::Memory::status`] and logged (`tracing`), and the
/// pass is retried after a wait that doubles from 100 ms to a minute, or
/// at the next wake-up, whichever comes first.
pub(crate) fn work(
    rx: &Receiver<u64>,
    pass: impl Fn() -> Result<Report>,
    failure: &Mutex<Option<WorkerFailure>>,
) {
    use crossbeam_channel::RecvTimeoutError;
    use std::time::Duration;
    let mut wait: Option<Duration> = None;
    loop {
        let woken = match wait {
            None => rx.recv().is_ok(),
            Some(wait) => !matches!(rx.recv_timeout(wait), Err(RecvTimeoutError::Disconnected)),
        };
        if !woken {
            return;
        }
        while rx.try_recv().is_ok() {}
        let result = pass();
        let mut failure = failure.lock();
        match result {
            Ok(_) => {
                wait = None;
                *failure = None;
            }
            Err(e) => {
                let next = wait.map_or(Duration::from_millis(100), |w| {
                    (w * 2).min(Duration::from_secs(60))
                });
                wait = Some(next);
                let attempts = failure.as_ref().map_or(1, |f| f.attempts + 1);
                tracing::warn!(error = %e, attempts, retry_in_ms = next.as_millis() as u64, "consolidation failed");
                *failure = Some(WorkerFailure {
                    message: e.to_string(),
                    at: Timestamp::now(),
                    attempts,
                });
            }
        }
    }
}

/// The background worker's last failure, until a pass succeeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerFailure {
    /// What went wrong.
    pub message: String,
    /// When the last attempt failed.
    pub at: Timestamp,
    /// How many passes in a row have failed.
    pub attempts: u32,
}

/// Where a memory's consolidation stands ([`crate::Memory::status`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// The number of the last episode stored.
    pub last_episode: u64,
    /// The number of the last episode consolidated.
    pub consolidated: u64,
    /// The background worker's failure, if its last pass failed.
    pub failure: Option<WorkerFailure>,
}

impl Status {
    /// Episodes stored and not consolidated yet.
    pub fn pending(&self) -> u64 {
        self.last_episode.saturating_sub(self.consolidated)
    }

    /// The status as JSON (`{"last_episode", "consolidated", "pending",
    /// "failure"}`), as the bindings hand it out.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "last_episode": self.last_episode,
            "consolidated": self.consolidated,
            "pending": self.pending(),
            "failure": self.failure.as_ref().map(|f| serde_json::json!({
                "message": f.message,
                "at": f.at.to_string(),
                "attempts": f.attempts,
            })),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::{Duration, Instant};

    use super::*;
    use crate::error::Error;

    /// A pass that fails is kept as the failure, retried by itself (one
    /// wake-up only, no more messages) with a growing wait, and cleared by
    /// the pass that succeeds; the worker stops when the memory drops its
    /// sender.
    #[test]
    fn a_failed_pass_is_kept_retried_with_backoff_and_cleared_by_success() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let failure = Mutex::new(None);
        let calls = AtomicU32::new(0);
        let seen = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                work(
                    &rx,
                    || {
                        let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                        seen.lock()
                            .push((n, failure.lock().clone().map(|f| f.attempts)));
                        if n <= 3 {
                            Err(Error::Worker(format!("disk full ({n})")))
                        } else {
                            Ok(Report::default())
                        }
                    },
                    &failure,
                )
            });
            tx.send(1).expect("wake");
            let started = Instant::now();
            while calls.load(Ordering::SeqCst) < 4 {
                assert!(started.elapsed() < Duration::from_secs(30), "no retry");
                std::thread::sleep(Duration::from_millis(10));
            }
            // Three failures waited 100 + 200 + 400 ms before the fourth.
            assert!(started.elapsed() >= Duration::from_millis(700));
            drop(tx);
            worker.join().expect("worker");
        });
        assert_eq!(calls.load(Ordering::SeqCst), 4);
        // Each pass saw the failures before it; success cleared them.
        assert_eq!(
            *seen.lock(),
            [(1, None), (2, Some(1)), (3, Some(2)), (4, Some(3))]
        );
        assert_eq!(*failure.lock(), None);
    }
}
