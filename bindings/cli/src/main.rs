//! `chronolog`: the shell for Chronolog databases. Interactive on a
//! terminal; runs `-e` text, `-f` files or a script on standard input
//! otherwise; `chronolog demo` tells the bundled story.

mod demo;
mod eval;
mod forget;
mod import;
mod input;
mod interactive;
mod output;
mod recall;
mod remember;
mod shell;

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use chronolog_engine::Session;
use clap::{Parser, Subcommand};

use crate::output::{Format, Style};
use crate::shell::{Flow, Shell};

/// The Chronolog shell: Datalog over bi-temporal memory.
#[derive(Parser, Debug)]
#[command(name = "chronolog", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The database directory (created on first use). Default:
    /// $CHRONOLOG_HOME/default, else the user's data directory.
    db: Option<PathBuf>,
    /// Run this text (repeatable; after any -f files), then exit.
    #[arg(short = 'e', long = "execute", value_name = "SCRIPT")]
    execute: Vec<String>,
    /// Run this script file (repeatable), then exit.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// How answers print: table, json (one object per line) or csv.
    #[arg(long, default_value_t = Format::Table)]
    format: Format,
    /// Print how long each statement took.
    #[arg(long)]
    timing: bool,
    /// Rows a table shows before cutting.
    #[arg(long, default_value_t = 100)]
    max_rows: usize,
    /// Print each input before its output, errors included: a transcript.
    #[arg(long)]
    echo: bool,
    /// In scripts, go on after an error (the exit status still says so).
    #[arg(long)]
    keep_going: bool,
    /// Open a damaged database read-only with what reads back of its log,
    /// to query and export what remains; no file is changed.
    #[arg(long)]
    recover: bool,
    /// Open the database to read it only: no file is created or changed
    /// (it may be on a read-only mount), other readers may open it at the
    /// same time, and writes are refused.
    #[arg(long, conflicts_with = "recover")]
    read_only: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Load the bundled story into a fresh temporary database, ask it
    /// questions, then open the shell on it (on a terminal).
    Demo {
        /// Print the story and exit, without the shell.
        #[arg(long)]
        no_repl: bool,
    },
    /// Append a message (or a JSON-lines file of them, in one batch) to a
    /// tenant's memory and print the new episode ids.
    Remember {
        /// The database directory (created on first use).
        db: PathBuf,
        /// Whose memory (a user or agent namespace).
        #[arg(long)]
        tenant: String,
        /// Who said it: user, assistant, or a name.
        #[arg(long)]
        role: Option<String>,
        /// When it was said (2024-05-01, 2024-05-01T10:00:00Z); default now.
        #[arg(long)]
        at: Option<String>,
        /// The conversation it belongs to.
        #[arg(long)]
        session: Option<String>,
        /// Its language: en, zh or de (default: the tenant's pinned
        /// language, else detected from its words).
        #[arg(long)]
        lang: Option<String>,
        /// A file of {"role", "text", "at", "session", "lang"} lines,
        /// stored all or nothing.
        #[arg(long, value_name = "FILE")]
        jsonl: Option<PathBuf>,
        /// The message.
        text: Option<String>,
    },
    /// Serve the memory to an agent as a Model Context Protocol server on
    /// standard input and output (tools: remember, recall, history,
    /// forget, query).
    Mcp {
        /// The database directory (created on first use).
        db: PathBuf,
        /// Serve this tenant's memory only: calls may not name another,
        /// and the Datalog `query` tool runs only queries that read its rows
        /// (`mem_episode(I, $tenant, ...)`).
        #[arg(long)]
        tenant: Option<String>,
        /// The sentence embedder: model (the default: bge-small-en when
        /// installed, else all-MiniLM-L6-v2, else the hashing stand-in, with
        /// a notice), hashing, or an installed model by name: bge, minilm,
        /// potion (for long histories) or usem. Keep the one a
        /// database was built with.
        #[arg(long, default_value = "model")]
        embedder: String,
    },
    /// Serve the memory to many agents at once: an HTTP/JSON API under
    /// /v1 and MCP over streamable HTTP at /mcp, each call checked by a
    /// bearer key (`chronolog keys DB add`). Stops on SIGINT or SIGTERM
    /// after the requests in flight finish.
    Serve {
        /// The database directory (created on first use).
        db: PathBuf,
        /// The address to listen on (port 0: any free port; the address
        /// is printed to standard error).
        #[arg(long, default_value = "127.0.0.1:7700")]
        listen: std::net::SocketAddr,
        /// Serve without keys, every caller an admin: for one user on a
        /// machine of their own (loopback only).
        #[arg(long)]
        insecure_no_auth: bool,
        /// Listen on a non-loopback address without TLS (behind a proxy
        /// that terminates it).
        #[arg(long)]
        insecure_network: bool,
        /// Seconds one call may run before it is stopped.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        /// The sentence embedder: model, hashing, or an installed model by
        /// name: minilm, bge (stronger at retrieval, run int8), potion (for
        /// long histories) or usem (keep the one a database was built with).
        #[arg(long, default_value = "model")]
        embedder: String,
    },
    /// Make, list and revoke the bearer keys `chronolog serve` checks.
    Keys {
        /// The database directory.
        db: PathBuf,
        #[command(subcommand)]
        action: KeysAction,
    },
    /// Show or pin the language a tenant's messages and questions are read
    /// in (short messages say too little for detection): `de` pins German,
    /// `none` unpins. Pin before the first message: what is consolidated
    /// is not read again.
    Language {
        /// The database directory.
        db: PathBuf,
        /// Whose memory.
        #[arg(long)]
        tenant: String,
        /// en, zh, de, or none; absent: show the pin.
        lang: Option<String>,
    },
    /// Erase a subject of a tenant's memory (a name, an alias, "my mom"),
    /// every message that names it and every fact about it, from every
    /// read and every old snapshot: the right to be forgotten.
    Forget {
        /// The database directory.
        db: PathBuf,
        /// Whose memory.
        #[arg(long)]
        tenant: String,
        /// What to forget.
        #[arg(required = true, num_args = 1..)]
        subject: Vec<String>,
    },
    /// Consolidate every episode not consolidated yet into facts.
    Consolidate {
        /// The database directory.
        db: PathBuf,
    },
    /// Measure the memory's retrieval on a benchmark's file (judge-free):
    /// runs the `chronolog-eval` binary beside this one with these
    /// arguments (`chronolog eval locomo FILE`, `chronolog eval --help`).
    #[command(disable_help_flag = true)]
    Eval {
        /// What `chronolog-eval` takes.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Ask a tenant's memory: the smallest context that holds the
    /// evidence (facts first, then the messages behind them), or an
    /// abstention with its reason.
    Recall {
        /// The database directory.
        db: PathBuf,
        /// Whose memory.
        #[arg(long)]
        tenant: String,
        /// Answer as of this valid time (default: what the question names, else now).
        #[arg(long)]
        as_of: Option<String>,
        /// Answer as known at this transaction time.
        #[arg(long)]
        known_at: Option<String>,
        /// The most tokens (cl100k_base) the context may take (default:
        /// the memory's tuning, 2,000).
        #[arg(long)]
        budget: Option<usize>,
        /// How many of the first candidate messages the cross-encoder
        /// reorders (default 20; 0: none, the fastest answer).
        #[arg(long)]
        rerank: Option<usize>,
        /// text (ready for a prompt) or json.
        #[arg(long, default_value = "text")]
        format: String,
        /// The question's language: en, zh or de (default: the tenant's
        /// pinned language, else detected).
        #[arg(long)]
        lang: Option<String>,
        /// Show the channels, the fusion and the verdict instead.
        #[arg(long)]
        explain: bool,
        /// The question.
        question: String,
    },
}

