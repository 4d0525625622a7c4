//! The durable commit log on sled.
//!
//! One sled key per transaction: the transaction time as a big-endian `u64`
//! (so sled's key order is commit order), and as value the [`LogEntry`] that
//! commit made, encoded with postcard. A commit is one `insert` (atomic in
//! sled) followed by `flush` (fsync) before the call returns, so every
//! acknowledged commit survives `kill -9` and power loss, and a torn commit
//! is impossible: the key is there whole or not at all. Opening replays the
//! entries in order to rebuild relations and indexes in memory.
//! See `docs/storage-format.md`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::relation::NewRow;
use crate::schema::Schema;

/// Bumped whenever the encoding of [`LogEntry`] changes incompatibly.
/// 2: columns carry `search` and `embed` flags.
pub(crate) const FORMAT_VERSION: u32 = 2;

/// Everything one transaction changed.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct LogEntry {
    /// Id of the first symbol in `symbols`; must equal the table's size.
    pub symbols_from: u32,
    /// Names interned since the previous entry, in id order.
    pub symbols: Vec<String>,
    pub change: Change,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Change {
    /// A new relation; its id is the number of relations before it.
    CreateRelation(Schema),
    /// The right to be forgotten: every row holding `subject` is erased and
    /// the symbol's name forgotten. The entries that held them were
    /// rewritten (values nulled, name tombstoned) in the same atomic batch.
    Purge {
        subject: u32,
        rows: Vec<(u32, u32)>,
        reason: String,
    },
    /// Rows appended, cut and withdrawn, all at this entry's tx time.
    Commit {
        appends: Vec<Append>,
        /// `(relation id, row id, valid_to)`: the row's valid interval ends at
        /// `valid_to` from this tx on.
        cuts: Vec<(u32, u32, i64)>,
        /// `(relation id, row id)` whose `tx_to` becomes this tx time.
        closes: Vec<(u32, u32)>,
    },
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Append {
    pub relation: u32,
    /// Id of `rows[0]`; must equal the relation's row count at replay.
    pub first_row: u32,
    pub rows: Vec<NewRow>,
}

/// How hard a commit pushes its bytes to disk before returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// fsync before every commit returns (the default).
    #[default]
    Sync,
    /// Return after the write reaches sled's buffers; sled flushes within
    /// 500 ms. For bulk loads that can be replayed; a crash may lose the
    /// last half second of commits, never part of one.
    Buffered,
}

/// How long `open` waits for a lock that this process may still be
/// releasing (sled's flusher thread can hold it briefly after a `Db` drops).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

