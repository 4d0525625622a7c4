//! What stops a query: its row, memory and time limits and its cancel
//! flag, polled as it runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::*;
use crate::error::{Error, Result};

/// How recursive strata are evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Each round joins only against the previous round's new tuples.
    #[default]
    SemiNaive,
    /// Each round re-evaluates every rule over everything: slow, obviously
    /// correct, and kept to check semi-naive evaluation against.
    Naive,
}

/// Bounds on one query's work, so a runaway recursion can be stopped, and
/// how to evaluate it. The default bounds memory (see
/// [`default_query_memory`]) and nothing else.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Evaluation strategy for recursive strata.
    pub strategy: Strategy,
    /// Stop after deriving this many tuples in total.
    pub max_derived: Option<u64>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop when this flag is set (Ctrl-C in the REPL).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Stop when the query holds more than this many bytes (its derived
    /// relations, and the copies of the stored relations it reads with
    /// the indexes its joins and searches build on them), with an error
    /// naming the largest, before the operating system's out-of-memory
    /// killer ends the whole process.
    pub max_memory: Option<usize>,
    /// Threads a graph search (a transitive closure) may run on, the
    /// calling one included: 1 runs it on the calling thread alone.
    pub threads: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            strategy: Strategy::default(),
            max_derived: None,
            deadline: None,
            cancel: None,
            max_memory: Some(default_query_memory()),
            threads: 1,
        }
    }
}

/// The memory one query may fill with derived tuples by default: a quarter
/// of the machine's RAM (read once from `/proc/meminfo`), at least 256 MiB;
/// 4 GiB where the RAM cannot be read.
pub fn default_query_memory() -> usize {
    static BUDGET: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BUDGET.get_or_init(|| {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
                kib.checked_mul(1024)
            });
        match total {
            Some(bytes) => (bytes / 4).max(256 << 20),
            None => 4 << 30,
        }
    })
}

/// Derived tuples between two measurements of the query's memory.
pub(super) const MEMORY_CHECK_EVERY: u64 = 16_384;

impl Limits {
    /// Cancel (Ctrl-C) and the deadline, from any thread.
    pub(super) fn check_interrupts(&self) -> Result<()> {
        if let Some(flag) = &self.cancel
            && flag.load(Ordering::Relaxed)
        {
            return Err(Error::Cancelled);
        }
        if let Some(deadline) = self.deadline
            && Instant::now() >= deadline
        {
            return Err(Error::LimitExceeded("the time limit".into()));
        }
        Ok(())
    }

    /// Whether `derived` tuples are more than the query may derive.
    pub(super) fn check_derived(&self, derived: u64) -> Result<()> {
        match self.max_derived {
            Some(max) if derived > max => Err(Error::LimitExceeded(format!(
                "more than {max} derived tuples"
            ))),
            _ => Ok(()),
        }
    }
}

impl Executor<'_> {
    pub(super) fn check_limits(&mut self) -> Result<()> {
        self.limits.check_derived(self.derived_count)?;
        if self.derived_count >= self.next_memory_check {
            self.next_memory_check = self.derived_count + MEMORY_CHECK_EVERY;
            self.check_memory()?;
        }
        Ok(())
    }

    /// Measures the derived relations against the memory budget.
    pub(super) fn check_memory(&self) -> Result<()> {
        self.check_memory_with(None)
    }

    /// The memory budget against what the query holds: its derived
    /// relations (rows, sets, indexes), `pending` (`(relation, bytes)` a
    /// search has derived for a relation but not yet added to it), the
    /// columnar copies of the stored relations it reads, with the
    /// grouped copies its joins look them up by and the graphs its
    /// searches walk, and the graph of a derived relation a search is
    /// walking.
    pub(super) fn check_memory_with(&self, pending: Option<(usize, usize)>) -> Result<()> {
        let Some(budget) = self.limits.max_memory else {
            return Ok(());
        };
        let total = self.held_bytes() + pending.map_or(0, |(_, b)| b);
        if total <= budget {
            return Ok(());
        }
        let extra = |i: usize| pending.filter(|&(r, _)| r == i).map_or(0, |(_, b)| b);
        let derived = self.derived.iter().enumerate().map(|(i, r)| {
            (
                self.derived_names.get(i).map_or("?", String::as_str),
                r.heap_bytes() + extra(i),
            )
        });
        let stored = self.stored.iter().filter_map(|s| {
            let m = s.materialized.as_ref()?;
            Some((s.name.as_str(), m.relation.bytes()))
        });
        let mib = |b: usize| b >> 20;
        let (derived_bytes, stored_bytes) = (
            derived.clone().map(|(_, b)| b).sum::<usize>() + self.walking,
            stored.clone().map(|(_, b)| b).sum::<usize>(),
        );
        let largest = derived
            .map(|(name, b)| match name {
                chronolog_ql::OUTPUT => ("the answer".to_string(), b),
                rule => (format!("`{rule}`"), b),
            })
            .chain(
                stored.map(|(name, b)| (format!("the copy of stored `{name}` and its indexes"), b)),
            )
            .max_by_key(|(_, b)| *b)
            .unwrap_or(("?".to_string(), 0));
        Err(Error::LimitExceeded(format!(
            "the memory budget of {} MiB: the query holds {} MiB ({} MiB derived, {} MiB of stored relations copied and indexed), most of it in {} ({} MiB)",
            mib(budget),
            mib(total),
            mib(derived_bytes),
            mib(stored_bytes),
            largest.0,
            mib(largest.1)
        )))
    }

    /// What the query holds now, as [`Executor::check_memory_with`]
    /// counts it: the start of a threaded search's own count.
    pub(super) fn held_bytes(&self) -> usize {
        let derived: usize = self.derived.iter().map(Relation::heap_bytes).sum();
        let stored: usize = self
            .stored
            .iter()
            .filter_map(|s| s.materialized.as_ref())
            .map(|m| m.relation.bytes())
            .sum();
        derived + stored + self.walking
    }

    /// Cancel (Ctrl-C) and the deadline: an atomic load and, rarely, a
    /// clock read. Polled every 4,096 steps and at every round of a
    /// fixpoint, so a runaway query stops within milliseconds.
    pub(super) fn check_interrupts(&self) -> Result<()> {
        self.limits.check_interrupts()
    }

    /// Counts `rows` steps taken and polls cancel and the deadline every
    /// 4,096 of them.
    pub(super) fn tick(&mut self, rows: usize) -> Result<()> {
        self.ticks += rows as u64;
        if self.ticks >= self.next_poll {
            self.next_poll = self.ticks + 4096;
            self.check_interrupts()?;
        }
        Ok(())
    }
}
