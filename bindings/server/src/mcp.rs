//! The agent memory as a Model Context Protocol server, for MCP clients
//! (Claude Desktop, Cursor, an agent framework): on standard input and
//! output (`chronolog mcp DB`, where standard output carries the protocol
//! alone and notices go to standard error) and on the streamable HTTP
//! transport at `/mcp` of `chronolog serve`, where the caller's bearer key
//! decides the tenant. Tools: `remember`, `recall`, `history`, `forget`,
//! and a read-only Datalog `query`.
//!
//! A tool's failure (a bad time, an unknown tenant, a query that does not
//! parse) comes back as a tool result marked as an error, with the message
//! an LLM can act on; malformed arguments do too (rmcp turns a failed
//! deserialization into one). Memory calls run on Tokio's blocking pool, so
//! a slow search never stalls the protocol, and a panic there becomes an
//! error result instead of ending the server.

use std::sync::Arc;

use chronolog_engine::Timestamp;
use chronolog_memory::{Memory, Message, SearchRequest, Stop};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Extensions, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::keys::{Caller, Scope};
use crate::query;

/// What the server tells the model about itself at initialization.
const INSTRUCTIONS: &str = "Chronolog is a long-term, bi-temporal memory. Call `remember` with \
each message worth keeping, verbatim (it is stored losslessly; facts are extracted from it in \
the background). Before answering a question that may depend on the past, call `recall` with \
the question: it returns a small context of facts (with the time they held and the messages \
they came from) and the messages themselves, or says that the memory holds nothing on it \
(`abstain`), in which case say you do not know. Pass `as_of` to ask about an earlier time. \
`history` shows how what is known about a subject changed; `forget` erases a subject for good.";

/// Serves on standard input and output until the client closes the
/// connection: over `backend` (the memory itself, or the server that holds
/// it). With `tenant`, every call is about that tenant and the Datalog
/// `query` tool runs only queries that read that tenant's rows
/// ([`crate::scope`]).
pub fn serve_stdio(backend: Backend, tenant: Option<String>) -> Result<()> {
    let caller = Caller {
        key: None,
        scope: tenant.map_or(Scope::Admin, Scope::Tenant),
        read_only: false,
    };
    let server = MemoryServer::new(backend, Some(caller));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::io("the async runtime"))?;
    runtime.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Refused(format!("the MCP client did not initialize: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::Internal(format!("the MCP server failed: {e}")))?;
        Ok(())
    })
}

/// Where the tools' calls go.
#[derive(Clone)]
pub enum Backend {
    /// The memory, in this process.
    Local(Arc<Memory>),
    /// The server that holds the memory (`chronolog mcp` started while
    /// `chronolog serve` runs on the same database), called with its
    /// run's admin key; the tenant is checked here and again there.
    Remote(Client),
}

/// Arguments of `remember`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RememberArgs {
    /// Whose memory: a user or agent namespace (letters, digits and
    /// `_ - . @`). Leave it out when the server is fixed to one tenant.
    tenant: Option<String>,
    /// Who said it: `user`, `assistant`, or a person's name.
    role: String,
    /// The message, verbatim.
    text: String,
    /// When it was said, ISO 8601 (`2024-05-01` or
    /// `2024-05-01T10:00:00Z`); default now. Relative times in the text
    /// ("last year") are read against it.
    at: Option<String>,
    /// The conversation it belongs to, if you keep several apart.
    session: Option<String>,
    /// Its language, `en`, `zh` or `de`, when you know it (a short
    /// message says too little to detect); default: the tenant's pinned
    /// language, else detected.
    lang: Option<String>,
}

/// Arguments of `recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    /// Whose memory. Leave it out when the server is fixed to one tenant.
    tenant: Option<String>,
    /// The question, in the user's words.
    question: String,
    /// Answer as things stood at this time (ISO 8601); default: the time
    /// the question names, else now.
    as_of: Option<String>,
    /// Answer as the memory knew it at this time (ISO 8601), ignoring
    /// what it learned later.
    known_at: Option<String>,
    /// The most tokens the context may take (default: the memory's
    /// tuning, 2,000).
    budget: Option<u32>,
    /// How many of the first candidate messages a cross-encoder reads
    /// again with the question and reorders (default: the memory's tuning,
    /// 20; 0 for the fastest answer).
    rerank: Option<u32>,
    /// The question's language, `en`, `zh` or `de`, when it should not be
    /// detected (a short question in a memory of several languages).
    lang: Option<String>,
}

