//! The durable commit log: a file of our own, one checksummed frame per
//! transaction, and a head record that says how much of it was acknowledged.
//!
//! A commit writes its frame at the end of `log`, `fdatasync`s it, then
//! writes the head record (`head`: frames, end offset, chain value, last tx)
//! and `fdatasync`s that, and only then returns. Opening scans the frames,
//! checking each one's chained checksum, and compares what reads back with
//! the head: a log that reads back shorter than what was acknowledged (a
//! zeroed page, a flipped byte, a truncated file, a lost tail) is refused
//! with [`Error::Damaged`], naming the last transaction that reads back
//! whole, instead of opening as a silently shorter history. Bytes past the
//! acknowledged end that do not form a whole frame are a commit torn by a
//! crash before it was acknowledged; they are cut off.
//!
//! The directory also holds `lock` (held for as long as the log is open, so
//! a second opener gets [`Error::Locked`]) and `cache/`, a sled database
//! for data derived from rows ([`DerivedCache`]), which is not part of the
//! log and can be rebuilt. See `docs/storage-format.md`.

mod cache;
mod frame;
mod head;

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

pub(crate) use cache::DerivedCache;
use head::Head;

use crate::error::{Error, Result};
use crate::schema::Schema;
use crate::time::Timestamp;
use crate::value::Value;

/// A row as written by a commit (before it has a transaction time).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct NewRow {
    pub values: Vec<Value>,
    pub valid_from: i64,
    pub valid_to: i64,
    /// Row id this one supersedes, or `relation::NONE`.
    pub supersedes: u32,
    /// Provenance symbol id, or `relation::NONE`.
    pub provenance: u32,
}

/// Bumped whenever the encoding of [`LogEntry`] changes incompatibly.
/// 2: columns carry `search` and `embed` flags.
/// 3: the log is a file of checksummed frames with a head record (it was a
/// sled tree).
pub(crate) const FORMAT_VERSION: u32 = 3;

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
    /// Return once the commit is in the operating system's page cache: a
    /// killed process loses nothing, but a power cut or kernel crash may
    /// lose the commits since the last [`Store::sync`](crate::Store::sync)
    /// (never part of one). For bulk loads that can be redone.
    Buffered,
}

/// How long `open` waits for a lock that this process may still be
/// releasing (a store dropped on another thread a moment ago).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How a log is opened.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LogOptions {
    pub durability: Durability,
    /// Open what reads back, read-only, even if it is shorter than what was
    /// acknowledged; touch no file.
    pub recover: bool,
    /// Writes are refused while the disk has less free space than this.
    pub min_free_bytes: u64,
}

pub(crate) struct Log {
    dir: PathBuf,
    tail: Mutex<Tail>,
    durability: Durability,
    read_only: bool,
    min_free_bytes: u64,
    /// What a recovery open found missing, if anything.
    damage: Option<String>,
    /// Held for the log's life: the directory's lock.
    _lock: File,
}

/// The writable end of the log.
struct Tail {
    file: File,
    head_file: File,
    /// What the log holds now (ahead of what is on disk in `head` when
    /// commits are buffered).
    head: Head,
    /// Whether `head` is ahead of the head record on disk.
    head_unsynced: bool,
}

fn lock(dir: &Path) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join("lock"))
        .map_err(Error::io("opening the lock file"))?;
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(Error::Locked {
                    path: dir.display().to_string(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(Error::io("locking the database")(e));
            }
        }
    }
}

/// Makes a rename or a file creation in `dir` durable.
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io("syncing the database directory"))
}

/// Refuses a write of `needed` bytes that would leave less than `reserve`
/// free on the disk holding `dir`.
pub(crate) fn ensure_space(dir: &Path, needed: u64, reserve: u64) -> Result<()> {
    let free = fs2::available_space(dir).map_err(Error::io("reading the free disk space"))?;
    if free < needed.saturating_add(reserve) {
        return Err(Error::DiskFull {
            path: dir.display().to_string(),
            free,
            needed: needed.saturating_add(reserve),
        });
    }
    Ok(())
}

fn open_rw(path: &Path, create: bool) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .truncate(false)
        .open(path)
}

