//! Finding and calling the server that holds a database, so that the
//! commands which would open it themselves (`chronolog mcp`, `remember`,
//! `recall`, `consolidate`) go through the server instead of failing on
//! its lock.
//!
//! A running server writes `server.json` into the database directory: its
//! URL, its process id, and a key for this run only that acts as an admin.
//! The file is readable by its owner alone (mode 0600): whoever can read it
//! can read the database's own files too, so it grants nothing new, the
//! way a notebook server's connection file does. The server removes it
//! when it stops; a file left by a server that died is recognised by its
//! URL not answering.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chronolog_memory::Message;
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};

use crate::error::{Error, Result};

/// The discovery file, in the database directory.
pub const SERVER_FILE: &str = "server.json";

/// What `server.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Announcement {
    pub url: String,
    pub pid: u32,
    pub key: String,
}

impl Announcement {
    /// Writes the file (whole, then renamed into place).
    pub(crate) fn write(&self, db: &Path) -> Result<PathBuf> {
        let path = db.join(SERVER_FILE);
        let mut tmp = tempfile::NamedTempFile::new_in(db).map_err(Error::io(db))?;
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Internal(format!("cannot write {SERVER_FILE}: {e}")))?;
        tmp.write_all(text.as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(Error::io(&path))?;
        crate::keys::restrict(tmp.as_file());
        tmp.persist(&path).map_err(|e| Error::io(&path)(e.error))?;
        Ok(path)
    }

    /// Removes the file if it is still this process's.
    pub(crate) fn remove(db: &Path) {
        let path = db.join(SERVER_FILE);
        let ours = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Announcement>(&text).ok())
            .is_some_and(|a| a.pid == std::process::id());
        if ours {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A connection to the server that holds a database.
#[derive(Clone, Debug)]
pub struct Client {
    url: String,
    key: String,
    agent: ureq::Agent,
}

impl Client {
    /// The server running for the database at `db`, if one answers.
    pub fn find(db: &Path) -> Option<Client> {
        let text = std::fs::read_to_string(db.join(SERVER_FILE)).ok()?;
        let announcement: Announcement = serde_json::from_str(&text).ok()?;
        let client = Client::connect(&announcement.url, &announcement.key);
        let probe: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(2)))
            .build()
            .into();
        probe
            .get(&format!("{}/health", client.url))
            .call()
            .ok()
            .filter(|r| r.status().is_success())?;
        Some(client)
    }

    /// A client for the server at `url` with `key`.
    pub fn connect(url: &str, key: &str) -> Client {
        Client {
            url: url.trim_end_matches('/').to_string(),
            key: key.to_string(),
            agent: ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into(),
        }
    }

    /// The server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `POST path` with `body`; the server's error comes back as
    /// [`Error::Remote`] with its status and message.
    pub fn post(&self, path: &str, body: &Json) -> Result<Json> {
        let response = self
            .agent
            .post(&format!("{}{path}", self.url))
            .header("Authorization", &format!("Bearer {}", self.key))
            .send_json(body);
        self.answer(path, response)
    }

    fn answer(
        &self,
        path: &str,
        response: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Json> {
        let mut response = response.map_err(|e| Error::Remote {
            status: 0,
            message: format!("cannot reach the server at {}: {e}", self.url),
        })?;
        let status = response.status().as_u16();
        let body: Json = response.body_mut().read_json().map_err(|e| Error::Remote {
            status,
            message: format!("{path}: the server's answer is not JSON: {e}"),
        })?;
        if (200..300).contains(&status) {
            Ok(body)
        } else {
            Err(Error::Remote {
                status,
                message: body["error"]["message"]
                    .as_str()
                    .unwrap_or("the server refused the call")
                    .to_string(),
            })
        }
    }

    /// Stores `messages` in `tenant`'s memory, all or nothing; their
    /// episode ids.
    pub fn remember(&self, tenant: &str, messages: &[Message]) -> Result<Vec<String>> {
        let messages: Vec<Json> = messages
            .iter()
            .map(|m| {
                json!({
                    "role": m.role,
                    "text": m.text,
                    "at": m.at.map(|t| t.to_string()),
                    "session": m.session,
                    "lang": m.lang.map(|l| l.code()),
                })
            })
            .collect();
        let answer = self.post(
            "/v1/remember",
            &json!({ "tenant": tenant, "messages": messages }),
        )?;
        Ok(answer["episodes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|id| id.as_str().map(str::to_string))
            .collect())
    }
}
