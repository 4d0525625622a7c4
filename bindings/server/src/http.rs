//! The HTTP/JSON API: the memory's calls under `/v1`, checked by bearer
//! key, each answered with JSON (an error as `{"error": {"code",
//! "message"}}` with its HTTP status). The routes and their bodies are
//! described in `openapi.json`, served at `/openapi.json`.
//!
//! Every memory call runs on Tokio's blocking pool with a [`Stop`] whose
//! flag is set when the request's future is dropped (the client went away,
//! or the request timed out), so a search or a query the caller no longer
//! waits for stops at its next check, and a consolidation between two
//! messages.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chronolog_engine::Timestamp;
use chronolog_memory::{Lang, Memory, Message, SearchRequest, Stop};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value as Json, json};

use crate::keys::{Caller, KeyStore, Scope};
use crate::query;

/// The OpenAPI description of the routes below.
pub const OPENAPI: &str = include_str!("openapi.json");

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct AppState {
    pub memory: Arc<Memory>,
    /// `None`: the server runs without authentication.
    pub keys: Option<Arc<KeyStore>>,
    /// This run's own admin key, announced in `server.json`.
    pub run_key: Arc<str>,
    /// How long one call may run before it is stopped.
    pub request_timeout: Duration,
}

/// The `/v1` routes and the public ones (`/health`, `/openapi.json`);
/// the caller adds `/mcp` and the middleware.
pub(crate) fn routes(state: AppState) -> Router {
    let v1 = Router::new()
        .route("/remember", post(remember))
        .route("/recall", post(recall))
        .route("/history", post(history))
        .route("/timeline", post(timeline))
        .route("/forget", post(forget))
        .route("/consolidate", post(consolidate))
        .route("/language", post(language))
        .route("/status", get(status))
        .route("/query", post(run_query))
        .with_state(state.clone())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            authenticate,
        ));
    Router::new()
        .route("/health", get(health))
        .route("/openapi.json", get(openapi))
        .nest("/v1", v1)
        .fallback(not_found)
}

/// A request's failure as the client sees it.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable word for programs (`bad_request`, `unauthorized`, ...).
    pub code: &'static str,
    /// What went wrong, for people.
    pub message: String,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
}

impl From<chronolog_memory::Error> for ApiError {
    fn from(e: chronolog_memory::Error) -> ApiError {
        use chronolog_engine::Error as Engine;
        use chronolog_memory::Error as M;
        let message = e.to_string();
        match e {
            M::BadTenant(_)
            | M::BadMessage { .. }
            | M::BadLine { .. }
            | M::BadRow { .. }
            | M::BadRequest(_) => ApiError::bad_request(message),
            M::AmbiguousSubject { .. } => {
                ApiError::new(StatusCode::CONFLICT, "ambiguous_subject", message)
            }
            M::Engine(Engine::Cancelled) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "cancelled", message)
            }
            M::Engine(Engine::LimitExceeded(_)) => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "limit_exceeded", message)
            }
            _ => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({ "error": { "code": self.code, "message": self.message } });
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A JSON body whose rejection (not JSON, the wrong shape, too large)
/// is an [`ApiError`] with the parser's message.
struct Body<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(json_rejection(&rejection)),
        }
    }
}

fn json_rejection(rejection: &JsonRejection) -> ApiError {
    let status = rejection.status();
    let code = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        _ => "bad_request",
    };
    // 422 (well-formed JSON of the wrong shape) is a bad request too.
    let status = if status == StatusCode::UNPROCESSABLE_ENTITY {
        StatusCode::BAD_REQUEST
    } else {
        status
    };
    ApiError::new(status, code, rejection.body_text())
}

/// Checks the bearer key and hands the request its [`Caller`].
pub(crate) async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let caller = match &state.keys {
        None => Caller::unauthenticated(),
        Some(keys) => {
            let presented = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            let Some(presented) = presented else {
                return ApiError::unauthorized(
                    "no key: send `Authorization: Bearer <key>` (`chronolog keys DB add` makes one)",
                )
                .into_response();
            };
            if crate::keys::equal(presented.trim().as_bytes(), state.run_key.as_bytes()) {
                let caller = Caller {
                    key: Some("run".into()),
                    scope: Scope::Admin,
                    read_only: false,
                };
                request.extensions_mut().insert(caller);
                return next.run(request).await;
            }
            match keys.check(presented) {
                Ok(Some(caller)) => caller,
                Ok(None) => {
                    return ApiError::unauthorized("the key is unknown, revoked or malformed")
                        .into_response();
                }
                Err(e) => {
                    tracing::error!("cannot read the keys: {e}");
                    return ApiError::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "internal",
                        "the server cannot read its keys",
                    )
                    .into_response();
                }
            }
        }
    };
    tracing::debug!(key = caller.key.as_deref().unwrap_or("-"), "authenticated");
    request.extensions_mut().insert(caller);
    next.run(request).await
}

