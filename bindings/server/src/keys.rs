//! Bearer keys: who may call the server and on whose memory.
//!
//! A key is `chronolog_<id>_<secret>`: `id` (8 hex digits) finds its entry,
//! `secret` (32 random bytes, 64 hex digits) proves it. The file
//! `keys.json` in the database directory holds, per key, its id, its scope
//! (one tenant, or admin), whether it is read-only, a random salt and
//! SHA-256(salt ‖ secret): never the secret, which `add` shows once. A
//! secret of 256 random bits needs no slow hash; the salt keeps two equal
//! hashes from saying two keys are equal.
//!
//! The file is rewritten whole (a temporary file renamed over it) under
//! `keys.lock`, so `chronolog keys add` run while the server holds the
//! database is safe; the server rereads it when it changes, so a revoked
//! key is refused from the next request on.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use chronolog_engine::Timestamp;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The file that holds the keys, in the database directory.
pub const KEYS_FILE: &str = "keys.json";
const LOCK_FILE: &str = "keys.lock";
const PREFIX: &str = "chronolog_";

/// What a key may reach.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Every tenant, and Datalog over every relation.
    Admin,
    /// One tenant's memory; every call is about it.
    Tenant(String),
}

/// A key as `list` shows it: everything but the secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyInfo {
    /// The key's public id (the 8 hex digits after `chronolog_`).
    pub id: String,
    /// What it may reach.
    pub scope: Scope,
    /// Reads only: `remember`, `forget` and `consolidate` are refused.
    pub read_only: bool,
    /// When it was made.
    pub created: String,
}

/// The caller a request was made by, once its key is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The key's id, for the request log (`None` without authentication).
    pub key: Option<String>,
    /// What it may reach.
    pub scope: Scope,
    /// Whether it may only read.
    pub read_only: bool,
}

