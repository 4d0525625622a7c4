//! Damaged logs never open as a shorter history. A database is written (in
//! one session, and by a process killed mid-commit), then copies of it are
//! damaged the ways disks and operators damage files: a zeroed 4 KiB page
//! anywhere, one flipped byte, truncation at every kind of offset, a lost
//! tail, a torn head record (two slots after the log's header). Every trial
//! must either open with
//! every acknowledged batch whole, or be refused with a typed error; a
//! refused copy then opens read-only with `recover`, touching no file.

use std::path::Path;
use std::time::Duration;

use chronolog_storage::{Error, Options, Store};
use rand::{Rng, SeedableRng};

const PAGE: usize = 4096;
/// The log file's header and the head record's two slots after it.
const HEADER_AND_HEAD: usize = 16 + 2 * 64;

/// One way of damaging a copy, described for the failure message.
enum Damage {
    ZeroPage(&'static str, usize),
    FlipByte(&'static str, usize, u8),
    Truncate(&'static str, usize),
    Remove(&'static str),
}

impl Damage {
    fn describe(&self) -> String {
        match self {
            Damage::ZeroPage(f, at) => format!("zeroed page at {at} of `{f}`"),
            Damage::FlipByte(f, at, bit) => format!("flipped bit {bit} of byte {at} of `{f}`"),
            Damage::Truncate(f, len) => format!("`{f}` truncated to {len} bytes"),
            Damage::Remove(f) => format!("`{f}` removed"),
        }
    }

    fn apply(&self, dir: &Path) {
        let edit = |f: &str, change: &dyn Fn(&mut Vec<u8>)| {
            let path = dir.join(f);
            let mut bytes = std::fs::read(&path).expect("read file to damage");
            change(&mut bytes);
            std::fs::write(&path, bytes).expect("write damaged file");
        };
        match *self {
            Damage::ZeroPage(f, at) => edit(f, &|b| {
                let end = (at + PAGE).min(b.len());
                b[at..end].fill(0);
            }),
            Damage::FlipByte(f, at, bit) => edit(f, &|b| b[at] ^= 1 << bit),
            Damage::Truncate(f, len) => edit(f, &|b| b.truncate(len)),
            Damage::Remove(f) => std::fs::remove_file(dir.join(f)).expect("remove"),
        }
    }
}

fn copy_db(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    // Everything a copy of a database holds but its lock.
    for entry in std::fs::read_dir(from).expect("list the database") {
        let entry = entry.expect("entry");
        let (name, target) = (entry.file_name(), to.join(entry.file_name()));
        if entry.path().is_dir() {
            copy_db(&entry.path(), &target);
        } else if name != "lock" {
            std::fs::copy(entry.path(), target).expect("copy file");
        }
    }
}

fn file_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("list dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).expect("read"))
        })
        .collect();
    files.sort();
    files
}

/// Every kind of damage for a database whose log is `log_len` bytes.
fn damages(log_len: usize, rng: &mut impl Rng) -> Vec<Damage> {
    let mut out = Vec::new();
    for at in (0..log_len).step_by(PAGE) {
        out.push(Damage::ZeroPage("log", at));
    }
    for _ in 0..150 {
        out.push(Damage::FlipByte(
            "log",
            rng.gen_range(0..log_len),
            rng.gen_range(0..8),
        ));
    }
    let mut cuts = vec![0, 1, 15, 16, 17, 31, 32, 80, 143, 144, 145];
    cuts.extend([log_len - 1, log_len - 16]);
    cuts.extend((0..60).map(|_| rng.gen_range(0..log_len)));
    out.extend(cuts.into_iter().map(|len| Damage::Truncate("log", len)));
    for at in 0..HEADER_AND_HEAD {
        out.push(Damage::FlipByte("log", at, rng.gen_range(0..8)));
    }
    out.push(Damage::Remove("log"));
    out
}

#[derive(Default, Debug)]
struct Tally {
    opened_whole: usize,
    refused: usize,
}

/// Damages copies of `pristine` every way; `acknowledged` batches were
/// acknowledged when it was written.
fn trial_all(pristine: &Path, acknowledged: i64, seed: u64) -> Tally {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // A killed writer leaves the zeros the log writes ahead of its end;
    // damage aims at the bytes that hold something.
    let bytes = std::fs::read(pristine.join("log")).expect("log");
    let log_len = bytes
        .iter()
        .rposition(|&b| b != 0)
        .map_or(bytes.len(), |i| i + 1);
    let scratch = tempfile::tempdir().expect("tempdir");
    let mut tally = Tally::default();
    for (n, damage) in damages(log_len, &mut rng).into_iter().enumerate() {
        let dir = scratch.path().join(format!("trial-{n}"));
        copy_db(pristine, &dir);
        damage.apply(&dir);
        let what = damage.describe();
        match Store::open(&dir) {
            Ok(store) => {
                let max = chronolog_tests::check_batches(&store)
                    .unwrap_or_else(|e| panic!("{what}: opened inconsistent: {e}"));
                assert!(
                    max >= acknowledged,
                    "{what}: opened silently short: {max} of {acknowledged} acknowledged batches"
                );
                tally.opened_whole += 1;
            }
            Err(e) => {
                assert!(
                    matches!(e, Error::Damaged { .. } | Error::Corrupt { .. }),
                    "{what}: refused with an untyped error: {e}"
                );
                tally.refused += 1;
                let before = file_bytes(&dir);
                let recover = Options {
                    recover: true,
                    ..Options::default()
                };
                if let Ok(store) = Store::open_with(&dir, recover) {
                    assert!(store.is_read_only(), "{what}");
                    let max = chronolog_tests::check_batches(&store)
                        .unwrap_or_else(|e| panic!("{what}: recovered inconsistent: {e}"));
                    assert!(max <= acknowledged, "{what}");
                    if matches!(e, Error::Damaged { .. }) {
                        assert!(
                            store.damage().is_some(),
                            "{what}: recovery says what is missing"
                        );
                    }
                    let writes = chronolog_tests::crash_schema(&store)
                        .and_then(|(b, i)| chronolog_tests::write_batch(&store, b, i, max + 1));
                    assert!(matches!(writes, Err(Error::ReadOnly)), "{what}: {writes:?}");
                }
                let after = file_bytes(&dir);
                let unchanged = |name: &str| {
                    before.iter().find(|(n, _)| n == name) == after.iter().find(|(n, _)| n == name)
                };
                assert!(
                    unchanged("log"),
                    "{what}: a refused or recovering open changed the files"
                );
            }
        }
        std::fs::remove_dir_all(&dir).expect("clean trial");
    }
    tally
}

#[test]
fn a_damaged_log_written_in_one_session_never_opens_short() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let store = Store::open(&path).expect("open");
    let (batch, item) = chronolog_tests::crash_schema(&store).expect("schema");
    const BATCHES: i64 = 200;
    for n in 1..=BATCHES {
        chronolog_tests::write_batch(&store, batch, item, n).expect("commit");
    }
    drop(store);
    let tally = trial_all(&path, BATCHES, 0x00DA_4A6E);
    // Damage past the acknowledged end does not exist here, so nearly every
    // trial must be refused; a flip in the older head slot is harmless.
    assert!(tally.refused > 200, "{tally:?}");
    eprintln!("one session: {tally:?}");
}

#[test]
fn a_damaged_log_after_a_crash_never_opens_short() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    // SIGKILL mid-commit, a few hundred commits in: no destructor runs.
    let acks = chronolog_tests::run_and_kill(
        env!("CARGO_BIN_EXE_crash-writer"),
        &path,
        Duration::from_millis(400),
    )
    .expect("run and kill crash-writer");
    let acked = acks.iter().copied().max().unwrap_or(0);
    assert!(acked > 0, "the writer made progress");
    let tally = trial_all(&path, acked, 0x000C_4A54);
    assert!(tally.refused > 100, "{tally:?}");
    eprintln!("after a crash: {tally:?}");
}