/// The tenant a call is about: the key's own, or (for an admin) the one
/// the call names. A tenant key naming another tenant is refused.
pub(crate) fn resolve_tenant(caller: &Caller, given: Option<String>) -> Result<String, ApiError> {
    let tenant = match (&caller.scope, given) {
        (Scope::Tenant(own), None) => own.clone(),
        (Scope::Tenant(own), Some(given)) if &given == own => given,
        (Scope::Tenant(own), Some(given)) => {
            return Err(ApiError::forbidden(format!(
                "this key is for tenant {own:?}, not {given:?}; leave `tenant` out"
            )));
        }
        (Scope::Admin, Some(given)) => given,
        (Scope::Admin, None) => {
            return Err(ApiError::bad_request(
                "`tenant` is required: whose memory to use",
            ));
        }
    };
    chronolog_memory::check_tenant(&tenant)?;
    Ok(tenant)
}

fn writes(caller: &Caller) -> Result<(), ApiError> {
    if caller.read_only {
        return Err(ApiError::forbidden(
            "this key may only read: this call needs a key that writes",
        ));
    }
    Ok(())
}

/// Sets a stop flag when dropped: when the request that owns it ends,
/// however it ends, the work it started is told to stop.
pub(crate) struct StopOnDrop(Arc<AtomicBool>);

impl StopOnDrop {
    /// A [`Stop`] for one call, set at `deadline` or when the guard drops.
    pub(crate) fn armed(deadline: Option<Instant>) -> (StopOnDrop, Stop) {
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Stop {
            cancel: Some(flag.clone()),
            deadline,
        };
        (StopOnDrop(flag), stop)
    }

    /// Tells the call to stop now.
    pub(crate) fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.stop();
    }
}

impl AppState {
    /// Runs `work` on the blocking pool with a [`Stop`] that the request's
    /// end and its time limit set.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Memory, Stop) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let memory = self.memory.clone();
        let (_stop_on_drop, stop) = StopOnDrop::armed(Some(Instant::now() + self.request_timeout));
        tokio::task::spawn_blocking(move || work(&memory, stop))
            .await
            .map_err(|e| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    format!("the call failed: {e}"),
                )
            })?
    }

    /// Refuses a read of a tenant that has never stored anything: a typo
    /// in a tenant's name is an error, not an empty memory.
    async fn known(&self, tenant: &str) -> Result<(), ApiError> {
        let name = tenant.to_string();
        let known = self
            .blocking(move |memory, _| Ok(memory.has_tenant(&name)?))
            .await?;
        if known {
            Ok(())
        } else {
            Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "unknown_tenant",
                format!("tenant {tenant:?} has no memory here"),
            ))
        }
    }
}

fn time(name: &str, text: &str) -> Result<Timestamp, ApiError> {
    Timestamp::parse(text).map_err(|e| {
        ApiError::bad_request(format!(
            "`{name}` is not a time ({e}); use ISO 8601 like 2024-05-01 or 2024-05-01T10:00:00Z"
        ))
    })
}

fn lang(name: &str, code: &str) -> Result<Lang, ApiError> {
    code.parse()
        .map_err(|e| ApiError::bad_request(format!("`{name}`: {e}")))
}

/// One message of `POST /v1/remember`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageBody {
    role: String,
    text: String,
    at: Option<String>,
    session: Option<String>,
    lang: Option<String>,
}

impl MessageBody {
    fn into_message(self) -> Result<Message, ApiError> {
        let mut message = Message::new(self.role, self.text);
        if let Some(at) = self.at {
            message = message.at(time("at", &at)?);
        }
        if let Some(session) = self.session {
            message = message.session(session);
        }
        if let Some(code) = self.lang {
            message = message.lang(lang("lang", &code)?);
        }
        Ok(message)
    }
}

