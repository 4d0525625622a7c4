//! Write transactions and the rules that turn assertions into row changes.
//!
//! A [`WriteTxn`] buffers operations (each checked against the schema when it
//! is added, so a bad one is rejected alone and changes nothing); `commit`
//! plans their effect on the slots they touch, writes that plan to the log
//! under one transaction time, and applies it. Three kinds of change exist:
//! append a row, cut a row (end its valid interval earlier, from this
//! transaction on), and close a row (withdraw it from this transaction on).
//!
//! The rules, for a slot (key values, or the whole tuple without keys) whose
//! currently believed rows have pairwise disjoint valid intervals, and a new
//! interval `I = [a, b)`:
//!
//! * **assert** `X` over `I`: if a row already says `X` over all of `I`,
//!   nothing happens. Otherwise, for each row overlapping `I`: a same-valued
//!   row is closed and merged into the new one; a different-valued row that
//!   starts before `a` is cut at `a`; one that starts at or after `a` is
//!   closed; and if it runs past `b`, its part after `b` is re-appended as a
//!   remainder. The new row supersedes the row it cut short (else the first
//!   row it replaced). This is the functional replacement: `old.valid_to =
//!   new.valid_from`, `new.supersedes = old`. A remainder supersedes the
//!   row it was split from: the same fact going on after the interruption.
//! * **retract** `X` over `I`: the fact stops being true in the world during
//!   `I`: rows saying `X` are cut at `a` (or closed if they start inside
//!   `I`), keeping any part after `b` as a remainder.
//! * **correct** `X`: we were wrong. Every believed row saying `X` is closed in
//!   transaction time with nothing kept, so as of later transaction times the
//!   fact was never true, while queries `known_at` earlier still see it; and
//!   the valid time `X`'s assertions took from other facts of the slot goes
//!   back to them (`plan/give_back.rs` states the rule).
//!
//! The planner lives in `plan.rs`; this file is the transaction's API.

mod plan;

use parking_lot::MutexGuard;

use crate::error::{Error, Result};
use crate::log::Change;
use crate::relation::{NONE, RowId};
use crate::store::{RelationId, Store, WriterState};
use crate::time::{Interval, Timestamp};
use crate::value::{Symbol, Value};
use plan::Planner;

/// A batch of writes that commits atomically under one transaction time.
/// Dropping it without `commit` discards it.
pub struct WriteTxn<'s> {
    store: &'s Store,
    writer: MutexGuard<'s, WriterState>,
    ops: Vec<Op>,
    buffered: bool,
}

/// What a commit did.
#[derive(Clone, Debug, PartialEq)]
pub struct CommitInfo {
    /// The commit's transaction time; for a commit that changed nothing, the
    /// previous commit's.
    pub tx: Timestamp,
    /// Rows appended (new facts and remainders).
    pub rows_added: usize,
    /// Rows whose valid interval was cut short.
    pub rows_cut: usize,
    /// Rows whose transaction interval was closed.
    pub rows_closed: usize,
    /// Facts believed before this commit that a functional assert withdrew
    /// whole because its valid time covers all of theirs: a back-dated,
    /// open-ended assert closes every later fact of its key, which a
    /// caller loading facts out of order must be told about by name.
    pub replaced: Vec<Replaced>,
}

/// A fact a commit withdrew whole in favour of another of its key.
#[derive(Clone, Debug, PartialEq)]
pub struct Replaced {
    /// Its relation.
    pub relation: RelationId,
    /// Its row.
    pub row: RowId,
    /// Its values.
    pub values: Vec<Value>,
    /// The valid time it held until this commit.
    pub valid: Interval,
}

#[derive(Debug)]
pub(crate) enum Op {
    Assert {
        rel: RelationId,
        values: Vec<Value>,
        valid: Valid,
        provenance: u32,
    },
    Retract {
        rel: RelationId,
        values: Vec<Value>,
        valid: Valid,
    },
    Correct {
        rel: RelationId,
        values: Vec<Value>,
    },
}

/// An operation's valid time: given, or from the commit's transaction time
/// on (known only once the commit starts).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Valid {
    Given(Interval),
    FromCommit,
}

impl Valid {
    fn at(self, tx: i64) -> Interval {
        match self {
            Valid::Given(interval) => interval,
            Valid::FromCommit => Interval::starting(Timestamp(tx)),
        }
    }
}

