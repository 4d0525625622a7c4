//! The server process: binds, serves the HTTP API and MCP until told to
//! stop, then drains and closes the memory.
//!
//! Shutdown order: the signal cancels MCP's streams (an open event stream
//! would otherwise hold the drain forever), the listener stops accepting,
//! requests in flight finish, then the last handle on the memory is
//! dropped, which stops the consolidation worker at a commit boundary and
//! releases the database's lock.

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::StatusCode;
use chronolog_memory::Memory;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::client::Announcement;
use crate::error::{Error, Result};
use crate::http::{AppState, authenticate, routes};
use crate::keys::KeyStore;
use crate::mcp::{Backend, MemoryServer};

/// How the server listens and what it allows.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Where to listen (port 0: any free port; [`Server::local_addr`]
    /// says which).
    pub listen: SocketAddr,
    /// Serve without keys: every caller is an admin. For a single user on
    /// a machine of their own; refused on a non-loopback address.
    pub insecure_no_auth: bool,
    /// Listen on a non-loopback address without TLS (behind a proxy that
    /// terminates it, say): keys would cross the network in clear text
    /// otherwise, so it must be asked for.
    pub insecure_network: bool,
    /// How long one call may run before it is stopped (a 503).
    pub request_timeout: Duration,
    /// The largest request body, in bytes (a 413 above it).
    pub max_body_bytes: usize,
    /// Requests served at once; more wait their turn.
    pub max_concurrent: usize,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 7700)),
            insecure_no_auth: false,
            insecure_network: false,
            request_timeout: Duration::from_secs(30),
            max_body_bytes: 16 << 20,
            max_concurrent: 64,
        }
    }
}

/// A bound server, ready to run.
pub struct Server {
    db: std::path::PathBuf,
    listener: tokio::net::TcpListener,
    router: Router,
    memory: Arc<Memory>,
    streams: CancellationToken,
}

impl Server {
    /// Checks the options against the keys of the database at `db`, binds
    /// the address and builds the routes over `memory`. Refuses to start
    /// with no key (unless `insecure_no_auth`) and on a non-loopback
    /// address without `insecure_network`.
    pub async fn bind(db: &Path, memory: Arc<Memory>, options: &ServeOptions) -> Result<Server> {
        let loopback = options.listen.ip().is_loopback();
        if !loopback && !options.insecure_network {
            return Err(Error::Refused(format!(
                "{} is not a loopback address: keys would cross the network in clear text. \
                 Listen on 127.0.0.1 behind a TLS proxy, or pass --insecure-network",
                options.listen
            )));
        }
        let keys = if options.insecure_no_auth {
            if !loopback {
                return Err(Error::Refused(
                    "--insecure-no-auth serves loopback addresses only".into(),
                ));
            }
            None
        } else {
            let keys = KeyStore::at(db);
            if !keys.any()? {
                return Err(Error::Refused(format!(
                    "no key can call this server: make one with `chronolog keys {} add --tenant T` \
                     (or `--admin`), or pass --insecure-no-auth for a single user on loopback",
                    db.display()
                )));
            }
            Some(Arc::new(keys))
        };
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(Error::io(options.listen.to_string()))?;
        let run_key: Arc<str> = crate::keys::run_key()?.into();
        let state = AppState {
            memory: memory.clone(),
            keys,
            run_key: run_key.clone(),
            request_timeout: options.request_timeout,
        };
        let streams = CancellationToken::new();
        let bound = listener
            .local_addr()
            .map_err(Error::io("the listening socket"))?;
        let router = router(state, options, &streams, Some(bound));
        Announcement {
            url: format!("http://{bound}"),
            pid: std::process::id(),
            key: run_key.to_string(),
        }
        .write(db)?;
        Ok(Server {
            db: db.to_path_buf(),
            listener,
            router,
            memory,
            streams,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> Result<SocketAddr> {
        self.listener
            .local_addr()
            .map_err(Error::io("the listening socket"))
    }

    /// Serves until `shutdown` completes, then drains the requests in
    /// flight and closes the memory (waiting up to 10 s for calls the
    /// drain left running on the blocking pool).
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        let streams = self.streams.clone();
        let signal = async move {
            shutdown.await;
            tracing::info!("shutting down: finishing the requests in flight");
            streams.cancel();
        };
        let served = axum::serve(self.listener, self.router)
            .with_graceful_shutdown(signal)
            .await
            .map_err(Error::io("serving"));
        Announcement::remove(&self.db);
        served?;
        let mut memory = self.memory;
        let give_up = Instant::now() + Duration::from_secs(10);
        loop {
            match Arc::try_unwrap(memory) {
                Ok(memory) => {
                    drop(memory);
                    tracing::info!("the memory is closed");
                    return Ok(());
                }
                Err(shared) if Instant::now() < give_up => {
                    memory = shared;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(_) => {
                    return Err(Error::Internal(
                        "a call still held the memory 10 s after shutdown".into(),
                    ));
                }
            }
        }
    }
}

fn router(
    state: AppState,
    options: &ServeOptions,
    streams: &CancellationToken,
    bound: Option<SocketAddr>,
) -> Router {
    let memory = state.memory.clone();
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(streams.clone())
        .with_sse_keep_alive(Some(Duration::from_secs(15)));
    config.max_request_body_bytes = options.max_body_bytes;
    if !options.listen.ip().is_loopback() {
        // rmcp guards loopback servers against DNS rebinding by the Host
        // header; a server listening on the network is reached by names
        // its operator knows and this one does not.
        config = config.disable_allowed_hosts();
    } else if let Some(bound) = bound {
        config = config.with_allowed_hosts([
            "localhost".to_string(),
            "127.0.0.1".to_string(),
            "::1".to_string(),
            format!("localhost:{}", bound.port()),
            format!("127.0.0.1:{}", bound.port()),
            format!("[::1]:{}", bound.port()),
        ]);
    }
    let mcp = StreamableHttpService::new(
        move || Ok(MemoryServer::new(Backend::Local(memory.clone()), None)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mcp = Router::new()
        .route_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            authenticate,
        ));
    routes(state)
        .merge(mcp)
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            options.request_timeout + Duration::from_secs(5),
        ))
        .layer(axum::extract::DefaultBodyLimit::max(options.max_body_bytes))
        .layer(tower::limit::GlobalConcurrencyLimitLayer::new(
            options.max_concurrent,
        ))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
}

/// Serves `memory` (the database at `db`) on its own runtime until
/// SIGINT or SIGTERM, printing the address it listens on to standard
/// error once it does.
pub fn serve_blocking(db: &Path, memory: Memory, options: &ServeOptions) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("chronolog-serve")
        .build()
        .map_err(Error::io("the async runtime"))?;
    runtime.block_on(async move {
        let server = Server::bind(db, Arc::new(memory), options).await?;
        let addr = server.local_addr()?;
        eprintln!("chronolog serve: listening on http://{addr} (MCP at http://{addr}/mcp)");
        tracing::info!(%addr, "listening");
        server.run(stop_signal()).await
    })
}

/// Request logs on standard error, one line per request (method, path,
/// status, latency), at the level `RUST_LOG` names (default `info`).
pub fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second call (a test that serves twice) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// SIGINT or SIGTERM (Ctrl-C elsewhere).
async fn stop_signal() {
    let interrupt = async {
        // No handler: the other signal still stops the server.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    () = interrupt => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => interrupt.await,
        }
    }
    #[cfg(not(unix))]
    interrupt.await;
}
