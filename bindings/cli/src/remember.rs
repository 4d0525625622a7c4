//! Agent memory from the command line and the shell: `remember` appends
//! messages (one, or a JSON-lines file as one batch), `consolidate` turns
//! them into facts. Both the `chronolog remember` subcommand and the
//! shell's `:remember` read the same arguments.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use chronolog_engine::Timestamp;
use chronolog_memory::{Lang, Memory, Message};

/// What to remember: one message, or a file of them.
#[derive(Debug, Default, PartialEq)]
pub struct Remember {
    /// Whose memory.
    pub tenant: String,
    /// Who said it (one message only).
    pub role: Option<String>,
    /// When it was said (one message only; default now).
    pub at: Option<Timestamp>,
    /// Its conversation (one message only).
    pub session: Option<String>,
    /// Its language (one message only; default: the tenant's pin, else
    /// detected).
    pub lang: Option<Lang>,
    /// A JSON-lines file of `{"role", "text", "at", "session", "lang"}`.
    pub jsonl: Option<PathBuf>,
    /// The message.
    pub text: Option<String>,
}

/// Usage of `:remember`.
pub const USAGE: &str = "usage: :remember --tenant T --role R [--at TIME] [--session S] [--lang en|zh|de] TEXT \
                         | :remember --tenant T --jsonl FILE";

impl Remember {
    /// Reads `--tenant T --role R [--at TIME] [--session S] TEXT...` (the
    /// text is every word after the flags, or one `"quoted"` string).
    pub fn parse(line: &str) -> Result<Remember> {
        let mut out = Remember::default();
        let mut rest = line.trim();
        while let Some(flag) = rest.strip_prefix("--") {
            let (name, after) = flag.split_once(char::is_whitespace).unwrap_or((flag, ""));
            let after = after.trim_start();
            let (value, after) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
            if value.is_empty() {
                bail!("--{name} needs a value; {USAGE}");
            }
            match name {
                "tenant" => out.tenant = value.to_string(),
                "role" => out.role = Some(value.to_string()),
                "at" => out.at = Some(parse_time(value)?),
                "session" => out.session = Some(value.to_string()),
                "lang" => out.lang = Some(parse_lang(value)?),
                "jsonl" => out.jsonl = Some(PathBuf::from(value)),
                other => bail!("unknown option --{other}; {USAGE}"),
            }
            rest = after.trim_start();
        }
        let text = rest
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or(rest);
        if !text.is_empty() {
            out.text = Some(text.to_string());
        }
        Ok(out)
    }

    /// Appends the message or the file; returns the new episode ids.
    pub fn run(&self, memory: &Memory) -> Result<Vec<String>> {
        Ok(memory.add_batch(&self.tenant, &self.messages()?)?)
    }

    /// The same through the server that holds the database.
    pub fn run_remote(&self, client: &chronolog_server::Client) -> Result<Vec<String>> {
        Ok(client.remember(&self.tenant, &self.messages()?)?)
    }

    /// The message, or the file's messages, to store in one batch.
    fn messages(&self) -> Result<Vec<Message>> {
        if self.tenant.is_empty() {
            bail!("--tenant is required; {USAGE}");
        }
        match (&self.jsonl, &self.text, &self.role) {
            (Some(file), None, None) => read_jsonl(file),
            (None, Some(text), Some(role)) => {
                let mut message = Message::new(role.as_str(), text.as_str());
                message.at = self.at;
                message.session = self.session.clone();
                message.lang = self.lang;
                Ok(vec![message])
            }
            (None, Some(_), None) => bail!("--role is required; {USAGE}"),
            (None, None, _) => bail!("nothing to remember; {USAGE}"),
            (Some(_), _, _) => bail!(
                "--jsonl takes no text, --role, --at, --session or --lang (a line has its own)"
            ),
        }
    }
}

/// `2024-05-01`, `2024-05-01T10:00:00Z` and the other forms the language
/// takes.
fn parse_time(text: &str) -> Result<Timestamp> {
    Timestamp::parse(text).map_err(|e| anyhow!("bad time {text:?}: {e}"))
}

