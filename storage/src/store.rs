//! `Store`: the database handle that ties relations, symbols and the log.
//!
//! Concurrency: one writer at a time (the `writer` mutex, held by a
//! [`WriteTxn`] for its whole life) and any number of readers. The in-memory
//! state sits behind a read-write lock that the writer takes only to apply an
//! already-durable commit (microseconds), and that readers take per chunk of
//! rows. Readers see a consistent snapshot without holding the lock across a
//! query, because what a snapshot at transaction time `t` can see never
//! changes: rows are append-only and `tx_to` only moves from open to a time
//! later than `t`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::log::{Change, DerivedCache, Durability, Log, LogEntry, LogOptions};
use crate::relation::{Relation, RowId};
use crate::schema::Schema;
use crate::snapshot::Snapshot;
use crate::symbol_ranks::SymbolRanks;
use crate::symbols::Interner;
use crate::time::Timestamp;
use crate::txn::WriteTxn;
use crate::value::{ColumnType, Symbol};

/// A relation's id in its database: dense, in creation order, stable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct RelationId(pub u32);

/// An open database. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Store {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) state: RwLock<State>,
    pub(crate) symbols: RwLock<Interner>,
    /// Symbols in name order, brought up to date when asked for.
    ranks: crate::symbol_ranks::RankCache,
    pub(crate) writer: Mutex<WriterState>,
    /// Held by a cache write and by a purge from its cache erasure until
    /// its rows read as purged, so no cache write slips in between; a
    /// cache write never waits for commits.
    pub(crate) derived: Mutex<()>,
    pub(crate) log: Option<Log>,
    /// Data derived from rows, kept beside the log; `None` in memory and
    /// when opened for recovery (which touches no file).
    cache: Option<DerivedCache>,
    path: Option<PathBuf>,
}

pub(crate) struct State {
    pub(crate) relations: Vec<Relation>,
    by_name: FxHashMap<String, u32>,
    /// Every purge, in order: the audit log of the right to be forgotten.
    purges: Vec<PurgeRecord>,
    /// Transaction time of the last applied commit.
    pub(crate) last_tx: i64,
}

pub(crate) struct WriterState {
    pub(crate) last_tx: i64,
    /// Symbols with ids below this are in the log.
    pub(crate) persisted_symbols: u32,
    /// Set when a log write failed midway: memory and disk may disagree, so
    /// further writes are refused until the database is reopened.
    pub(crate) poisoned: bool,
}

/// One purge, as kept in the audit log. It names the purged symbols by id
/// only: the names themselves are what was forgotten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PurgeRecord {
    /// When the purge committed.
    pub tx: Timestamp,
    /// The purged symbols' ids (their names now read as `<purged>`); empty
    /// for an erasure of single rows only.
    pub subjects: Vec<Symbol>,
    /// How many rows were erased.
    pub rows: usize,
    /// Why, as given by the caller.
    pub reason: String,
}

/// Options for [`Store::open_with`].
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// What a commit waits for before it returns.
    pub durability: Durability,
    /// Open a damaged database read-only, with what reads back of its log,
    /// instead of refusing it with [`Error::Damaged`]; no file is touched
    /// and every write is refused. [`Store::damage`] says what is missing.
    pub recover: bool,
    /// Open for reading only: no file is created, changed or locked for
    /// writing (the directory may be on a read-only mount), the lock is
    /// shared with other readers, and every write is refused with
    /// [`Error::ReadOnly`]. A damaged log is still refused (that is
    /// `recover`); a torn, unacknowledged last commit is read past.
    pub read_only: bool,
    /// Writes (and creating a database) are refused with
    /// [`Error::DiskFull`] while the disk has less free space than this, so
    /// a full disk stops the database cleanly before any file is half
    /// written.
    pub min_free_bytes: u64,
}

/// The default reserve of free disk space: 32 MiB.
pub const DEFAULT_MIN_FREE_BYTES: u64 = 32 << 20;

impl Default for Options {
    fn default() -> Options {
        Options {
            durability: Durability::default(),
            recover: false,
            read_only: false,
            min_free_bytes: DEFAULT_MIN_FREE_BYTES,
        }
    }
}

