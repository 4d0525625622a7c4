//! Reading a database without writing to it (issue 35 item 6): a
//! read-only open changes no byte of any file, shares the directory with
//! other readers, keeps writers out while it reads, refuses writes, and
//! needs no lock file it could not create; and an existing database opens
//! to be read on a disk too full to write on.

use std::path::{Path, PathBuf};

use chronolog_storage::{Error, Options, Store};
use chronolog_tests::{check_batches, crash_schema, write_batch};

/// Every file under `dir` (the cache included) with its bytes, sorted.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).expect("list").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

fn read_only() -> Options {
    Options {
        read_only: true,
        ..Options::default()
    }
}

/// A database of three committed batches.
fn written(dir: &Path) {
    let store = Store::open(dir).expect("create");
    let (batch, item) = crash_schema(&store).expect("schema");
    for n in 1..=3 {
        write_batch(&store, batch, item, n).expect("write");
    }
}

#[test]
fn a_read_only_open_reads_everything_and_changes_no_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    written(dir.path());
    let before = files(dir.path());

    let first = Store::open_with(dir.path(), read_only()).expect("a reader");
    let second = Store::open_with(dir.path(), read_only()).expect("a second reader beside it");
    for store in [&first, &second] {
        assert!(store.is_read_only());
        assert_eq!(check_batches(store), Ok(3));
        let (batch, item) = (
            store.relation_id("batch").expect("batch"),
            store.relation_id("item").expect("item"),
        );
        let refused = write_batch(store, batch, item, 4);
        assert!(matches!(refused, Err(Error::ReadOnly)), "{refused:?}");
        assert!(matches!(
            store.create_relation(chronolog_storage::Schema::new(
                "more",
                vec![chronolog_storage::ColumnDef::new(
                    "x",
                    chronolog_storage::ColumnType::Int
                )],
            )),
            Err(Error::ReadOnly)
        ));
    }
    // A writer waits for the readers, then says the database is in use.
    let writer = Store::open(dir.path()).err();
    assert!(matches!(writer, Some(Error::Locked { .. })), "{writer:?}");
    drop((first, second));
    assert_eq!(files(dir.path()), before, "reading changed a file");
    // Once they are gone, a writer opens.
    let store = Store::open(dir.path()).expect("a writer after the readers");
    assert_eq!(check_batches(&store), Ok(3));
}

#[test]
fn a_read_only_open_needs_no_lock_file_and_nothing_it_could_create() {
    let dir = tempfile::tempdir().expect("tempdir");
    written(dir.path());
    // As a directory copied off a read-only medium without its lock file
    // (nothing can be created there).
    std::fs::remove_file(dir.path().join("lock")).expect("remove lock");
    std::fs::remove_dir_all(dir.path().join("cache")).ok();
    let before = files(dir.path());
    let store = Store::open_with(dir.path(), read_only()).expect("read without a lock file");
    assert_eq!(check_batches(&store), Ok(3));
    drop(store);
    assert_eq!(
        files(dir.path()),
        before,
        "reading created or changed a file"
    );
    assert!(!dir.path().join("lock").exists());
    assert!(!dir.path().join("cache").exists());

    // A directory with no database is an error, and stays empty.
    let empty = tempfile::tempdir().expect("tempdir");
    let refused = Store::open_with(empty.path(), read_only()).err();
    assert!(
        matches!(&refused, Some(Error::Corrupt { reason }) if reason.contains("nothing to read")),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_dir(empty.path()).expect("list").count(), 0);
}

/// Where permissions bind (not as root), a directory no one may write to
/// reads as it does anywhere else.
#[test]
fn a_directory_without_write_permission_opens_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    written(&db);
    let set = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    let all: Vec<PathBuf> = files(&db).into_iter().map(|(p, _)| p).collect();
    for path in &all {
        set(path, 0o444);
    }
    set(&db.join("cache"), 0o555);
    set(&db, 0o555);
    let opened = Store::open_with(&db, read_only()).map(|store| check_batches(&store));
    // Restore, so the temporary directory can be removed.
    set(&db, 0o755);
    set(&db.join("cache"), 0o755);
    for path in &all {
        set(path, 0o644);
    }
    assert_eq!(opened.expect("read-only open"), Ok(3));
}

#[test]
fn an_existing_database_opens_to_be_read_on_a_full_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    written(dir.path());
    // A reserve no disk has: as if the disk were full.
    let full = Options {
        min_free_bytes: u64::MAX,
        ..Options::default()
    };
    let store = Store::open_with(dir.path(), full).expect("open on a full disk");
    assert_eq!(check_batches(&store), Ok(3));
    let (batch, item) = (
        store.relation_id("batch").expect("batch"),
        store.relation_id("item").expect("item"),
    );
    let refused = write_batch(&store, batch, item, 4);
    assert!(
        matches!(refused, Err(Error::DiskFull { .. })),
        "{refused:?}"
    );
    drop(store);
    // Creating a database there is refused before any file is written.
    let new = dir.path().join("new");
    let refused = Store::open_with(&new, full).err();
    assert!(
        matches!(refused, Some(Error::DiskFull { .. })),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_dir(&new).expect("list").count(), 0);
}