/// Arguments of `history` and `forget`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SubjectArgs {
    /// Whose memory. Leave it out when the server is fixed to one tenant.
    tenant: Option<String>,
    /// A person, place or thing by any name the memory knows it by
    /// (`alice`, `user`, `my sister`).
    subject: String,
}

/// Arguments of `query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct QueryArgs {
    /// One Datalog query, e.g. `?- mem_fact(_, T, S, works_at, C, _, _) as_of
    /// 2022-01-01.` Rules, writes and schema changes are refused.
    query: String,
    /// Values for the query's `$parameters`: numbers, text, `{"sym":
    /// "alice"}` for a name, `{"time": "2022-01-01"}` for a time.
    params: Option<serde_json::Map<String, Json>>,
}

/// The MCP service over one memory. Over standard input and output its
/// caller is fixed when it is made; over HTTP each call's caller comes
/// from the request's bearer key (the server's authentication puts it in
/// the request's extensions).
#[derive(Clone)]
pub struct MemoryServer {
    backend: Backend,
    /// The caller of every call, over standard input and output.
    fixed_caller: Option<Caller>,
    tool_router: ToolRouter<MemoryServer>,
}

#[tool_router]
impl MemoryServer {
    /// A service over `backend`; `fixed_caller` for a transport without
    /// keys (standard input and output), `None` over HTTP.
    pub fn new(backend: Backend, fixed_caller: Option<Caller>) -> MemoryServer {
        let tool_router = Self::tool_router();
        MemoryServer {
            backend,
            fixed_caller,
            tool_router,
        }
    }