impl State {
    pub(crate) fn relation(&self, id: RelationId) -> Result<&Relation> {
        self.relations
            .get(id.0 as usize)
            .ok_or_else(|| Error::UnknownRelation {
                name: format!("#{}", id.0),
            })
    }

    fn erase(
        &mut self,
        tx: i64,
        subjects: &[u32],
        rows: &[(u32, u32)],
        reason: &str,
    ) -> Result<()> {
        for &(relation, row) in rows {
            let rel = self
                .relations
                .get_mut(relation as usize)
                .ok_or_else(|| Error::corrupt(format!("purge in unknown relation #{relation}")))?;
            rel.purge(row);
        }
        self.purges.push(PurgeRecord {
            tx: Timestamp(tx),
            subjects: subjects.iter().map(|&s| Symbol(s)).collect(),
            rows: rows.len(),
            reason: reason.to_string(),
        });
        Ok(())
    }

    fn apply(&mut self, tx: i64, change: &Change) -> Result<()> {
        match change {
            Change::Purge {
                subject,
                rows,
                reason,
            } => self.erase(tx, &[*subject], rows, reason)?,
            Change::Erase {
                subjects,
                rows,
                reason,
            } => self.erase(tx, subjects, rows, reason)?,
            Change::CreateRelation(schema) => {
                let id = self.relations.len() as u32;
                self.by_name.insert(schema.name.clone(), id);
                self.relations.push(Relation::new(schema.clone()));
            }
            Change::Commit {
                appends,
                cuts,
                closes,
            } => {
                for append in appends {
                    let rel = self
                        .relations
                        .get_mut(append.relation as usize)
                        .ok_or_else(|| {
                            Error::corrupt(format!(
                                "append to unknown relation #{}",
                                append.relation
                            ))
                        })?;
                    if rel.len() != append.first_row {
                        return Err(Error::corrupt(format!(
                            "relation `{}` has {} rows but tx {tx} appends at row {}",
                            rel.schema.name,
                            rel.len(),
                            append.first_row
                        )));
                    }
                    rel.append(tx, &append.rows);
                }
                for &(relation, row, valid_to) in cuts {
                    let rel = self.relations.get_mut(relation as usize).ok_or_else(|| {
                        Error::corrupt(format!("cut in unknown relation #{relation}"))
                    })?;
                    let ok = row < rel.len()
                        && rel.tx_to(row) == i64::MAX
                        && rel.valid(row).from.0 < valid_to
                        && valid_to < rel.valid(row).to.0;
                    if !ok {
                        return Err(Error::corrupt(format!(
                            "tx {tx} cuts row {row} of `{}` to {valid_to}, which is not a shortening of an open row",
                            rel.schema.name
                        )));
                    }
                    rel.cut(tx, row, valid_to);
                }
                for &(relation, row) in closes {
                    let rel = self.relations.get_mut(relation as usize).ok_or_else(|| {
                        Error::corrupt(format!("close in unknown relation #{relation}"))
                    })?;
                    if row >= rel.len() || rel.tx_to(row) != i64::MAX {
                        return Err(Error::corrupt(format!(
                            "tx {tx} closes row {row} of `{}`, which is missing or already closed",
                            rel.schema.name
                        )));
                    }
                    rel.close(tx, row);
                }
            }
        }
        self.last_tx = tx;
        Ok(())
    }
}

impl Store {
    /// A database that lives only in memory: same semantics, no durability.
    /// For tests, benchmarks and scratch work.
    pub fn in_memory() -> Store {
        Store::from_parts(None, None, None, State::empty(), Interner::default())
    }

