//! The durable commit log: a file of our own, one checksummed frame per
//! transaction, and a head record inside it that says how much of it was
//! acknowledged.
//!
//! A commit writes its frame at the end of `log` and `fdatasync`s the file,
//! which also makes durable the head record the previous commit wrote; it
//! then writes the head record for its own frame (two slots after the file
//! header, overwritten in place) and returns. One sync per commit, and the
//! head record on disk never claims a frame that is not durable: it is
//! written only after its frame was synced. A killed process loses no head
//! write (the page cache keeps it); after a power cut the durable head may
//! be one commit behind, never ahead.
//!
//! Opening scans the frames, checking each one's chained checksum, and
//! compares what reads back with the head: a log that reads back shorter
//! than what was acknowledged (a zeroed page, a flipped byte, a truncated
//! file, a lost tail) is refused with [`Error::Damaged`], naming the last
//! transaction that reads back whole, instead of opening as a silently
//! shorter history. Bytes past the acknowledged end that do not form a
//! whole frame are a commit torn by a crash before it was acknowledged;
//! they are cut off.
//!
//! The directory also holds `lock` (held for as long as the log is open, so
//! a second opener gets [`Error::Locked`]) and `cache/`, a sled database
//! for data derived from rows ([`DerivedCache`]), which is not part of the
//! log and can be rebuilt. A log of format 3 (its head record in a file of
//! its own, `head`, synced separately) is rewritten in this format when it
//! is opened for writing. See `docs/storage-format.md`.

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
/// 4: the head record lives in the log file, after the header (it was the
/// file `head`), so that one `fdatasync` makes a commit durable.
pub(crate) const FORMAT_VERSION: u32 = 4;

/// The format whose head record was a file of its own; read, and migrated
/// when opened for writing.
const SEPARATE_HEAD_FORMAT: u32 = 3;

/// Where the head record's two slots start in a log of [`FORMAT_VERSION`].
const HEAD_AT: u64 = frame::HEADER_LEN;
/// Where the first frame starts in a log of [`FORMAT_VERSION`].
const FRAMES_AT: u64 = HEAD_AT + 2 * head::SLOT_LEN as u64;

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
    /// An erasure of several symbols and single rows at once (appended
    /// after `Purge`, which older logs still hold and which replays as an
    /// erasure of one symbol): every row holding a subject and every row
    /// listed is erased, each subject's name forgotten.
    Erase {
        subjects: Vec<u32>,
        rows: Vec<(u32, u32)>,
        reason: String,
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
    /// Open for reading only (implied by `recover`): touch no file, share
    /// the lock with other readers.
    pub read_only: bool,
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
    /// Held for the log's life: the directory's lock (shared when reading
    /// only; none when reading a directory without a lock file).
    _lock: Option<File>,
}

/// The writable end of the log.
struct Tail {
    file: File,
    /// What the log holds now (ahead of the head record in the file when
    /// commits are buffered).
    head: Head,
    /// Whether the head record in the file says `head` (written, perhaps
    /// not yet synced).
    head_written: bool,
    /// Whether everything written is synced.
    synced: bool,
    /// The file's length: zeros past `head.end`, written ahead so that a
    /// commit's sync does not also have to journal a new file size.
    allocated: u64,
}

/// How far past the end of the log zeros are written ahead of commits.
/// Overwriting allocated blocks makes `fdatasync` flush data only; an append
/// that grows the file also commits the file system's journal (measured on
/// this VM's ext4, 300-byte commits: p50 0.21 vs 0.29 ms, p99 0.45-0.72 vs
/// 0.51-1.5 ms). The scan stops at the first zero frame header (its tx does
/// not increase), and a clean close trims the zeros.
const ZEROED_AHEAD: u64 = 1 << 20;

fn lock(dir: &Path) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join("lock"))
        .map_err(Error::io("opening the lock file"))?;
    wait_for_lock(dir, file, File::try_lock)
}

/// A reader's lock: the lock file opened for reading and locked shared, so
/// readers open side by side and no writer opens meanwhile. A directory
/// without a lock file (and nothing may be created there) is read unlocked.
fn shared_lock(dir: &Path) -> Result<Option<File>> {
    match File::open(dir.join("lock")) {
        Ok(file) => wait_for_lock(dir, file, File::try_lock_shared).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("opening the lock file")(e)),
    }
}