/// `chronolog language`: pins `tenant`'s language (`none` unpins) or,
/// without `pin`, says what it is pinned to. Goes through the server that
/// holds `db` when one does, else opens it with `open`.
pub fn language(
    db: &Path,
    tenant: &str,
    pin: Option<&str>,
    open: impl FnOnce() -> Result<Memory>,
) -> Result<String> {
    let pin = pin
        .map(Lang::parse_pin)
        .transpose()
        .map_err(|e| anyhow!("bad language: {e}"))?;
    let pinned = match chronolog_server::Client::find(db) {
        Some(client) => {
            let mut body = serde_json::json!({ "tenant": tenant });
            if let Some(pin) = pin {
                body["pin"] = pin.map_or("none", |l| l.code()).into();
            }
            let answer = client.post("/v1/language", &body)?;
            match answer["lang"].as_str() {
                Some(code) => Some(parse_lang(code)?),
                None => None,
            }
        }
        None => {
            let memory = open()?;
            if let Some(pin) = pin {
                memory.pin_language(tenant, pin)?;
            }
            memory.pinned_language(tenant)?
        }
    };
    Ok(match pinned {
        Some(lang) => format!("{tenant}: pinned to {lang}"),
        None => format!("{tenant}: not pinned (each message's language is detected)"),
    })
}

/// A language code given on the command line.
pub fn parse_lang(code: &str) -> Result<Lang> {
    code.parse().map_err(|e| anyhow!("bad --lang: {e}"))
}

/// Every line of `file` as a message; a bad line is an error naming it,
/// and nothing of the file is stored.
pub fn read_jsonl(file: &Path) -> Result<Vec<Message>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut messages = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| chronolog_memory::Error::BadLine {
            line: i + 1,
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| bad(format!("not JSON: {e}")))?;
        let field = |name: &str| -> Result<Option<String>, chronolog_memory::Error> {
            match value.get(name) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(bad(format!("`{name}` must be a string, got {other}"))),
            }
        };
        let role = field("role")?.ok_or_else(|| bad("no `role`".into()))?;
        let text = field("text")?.ok_or_else(|| bad("no `text`".into()))?;
        let mut message = Message::new(role, text);
        if let Some(at) = field("at")? {
            message.at = Some(Timestamp::parse(&at).map_err(|e| bad(format!("bad `at`: {e}")))?);
        }
        message.session = field("session")?;
        if let Some(code) = field("lang")? {
            message.lang = Some(code.parse().map_err(|e| bad(format!("bad `lang`: {e}")))?);
        }
        messages.push(message);
    }
    Ok(messages)
}

/// A consolidation report as one line, from its JSON (`Report::to_json`,
/// or the server's answer).
pub fn describe(report: &serde_json::Value) -> String {
    let n = |name: &str| report[name].as_u64().unwrap_or(0);
    format!(
        "consolidated {} episodes: {} claims, {} new facts, {} restated, {} ended, {} withdrawn, \
         {} contested, {} dropped",
        n("episodes"),
        n("claims"),
        n("facts"),
        n("restated"),
        n("ended"),
        n("withdrawn"),
        n("contested"),
        n("dropped")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_then_text() {
        let r = Remember::parse("--tenant acme --role user --at 2024-05-01 I moved to Berlin")
            .expect("parse");
        assert_eq!(r.tenant, "acme");
        assert_eq!(r.role.as_deref(), Some("user"));
        assert_eq!(r.at, Some(Timestamp::parse("2024-05-01").expect("t")));
        assert_eq!(r.text.as_deref(), Some("I moved to Berlin"));
        let quoted = Remember::parse("--tenant a --role user \"hi there\"").expect("parse");
        assert_eq!(quoted.text.as_deref(), Some("hi there"));
        assert!(Remember::parse("--tenant").is_err());
        assert!(Remember::parse("--colour red x").is_err());
        assert!(Remember::parse("--tenant a --at yesterday x").is_err());
    }
}