/// `POST /v1/remember`: one message, or `messages` stored all or nothing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RememberBody {
    tenant: Option<String>,
    role: Option<String>,
    text: Option<String>,
    at: Option<String>,
    session: Option<String>,
    lang: Option<String>,
    messages: Option<Vec<MessageBody>>,
}

async fn remember(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<RememberBody>,
) -> Result<axum::Json<Json>, ApiError> {
    writes(&caller)?;
    let tenant = resolve_tenant(&caller, body.tenant)?;
    let messages = match (body.messages, body.role, body.text) {
        (Some(messages), None, None)
            if body.at.is_none() && body.session.is_none() && body.lang.is_none() =>
        {
            messages
        }
        (None, Some(role), Some(text)) => vec![MessageBody {
            role,
            text,
            at: body.at,
            session: body.session,
            lang: body.lang,
        }],
        _ => {
            return Err(ApiError::bad_request(
                "send `role` and `text` (with `at`, `session` and `lang` if you like) for one message, \
                 or `messages`, a list of them, for a batch",
            ));
        }
    };
    let messages = messages
        .into_iter()
        .map(MessageBody::into_message)
        .collect::<Result<Vec<_>, _>>()?;
    let ids = state
        .blocking(move |memory, _| Ok(memory.add_batch(&tenant, &messages)?))
        .await?;
    Ok(axum::Json(json!({ "episodes": ids })))
}

/// `POST /v1/recall`: `{"question", "tenant"?, "explain"?, ...}` plus any
/// option of a [`SearchRequest`] (`as_of`, `known_at`, `budget`,
/// `rerank`, `lang`). With `"explain": true` the answer is `{"explain":
/// text}`: the channels, the fusion and the verdict, of the tenant's rows.
async fn recall(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<serde_json::Map<String, Json>>,
) -> Result<axum::Json<Json>, ApiError> {
    let mut body = body;
    let given = match body.remove("tenant") {
        None | Some(Json::Null) => None,
        Some(Json::String(t)) => Some(t),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "`tenant` must be text, not {other}"
            )));
        }
    };
    let tenant = resolve_tenant(&caller, given)?;
    let question = match body.remove("question") {
        Some(Json::String(q)) if !q.trim().is_empty() => q,
        Some(Json::String(_)) => return Err(ApiError::bad_request("`question` is empty")),
        None | Some(Json::Null) => {
            return Err(ApiError::bad_request(
                "`question` is required: what to ask the memory",
            ));
        }
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "`question` must be text, not {other}"
            )));
        }
    };
    let explain = match body.remove("explain") {
        None | Some(Json::Null) | Some(Json::Bool(false)) => false,
        Some(Json::Bool(true)) => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "`explain` must be true or false, not {other}"
            )));
        }
    };
    let request = SearchRequest::from_value(&Json::Object(body))?;
    state.known(&tenant).await?;
    let mut options = request.options(state.memory.tuning())?;
    let answer = state
        .blocking(move |memory, stop| {
            options.stop = stop;
            if explain {
                let text = memory.explain_search(&tenant, &question, &options)?;
                return Ok(json!({ "explain": text }));
            }
            Ok(memory.search(&tenant, &question, &options)?.to_json())
        })
        .await?;
    Ok(axum::Json(answer))
}

/// `POST /v1/history` and `POST /v1/forget`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SubjectBody {
    tenant: Option<String>,
    subject: String,
}

async fn history(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<SubjectBody>,
) -> Result<axum::Json<Json>, ApiError> {
    let tenant = resolve_tenant(&caller, body.tenant)?;
    state.known(&tenant).await?;
    let subject = body.subject.clone();
    let versions = state
        .blocking(move |memory, _| Ok(memory.history(&tenant, &subject)?))
        .await?;
    let versions: Vec<Json> = versions.iter().map(|v| v.to_json()).collect();
    Ok(axum::Json(
        json!({ "subject": body.subject, "versions": versions }),
    ))
}

/// `POST /v1/timeline`: every fact version of a tenant.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TenantBody {
    tenant: Option<String>,
}