    /// Store one message in a tenant's memory, verbatim. Returns its
    /// episode id.
    #[tool(
        description = "Store one message (from the user, the assistant or a named person) in long-term memory, verbatim. Returns its episode id. Call it for every message worth remembering; facts are extracted from it in the background, and a newer statement supersedes an older one without erasing it."
    )]
    async fn remember(
        &self,
        Parameters(args): Parameters<RememberArgs>,
        extensions: Extensions,
    ) -> Result<CallToolResult, String> {
        let caller = self.caller(&extensions)?;
        writes(&caller)?;
        let tenant = tenant(&caller, args.tenant)?;
        let mut message = Message::new(args.role, args.text);
        if let Some(at) = args.at {
            message = message.at(time("at", &at)?);
        }
        if let Some(session) = args.session {
            message = message.session(session);
        }
        if let Some(code) = args.lang {
            message = message.lang(code.parse().map_err(|e| format!("`lang`: {e}"))?);
        }
        let id = self
            .blocking(None, move |backend, _| match backend {
                Backend::Local(memory) => memory.add(&tenant, message).map_err(|e| e.to_string()),
                Backend::Remote(client) => client
                    .remember(&tenant, std::slice::from_ref(&message))
                    .map_err(|e| e.to_string())?
                    .pop()
                    .ok_or_else(|| "the server returned no id".to_string()),
            })
            .await?;
        Ok(structured(
            format!("remembered as {id}"),
            json!({ "episode": id }),
        ))
    }

    /// Ask the memory: the smallest context that holds the evidence.
    #[tool(
        description = "Ask long-term memory a question. Returns a small context to answer from: facts (each with the time it held, what it superseded and the messages it came from) and the relevant messages, within a token budget. If `abstain` is true the memory holds nothing on the question: say you do not know rather than guess. Use `as_of` to ask how things stood at an earlier time."
    )]
    async fn recall(
        &self,
        Parameters(args): Parameters<RecallArgs>,
        extensions: Extensions,
        cancelled: CancellationToken,
    ) -> Result<CallToolResult, String> {
        let caller = self.caller(&extensions)?;
        let tenant = tenant(&caller, args.tenant)?;
        if args.question.trim().is_empty() {
            return Err("`question` is empty".into());
        }
        let request = SearchRequest {
            as_of: args
                .as_of
                .as_deref()
                .map(|t| time("as_of", t))
                .transpose()?,
            known_at: args
                .known_at
                .as_deref()
                .map(|t| time("known_at", t))
                .transpose()?,
            budget: args.budget.map(u64::from),
            rerank: args.rerank.map(u64::from),
            lang: args.lang.clone(),
        };
        let remote_body = json!({
            "tenant": tenant, "question": args.question, "as_of": args.as_of,
            "known_at": args.known_at, "budget": args.budget, "rerank": args.rerank,
            "lang": args.lang,
        });
        let question = args.question;
        let context = self
            .blocking(Some(cancelled), move |backend, stop| match backend {
                Backend::Local(memory) => {
                    let mut options = request
                        .options(memory.tuning())
                        .map_err(|e| e.to_string())?;
                    options.stop = stop;
                    memory
                        .search(&tenant, &question, &options)
                        .map(|context| context.to_json())
                        .map_err(|e| e.to_string())
                }
                Backend::Remote(client) => client
                    .post("/v1/recall", &remote_body)
                    .map_err(|e| e.to_string()),
            })
            .await?;
        // An abstention's text says so, with its reason.
        let text = context["text"].as_str().unwrap_or_default().to_string();
        Ok(structured(text, context))
    }

    /// How what is known about a subject changed.
    #[tool(
        description = "Show every version of every fact about a subject, oldest first: what held, from when to when, which version superseded which, and the messages each came from. Use it to explain how something changed over time."
    )]
    async fn history(
        &self,
        Parameters(args): Parameters<SubjectArgs>,
        extensions: Extensions,
    ) -> Result<CallToolResult, String> {
        let caller = self.caller(&extensions)?;
        let tenant = tenant(&caller, args.tenant)?;
        let subject = args.subject;
        let versions = {
            let subject = subject.clone();
            self.blocking(None, move |backend, _| match backend {
                Backend::Local(memory) => memory
                    .history(&tenant, &subject)
                    .map(|versions| versions.iter().map(|v| v.to_json()).collect())
                    .map_err(|e| e.to_string()),
                Backend::Remote(client) => {
                    let body = json!({ "tenant": tenant, "subject": subject });
                    let answer = client
                        .post("/v1/history", &body)
                        .map_err(|e| e.to_string())?;
                    Ok(answer["versions"].as_array().cloned().unwrap_or_default())
                }
            })
            .await?
        };
        Ok(structured(
            history_text(&subject, &versions),
            json!({ "subject": subject, "versions": versions }),
        ))
    }

    /// Erase a subject.
    #[tool(
        description = "Erase a subject from memory for good: every message that names it (any case, possessives, a person's first or last name alone when unambiguous), every fact about it and every name it went by, from all reads, all past versions and the bytes on disk. Other subjects are untouched. Use only when the user asks for something to be forgotten."
    )]
    async fn forget(
        &self,
        Parameters(args): Parameters<SubjectArgs>,
        extensions: Extensions,
    ) -> Result<CallToolResult, String> {
        let caller = self.caller(&extensions)?;
        writes(&caller)?;
        let tenant = tenant(&caller, args.tenant)?;
        let subject = args.subject;
        let report = {
            let subject = subject.clone();
            self.blocking(None, move |backend, _| match backend {
                Backend::Local(memory) => memory
                    .forget(&tenant, &subject)
                    .map(|report| report.to_json())
                    .map_err(|e| e.to_string()),
                Backend::Remote(client) => client
                    .post(
                        "/v1/forget",
                        &json!({ "tenant": tenant, "subject": subject }),
                    )
                    .map_err(|e| e.to_string()),
            })
            .await?
        };
        Ok(structured(
            format!(
                "forgot {subject:?}: {} messages, {} facts, {} names; {} facts kept with it cut from their sentence",
                report["episodes"], report["facts"], report["aliases"], report["rewritten"]
            ),
            report,
        ))
    }

    /// A read-only Datalog query over the memory's relations.
    #[tool(
        description = "Run one read-only Datalog query over the memory's relations (mem_episode(id, tenant, session, role, seq, at, text), mem_fact(slot, tenant, subject, predicate, object, text, confidence), ...), e.g. `?- mem_fact(_, T, S, works_at, C, _, _) as_of 2022-01-01.` Returns columns and rows. Writes, rules and schema changes are refused."
    )]
    async fn query(
        &self,
        Parameters(args): Parameters<QueryArgs>,
        extensions: Extensions,
        cancelled: CancellationToken,
    ) -> Result<CallToolResult, String> {
        let caller = self.caller(&extensions)?;
        let tenant = match caller.scope {
            Scope::Admin => None,
            Scope::Tenant(tenant) => Some(tenant),
        };
        let answer = self
            .blocking(Some(cancelled), move |backend, stop| match backend {
                Backend::Local(memory) => query::run(
                    memory,
                    &args.query,
                    args.params.as_ref(),
                    &stop,
                    tenant.as_deref(),
                )
                .map_err(|e| e.message),
                Backend::Remote(client) => {
                    let body =
                        json!({ "query": args.query, "params": args.params, "tenant": tenant });
                    client.post("/v1/query", &body).map_err(|e| e.to_string())
                }
            })
            .await?;
        Ok(structured(answer.to_string(), answer))
    }
}