impl<'s> WriteTxn<'s> {
    pub(crate) fn new(store: &'s Store, writer: MutexGuard<'s, WriterState>) -> WriteTxn<'s> {
        WriteTxn {
            store,
            writer,
            ops: Vec::new(),
            buffered: false,
        }
    }

    /// Lets this commit return once it is in the operating system's page
    /// cache, without the syncs a synced store does: for work that can be
    /// redone (memory consolidation, which keeps its cursor in the same
    /// commit). A killed process loses nothing; a power cut may lose this
    /// commit and the buffered ones before it, never part of one. The next
    /// synced commit, or [`Store::sync`], makes it durable along with
    /// everything before it.
    pub fn buffered(&mut self) {
        self.buffered = true;
    }

    /// Interns `name`. The symbol becomes durable with the next commit.
    pub fn symbol(&mut self, name: &str) -> Result<Symbol> {
        self.store.inner.symbols.write().intern(name)
    }

    /// Asserts that `values` hold over valid time `valid`, citing `provenance`
    /// (an episode id, a user, a document) when given.
    pub fn assert(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        valid: Interval,
        provenance: Option<Symbol>,
    ) -> Result<()> {
        self.check(rel, &values, Some(valid))?;
        self.push_assert(rel, values, Valid::Given(valid), provenance)
    }

    /// Asserts that `values` hold from this commit's transaction time on:
    /// what a fact stated without a time means (XTDB's default), so that a
    /// new statement never rewrites what was believed true before it.
    pub fn assert_from_commit(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        provenance: Option<Symbol>,
    ) -> Result<()> {
        self.check(rel, &values, None)?;
        self.push_assert(rel, values, Valid::FromCommit, provenance)
    }

    fn push_assert(
        &mut self,
        rel: RelationId,
        values: Vec<Value>,
        valid: Valid,
        provenance: Option<Symbol>,
    ) -> Result<()> {
        let provenance = match provenance {
            Some(sym) if self.store.inner.symbols.read().contains(sym) => sym.0,
            Some(sym) => return Err(Error::UnknownSymbol { id: sym.0 }),
            None => NONE,
        };
        self.ops.push(Op::Assert {
            rel,
            values,
            valid,
            provenance,
        });
        Ok(())
    }

    /// Says that `values` stopped (or stops) being true during `valid`.
    pub fn retract(&mut self, rel: RelationId, values: Vec<Value>, valid: Interval) -> Result<()> {
        self.check(rel, &values, Some(valid))?;
        self.ops.push(Op::Retract {
            rel,
            values,
            valid: Valid::Given(valid),
        });
        Ok(())
    }

    /// Says that `values` stop being true at this commit's transaction time.
    pub fn retract_from_commit(&mut self, rel: RelationId, values: Vec<Value>) -> Result<()> {
        self.check(rel, &values, None)?;
        self.ops.push(Op::Retract {
            rel,
            values,
            valid: Valid::FromCommit,
        });
        Ok(())
    }

    /// Withdraws every believed row saying exactly `values`: it was a mistake.
    pub fn correct(&mut self, rel: RelationId, values: Vec<Value>) -> Result<()> {
        self.check(rel, &values, None)?;
        self.ops.push(Op::Correct { rel, values });
        Ok(())
    }

    fn check(&self, rel: RelationId, values: &[Value], valid: Option<Interval>) -> Result<()> {
        if let Some(valid) = valid
            && valid.from >= valid.to
        {
            return Err(Error::EmptyInterval {
                from: valid.from,
                to: valid.to,
            });
        }
        let state = self.store.inner.state.read();
        let relation = state.relation(rel)?;
        relation
            .schema
            .check_tuple(values.iter().map(Value::as_ref))?;
        let symbols = self.store.inner.symbols.read();
        for value in values {
            if let Value::Sym(sym) = value
                && !symbols.contains(*sym)
            {
                return Err(Error::UnknownSymbol { id: sym.0 });
            }
        }
        Ok(())
    }

    /// Makes every operation durable and visible, atomically, under one new
    /// transaction time.
    pub fn commit(mut self) -> Result<CommitInfo> {
        let ops = plan::without_corrected(std::mem::take(&mut self.ops));
        let tx = self.store.next_tx(&self.writer);
        let plan = {
            let state = self.store.inner.state.read();
            let mut planner = Planner::new(&state);
            for op in ops {
                planner.apply(op, tx)?;
            }
            planner.finish()?
        };
        let unchanged = CommitInfo {
            tx: Timestamp(self.writer.last_tx),
            rows_added: plan.appends.iter().map(|a| a.rows.len()).sum(),
            rows_cut: plan.cuts.len(),
            rows_closed: plan.closes.len(),
            replaced: plan.replaced,
        };
        if unchanged.rows_added + unchanged.rows_cut + unchanged.rows_closed == 0 {
            return Ok(unchanged);
        }
        let change = Change::Commit {
            appends: plan.appends,
            cuts: plan.cuts,
            closes: plan.closes,
        };
        let tx = self
            .store
            .commit_change(&mut self.writer, tx, change, self.buffered)?;
        Ok(CommitInfo { tx, ..unchanged })
    }
}