impl Caller {
    /// The caller of a server started with `--insecure-no-auth`.
    pub fn unauthenticated() -> Caller {
        Caller {
            key: None,
            scope: Scope::Admin,
            read_only: false,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    info: KeyInfo,
    salt: String,
    hash: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct KeysFile {
    version: u32,
    keys: Vec<Entry>,
}

/// The keys of one database directory.
#[derive(Debug)]
pub struct KeyStore {
    dir: PathBuf,
    /// What the server last read, and the file's stamp when it did.
    loaded: Mutex<Option<(Stamp, KeysFile)>>,
}

/// A file's modification time and length: a rewrite changes one.
type Stamp = Option<(SystemTime, u64)>;

impl KeyStore {
    /// The keys of the database at `dir` (whether or not any exist yet).
    pub fn at(dir: impl AsRef<Path>) -> KeyStore {
        KeyStore {
            dir: dir.as_ref().to_path_buf(),
            loaded: Mutex::new(None),
        }
    }

    /// Makes a key for `scope` and returns it with the key itself, the
    /// only time the secret is seen.
    pub fn add(&self, scope: Scope, read_only: bool) -> Result<(KeyInfo, String)> {
        if let Scope::Tenant(tenant) = &scope {
            chronolog_memory::check_tenant(tenant).map_err(|e| Error::BadRequest(e.to_string()))?;
        }
        self.update(|file| {
            let id = loop {
                let id = hex(&random::<4>()?);
                if !file.keys.iter().any(|k| k.info.id == id) {
                    break id;
                }
            };
            let secret = hex(&random::<32>()?);
            let salt = hex(&random::<16>()?);
            let info = KeyInfo {
                id: id.clone(),
                scope: scope.clone(),
                read_only,
                created: Timestamp::now().to_string(),
            };
            file.keys.push(Entry {
                info: info.clone(),
                hash: digest(&salt, &secret),
                salt,
            });
            Ok((info, format!("{PREFIX}{id}_{secret}")))
        })
    }

    /// Every key, oldest first.
    pub fn list(&self) -> Result<Vec<KeyInfo>> {
        Ok(read(&self.path())?
            .keys
            .into_iter()
            .map(|entry| entry.info)
            .collect())
    }

    /// Removes the key with this id (or this whole key); `false` when
    /// there was none.
    pub fn revoke(&self, id_or_key: &str) -> Result<bool> {
        let id = parse(id_or_key).map_or(id_or_key, |(id, _)| id).to_string();
        self.update(|file| {
            let before = file.keys.len();
            file.keys.retain(|k| k.info.id != id);
            Ok(before != file.keys.len())
        })
    }

    /// Whether any key exists (a server refuses to start without one,
    /// unless told to run without authentication).
    pub fn any(&self) -> Result<bool> {
        Ok(!read(&self.path())?.keys.is_empty())
    }

    /// The caller `presented` (a whole key) belongs to, or `None` for a
    /// key that is malformed, unknown, revoked or wrong. Rereads the file
    /// when it changed since the last call.
    pub fn check(&self, presented: &str) -> Result<Option<Caller>> {
        let Some((id, secret)) = parse(presented) else {
            return Ok(None);
        };
        let path = self.path();
        let stamp = stamp(&path);
        let mut loaded = self.loaded.lock();
        if loaded.as_ref().is_none_or(|(seen, _)| *seen != stamp) {
            *loaded = Some((stamp, read(&path)?));
        }
        let Some((_, file)) = loaded.as_ref() else {
            return Ok(None);
        };
        let caller = file
            .keys
            .iter()
            .find(|k| k.info.id == id)
            .filter(|k| equal(digest(&k.salt, secret).as_bytes(), k.hash.as_bytes()))
            .map(|k| Caller {
                key: Some(k.info.id.clone()),
                scope: k.info.scope.clone(),
                read_only: k.info.read_only,
            });
        Ok(caller)
    }

    fn path(&self) -> PathBuf {
        self.dir.join(KEYS_FILE)
    }

    /// Reads, changes and rewrites the file under the keys' lock.
    fn update<T>(&self, change: impl FnOnce(&mut KeysFile) -> Result<T>) -> Result<T> {
        std::fs::create_dir_all(&self.dir).map_err(Error::io(&self.dir))?;
        let lock_path = self.dir.join(LOCK_FILE);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(Error::io(&lock_path))?;
        lock.lock().map_err(Error::io(&lock_path))?;
        let path = self.path();
        let mut file = read(&path)?;
        let out = change(&mut file)?;
        file.version = 1;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir).map_err(Error::io(&self.dir))?;
        let text = serde_json::to_string_pretty(&file)
            .map_err(|e| Error::Internal(format!("cannot write the keys: {e}")))?;
        tmp.write_all(text.as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(Error::io(&path))?;
        restrict(tmp.as_file());
        tmp.persist(&path).map_err(|e| Error::io(&path)(e.error))?;
        Ok(out)
    }
}

fn read(path: &Path) -> Result<KeysFile> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| Error::BadKeysFile {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KeysFile::default()),
        Err(e) => Err(Error::io(path)(e)),
    }
}

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// `(id, secret)` of a well-formed key.
fn parse(key: &str) -> Option<(&str, &str)> {
    let rest = key.trim().strip_prefix(PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    let hex_digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hex_digits(id, 8) && hex_digits(secret, 64)).then_some((id, secret))
}

fn digest(salt: &str, secret: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(salt.as_bytes());
    hasher.update(secret.as_bytes());
    hex(&hasher.finalize())
}

/// A key for one run of a server, written to its `server.json` for the
/// commands of the database's owner; never stored in `keys.json`.
pub(crate) fn run_key() -> Result<String> {
    Ok(format!("{PREFIX}run_{}", hex(&random::<32>()?)))
}

/// Compares in time independent of where the inputs differ.
pub(crate) fn equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn random<const N: usize>() -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Internal(format!("no randomness for a key: {e}")))?;
    Ok(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Only the owner reads the keys file (its hashes are not secrets, but
/// nobody else needs them).
#[cfg(unix)]
pub(crate) fn restrict(file: &File) {
    use std::os::unix::fs::PermissionsExt as _;
    // Best effort: a file system without modes keeps its default.
    let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
}

#[cfg(not(unix))]
pub(crate) fn restrict(_file: &File) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_checks_until_it_is_revoked_and_its_secret_is_not_stored() {
        let dir = tempfile::tempdir().expect("tempdir");
        let keys = KeyStore::at(dir.path());
        assert!(!keys.any().expect("any"));
        let (info, key) = keys.add(Scope::Tenant("alice".into()), false).expect("add");
        let (_, admin) = keys.add(Scope::Admin, true).expect("add admin");
        let caller = keys.check(&key).expect("check").expect("known key");
        assert_eq!(caller.scope, Scope::Tenant("alice".into()));
        assert!(!caller.read_only);
        assert_eq!(
            keys.check(&admin)
                .expect("check")
                .map(|c| (c.scope, c.read_only)),
            Some((Scope::Admin, true))
        );
        let stored = std::fs::read_to_string(dir.path().join(KEYS_FILE)).expect("file");
        let secret = key.rsplit('_').next().expect("secret");
        assert!(!stored.contains(secret), "the secret is stored");

        // A wrong secret with a right id, a malformed key: refused.
        let wrong = format!("{PREFIX}{}_{}", info.id, "0".repeat(64));
        assert_eq!(keys.check(&wrong).expect("check"), None);
        assert_eq!(keys.check("Bearer nonsense").expect("check"), None);

        assert!(keys.revoke(&info.id).expect("revoke"));
        assert!(!keys.revoke(&info.id).expect("revoke again"));
        assert_eq!(keys.check(&key).expect("check"), None);
        assert_eq!(keys.list().expect("list").len(), 1);
    }

    #[test]
    fn a_bad_tenant_makes_no_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let keys = KeyStore::at(dir.path());
        assert!(keys.add(Scope::Tenant("a b".into()), false).is_err());
        assert!(!keys.any().expect("any"));
    }
}