impl MemoryServer {
    /// Who makes this call: the fixed caller, else the one the server's
    /// authentication put in the HTTP request.
    fn caller(&self, extensions: &Extensions) -> Result<Caller, String> {
        if let Some(caller) = &self.fixed_caller {
            return Ok(caller.clone());
        }
        extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned()
            .ok_or_else(|| "no key came with this call".to_string())
    }

    /// Runs `work` on the blocking pool (memory calls do disk and model
    /// work, and a panic there must not end the server), with a [`Stop`]
    /// that the MCP request's cancellation sets.
    async fn blocking<T: Send + 'static>(
        &self,
        cancelled: Option<CancellationToken>,
        work: impl FnOnce(&Backend, Stop) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let backend = self.backend.clone();
        let (stop_on_drop, stop) = crate::http::StopOnDrop::armed(None);
        let task = tokio::task::spawn_blocking(move || work(&backend, stop));
        let result = match cancelled {
            Some(token) => tokio::select! {
                result = task => result,
                () = token.cancelled() => {
                    stop_on_drop.stop();
                    return Err("cancelled by the client".into());
                }
            },
            None => task.await,
        };
        result.map_err(|e| format!("internal error: {e}"))?
    }
}

/// The tenant a call is about: the key's, or (for an admin) the one it
/// names.
fn tenant(caller: &Caller, given: Option<String>) -> Result<String, String> {
    crate::http::resolve_tenant(caller, given).map_err(|e| e.message)
}

/// Refuses a write to a read-only caller.
fn writes(caller: &Caller) -> Result<(), String> {
    if caller.read_only {
        return Err("this key may only read: remember and forget need a key that writes".into());
    }
    Ok(())
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("chronolog", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS);
        if let Some(Caller {
            scope: Scope::Tenant(tenant),
            ..
        }) = &self.fixed_caller
        {
            info = info.with_instructions(format!(
                "{INSTRUCTIONS} This server holds the memory of tenant {tenant:?}; leave `tenant` out."
            ));
        }
        info
    }
}

/// The versions of a subject's facts as lines for the model, from their
/// JSON (`FactVersion::to_json`), as either backend returns them.
fn history_text(subject: &str, versions: &[Json]) -> String {
    if versions.is_empty() {
        return format!("no facts about {subject:?}");
    }
    let field = |v: &Json, name: &str| v[name].as_str().unwrap_or("?").to_string();
    let mut text = String::new();
    for v in versions {
        let until = v["valid_to"].as_str().unwrap_or("now");
        let believed = v["known_to"]
            .as_str()
            .map_or(String::new(), |to| format!(", retracted {to}"));
        text.push_str(&format!(
            "{} {} {} (from {} until {until}{believed}; said in {})\n",
            field(v, "subject"),
            field(v, "predicate"),
            field(v, "object"),
            field(v, "valid_from"),
            field(v, "source"),
        ));
    }
    text.trim_end().to_string()
}

/// A result with a text for the model and the same answer as structured
/// JSON for programs.
fn structured(text: String, value: Json) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

fn time(name: &str, text: &str) -> Result<Timestamp, String> {
    Timestamp::parse(text).map_err(|e| {
        format!(
            "`{name}` is not a time ({e}); use ISO 8601 like 2024-05-01 or 2024-05-01T10:00:00Z"
        )
    })
}