fn open_with_retry(config: &sled::Config, path: &Path) -> Result<sled::Db> {
    let started = std::time::Instant::now();
    loop {
        match config.open() {
            Ok(db) => return Ok(db),
            Err(e) if e.to_string().contains("could not acquire lock") => {
                if started.elapsed() >= LOCK_WAIT {
                    return Err(Error::Locked {
                        path: path.display().to_string(),
                    });
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(Error::io("opening the database")(e)),
        }
    }
}

fn derived_key(rel: u32, row: u32, space: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + space.len());
    key.extend_from_slice(&rel.to_be_bytes());
    key.extend_from_slice(&row.to_be_bytes());
    key.extend_from_slice(space.as_bytes());
    key
}

pub(crate) struct Log {
    db: sled::Db,
    entries: sled::Tree,
    /// Data derived from rows (see `Store::put_derived`), keyed by
    /// `relation (u32 BE) | row (u32 BE) | space`: a purge removes a row's
    /// entries in every space with one prefix scan.
    derived: sled::Tree,
    durability: Durability,
}

impl Log {
    /// Opens (or creates) the log at `path`, handing every entry to `replay`
    /// in commit order.
    pub(crate) fn open(
        path: &Path,
        durability: Durability,
        mut replay: impl FnMut(i64, LogEntry) -> Result<()>,
    ) -> Result<Log> {
        // With `Sync` every commit flushes itself, so sled's background
        // flusher is only started for `Buffered`.
        let flush_every_ms = match durability {
            Durability::Sync => None,
            Durability::Buffered => Some(500),
        };
        let config = sled::Config::new()
            .path(path)
            .flush_every_ms(flush_every_ms);
        let db = open_with_retry(&config, path)?;
        let meta = db.open_tree("meta").map_err(Error::io("opening meta"))?;
        match meta.get("format").map_err(Error::io("reading meta"))? {
            None => {
                meta.insert("format", &FORMAT_VERSION.to_be_bytes())
                    .map_err(Error::io("writing meta"))?;
            }
            Some(v) if v.as_ref() == FORMAT_VERSION.to_be_bytes() => {}
            Some(v) => {
                return Err(Error::corrupt(format!(
                    "unsupported format version {:?} (this build reads {FORMAT_VERSION})",
                    v.as_ref()
                )));
            }
        }
        let entries = db.open_tree("log").map_err(Error::io("opening the log"))?;
        for item in entries.iter() {
            let (key, value) = item.map_err(Error::io("reading the log"))?;
            let key: [u8; 8] = key
                .as_ref()
                .try_into()
                .map_err(|_| Error::corrupt("log key is not 8 bytes"))?;
            let tx = u64::from_be_bytes(key) as i64;
            let entry: LogEntry = postcard::from_bytes(&value)
                .map_err(|e| Error::corrupt(format!("log entry at tx {tx}: {e}")))?;
            replay(tx, entry)?;
        }
        let derived = db
            .open_tree("derived")
            .map_err(Error::io("opening derived data"))?;
        Ok(Log {
            db,
            entries,
            derived,
            durability,
        })
    }

    /// Writes one entry; durable on return when the durability is `Sync`.
    pub(crate) fn append(&self, tx: i64, entry: &LogEntry) -> Result<()> {
        let bytes = postcard::to_stdvec(entry)
            .map_err(|e| Error::corrupt(format!("encoding a log entry: {e}")))?;
        let key = (tx as u64).to_be_bytes();
        self.entries
            .insert(key, bytes)
            .map_err(Error::io("appending to the log"))?;
        if self.durability == Durability::Sync {
            self.db.flush().map_err(Error::io("syncing the log"))?;
        }
        Ok(())
    }

    /// Rewrites every earlier entry that `redact` changes and appends
    /// `entry` at `tx`, in one atomic sled batch, then syncs (whatever the
    /// durability setting: a purge must not be undone by a crash).
    pub(crate) fn purge(
        &self,
        tx: i64,
        entry: &LogEntry,
        mut redact: impl FnMut(&mut LogEntry) -> bool,
    ) -> Result<usize> {
        let mut batch = sled::Batch::default();
        let mut rewritten = 0;
        for item in self.entries.iter() {
            let (key, value) = item.map_err(Error::io("reading the log"))?;
            let mut old: LogEntry = postcard::from_bytes(&value)
                .map_err(|e| Error::corrupt(format!("log entry {key:?}: {e}")))?;
            if redact(&mut old) {
                let bytes = postcard::to_stdvec(&old)
                    .map_err(|e| Error::corrupt(format!("encoding a log entry: {e}")))?;
                batch.insert(key, bytes);
                rewritten += 1;
            }
        }
        let bytes = postcard::to_stdvec(entry)
            .map_err(|e| Error::corrupt(format!("encoding a log entry: {e}")))?;
        batch.insert(&(tx as u64).to_be_bytes(), bytes);
        self.entries
            .apply_batch(batch)
            .map_err(Error::io("rewriting the log for a purge"))?;
        self.db.flush().map_err(Error::io("syncing the log"))?;
        Ok(rewritten)
    }

    /// Stores `rows`' derived data in `space` for relation `rel`, without a
    /// sync (it can be recomputed; sled writes it out within its flush).
    pub(crate) fn put_derived(&self, space: &str, rel: u32, rows: &[(u32, &[u8])]) -> Result<()> {
        let mut batch = sled::Batch::default();
        for &(row, bytes) in rows {
            batch.insert(derived_key(rel, row, space), bytes);
        }
        self.derived
            .apply_batch(batch)
            .map_err(Error::io("writing derived data"))
    }

    /// Calls `f` with each row of `rel` that has data in `space`, in row
    /// order.
    pub(crate) fn derived(
        &self,
        space: &str,
        rel: u32,
        mut f: impl FnMut(u32, &[u8]),
    ) -> Result<()> {
        for item in self.derived.scan_prefix(rel.to_be_bytes()) {
            let (key, value) = item.map_err(Error::io("reading derived data"))?;
            if key.len() < 8 || &key[8..] != space.as_bytes() {
                continue;
            }
            let row = u32::from_be_bytes([key[4], key[5], key[6], key[7]]);
            f(row, &value);
        }
        Ok(())
    }

    /// Removes the derived data of `rows` (`(relation, row)`) in every
    /// space.
    pub(crate) fn remove_derived(&self, rows: &[(u32, u32)]) -> Result<()> {
        let mut batch = sled::Batch::default();
        for &(rel, row) in rows {
            let mut prefix = rel.to_be_bytes().to_vec();
            prefix.extend_from_slice(&row.to_be_bytes());
            for item in self.derived.scan_prefix(prefix) {
                let (key, _) = item.map_err(Error::io("reading derived data"))?;
                batch.remove(key);
            }
        }
        self.derived
            .apply_batch(batch)
            .map_err(Error::io("removing derived data"))
    }

    /// Best effort to take back an entry whose sync failed.
    pub(crate) fn remove(&self, tx: i64) {
        let _ = self.entries.remove((tx as u64).to_be_bytes());
    }

    /// Forces everything written so far to disk.
    pub(crate) fn sync(&self) -> Result<()> {
        self.db.flush().map_err(Error::io("syncing the log"))?;
        Ok(())
    }
}