#[derive(Subcommand, Debug)]
enum KeysAction {
    /// Make a key and print it (alone on the last line, for scripts): it
    /// is shown this once and stored only hashed.
    Add {
        /// The tenant the key reaches (and nothing else).
        #[arg(long, required_unless_present = "admin", conflicts_with = "admin")]
        tenant: Option<String>,
        /// A key for every tenant and for Datalog queries.
        #[arg(long)]
        admin: bool,
        /// The key may read only: remember, forget and consolidate are
        /// refused.
        #[arg(long)]
        read_only: bool,
    },
    /// List the keys (ids and scopes, never the secrets).
    List,
    /// Revoke a key by its id (or the whole key): refused from the
    /// server's next request on.
    Revoke {
        /// The key's id, as `list` shows it.
        id: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let interactive =
        std::io::stdin().is_terminal() && cli.execute.is_empty() && cli.files.is_empty();
    // The server and MCP handle their signals themselves.
    let command = match cli.command {
        Some(Command::Serve {
            db,
            listen,
            insecure_no_auth,
            insecure_network,
            timeout,
            embedder,
        }) => {
            chronolog_server::serve::init_logs();
            let options = chronolog_server::ServeOptions {
                listen,
                insecure_no_auth,
                insecure_network,
                request_timeout: std::time::Duration::from_secs(timeout.max(1)),
                ..chronolog_server::ServeOptions::default()
            };
            let memory = chronolog_server::open_memory(&db, &embedder)?;
            chronolog_server::serve_blocking(&db, memory, &options)?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Keys { db, action }) => return keys(&db, action),
        Some(Command::Mcp {
            db,
            tenant,
            embedder,
        }) => {
            let backend = match chronolog_server::Client::find(&db) {
                Some(client) => {
                    eprintln!(
                        "chronolog mcp: {} is served by {}; going through it",
                        db.display(),
                        client.url()
                    );
                    chronolog_server::mcp::Backend::Remote(client)
                }
                None => chronolog_server::mcp::Backend::Local(Arc::new(
                    chronolog_server::open_memory(&db, &embedder)?,
                )),
            };
            chronolog_server::mcp::serve_stdio(backend, tenant)?;
            return Ok(ExitCode::SUCCESS);
        }
        other => other,
    };
    let cancel = Arc::new(AtomicBool::new(false));
    install_interrupt_handler(cancel.clone(), interactive)?;
    match command {
        Some(Command::Demo { no_repl }) => return demo(no_repl || !interactive, cancel),
        Some(Command::Remember {
            db,
            tenant,
            role,
            at,
            session,
            lang,
            jsonl,
            text,
        }) => {
            let at = match at {
                Some(at) => Some(
                    chronolog_engine::Timestamp::parse(&at)
                        .map_err(|e| anyhow::anyhow!("bad --at {at:?}: {e}"))?,
                ),
                None => None,
            };
            let request = remember::Remember {
                tenant,
                role,
                at,
                session,
                lang: lang.as_deref().map(remember::parse_lang).transpose()?,
                jsonl,
                text,
            };
            let ids = match chronolog_server::Client::find(&db) {
                Some(client) => request.run_remote(&client)?,
                None => request.run(&open_memory(&db)?)?,
            };
            for id in ids {
                println!("{id}");
            }
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Recall {
            db,
            tenant,
            as_of,
            known_at,
            budget,
            rerank,
            format,
            lang,
            explain,
            question,
        }) => {
            let mut request = recall::Recall {
                tenant,
                question,
                explain,
                budget,
                rerank,
                lang: lang.as_deref().map(remember::parse_lang).transpose()?,
                ..recall::Recall::default()
            };
            request.set("format", &format)?;
            if let Some(t) = as_of {
                request.set("as-of", &t)?;
            }
            if let Some(t) = known_at {
                request.set("known-at", &t)?;
            }
            let answer = match chronolog_server::Client::find(&db) {
                Some(client) => request.run_remote(&client)?,
                None => request.run(&open_memory(&db)?)?,
            };
            print!("{answer}");
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Language { db, tenant, lang }) => {
            let answer = remember::language(&db, &tenant, lang.as_deref(), || open_memory(&db))?;
            println!("{answer}");
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Forget {
            db,
            tenant,
            subject,
        }) => {
            let request = forget::Forget {
                tenant,
                subject: subject.join(" "),
            };
            let answer = match chronolog_server::Client::find(&db) {
                Some(client) => request.run_remote(&client)?,
                None => request.run(&open_memory(&db)?)?,
            };
            println!("{answer}");
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Eval { args }) => return eval::run(&args),
        Some(Command::Consolidate { db }) => {
            let report = match chronolog_server::Client::find(&db) {
                Some(client) => client.post("/v1/consolidate", &serde_json::json!({}))?,
                None => open_memory(&db)?.consolidate_now()?.to_json(),
            };
            println!("{}", remember::describe(&report));
            return Ok(ExitCode::SUCCESS);
        }
        // Served above.
        Some(Command::Serve { .. } | Command::Keys { .. } | Command::Mcp { .. }) | None => {}
    }
    let dir = match &cli.db {
        Some(dir) => dir.clone(),
        None => home()?.join("default"),
    };
    let (embedder, notice) = chronolog_engine::default_embedder_with_notice();
    let store = if cli.recover {
        let options = chronolog_engine::Options {
            recover: true,
            ..chronolog_engine::Options::default()
        };
        let store = chronolog_engine::Store::open_with(&dir, options)
            .with_context(|| format!("cannot recover the database at {}", dir.display()))?;
        match store.damage() {
            Some(damage) => eprintln!("opened read-only for recovery: {damage}"),
            None => {
                eprintln!("opened read-only for recovery: every acknowledged commit reads back")
            }
        }
        store
    } else if cli.read_only {
        let options = chronolog_engine::Options {
            read_only: true,
            ..chronolog_engine::Options::default()
        };
        chronolog_engine::Store::open_with(&dir, options)
            .with_context(|| format!("cannot read the database at {}", dir.display()))?
    } else {
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        chronolog_engine::Store::open(&dir)
            .with_context(|| format!("cannot open the database at {}", dir.display()))?
    };
    let db = Session::with_embedder(store, embedder);
    let mut shell = Shell::new(
        db,
        cancel,
        Box::new(std::io::stdout()),
        Box::new(std::io::stderr()),
    );
    shell.style = Style {
        format: cli.format,
        max_rows: cli.max_rows.max(1),
        timing: cli.timing,
    };
    shell.echo = cli.echo;
    shell.keep_going = cli.keep_going;
    if interactive {
        banner(&mut shell, &dir, notice.as_deref())?;
        interactive::run(&mut shell, history_file())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut scripts = Vec::new();
    for file in &cli.files {
        scripts.push(
            std::fs::read_to_string(file)
                .with_context(|| format!("cannot read {}", file.display()))?,
        );
    }
    scripts.extend(cli.execute.iter().cloned());
    if cli.files.is_empty() && cli.execute.is_empty() {
        let mut script = String::new();
        std::io::stdin()
            .read_to_string(&mut script)
            .context("cannot read standard input")?;
        scripts.push(script);
    }
    for script in &scripts {
        let before = shell.errors();
        if shell.run_script(script)? == Flow::Quit || (shell.errors() > before && !shell.keep_going)
        {
            break;
        }
    }
    Ok(if shell.errors() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The memory stored at `dir` (created on first use), consolidated only
/// when asked.
/// `chronolog keys DB add|list|revoke`.
fn keys(db: &std::path::Path, action: KeysAction) -> Result<ExitCode> {
    use chronolog_server::{KeyStore, Scope};
    let keys = KeyStore::at(db);
    let describe = |scope: &Scope, read_only: bool| {
        let scope = match scope {
            Scope::Admin => "admin (every tenant, Datalog)".to_string(),
            Scope::Tenant(t) => format!("tenant {t}"),
        };
        let access = if read_only { "read-only" } else { "read-write" };
        format!("{scope}, {access}")
    };
    match action {
        KeysAction::Add {
            tenant,
            admin,
            read_only,
        } => {
            let scope = match (tenant, admin) {
                (Some(tenant), false) => Scope::Tenant(tenant),
                _ => Scope::Admin,
            };
            let (info, key) = keys.add(scope, read_only)?;
            println!(
                "key {} for {}; it is shown only now:",
                info.id,
                describe(&info.scope, info.read_only)
            );
            println!("{key}");
        }
        KeysAction::List => {
            let list = keys.list()?;
            if list.is_empty() {
                println!("no keys");
            }
            for info in list {
                println!(
                    "{}  {}  (made {})",
                    info.id,
                    describe(&info.scope, info.read_only),
                    info.created
                );
            }
        }
        KeysAction::Revoke { id } => {
            if !keys.revoke(&id)? {
                anyhow::bail!("no key {id:?} (`chronolog keys DB list` shows them)");
            }
            println!("revoked {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn open_memory(dir: &std::path::Path) -> Result<chronolog_memory::Memory> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let store = chronolog_engine::Store::open(dir)
        .with_context(|| format!("cannot open the database at {}", dir.display()))?;
    let (embedder, _) = chronolog_engine::default_embedder_with_notice();
    let engine = chronolog_engine::Engine::with_embedder(store, embedder);
    Ok(chronolog_memory::Memory::with_engine(
        engine,
        chronolog_memory::Options::manual(),
    )?)
}

fn demo(no_repl: bool, cancel: Arc<AtomicBool>) -> Result<ExitCode> {
    let dir = tempfile::Builder::new()
        .prefix("chronolog-demo-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    {
        let mut out = std::io::stdout().lock();
        demo::run(dir.path(), &mut out).map_err(|e| anyhow::anyhow!("the demo failed: {e}"))?;
        out.flush()?;
    }
    if no_repl {
        return Ok(ExitCode::SUCCESS);
    }
    let (embedder, _) = chronolog_engine::default_embedder_with_notice();
    let store = chronolog_engine::Store::open(dir.path())?;
    let mut shell = Shell::new(
        Session::with_embedder(store, embedder),
        cancel,
        Box::new(std::io::stdout()),
        Box::new(std::io::stderr()),
    );
    shell.note(
        "\nThe shell is open on the demo's database (deleted when you leave). Try:\n  \
         ?- works_at(P, C) as_of 2022-01-01.\n  :history works_at(alice, Y)\n  :help",
    )?;
    interactive::run(&mut shell, history_file())?;
    Ok(ExitCode::SUCCESS)
}

fn banner(shell: &mut Shell, dir: &std::path::Path, notice: Option<&str>) -> Result<()> {
    shell.note(&format!(
        "Chronolog {} on {}",
        env!("CARGO_PKG_VERSION"),
        dir.display()
    ))?;
    if let Some(notice) = notice {
        shell.note(&format!("({notice})"))?;
    }
    shell.note("Statements end with `.`; :help shows the commands; Ctrl-D leaves.")?;
    Ok(())
}

/// Ctrl-C: in the shell, the first press cancels the running query (the
/// prompt itself reads Ctrl-C as a key and clears the line) and a second
/// press before the query stops ends the process; in a script it ends the
/// process.
fn install_interrupt_handler(cancel: Arc<AtomicBool>, interactive: bool) -> Result<()> {
    ctrlc::set_handler(move || {
        if !interactive || cancel.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })
    .context("cannot install the Ctrl-C handler")
}

/// Where the default database and the history live: $CHRONOLOG_HOME, else
/// the user's data directory, else `./.chronolog`.
fn home() -> Result<PathBuf> {
    let home = match std::env::var_os("CHRONOLOG_HOME") {
        Some(dir) => PathBuf::from(dir),
        None => dirs::data_dir()
            .map(|d| d.join("chronolog"))
            .unwrap_or_else(|| PathBuf::from(".chronolog")),
    };
    std::fs::create_dir_all(&home).with_context(|| format!("cannot create {}", home.display()))?;
    Ok(home)
}

fn history_file() -> Option<PathBuf> {
    home().ok().map(|h| h.join("history"))
}