/// sled panicked on some damaged files; the cache it now keeps holds only
/// data that can be recomputed, and damage to it must be a typed error (or
/// go unnoticed), never a panic.
#[test]
fn a_damaged_cache_is_an_error_never_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    {
        let store = Store::open(&path).expect("open");
        let (batch, item) = chronolog_tests::crash_schema(&store).expect("schema");
        chronolog_tests::write_batch(&store, batch, item, 1).expect("commit");
        let rows: Vec<(u32, Vec<u8>)> = (0..50).map(|r| (r, vec![7u8; 1536])).collect();
        store
            .put_derived("embed/test/1", item, &rows)
            .expect("cache");
        store.sync().expect("sync");
    }
    let db_file = path.join("cache").join("db");
    let pristine = std::fs::read(&db_file).expect("cache file");
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x000C_AC4E);
    let mut refused = 0;
    for trial in 0..40 {
        let mut bytes = pristine.clone();
        match trial % 3 {
            0 => bytes.truncate(rng.gen_range(0..bytes.len())),
            1 => {
                let at = rng.gen_range(0..bytes.len());
                let end = (at + PAGE).min(bytes.len());
                bytes[at..end].fill(0);
            }
            _ => {
                for _ in 0..8 {
                    let at = rng.gen_range(0..bytes.len());
                    bytes[at] ^= 0xFF;
                }
            }
        }
        std::fs::write(&db_file, &bytes).expect("damage the cache");
        let opened = std::panic::catch_unwind(|| Store::open(&path).map(|s| s.path().is_some()));
        match opened {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                assert!(
                    matches!(e, Error::Corrupt { .. } | Error::Io { .. }),
                    "trial {trial}: {e}"
                );
                refused += 1;
            }
            Err(_) => panic!("trial {trial}: opening a damaged cache panicked"),
        }
    }
    eprintln!("damaged cache: {refused} of 40 trials refused, the rest opened");
}

/// A database whose log and cache were both deleted is refused, not
/// opened empty: its lock file says a database was there. Removing the
/// lock file, as the message says, starts an empty one; an empty lock file
/// (a creation a crash cut short) opens as a new database.
#[test]
fn a_database_without_its_log_and_cache_is_refused_not_opened_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = Store::open(dir.path()).expect("open");
        chronolog_tests::create_knows(&store);
    }
    std::fs::remove_file(dir.path().join("log")).expect("remove log");
    if dir.path().join("cache").exists() {
        std::fs::remove_dir_all(dir.path().join("cache")).expect("remove cache");
    }
    let Err(err) = Store::open(dir.path()) else {
        panic!("a used directory without its log opened");
    };
    let message = err.to_string();
    assert!(
        message.contains("missing") && message.contains("`lock`"),
        "{message}"
    );
    assert!(
        !dir.path().join("log").exists(),
        "the refusal wrote nothing"
    );
    std::fs::remove_file(dir.path().join("lock")).expect("remove lock");
    let store = Store::open(dir.path()).expect("an empty database");
    assert!(store.relations().is_empty());
    drop(store);

    let fresh = tempfile::tempdir().expect("tempdir");
    std::fs::File::create(fresh.path().join("lock")).expect("empty lock");
    assert!(Store::open(fresh.path()).is_ok());
}