fn wait_for_lock(
    dir: &Path,
    file: File,
    try_lock: fn(&File) -> std::result::Result<(), std::fs::TryLockError>,
) -> Result<File> {
    let started = std::time::Instant::now();
    loop {
        match try_lock(&file) {
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

/// Opens an existing log file, for writing unless `read_only`.
fn open_log_file(path: &Path, read_only: bool) -> Result<File> {
    if read_only {
        File::open(path)
    } else {
        OpenOptions::new().read(true).write(true).open(path)
    }
    .map_err(Error::io("opening the log"))
}

/// Writes a new log file at `path` (the current format): the header for
/// `head`'s generation, `head` in its slot, then `frames`; synced.
fn write_log_file(path: &Path, head: &Head, frames: &[u8]) -> Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(Error::io("creating a log file"))?;
    file.write_all_at(&frame::header(FORMAT_VERSION, head.generation), 0)
        .and_then(|()| file.write_all_at(&[0u8; 2 * head::SLOT_LEN], HEAD_AT))
        .and_then(|()| file.write_all_at(frames, FRAMES_AT))
        .map_err(Error::io("writing a log file"))?;
    head.write(&file, HEAD_AT)?;
    file.sync_all().map_err(Error::io("writing a log file"))?;
    Ok(file)
}

/// The format and generation in the header of the log file at `path`, if
/// it has one.
fn header_of(path: &Path) -> Option<(u32, u32)> {
    File::open(path)
        .ok()
        .and_then(|f| frame::read_header(f).ok())
}

/// Where a log's head record is, and the first frame after it.
enum Layout {
    /// The current format: both in the log file.
    Framed,
    /// Format 3: the head record in the file `head`; frames right after
    /// the header.
    SeparateHead,
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
        let read_only = options.read_only || options.recover;
        let (log_path, head_path) = (dir.join("log"), dir.join("head"));
        let exists = log_path.exists() || head_path.exists();
        if read_only {
            if !exists {
                return Err(Error::corrupt(format!(
                    "nothing to {}: `{}` holds no log",
                    if options.recover { "recover" } else { "read" },
                    dir.display()
                )));
            }
        } else {
            std::fs::create_dir_all(dir).map_err(Error::io("creating the database directory"))?;
            // Before a database is created: a full disk must not get as far
            // as a half-created file. An existing one opens on a full disk
            // (to be read); its writes are refused one by one.
            if !exists {
                ensure_space(dir, 0, options.min_free_bytes)?;
            }
        }
        let mut lock = if read_only {
            shared_lock(dir)?
        } else {
            Some(lock(dir)?)
        };
        // The lock file is marked once a log exists beside it: a marked
        // lock file without a log is a database whose log was deleted, not
        // a new one (an empty one is a creation a crash cut short).
        let used = match &lock {
            Some(file) => {
                file.metadata()
                    .map_err(Error::io("reading the lock file"))?
                    .len()
                    > 0
            }
            None => false,
        };
        if used && !read_only && !log_path.exists() && !head_path.exists() {
            return Err(Error::corrupt(format!(
                "the log (the file `log`) is missing from `{}`, which held a database (its `lock` file says so): restore the log from a backup, or remove `lock` to start an empty database there",
                dir.display()
            )));
        }
        let separate_head = head_path.exists()
            && header_of(&log_path).is_none_or(|(format, _)| format == SEPARATE_HEAD_FORMAT);
        let (file, layout, head) = if separate_head {
            Log::open_separate_head(dir, read_only)?
        } else {
            Log::open_framed(dir, read_only)?
        };
        let frames_at = match layout {
            Layout::Framed => FRAMES_AT,
            Layout::SeparateHead => frame::HEADER_LEN,
        };

        let file_len = file
            .metadata()
            .map_err(Error::io("reading the log's size"))?
            .len();
        let mut reader = BufReader::with_capacity(1 << 20, &file);
        reader
            .seek(SeekFrom::Start(frames_at))
            .map_err(Error::io("reading the log"))?;
        let generation = head.generation;
        let mut chain_at_head = (head.frames == 0).then(|| frame::seed(generation));
        let read = frame::scan(
            reader,
            frames_at,
            file_len,
            generation,
            |index, tx, chain, payload| {
                if index + 1 == head.frames {
                    chain_at_head = Some(chain);
                }
                let entry: LogEntry = postcard::from_bytes(payload)
                    .map_err(|e| Error::corrupt(format!("log entry at tx {tx}: {e}")))?;
                replay(tx, entry)
            },
        )?;

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
            if !options.recover {
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
        let mut tail = Tail {
            file,
            head: now,
            head_written: now == head,
            synced: now == head,
            allocated: file_len,
        };
        if !read_only {
            // A torn, unacknowledged commit at the end is cut off before
            // anything else is written after it.
            if read.end < file_len {
                tail.file
                    .set_len(read.end)
                    .and_then(|()| tail.file.sync_all())
                    .map_err(Error::io("cutting off a torn commit"))?;
                tail.allocated = read.end;
            }
            if matches!(layout, Layout::SeparateHead) {
                tail = Log::migrate(dir, tail, frames_at)?;
            }
        }
        if let (false, false, Some(lock)) = (used, read_only, lock.as_mut()) {
            use std::io::Write;
            lock.write_all(b"chronolog database\n")
                .and_then(|()| lock.sync_all())
                .map_err(Error::io("marking the lock file"))?;
        }
        let log = Log {
            dir: dir.to_path_buf(),
            tail: Mutex::new(tail),
            durability: options.durability,
            read_only,
            min_free_bytes: options.min_free_bytes,
            damage,
            _lock: lock,
        };
        // The head record brought up to what reads back.
        log.sync()?;
        Ok(log)
    }

    /// Opens the log file of the current format (creating it for a new
    /// database) and reads its head record.
    fn open_framed(dir: &Path, read_only: bool) -> Result<(File, Layout, Head)> {
        let (log_path, tmp_path) = (dir.join("log"), dir.join("log.tmp"));
        if !read_only {
            // The rename is a rewrite's commit point: a `log.tmp` beside
            // the log is one that did not finish, and a `head` beside a log
            // of this format is what a finished migration left behind.
            for leftover in [tmp_path, dir.join("head")] {
                if leftover.exists() && log_path.exists() {
                    std::fs::remove_file(&leftover)
                        .map_err(Error::io("removing what an unfinished rewrite left"))?;
                    sync_dir(dir)?;
                }
            }
            if !log_path.exists() {
                if dir.join("cache").exists() {
                    // The cache is only created after the log: this was a
                    // database, and its log is gone.
                    return Err(Error::corrupt(
                        "the log (the file `log`) is missing from a database directory (its `cache/` is there)",
                    ));
                }
                if dir.join("db").exists() && dir.join("conf").exists() {
                    return Err(Error::corrupt(format!(
                        "this directory holds a format-2 database (its log inside sled); this build reads formats {SEPARATE_HEAD_FORMAT} and {FORMAT_VERSION}"
                    )));
                }
                Log::create(dir)?;
            }
        }
        let file = open_log_file(&log_path, read_only)?;
        let (format, generation) = frame::read_header(&file)?;
        match format {
            FORMAT_VERSION => {}
            SEPARATE_HEAD_FORMAT => {
                return Err(Error::corrupt(
                    "the log is format 3 but its head record (the file `head`) is missing",
                ));
            }
            other => {
                return Err(Error::corrupt(format!(
                    "unsupported format version {other} (this build reads {SEPARATE_HEAD_FORMAT} and {FORMAT_VERSION})"
                )));
            }
        }
        let head = Head::read(&file, HEAD_AT)?;
        if generation != head.generation {
            return Err(Error::corrupt(format!(
                "the log is generation {generation} but its head record names generation {}",
                head.generation
            )));
        }
        Ok((file, Layout::Framed, head))
    }

    /// Opens a log of format 3, whose head record is the file `head`,
    /// finishing a purge that a crash interrupted after it had pointed the
    /// head record at the new generation.
    fn open_separate_head(dir: &Path, read_only: bool) -> Result<(File, Layout, Head)> {
        let (log_path, head_path, tmp_path) =
            (dir.join("log"), dir.join("head"), dir.join("log.tmp"));
        let head_file = File::open(&head_path).map_err(Error::io("opening the head record"))?;
        let head = Head::read(&head_file, 0)?;
        let generation_of = |p: &Path| {
            header_of(p)
                .filter(|&(format, _)| format == SEPARATE_HEAD_FORMAT)
                .map(|(_, generation)| generation)
        };
        let mut log_at = log_path.clone();
        if tmp_path.exists() {
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
        let file = open_log_file(&log_at, read_only)?;
        let (format, generation) = frame::read_header(&file)?;
        if format != SEPARATE_HEAD_FORMAT {
            return Err(Error::corrupt(format!(
                "the log is format {format} beside a separate head record, which only format {SEPARATE_HEAD_FORMAT} has"
            )));
        }
        if generation != head.generation {
            return Err(Error::corrupt(format!(
                "the log is generation {generation} but its head record names generation {}",
                head.generation
            )));
        }
        Ok((file, Layout::SeparateHead, head))
    }

    /// Rewrites a format-3 log (read back whole; its frames start at
    /// `frames_at`) in the current format: the same generation and frames,
    /// byte for byte, after the head record. The rename is the switch; the
    /// old `head` file is removed after it.
    fn migrate(dir: &Path, tail: Tail, frames_at: u64) -> Result<Tail> {
        let mut frames = vec![0u8; (tail.head.end - frames_at) as usize];
        tail.file
            .read_exact_at(&mut frames, frames_at)
            .map_err(Error::io("reading the log to migrate it"))?;
        ensure_space(dir, FRAMES_AT + frames.len() as u64, 0)?;
        let head = Head {
            seq: tail.head.seq + 1,
            end: FRAMES_AT + frames.len() as u64,
            ..tail.head
        };
        let tmp = dir.join("log.tmp");
        let file = write_log_file(&tmp, &head, &frames)?;
        std::fs::rename(&tmp, dir.join("log")).map_err(Error::io("migrating the log"))?;
        sync_dir(dir)?;
        std::fs::remove_file(dir.join("head"))
            .map_err(Error::io("removing the format-3 head record"))?;
        sync_dir(dir)?;
        Ok(Tail {
            file,
            head,
            head_written: true,
            synced: true,
            allocated: head.end,
        })
    }

    /// Writes an empty log with its head record for a new database.
    fn create(dir: &Path) -> Result<()> {
        let tmp = dir.join("log.tmp");
        let head = Head {
            seq: 0,
            generation: 0,
            chain: frame::seed(0),
            frames: 0,
            end: FRAMES_AT,
            last_tx: 0,
        };
        write_log_file(&tmp, &head, &[])?;
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

    /// Appends `entry` at `tx`; durable on return when the durability is
    /// `Sync` and `buffered` is false (`buffered` skips the sync for this
    /// one entry even in a synced log: the next synced append, or a sync,
    /// carries it to disk with everything before it). On an error nothing
    /// was acknowledged; [`Error::DiskFull`] and [`Error::ReadOnly`] also
    /// guarantee that nothing was written.
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
        let end = at + bytes.len() as u64;
        if end > tail.allocated {
            let grow = end + ZEROED_AHEAD - tail.allocated;
            ensure_space(&self.dir, grow, self.min_free_bytes)?;
            let zeros = vec![0u8; grow as usize];
            if let Err(e) = tail.file.write_all_at(&zeros, tail.allocated) {
                let _ = tail.file.set_len(tail.allocated);
                return Err(Error::io("extending the log")(e));
            }
            tail.allocated += grow;
        }
        if let Err(e) = tail.file.write_all_at(&bytes, at) {
            // Take the partial frame back; if even that fails, the next
            // open cuts it off as a torn, unacknowledged commit.
            if tail.file.set_len(at).is_ok() {
                tail.allocated = at;
            }
            return Err(Error::io("appending to the log")(e));
        }
        let mut next = Head {
            seq: tail.head.seq,
            generation: tail.head.generation,
            chain,
            frames: tail.head.frames + 1,
            end,
            last_tx: tx,
        };
        if self.durability == Durability::Sync && !buffered {
            // One sync: this frame, any buffered before it, and the head
            // record the previous commit wrote. This commit's own head
            // record is written after it, so it never claims a frame that
            // is not durable; the next sync (or commit) makes it durable.
            tail.file
                .sync_data()
                .map_err(Error::io("syncing the log"))?;
            next.seq += 1;
            next.write(&tail.file, HEAD_AT)?;
            tail.head_written = true;
        } else {
            tail.head_written = false;
        }
        tail.synced = false;
        tail.head = next;
        Ok(())
    }

    /// Rewrites the log with every entry passed through `redact`, then
    /// `entry` appended at `tx`, as a new generation that replaces the old
    /// one atomically (write `log.tmp` with its head record, sync, rename
    /// it over `log`); synced whatever the durability setting: a purge must
    /// not be undone by a crash. Returns how many entries `redact` changed.
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
            .seek(SeekFrom::Start(FRAMES_AT))
            .map_err(Error::io("reading the log"))?;
        let read = frame::scan(
            reader,
            FRAMES_AT,
            old.end,
            old.generation,
            |_, tx, _, payload| {
                let mut e: LogEntry = postcard::from_bytes(payload)
                    .map_err(|e| Error::corrupt(format!("log entry at tx {tx}: {e}")))?;
                if redact(&mut e) {
                    rewritten += 1;
                }
                encode_into(&mut frames, &mut chain, tx, &e)
            },
        )?;
        if read.frames != old.frames {
            return Err(Error::corrupt(format!(
                "the log changed under a purge: {} of {} frames read back",
                read.frames, old.frames
            )));
        }
        encode_into(&mut frames, &mut chain, tx, entry)?;
        let next = Head {
            seq: old.seq + 1,
            generation,
            chain,
            frames: old.frames + 1,
            end: FRAMES_AT + frames.len() as u64,
            last_tx: tx,
        };
        let tmp = self.dir.join("log.tmp");
        let file = write_log_file(&tmp, &next, &frames)?;
        std::fs::rename(&tmp, self.dir.join("log"))
            .map_err(Error::io("replacing the log after a purge"))?;
        sync_dir(&self.dir)?;
        tail.file = file;
        tail.head = next;
        tail.head_written = true;
        tail.synced = true;
        tail.allocated = next.end;
        Ok(rewritten)
    }

    /// Forces every commit so far to disk, with a head record that counts
    /// them all.
    pub(crate) fn sync(&self) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        let mut tail = self.tail.lock();
        if tail.synced {
            return Ok(());
        }
        tail.file
            .sync_data()
            .map_err(Error::io("syncing the log"))?;
        if !tail.head_written {
            // Only now that the frames are durable may the head count them.
            let next = Head {
                seq: tail.head.seq + 1,
                ..tail.head
            };
            next.write(&tail.file, HEAD_AT)?;
            tail.file
                .sync_data()
                .map_err(Error::io("syncing the head record"))?;
            tail.head = next;
            tail.head_written = true;
        }
        tail.synced = true;
        Ok(())
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        // Buffered commits become durable at a clean close, and the zeros
        // written ahead are trimmed: at rest the file is exactly the log.
        if self.sync().is_ok() && !self.read_only {
            let tail = self.tail.get_mut();
            if tail.allocated > tail.head.end && tail.file.set_len(tail.head.end).is_ok() {
                let _ = tail.file.sync_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> LogEntry {
        LogEntry {
            symbols_from: 0,
            symbols: vec![name.to_string()],
            change: Change::Commit {
                appends: Vec::new(),
                cuts: Vec::new(),
                closes: Vec::new(),
            },
        }
    }

    fn open(dir: &Path, recover: bool) -> Result<(Log, Vec<(i64, String)>)> {
        let options = LogOptions {
            durability: Durability::Sync,
            recover,
            read_only: recover,
            min_free_bytes: 0,
        };
        let mut seen = Vec::new();
        let log = Log::open(dir, options, |tx, e| {
            seen.push((tx, e.symbols.concat()));
            Ok(())
        })?;
        Ok((log, seen))
    }

    /// The head record as a separate reader of the file sees it now.
    fn head_in_file(dir: &Path) -> Head {
        let file = File::open(dir.join("log")).expect("open log");
        Head::read(&file, HEAD_AT).expect("head")
    }

    /// A database as format 3 wrote it: frames right after the header, the
    /// head record in the file `head`.
    fn write_format_3(dir: &Path, entries: &[(i64, &str)]) {
        std::fs::create_dir_all(dir).expect("dir");
        let mut bytes = frame::header(SEPARATE_HEAD_FORMAT, 0).to_vec();
        let mut chain = frame::seed(0);
        for &(tx, name) in entries {
            let payload = postcard::to_stdvec(&entry(name)).expect("encode");
            let (frame, next) = frame::encode(chain, tx, &payload).expect("frame");
            bytes.extend_from_slice(&frame);
            chain = next;
        }
        std::fs::write(dir.join("log"), &bytes).expect("write log");
        let head_file = File::create(dir.join("head")).expect("head file");
        let head = Head {
            seq: 7,
            generation: 0,
            chain,
            frames: entries.len() as u64,
            end: bytes.len() as u64,
            last_tx: entries.last().map_or(0, |e| e.0),
        };
        head.write(&head_file, 0).expect("write head");
    }

    #[test]
    fn a_format_3_log_is_read_as_it_is_and_migrated_when_opened_for_writing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let entries = [(10, "a"), (11, "b"), (15, "c")];
        write_format_3(&path, &entries);
        let expected: Vec<(i64, String)> =
            entries.iter().map(|&(t, n)| (t, n.to_string())).collect();

        let before = (
            std::fs::read(path.join("log")).expect("log"),
            std::fs::read(path.join("head")).expect("head"),
        );
        let (log, seen) = open(&path, true).expect("recover open");
        assert_eq!(seen, expected);
        drop(log);
        let after = (
            std::fs::read(path.join("log")).expect("log"),
            std::fs::read(path.join("head")).expect("head"),
        );
        assert!(before == after, "a read-only open changed a file");

        let (log, seen) = open(&path, false).expect("open for writing");
        assert_eq!(seen, expected);
        assert!(!path.join("head").exists(), "the old head record is gone");
        assert_eq!(header_of(&path.join("log")), Some((FORMAT_VERSION, 0)));
        log.append(20, &entry("d"), false).expect("append");
        drop(log);

        let (_log, seen) = open(&path, false).expect("reopen");
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[3], (20, "d".to_string()));
    }

    #[test]
    fn a_migration_cut_short_after_its_rename_finishes_on_the_next_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        write_format_3(&path, &[(10, "a")]);
        let old_head = std::fs::read(path.join("head")).expect("head");
        drop(open(&path, false).expect("migrate"));
        // The crash came between the rename and the removal of `head`.
        std::fs::write(path.join("head"), old_head).expect("restore head");
        let (_log, seen) = open(&path, false).expect("open");
        assert_eq!(seen, vec![(10, "a".to_string())]);
        assert!(!path.join("head").exists());
    }

    #[test]
    fn the_head_record_counts_a_synced_commit_before_any_other_sync() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let (log, _) = open(&path, false).expect("create");
        for tx in 1..=3 {
            log.append(tx, &entry("x"), false).expect("append");
        }
        // What a killed process leaves: the write is in the file.
        let head = head_in_file(&path);
        assert_eq!((head.frames, head.last_tx), (3, 3));
    }

    #[test]
    fn the_head_record_counts_a_buffered_commit_only_once_it_is_synced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let (log, _) = open(&path, false).expect("create");
        log.append(1, &entry("x"), false).expect("append");
        log.append(2, &entry("y"), true).expect("append buffered");
        assert_eq!(head_in_file(&path).frames, 1);
        log.sync().expect("sync");
        assert_eq!(head_in_file(&path).frames, 2);
        drop(log);
        let (_log, seen) = open(&path, false).expect("reopen");
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn zeros_written_ahead_are_read_past_after_a_crash_and_trimmed_at_close() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (path, copy) = (dir.path().join("db"), dir.path().join("copy"));
        let (log, _) = open(&path, false).expect("create");
        for tx in 1..=3 {
            log.append(tx, &entry("x"), false).expect("append");
        }
        let len = |p: &Path| std::fs::metadata(p.join("log")).expect("log").len();
        let end = head_in_file(&path).end;
        assert!(len(&path) > end + ZEROED_AHEAD / 2, "zeros written ahead");
        // A crash now leaves the zeros: a copy of the directory as it is.
        std::fs::create_dir_all(&copy).expect("copy dir");
        std::fs::copy(path.join("log"), copy.join("log")).expect("copy");
        drop(log);
        assert_eq!(len(&path), end, "a clean close trims the zeros");
        let (log, seen) = open(&copy, false).expect("open the crashed copy");
        assert_eq!(seen.len(), 3);
        log.append(4, &entry("y"), false).expect("append after");
        drop(log);
        let (_log, seen) = open(&copy, false).expect("reopen");
        assert_eq!(seen.len(), 4);
    }
}
