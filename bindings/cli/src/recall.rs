//! `recall`: a question in, the memory's context out (text to paste into
//! a prompt, or JSON), from the command line (`chronolog recall`) and the
//! shell (`:recall`).

use anyhow::{Result, anyhow, bail};
use chronolog_engine::Timestamp;
use chronolog_memory::{Lang, Memory, SearchOptions};

/// Usage of `:recall`.
pub const USAGE: &str = "usage: :recall --tenant T [--as-of TIME] [--known-at TIME] [--budget N] \
                         [--rerank N] [--lang en|zh|de] [--format text|json] [--explain] QUESTION";

/// A question and how to answer it.
#[derive(Debug, Default, PartialEq)]
pub struct Recall {
    /// Whose memory.
    pub tenant: String,
    /// The question.
    pub question: String,
    /// Answer as of this valid time.
    pub as_of: Option<Timestamp>,
    /// Answer as known at this transaction time.
    pub known_at: Option<Timestamp>,
    /// Token budget (default: the memory's tuning, 2,000).
    pub budget: Option<usize>,
    /// How many first candidates the reranker reorders (default: the
    /// memory's tuning, 20; 0: none).
    pub rerank: Option<usize>,
    /// The question's language (default: the tenant's pin, else
    /// detected).
    pub lang: Option<Lang>,
    /// Print JSON rather than text.
    pub json: bool,
    /// Show the channels, the fusion and the verdict instead.
    pub explain: bool,
}

impl Recall {
    /// Reads `--tenant T [--as-of T] [--known-at T] [--budget N] [--format
    /// text|json] QUESTION...`.
    pub fn parse(line: &str) -> Result<Recall> {
        let mut out = Recall::default();
        let mut rest = line.trim();
        while let Some(flag) = rest.strip_prefix("--") {
            let (name, after) = flag.split_once(char::is_whitespace).unwrap_or((flag, ""));
            if name == "explain" {
                out.explain = true;
                rest = after.trim_start();
                continue;
            }
            let (value, after) = after
                .trim_start()
                .split_once(char::is_whitespace)
                .unwrap_or((after.trim_start(), ""));
            if value.is_empty() {
                bail!("--{name} needs a value; {USAGE}");
            }
            out.set(name, value)?;
            rest = after.trim_start();
        }
        out.question = rest
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or(rest)
            .to_string();
        Ok(out)
    }

    /// Sets one option from its flag name and value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let time = |v: &str| Timestamp::parse(v).map_err(|e| anyhow!("bad time {v:?}: {e}"));
        match name {
            "tenant" => self.tenant = value.to_string(),
            "as-of" => self.as_of = Some(time(value)?),
            "known-at" => self.known_at = Some(time(value)?),
            "budget" => {
                self.budget = Some(
                    value
                        .parse()
                        .map_err(|_| anyhow!("--budget takes a number of tokens"))?,
                )
            }
            "rerank" => {
                self.rerank = Some(value.parse().map_err(|_| {
                    anyhow!("--rerank takes how many candidates to reorder (0: none)")
                })?)
            }
            "lang" => self.lang = Some(crate::remember::parse_lang(value)?),
            "format" => match value {
                "text" => self.json = false,
                "json" => self.json = true,
                other => bail!("--format is text or json, not {other}"),
            },
            other => bail!("unknown option --{other}; {USAGE}"),
        }
        Ok(())
    }

    /// Searches and renders the context.
    pub fn run(&self, memory: &Memory) -> Result<String> {
        if self.tenant.is_empty() {
            bail!("--tenant is required; {USAGE}");
        }
        if self.question.trim().is_empty() {
            bail!("no question; {USAGE}");
        }
        let options = SearchOptions {
            as_of: self.as_of,
            known_at: self.known_at,
            budget: self.budget.unwrap_or(memory.tuning().budget),
            rerank_depth: self.rerank.unwrap_or(memory.tuning().rerank_depth),
            lang: self.lang,
            ..SearchOptions::with_tuning(memory.tuning())
        };
        if self.explain {
            return Ok(memory.explain_search(&self.tenant, &self.question, &options)?);
        }
        let context = memory.search(&self.tenant, &self.question, &options)?;
        Ok(self.render(&context.to_json()))
    }

    /// The same through the server that holds the database.
    pub fn run_remote(&self, client: &chronolog_server::Client) -> Result<String> {
        if self.question.trim().is_empty() {
            bail!("no question; {USAGE}");
        }
        let body = serde_json::json!({
            "tenant": self.tenant,
            "question": self.question,
            "as_of": self.as_of.map(|t| t.to_string()),
            "known_at": self.known_at.map(|t| t.to_string()),
            "budget": self.budget,
            "rerank": self.rerank,
            "lang": self.lang.map(|l| l.code()),
            "explain": self.explain,
        });
        let answer = client.post("/v1/recall", &body)?;
        if self.explain {
            return Ok(answer["explain"].as_str().unwrap_or_default().to_string());
        }
        Ok(self.render(&answer))
    }

    /// The context as JSON or as text with a line of what it took.
    fn render(&self, context: &serde_json::Value) -> String {
        if self.json {
            return format!("{context}\n");
        }
        let mut text = context["text"].as_str().unwrap_or_default().to_string();
        text.push_str(&format!(
            "({} of {} tokens, as of {}{})\n",
            context["tokens"],
            context["budget"],
            context["as_of"].as_str().unwrap_or("?"),
            context["as_of_because"]
                .as_str()
                .map_or(String::new(), |why| format!(": {why}"))
        ));
        text
    }
}
