//! `forget`: the right to be forgotten from the command line (`chronolog
//! forget`) and the shell (`:forget`): a subject of a tenant's memory
//! erased with every message that names it, and what went, counted.

use anyhow::{Result, bail};
use chronolog_memory::Memory;

/// Usage of `:forget`.
pub const USAGE: &str = "usage: :forget --tenant T SUBJECT (a name, \"my mom\", a place, ...)";

/// Whose memory, and what to erase from it.
#[derive(Debug, Default, PartialEq)]
pub struct Forget {
    /// Whose memory.
    pub tenant: String,
    /// A name or alias in it, or a relative by relation ("my mom").
    pub subject: String,
}

impl Forget {
    /// Reads `--tenant T SUBJECT...`.
    pub fn parse(line: &str) -> Result<Forget> {
        let rest = line.trim();
        let Some(after) = rest.strip_prefix("--tenant") else {
            bail!("--tenant is required; {USAGE}");
        };
        let after = after.trim_start();
        let (tenant, subject) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
        let subject = subject.trim();
        let subject = subject
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(subject);
        Ok(Forget {
            tenant: tenant.to_string(),
            subject: subject.to_string(),
        })
    }

    /// Erases the subject; what went, in a line.
    pub fn run(&self, memory: &Memory) -> Result<String> {
        self.check()?;
        let report = memory.forget(&self.tenant, &self.subject)?;
        Ok(describe(&report.to_json()))
    }

    /// The same through the server that holds the database.
    pub fn run_remote(&self, client: &chronolog_server::Client) -> Result<String> {
        self.check()?;
        let body = serde_json::json!({ "tenant": self.tenant, "subject": self.subject });
        Ok(describe(&client.post("/v1/forget", &body)?))
    }

    fn check(&self) -> Result<()> {
        if self.tenant.is_empty() {
            bail!("--tenant is required; {USAGE}");
        }
        if self.subject.is_empty() {
            bail!("nothing to forget; {USAGE}");
        }
        Ok(())
    }
}

/// A forget report (`ForgetReport::to_json`) as one line.
pub fn describe(report: &serde_json::Value) -> String {
    let n = |name: &str, one: &str, many: &str| {
        let n = report[name].as_u64().unwrap_or(0);
        format!("{n} {}", if n == 1 { one } else { many })
    };
    format!(
        "forgot {}, {} ({} kept with the subject cut from its sentence), {}; {} erased",
        n("episodes", "message", "messages"),
        n("facts", "fact", "facts"),
        n("rewritten", "fact", "facts"),
        n("aliases", "name", "names"),
        n("rows", "row", "rows")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_then_the_subject() {
        assert_eq!(
            Forget::parse("--tenant acme my mom").expect("parse"),
            Forget {
                tenant: "acme".into(),
                subject: "my mom".into()
            }
        );
        assert_eq!(
            Forget::parse("--tenant acme \"Clara Schmidt\"")
                .expect("parse")
                .subject,
            "Clara Schmidt"
        );
        assert!(Forget::parse("Clara").is_err());
        let empty = Forget::parse("--tenant acme").expect("parse");
        assert!(empty.check().is_err());
    }
}
