//! Data derived from rows, kept on disk beside the log so a reopened store
//! need not compute it again (the engine keeps embeddings here): a sled
//! database in `cache/`, keyed by `relation (u32 BE) | row (u32 BE) |
//! space`, so a purge removes a row's entries in every space with one
//! prefix scan.
//!
//! It is not part of the log and nothing replays it: writes are not synced
//! with commits, a crash may lose the newest entries (computed again), and
//! a damaged cache can be deleted and rebuilt without losing a commit.

use std::path::Path;

use crate::error::{Error, Result};

/// How long `open` waits for sled's lock, which sled's flusher thread can
/// hold briefly after a `Db` in this process drops.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

pub(crate) struct DerivedCache {
    db: sled::Db,
    tree: sled::Tree,
}

fn key(rel: u32, row: u32, space: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + space.len());
    key.extend_from_slice(&rel.to_be_bytes());
    key.extend_from_slice(&row.to_be_bytes());
    key.extend_from_slice(space.as_bytes());
    key
}

fn damaged(path: &Path, what: &str) -> Error {
    Error::corrupt(format!(
        "the derived-data cache `{}` is damaged ({what}); it holds only data that can be recomputed (embeddings): delete that directory and open the database again to rebuild it",
        path.display()
    ))
}

impl DerivedCache {
    /// Opens (or creates) the cache in `path`. sled panics on some damaged
    /// files; that is caught and reported as a damaged cache.
    pub(crate) fn open(path: &Path) -> Result<DerivedCache> {
        // No timed flush of its own: the engine syncs the cache when commits
        // pause (`Store::sync_derived`), so sled's fsync never lands between
        // a writer's commits.
        let config = sled::Config::new().path(path).flush_every_ms(None);
        let started = std::time::Instant::now();
        let db = loop {
            let attempt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.open()));
            match attempt {
                Ok(Ok(db)) => break db,
                Ok(Err(e))
                    if e.to_string().contains("could not acquire lock")
                        && started.elapsed() < LOCK_WAIT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Ok(Err(sled::Error::Corruption { .. })) => {
                    return Err(damaged(path, "sled reports corruption"));
                }
                Ok(Err(e)) => return Err(Error::io("opening the derived-data cache")(e)),
                Err(_) => return Err(damaged(path, "sled panicked while reading it")),
            }
        };
        let tree = db
            .open_tree("derived")
            .map_err(Error::io("opening the derived-data cache"))?;
        Ok(DerivedCache { db, tree })
    }

    /// Stores `rows`' derived data in `space` for relation `rel`, without a
    /// sync (it can be recomputed; sled writes it out within its flush).
    pub(crate) fn put(&self, space: &str, rel: u32, rows: &[(u32, &[u8])]) -> Result<()> {
        let mut batch = sled::Batch::default();
        for &(row, bytes) in rows {
            batch.insert(key(rel, row, space), bytes);
        }
        self.tree
            .apply_batch(batch)
            .map_err(Error::io("writing derived data"))
    }

    /// Calls `f` with each row of `rel` that has data in `space`, in row
    /// order.
    pub(crate) fn get(&self, space: &str, rel: u32, mut f: impl FnMut(u32, &[u8])) -> Result<()> {
        for item in self.tree.scan_prefix(rel.to_be_bytes()) {
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
    /// space, synced: a purge must not leave a forgotten row's data behind.
    pub(crate) fn remove(&self, rows: &[(u32, u32)]) -> Result<()> {
        let mut batch = sled::Batch::default();
        for &(rel, row) in rows {
            let mut prefix = rel.to_be_bytes().to_vec();
            prefix.extend_from_slice(&row.to_be_bytes());
            for item in self.tree.scan_prefix(prefix) {
                let (key, _) = item.map_err(Error::io("reading derived data"))?;
                batch.remove(key);
            }
        }
        self.tree
            .apply_batch(batch)
            .map_err(Error::io("removing derived data"))?;
        self.sync()
    }

    /// Writes out everything put so far.
    pub(crate) fn sync(&self) -> Result<()> {
        self.db
            .flush()
            .map(|_| ())
            .map_err(Error::io("syncing derived data"))
    }
}