/// Writes a new log file at `path` holding `header` then `frames`, synced.
fn write_log_file(path: &Path, header: &[u8], frames: &[u8]) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(Error::io("creating a log file"))?;
    file.write_all_at(header, 0)
        .and_then(|()| file.write_all_at(frames, header.len() as u64))
        .and_then(|()| file.sync_all())
        .map_err(Error::io("writing a log file"))?;
    Ok(file)
}

fn describe(frames: u64, tx: i64) -> String {
    if frames == 0 {
        "the start (no commit)".to_string()
    } else {
        format!("commit #{frames} (tx {})", Timestamp(tx))
    }
}

impl Log {
    /// Opens (or creates) the log in directory `dir`, handing every entry
    /// to `replay` in commit order.
    pub(crate) fn open(
        dir: &Path,
        options: LogOptions,
        mut replay: impl FnMut(i64, LogEntry) -> Result<()>,
    ) -> Result<Log> {
        let read_only = options.recover;
        let (log_path, head_path, tmp_path) =
            (dir.join("log"), dir.join("head"), dir.join("log.tmp"));
        if read_only {
            if !head_path.exists() {
                return Err(Error::corrupt(format!(
                    "nothing to recover: `{}` holds no head record",
                    dir.display()
                )));
            }
        } else {
            std::fs::create_dir_all(dir).map_err(Error::io("creating the database directory"))?;
            // Before anything is written: a full disk must not get as far
            // as a half-created file.
            ensure_space(dir, 0, options.min_free_bytes)?;
        }
        let lock = lock(dir)?;
        if !head_path.exists() {
            if log_path.exists() {
                return Err(Error::corrupt(
                    "the log exists but its head record (the file `head`) is missing",
                ));
            }
            if dir.join("db").exists() && dir.join("conf").exists() {
                return Err(Error::corrupt(format!(
                    "this directory holds a format-2 database (its log inside sled); this build reads format {FORMAT_VERSION}"
                )));
            }
            Log::create(dir)?;
        }
        let head_file = if read_only {
            File::open(&head_path)
        } else {
            open_rw(&head_path, false)
        }
        .map_err(Error::io("opening the head record"))?;
        let head = Head::read(&head_file)?;

        // A purge (or the creation) that wrote the head for a new
        // generation but crashed before renaming its log into place is
        // finished here; any other leftover is an unfinished rewrite.
        let mut log_at = log_path.clone();
        if tmp_path.exists() {
            let generation_of = |p: &Path| {
                File::open(p)
                    .ok()
                    .and_then(|f| frame::read_header(f, FORMAT_VERSION).ok())
            };
            let roll_forward = generation_of(&tmp_path) == Some(head.generation)
                && generation_of(&log_path) != Some(head.generation);
            if read_only {
                if roll_forward {
                    log_at = tmp_path.clone();
                }
            } else if roll_forward {
                std::fs::rename(&tmp_path, &log_path)
                    .map_err(Error::io("finishing an interrupted log rewrite"))?;
                sync_dir(dir)?;
            } else {
                std::fs::remove_file(&tmp_path)
                    .map_err(Error::io("removing an unfinished log rewrite"))?;
            }
        }
        if !log_at.exists() {
            return Err(Error::corrupt(
                "the head record exists but the log (the file `log`) is missing",
            ));
        }
        let file = if read_only {
            File::open(&log_at)
        } else {
            open_rw(&log_at, false)
        }
        .map_err(Error::io("opening the log"))?;
        let file_len = file
            .metadata()
            .map_err(Error::io("reading the log's size"))?
            .len();
        let mut reader = BufReader::with_capacity(1 << 20, &file);
        let generation = frame::read_header(&mut reader, FORMAT_VERSION)?;
        if generation != head.generation {
            return Err(Error::corrupt(format!(
                "the log is generation {generation} but its head record names generation {}",
                head.generation
            )));
        }
        let mut chain_at_head = (head.frames == 0).then(|| frame::seed(generation));
        let read = frame::scan(reader, file_len, generation, |index, tx, chain, payload| {
            if index + 1 == head.frames {
                chain_at_head = Some(chain);
            }
            let entry: LogEntry = postcard::from_bytes(payload)
                .map_err(|e| Error::corrupt(format!("log entry at tx {tx}: {e}")))?;
            replay(tx, entry)
        })?;

        let mut damage = None;
        if read.frames < head.frames || chain_at_head != Some(head.chain) {
            let reason = if read.frames < head.frames {
                format!(
                    "{} at byte {}",
                    read.stopped.unwrap_or("the log ends early"),
                    read.end
                )
            } else {
                "the log and its head record disagree about the acknowledged commits".to_string()
            };
            let readable = describe(read.frames, read.last_tx);
            let acknowledged = describe(head.frames, head.last_tx);
            if !read_only {
                return Err(Error::Damaged {
                    reason,
                    readable,
                    acknowledged,
                });
            }
            damage = Some(format!(
                "{reason}: the log reads back whole up to {readable}, but commits up to {acknowledged} were acknowledged"
            ));
        }
        let now = Head {
            seq: head.seq,
            generation,
            chain: read.chain,
            frames: read.frames,
            end: read.end,
            last_tx: read.last_tx,
        };
        let log = Log {
            dir: dir.to_path_buf(),
            tail: Mutex::new(Tail {
                file,
                head_file,
                head: now,
                head_unsynced: now != head,
            }),
            durability: options.durability,
            read_only,
            min_free_bytes: options.min_free_bytes,
            damage,
            _lock: lock,
        };
        if !read_only {
            // A torn, unacknowledged commit at the end is cut off, and the
            // head record brought up to what reads back, before anything
            // else is written after it.
            let tail = log.tail.lock();
            if read.end < file_len {
                tail.file
                    .set_len(read.end)
                    .and_then(|()| tail.file.sync_all())
                    .map_err(Error::io("cutting off a torn commit"))?;
            }
            drop(tail);
            log.sync()?;
        }
        Ok(log)
    }