    /// Opens the database in directory `path`, creating it if needed, with
    /// every commit synced to disk before it returns.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_with(path, Options::default())
    }

    /// Opens with explicit [`Options`].
    pub fn open_with(path: impl AsRef<Path>, options: Options) -> Result<Store> {
        let path = path.as_ref();
        let mut state = State::empty();
        let mut symbols = Interner::default();
        let log_options = LogOptions {
            durability: options.durability,
            recover: options.recover,
            read_only: options.read_only || options.recover,
            min_free_bytes: options.min_free_bytes,
        };
        let log = Log::open(path, log_options, |tx, entry| {
            if entry.symbols_from != symbols.len() {
                return Err(Error::corrupt(format!(
                    "tx {tx} adds symbols from id {} but the table has {}",
                    entry.symbols_from,
                    symbols.len()
                )));
            }
            for name in &entry.symbols {
                symbols.replay(name)?;
            }
            if tx <= state.last_tx {
                return Err(Error::corrupt(format!(
                    "tx {tx} is not after {}",
                    state.last_tx
                )));
            }
            state.apply(tx, &entry.change)
        })?;
        // The derived cache is written as it is used: not when reading only.
        let cache = if options.recover || options.read_only {
            None
        } else {
            match DerivedCache::open(&path.join("cache")) {
                Ok(cache) => Some(cache),
                // The cache holds what can be computed again: on a disk too
                // full to open it, the database opens without it (to be
                // read; its writes meet the free-space check).
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::StorageFull =>
                {
                    None
                }
                Err(e) => return Err(e),
            }
        };
        Ok(Store::from_parts(
            Some(log),
            cache,
            Some(path.to_path_buf()),
            state,
            symbols,
        ))
    }

    fn from_parts(
        log: Option<Log>,
        cache: Option<DerivedCache>,
        path: Option<PathBuf>,
        state: State,
        symbols: Interner,
    ) -> Store {
        let writer = WriterState {
            last_tx: state.last_tx,
            persisted_symbols: symbols.len(),
            poisoned: false,
        };
        Store {
            inner: Arc::new(Inner {
                state: RwLock::new(state),
                symbols: RwLock::new(symbols),
                ranks: Default::default(),
                writer: Mutex::new(writer),
                derived: Mutex::new(()),
                log,
                cache,
                path,
            }),
        }
    }

    /// What an open with [`Options::recover`] found missing from the log;
    /// `None` when everything acknowledged read back (and in memory).
    pub fn damage(&self) -> Option<&str> {
        self.inner.log.as_ref().and_then(Log::damage)
    }

    /// Whether writes are refused: the store was opened read-only (to
    /// read, or for recovery).
    pub fn is_read_only(&self) -> bool {
        self.inner.log.as_ref().is_some_and(Log::read_only)
    }

    /// The directory this database lives in; `None` when in memory.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// Declares a new relation, durably, in a transaction of its own.
    pub fn create_relation(&self, schema: Schema) -> Result<RelationId> {
        schema.validate()?;
        let mut writer = self.inner.writer.lock();
        let id = {
            let state = self.inner.state.read();
            if state.by_name.contains_key(&schema.name) {
                return Err(Error::RelationExists { name: schema.name });
            }
            RelationId(state.relations.len() as u32)
        };
        let tx = self.next_tx(&writer);
        self.commit_change(&mut writer, tx, Change::CreateRelation(schema), false)?;
        Ok(id)
    }

    /// Starts a write transaction. Blocks while another one is open.
    pub fn begin(&self) -> WriteTxn<'_> {
        WriteTxn::new(self, self.inner.writer.lock())
    }

    /// A consistent read view at the latest committed transaction time, with
    /// "now" on the valid axis fixed to the wall clock at this call.
    pub fn snapshot(&self) -> Snapshot {
        let tx = self.inner.state.read().last_tx;
        Snapshot::new(self.clone(), tx, Timestamp::now().0)
    }

    /// The id of relation `name`.
    pub fn relation_id(&self, name: &str) -> Result<RelationId> {
        self.inner
            .state
            .read()
            .by_name
            .get(name)
            .map(|&id| RelationId(id))
            .ok_or_else(|| Error::UnknownRelation {
                name: name.to_string(),
            })
    }

    /// The schema of a relation.
    pub fn schema(&self, id: RelationId) -> Result<Schema> {
        Ok(self.inner.state.read().relation(id)?.schema.clone())
    }

    /// The types of a relation's columns, without copying its schema (the
    /// engine brings lookup keys to them on every query).
    pub fn column_types(&self, id: RelationId) -> Result<Vec<ColumnType>> {
        Ok(self
            .inner
            .state
            .read()
            .relation(id)?
            .schema
            .columns
            .iter()
            .map(|c| c.ty)
            .collect())
    }

    /// The number of columns of a relation, without copying its schema.
    pub fn arity(&self, id: RelationId) -> Result<usize> {
        Ok(self.inner.state.read().relation(id)?.schema.arity())
    }

    /// The columns that identify a slot of a relation (see
    /// [`Schema::slot_columns`]), without copying its schema: the engine
    /// asks on every query.
    pub fn slot_columns(&self, id: RelationId) -> Result<Vec<usize>> {
        Ok(self.inner.state.read().relation(id)?.schema.slot_columns())
    }

    /// Every relation's schema, in creation order.
    pub fn relations(&self) -> Vec<Schema> {
        let state = self.inner.state.read();
        state.relations.iter().map(|r| r.schema.clone()).collect()
    }

    /// The symbol for `name`, if it was ever interned. Never creates one.
    pub fn symbol(&self, name: &str) -> Option<Symbol> {
        self.inner.symbols.read().get(name)
    }

    /// The name of a symbol.
    pub fn symbol_name(&self, sym: Symbol) -> Result<Arc<str>> {
        self.inner.symbols.read().name(sym)
    }

    /// Every symbol's place in name order (for sorting by name: ids are in
    /// interning order). Cheap when no symbol was interned since the last
    /// call; otherwise the new ones are sorted and merged in.
    pub fn symbol_ranks(&self) -> Arc<SymbolRanks> {
        let mut cache = self.inner.ranks.lock();
        let table = self.inner.symbols.read();
        if cache.len() != table.len() as usize {
            *cache = Arc::new(SymbolRanks::updated(&cache, &table));
        }
        cache.clone()
    }

    /// Where each of `names` would fall among the symbols `ranks` cover, in
    /// name order: how many of their names sort before it (for names a
    /// query uses that the store does not know).
    pub fn symbol_positions(&self, ranks: &SymbolRanks, names: &[&str]) -> Vec<u32> {
        let table = self.inner.symbols.read();
        names.iter().map(|n| ranks.position(&table, n)).collect()
    }

    /// The right to be forgotten: erases every row that holds the symbol
    /// `name` in any column of any relation — from every read, history and
    /// old snapshots included — and forgets the name itself. The log entries
    /// that held them are rewritten in the same atomic, synced batch, and
    /// the purge is recorded (without the name) in [`Store::purges`]. This
    /// is the one operation that deletes; it is never part of normal writes.
    /// A name the database does not know purges nothing and logs nothing.
    pub fn purge(&self, name: &str, reason: &str) -> Result<PurgeRecord> {
        self.erase(&[name], &[], reason)
    }

    /// [`Store::purge`] of several names and of single rows at once: one
    /// atomic erasure, one rewrite of the log, one audit record. Single
    /// rows are for what must go although no symbol of its own names it
    /// (a message that mentions a person in its text); their other symbols
    /// stay. Names the database does not know and rows already erased are
    /// skipped; when nothing is left, nothing is logged.
    pub fn erase(
        &self,
        names: &[&str],
        rows: &[(RelationId, RowId)],
        reason: &str,
    ) -> Result<PurgeRecord> {
        let mut writer = self.inner.writer.lock();
        if writer.poisoned {
            return Err(Error::corrupt(
                "an earlier write failed to reach disk; reopen the database",
            ));
        }
        let mut subjects: Vec<Symbol> = names.iter().filter_map(|n| self.symbol(n)).collect();
        subjects.sort_unstable();
        subjects.dedup();
        let rows: Vec<(u32, u32)> = {
            let state = self.inner.state.read();
            let mut doomed = rustc_hash::FxHashSet::default();
            for (r, rel) in state.relations.iter().enumerate() {
                for &subject in &subjects {
                    doomed.extend(
                        rel.rows_holding(subject)
                            .into_iter()
                            .map(|row| (r as u32, row)),
                    );
                }
            }
            for &(rel, row) in rows {
                let relation = state.relation(rel)?;
                if row < relation.len() && !relation.is_purged(row) {
                    doomed.insert((rel.0, row));
                }
            }
            let mut rows: Vec<(u32, u32)> = doomed.into_iter().collect();
            rows.sort_unstable();
            rows
        };
        if subjects.is_empty() && rows.is_empty() {
            return Ok(PurgeRecord {
                tx: Timestamp(writer.last_tx),
                subjects: Vec::new(),
                rows: 0,
                reason: reason.to_string(),
            });
        }
        let tx = Timestamp::now().0.max(writer.last_tx + 1);
        let mut derived_guard = None;
        let mut symbols = {
            let table = self.inner.symbols.read();
            table.names_from(writer.persisted_symbols)
        };
        for subject in &subjects {
            if let Some(name) =
                symbols.get_mut(subject.0.wrapping_sub(writer.persisted_symbols) as usize)
            {
                *name = crate::symbols::tombstone(subject.0);
            }
        }
        let entry = LogEntry {
            symbols_from: writer.persisted_symbols,
            symbols,
            change: Change::Erase {
                subjects: subjects.iter().map(|s| s.0).collect(),
                rows: rows.clone(),
                reason: reason.to_string(),
            },
        };
        if let Some(log) = &self.inner.log {
            if log.read_only() {
                return Err(Error::ReadOnly);
            }
            // Data derived from the doomed rows goes first: if the purge then
            // fails, it is only recomputed. No cache write may land between
            // this and the rows reading as purged (below).
            derived_guard = Some(self.inner.derived.lock());
            if let Some(cache) = &self.inner.cache {
                cache.remove(&rows)?;
            }
            let doomed: rustc_hash::FxHashSet<(u32, u32)> = rows.iter().copied().collect();
            let names: rustc_hash::FxHashSet<u32> = subjects.iter().map(|s| s.0).collect();
            let redact = |old: &mut LogEntry| redact_entry(old, &names, &doomed);
            if let Err(e) = log.purge(tx, &entry, redact) {
                writer.poisoned = !matches!(e, Error::DiskFull { .. });
                return Err(e);
            }
        }
        writer.persisted_symbols += entry.symbols.len() as u32;
        writer.last_tx = tx;
        {
            let mut table = self.inner.symbols.write();
            for &subject in &subjects {
                table.redact(subject);
            }
        }
        // The purged names now read differently: order afresh.
        *self.inner.ranks.lock() = Arc::default();
        let mut state = self.inner.state.write();
        state.apply(tx, &entry.change)?;
        drop(derived_guard);
        Ok(state.purges.last().cloned().unwrap_or(PurgeRecord {
            tx: Timestamp(tx),
            subjects,
            rows: rows.len(),
            reason: reason.to_string(),
        }))
    }

    /// Keeps data derived from rows of `rel` that is costly to recompute
    /// (a row's embedding), under a `space` name, on disk beside the log, so
    /// a reopened store need not compute it again. It is not part of the
    /// log: writes are not synced (a crash may lose the last ones, which the
    /// caller computes again), rows already purged are skipped, and a purge
    /// erases the entries of the rows it erases, in every space. An
    /// in-memory store keeps nothing.
    pub fn put_derived(
        &self,
        space: &str,
        rel: RelationId,
        rows: &[(RowId, Vec<u8>)],
    ) -> Result<()> {
        let (Some(log), Some(cache)) = (&self.inner.log, &self.inner.cache) else {
            return Ok(());
        };
        // A cache write must not take the last free space from commits.
        crate::log::ensure_space(log.dir(), 0, 2 * log.min_free_bytes())?;
        // Under the derived-data lock, so a purge cannot slip between the
        // check and the write (and commits, under the writer lock, never
        // wait for the cache).
        let _derived = self.inner.derived.lock();
        let kept: Vec<(u32, &[u8])> = {
            let state = self.inner.state.read();
            let relation = state.relation(rel)?;
            rows.iter()
                .filter(|(row, _)| *row < relation.len() && !relation.is_purged(*row))
                .map(|(row, bytes)| (*row, bytes.as_slice()))
                .collect()
        };
        cache.put(space, rel.0, &kept)
    }

    /// Calls `f` with each row of `rel` that has data in `space` (see
    /// [`Store::put_derived`]), in row order.
    pub fn derived(&self, space: &str, rel: RelationId, f: impl FnMut(RowId, &[u8])) -> Result<()> {
        match &self.inner.cache {
            Some(cache) => cache.get(space, rel.0, f),
            None => Ok(()),
        }
    }

    /// Every purge so far, oldest first.
    pub fn purges(&self) -> Vec<PurgeRecord> {
        self.inner.state.read().purges.clone()
    }

    /// Writes the derived-data cache ([`Store::put_derived`]) out to disk;
    /// commits are untouched. Derived data can be recomputed, so callers
    /// do this when idle rather than after every write: an `fsync` beside
    /// a stream of synced commits delays them.
    pub fn sync_derived(&self) -> Result<()> {
        match &self.inner.cache {
            Some(cache) => cache.sync(),
            None => Ok(()),
        }
    }

    /// Forces every commit so far to disk (useful after `Buffered` writes).
    pub fn sync(&self) -> Result<()> {
        if let Some(log) = &self.inner.log {
            log.sync()?;
        }
        match &self.inner.cache {
            Some(cache) => cache.sync(),
            None => Ok(()),
        }
    }

    /// Estimated heap bytes held by rows, indexes and symbols.
    pub fn heap_bytes(&self) -> usize {
        let state = self.inner.state.read();
        state
            .relations
            .iter()
            .map(Relation::heap_bytes)
            .sum::<usize>()
            + self.inner.symbols.read().heap_bytes()
    }

    /// Makes `change` durable under a fresh transaction time, then applies it.
    /// The caller holds the writer lock and has validated `change`.
    /// The transaction time the next commit gets: the clock, or one past the
    /// last commit when the clock has not moved on (or went back).
    pub(crate) fn next_tx(&self, writer: &WriterState) -> i64 {
        Timestamp::now().0.max(writer.last_tx + 1)
    }

    /// Writes `change` to the log under transaction time `tx` (from
    /// `next_tx`, with the writer held since) and applies it.
    pub(crate) fn commit_change(
        &self,
        writer: &mut WriterState,
        tx: i64,
        change: Change,
        buffered: bool,
    ) -> Result<Timestamp> {
        if writer.poisoned {
            return Err(Error::corrupt(
                "an earlier write failed to reach disk; reopen the database",
            ));
        }
        let (symbols_from, symbols, interned) = {
            let table = self.inner.symbols.read();
            // Only a durable store needs the new names spelled out.
            let names = match self.inner.log {
                Some(_) => table.names_from(writer.persisted_symbols),
                None => Vec::new(),
            };
            (writer.persisted_symbols, names, table.len())
        };
        let entry = LogEntry {
            symbols_from,
            symbols,
            change,
        };
        if let Some(log) = &self.inner.log
            && let Err(e) = log.append(tx, &entry, buffered)
        {
            // A refused write changed nothing; any other failure may have
            // left bytes whose fate the next open decides.
            writer.poisoned = !matches!(e, Error::DiskFull { .. } | Error::ReadOnly);
            return Err(e);
        }
        writer.persisted_symbols = interned;
        writer.last_tx = tx;
        self.inner.state.write().apply(tx, &entry.change)?;
        Ok(Timestamp(tx))
    }
}

/// Nulls the values of doomed rows and tombstones the subject's name in one
/// log entry; says whether anything changed.
fn redact_entry(
    entry: &mut LogEntry,
    subjects: &rustc_hash::FxHashSet<u32>,
    doomed: &rustc_hash::FxHashSet<(u32, u32)>,
) -> bool {
    let mut changed = false;
    for &subject in subjects {
        if let Some(name) = entry
            .symbols
            .get_mut(subject.wrapping_sub(entry.symbols_from) as usize)
        {
            *name = crate::symbols::tombstone(subject);
            changed = true;
        }
    }
    if let Change::Commit { appends, .. } = &mut entry.change {
        for append in appends {
            for (k, row) in append.rows.iter_mut().enumerate() {
                if doomed.contains(&(append.relation, append.first_row + k as u32)) {
                    row.values.iter_mut().for_each(|v| *v = crate::Value::Null);
                    changed = true;
                }
            }
        }
    }
    changed
}

impl State {
    fn empty() -> State {
        State {
            relations: Vec::new(),
            by_name: FxHashMap::default(),
            purges: Vec::new(),
            last_tx: 0,
        }
    }
}