async fn timeline(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<TenantBody>,
) -> Result<axum::Json<Json>, ApiError> {
    let tenant = resolve_tenant(&caller, body.tenant)?;
    state.known(&tenant).await?;
    let versions = state
        .blocking(move |memory, _| Ok(memory.timeline(&tenant)?))
        .await?;
    let versions: Vec<Json> = versions.iter().map(|v| v.to_json()).collect();
    Ok(axum::Json(json!({ "versions": versions })))
}

async fn forget(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<SubjectBody>,
) -> Result<axum::Json<Json>, ApiError> {
    writes(&caller)?;
    let tenant = resolve_tenant(&caller, body.tenant)?;
    state.known(&tenant).await?;
    let report = state
        .blocking(move |memory, _| Ok(memory.forget(&tenant, &body.subject)?))
        .await?;
    Ok(axum::Json(report.to_json()))
}

/// `POST /v1/language`: `{"tenant"?, "pin"?}`. With `pin` (`en`, `zh`,
/// `de`, or `none` to unpin) it pins the language the tenant's messages
/// and questions are read in (a tenant with no messages yet may be
/// pinned: pin before the first); the answer is the pin, `{"tenant",
/// "lang": code or null}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageBody {
    tenant: Option<String>,
    pin: Option<String>,
}

async fn language(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<LanguageBody>,
) -> Result<axum::Json<Json>, ApiError> {
    let tenant = resolve_tenant(&caller, body.tenant)?;
    let pin = body
        .pin
        .as_deref()
        .map(Lang::parse_pin)
        .transpose()
        .map_err(|e| ApiError::bad_request(format!("`pin`: {e}")))?;
    if pin.is_some() {
        writes(&caller)?;
    }
    let name = tenant.clone();
    let pinned = state
        .blocking(move |memory, _| {
            if let Some(pin) = pin {
                memory.pin_language(&name, pin)?;
            }
            Ok(memory.pinned_language(&name)?)
        })
        .await?;
    Ok(axum::Json(
        json!({ "tenant": tenant, "lang": pinned.map(|l| l.code()) }),
    ))
}

/// `POST /v1/consolidate`: every message not consolidated yet, now. The
/// pass covers every tenant (it is one ordered log); what it reports is
/// counts, nothing of any tenant's text.
async fn consolidate(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
) -> Result<axum::Json<Json>, ApiError> {
    writes(&caller)?;
    let report = state
        .blocking(move |memory, stop| Ok(memory.consolidate_until(&stop)?))
        .await?;
    Ok(axum::Json(report.to_json()))
}

/// `GET /v1/status`: consolidation's progress and who the caller is.
async fn status(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
) -> Result<axum::Json<Json>, ApiError> {
    let status = state
        .blocking(move |memory, _| Ok(memory.status()?))
        .await?;
    let mut answer = status.to_json();
    answer["caller"] = json!({
        "key": caller.key,
        "tenant": match &caller.scope { Scope::Tenant(t) => Some(t.as_str()), Scope::Admin => None },
        "admin": caller.scope == Scope::Admin,
        "read_only": caller.read_only,
    });
    Ok(axum::Json(answer))
}

/// `POST /v1/query`: one read-only Datalog query; a tenant's key reads its
/// own rows only (`scope.rs`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QueryBody {
    query: String,
    params: Option<serde_json::Map<String, Json>>,
    /// An admin's query scoped to one tenant, as a tenant's key is.
    tenant: Option<String>,
}

async fn run_query(
    State(state): State<AppState>,
    axum::Extension(caller): axum::Extension<Caller>,
    Body(body): Body<QueryBody>,
) -> Result<axum::Json<Json>, ApiError> {
    let tenant = match (&caller.scope, body.tenant) {
        (Scope::Admin, None) => None,
        (_, given) => Some(resolve_tenant(&caller, given)?),
    };
    let answer = state
        .blocking(move |memory, stop| {
            query::run(
                memory,
                &body.query,
                body.params.as_ref(),
                &stop,
                tenant.as_deref(),
            )
            .map_err(|e| {
                if e.stopped {
                    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "limit_exceeded", e.message)
                } else {
                    ApiError::bad_request(e.message)
                }
            })
        })
        .await?;
    Ok(axum::Json(answer))
}

async fn health() -> axum::Json<Json> {
    axum::Json(json!({ "status": "ok", "version": env!("CARGO_PKG_VERSION") }))
}

async fn openapi() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        OPENAPI,
    )
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such route: the routes are listed at /openapi.json",
    )
}