    /// Writes an empty log and its head record for a new database.
    fn create(dir: &Path) -> Result<()> {
        let tmp = dir.join("log.tmp");
        write_log_file(&tmp, &frame::header(FORMAT_VERSION, 0), &[])?;
        let head_file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(dir.join("head"))
            .map_err(Error::io("creating the head record"))?;
        let head = Head {
            seq: 0,
            generation: 0,
            chain: frame::seed(0),
            frames: 0,
            end: frame::HEADER_LEN,
            last_tx: 0,
        };
        head.write(&head_file)?;
        head_file
            .sync_all()
            .map_err(Error::io("syncing the head record"))?;
        std::fs::rename(&tmp, dir.join("log")).map_err(Error::io("creating the log"))?;
        sync_dir(dir)
    }

    /// What a recovery open found missing; `None` when the log read back
    /// whole.
    pub(crate) fn damage(&self) -> Option<&str> {
        self.damage.as_deref()
    }

    /// The directory the log lives in.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The free space writes leave on the disk.
    pub(crate) fn min_free_bytes(&self) -> u64 {
        self.min_free_bytes
    }

    /// Whether writes are refused (opened for recovery).
    pub(crate) fn read_only(&self) -> bool {
        self.read_only
    }

    /// Writes one entry; durable on return when the durability is `Sync`.
    /// On an error nothing was acknowledged; [`Error::DiskFull`] and
    /// [`Error::ReadOnly`] also guarantee that nothing was written.
    /// Appends `entry` at `tx`; `buffered` skips the syncs for this one
    /// entry even in a synced log (the next synced append, or a sync,
    /// carries it to disk with everything before it).
    pub(crate) fn append(&self, tx: i64, entry: &LogEntry, buffered: bool) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        let payload = postcard::to_stdvec(entry)
            .map_err(|e| Error::corrupt(format!("encoding a log entry: {e}")))?;
        let mut tail = self.tail.lock();
        let (bytes, chain) = frame::encode(tail.head.chain, tx, &payload)?;
        ensure_space(&self.dir, bytes.len() as u64, self.min_free_bytes)?;
        let at = tail.head.end;
        if let Err(e) = tail.file.write_all_at(&bytes, at) {
            // Take the partial frame back; if even that fails, the next
            // open cuts it off as a torn, unacknowledged commit.
            let _ = tail.file.set_len(at);
            return Err(Error::io("appending to the log")(e));
        }
        let next = Head {
            seq: tail.head.seq + 1,
            generation: tail.head.generation,
            chain,
            frames: tail.head.frames + 1,
            end: at + bytes.len() as u64,
            last_tx: tx,
        };
        if self.durability == Durability::Sync && !buffered {
            tail.file
                .sync_data()
                .map_err(Error::io("syncing the log"))?;
            next.write(&tail.head_file)?;
            tail.head_file
                .sync_data()
                .map_err(Error::io("syncing the head record"))?;
            tail.head_unsynced = false;
        } else {
            tail.head_unsynced = true;
        }
        tail.head = next;
        Ok(())
    }

    /// Rewrites the log with every entry passed through `redact`, then
    /// `entry` appended at `tx`, as a new generation that replaces the old
    /// one atomically (write `log.tmp`, sync, point the head record at it,
    /// rename it over `log`); synced whatever the durability setting: a
    /// purge must not be undone by a crash. Returns how many entries
    /// `redact` changed.
    pub(crate) fn purge(
        &self,
        tx: i64,
        entry: &LogEntry,
        mut redact: impl FnMut(&mut LogEntry) -> bool,
    ) -> Result<usize> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        let mut tail = self.tail.lock();
        let old = tail.head;
        ensure_space(&self.dir, old.end, self.min_free_bytes)?;
        let generation = old.generation.wrapping_add(1);
        let mut frames = Vec::with_capacity(old.end as usize);
        let mut chain = frame::seed(generation);
        let mut rewritten = 0;
        let encode_into = |frames: &mut Vec<u8>, chain: &mut u32, tx: i64, e: &LogEntry| {
            let payload = postcard::to_stdvec(e)
                .map_err(|e| Error::corrupt(format!("encoding a log entry: {e}")))?;
            let (bytes, next) = frame::encode(*chain, tx, &payload)?;
            frames.extend_from_slice(&bytes);
            *chain = next;
            Ok::<(), Error>(())
        };
        let mut reader = BufReader::new(&tail.file);
        reader
            .seek(SeekFrom::Start(0))
            .map_err(Error::io("reading the log"))?;
        let old_generation = frame::read_header(&mut reader, FORMAT_VERSION)?;
        let read = frame::scan(reader, old.end, old_generation, |_, tx, _, payload| {
            let mut e: LogEntry = postcard::from_bytes(payload)
                .map_err(|e| Error::corrupt(format!("log entry at tx {tx}: {e}")))?;
            if redact(&mut e) {
                rewritten += 1;
            }
            encode_into(&mut frames, &mut chain, tx, &e)
        })?;
        if read.frames != old.frames {
            return Err(Error::corrupt(format!(
                "the log changed under a purge: {} of {} frames read back",
                read.frames, old.frames
            )));
        }
        encode_into(&mut frames, &mut chain, tx, entry)?;
        let tmp = self.dir.join("log.tmp");
        let file = write_log_file(&tmp, &frame::header(FORMAT_VERSION, generation), &frames)?;
        let next = Head {
            seq: old.seq + 1,
            generation,
            chain,
            frames: old.frames + 1,
            end: frame::HEADER_LEN + frames.len() as u64,
            last_tx: tx,
        };
        next.write(&tail.head_file)?;
        tail.head_file
            .sync_data()
            .map_err(Error::io("syncing the head record"))?;
        std::fs::rename(&tmp, self.dir.join("log"))
            .map_err(Error::io("replacing the log after a purge"))?;
        sync_dir(&self.dir)?;
        tail.file = file;
        tail.head = next;
        tail.head_unsynced = false;
        Ok(rewritten)
    }

    /// Forces every commit so far to disk, then the head record.
    pub(crate) fn sync(&self) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        let mut tail = self.tail.lock();
        if !tail.head_unsynced {
            return Ok(());
        }
        tail.file
            .sync_data()
            .map_err(Error::io("syncing the log"))?;
        let next = Head {
            seq: tail.head.seq + 1,
            ..tail.head
        };
        next.write(&tail.head_file)?;
        tail.head_file
            .sync_data()
            .map_err(Error::io("syncing the head record"))?;
        tail.head = next;
        tail.head_unsynced = false;
        Ok(())
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        // Buffered commits become durable at a clean close.
        let _ = self.sync();
    }
}
