//! The server on loopback, driven over real HTTP by a plain blocking
//! client: keys and tenants, bad input, revocation, shutdown, and many
//! clients at once.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chronolog_server::{KeyStore, Scope, ServeOptions, Server};
use serde_json::{Value as Json, json};

/// A server running on its own runtime until dropped.
struct Running {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl Running {
    fn start(db: &Path, options: ServeOptions) -> Result<Running, String> {
        let memory = chronolog_server::open_memory(db, "hashing").map_err(|e| e.to_string())?;
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let db = db.to_path_buf();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async move {
                let server = match Server::bind(&db, Arc::new(memory), &options).await {
                    Ok(server) => server,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                        return Ok(());
                    }
                };
                let addr: SocketAddr = server.local_addr().map_err(|e| e.to_string())?;
                let _ = ready_tx.send(Ok(addr));
                server
                    .run(async move {
                        let _ = stop_rx.await;
                    })
                    .await
                    .map_err(|e| e.to_string())
            })
        });
        let addr = ready_rx
            .recv_timeout(Duration::from_secs(60))
            .map_err(|e| format!("the server did not start: {e}"))??;
        Ok(Running {
            url: format!("http://{addr}"),
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }

    /// Stops the server and waits until it has closed the memory.
    fn stop(mut self) -> Result<(), String> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), String> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .map_err(|_| "the server panicked".to_string())?,
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

/// `(status, body)` of a call with `key`.
fn call(server: &Running, key: Option<&str>, method: &str, path: &str, body: Json) -> (u16, Json) {
    let url = format!("{}{path}", server.url);
    let agent = agent();
    let response = if method == "GET" {
        let mut request = agent.get(&url);
        if let Some(key) = key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        request.call()
    } else {
        let mut request = agent.post(&url);
        if let Some(key) = key {
            request = request.header("Authorization", &format!("Bearer {key}"));
        }
        request.send_json(&body)
    };
    let mut response = response.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .read_json::<Json>()
        .unwrap_or_else(|e| panic!("{method} {path} ({status}): no JSON body: {e}"));
    (status, body)
}

fn post(server: &Running, key: &str, path: &str, body: Json) -> Json {
    let (status, answer) = call(server, Some(key), "POST", path, body);
    assert_eq!(status, 200, "POST {path}: {answer}");
    answer
}

fn options() -> ServeOptions {
    ServeOptions {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..ServeOptions::default()
    }
}

struct Keys {
    alice: String,
    bob: String,
    reader: String,
    admin: String,
}

fn keys(db: &Path) -> Keys {
    let store = KeyStore::at(db);
    let add = |scope, read_only| store.add(scope, read_only).expect("add a key").1;
    Keys {
        alice: add(Scope::Tenant("alice".into()), false),
        bob: add(Scope::Tenant("bob".into()), false),
        reader: add(Scope::Tenant("alice".into()), true),
        admin: add(Scope::Admin, false),
    }
}

fn text_of(answer: &Json) -> String {
    answer.to_string().to_lowercase()
}

#[test]
fn a_tenant_key_reaches_its_own_memory_only_on_every_route() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys(dir.path());
    let server = Running::start(dir.path(), options()).expect("start");

    post(
        &server,
        &k.alice,
        "/v1/remember",
        json!({"messages": [
            {"role": "user", "text": "I work at Tencent in Shenzhen.", "at": "2021-03-01"},
            {"role": "user", "text": "My sister Mirela lives in Oslo.", "at": "2021-03-02"},
        ]}),
    );
    post(
        &server,
        &k.bob,
        "/v1/remember",
        json!({"role": "user", "text": "I play the cello on Sundays.", "at": "2022-01-01"}),
    );
    post(&server, &k.admin, "/v1/consolidate", json!({}));

    // Alice finds her own memory.
    let answer = post(
        &server,
        &k.alice,
        "/v1/recall",
        json!({"question": "Where do I work?", "rerank": 0}),
    );
    assert!(text_of(&answer).contains("tencent"), "{answer}");
    let history = post(&server, &k.alice, "/v1/history", json!({"subject": "user"}));
    assert!(text_of(&history).contains("tencent"), "{history}");

    // Bob reaches nothing of hers on any route: store as A, read as B.
    let explained = post(
        &server,
        &k.bob,
        "/v1/recall",
        json!({"question": "Where do I work? Tencent Mirela", "rerank": 0, "explain": true}),
    );
    let explained = explained["explain"]
        .as_str()
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        explained.contains("channel") || explained.contains("fus"),
        "{explained}"
    );
    for word in ["shenzhen", "oslo", "alice/"] {
        assert!(
            !explained.contains(word),
            "explain as bob shows {word}: {explained}"
        );
    }
    for (path, body) in [
        (
            "/v1/recall",
            json!({"question": "Where do I work? Tencent Mirela Oslo", "rerank": 0}),
        ),
        ("/v1/history", json!({"subject": "user"})),
        ("/v1/history", json!({"subject": "Mirela"})),
        ("/v1/timeline", json!({})),
    ] {
        let answer = post(&server, &k.bob, path, body);
        // What the memory holds, not the question's words echoed back.
        let held = if path == "/v1/recall" {
            &answer["items"]
        } else {
            &answer["versions"]
        };
        let text = text_of(held);
        for word in ["tencent", "mirela", "oslo", "shenzhen"] {
            assert!(!text.contains(word), "{path} as bob shows {word}: {answer}");
        }
    }
    // ... nor by naming her tenant, on any route, reading or writing.
    for (path, body) in [
        (
            "/v1/recall",
            json!({"tenant": "alice", "question": "Where do I work?"}),
        ),
        ("/v1/history", json!({"tenant": "alice", "subject": "user"})),
        ("/v1/timeline", json!({"tenant": "alice"})),
        (
            "/v1/forget",
            json!({"tenant": "alice", "subject": "Mirela"}),
        ),
        (
            "/v1/remember",
            json!({"tenant": "alice", "role": "user", "text": "hi"}),
        ),
        (
            "/v1/query",
            json!({"query": "?- mem_episode(I, $tenant, _, _, _, _, X).", "tenant": "alice"}),
        ),
    ] {
        let (status, answer) = call(&server, Some(&k.bob), "POST", path, body);
        assert_eq!(status, 403, "{path}: {answer}");
        assert_eq!(answer["error"]["code"], "forbidden", "{answer}");
    }
    // Datalog with a tenant's key reads that tenant's rows only: a query
    // that could read others is refused before it runs.
    for query in [
        "?- mem_episode(I, T, _, _, _, _, X).",
        "?- mem_episode(I, alice, _, _, _, _, X).",
        "?- bm25(mem_episode, \"Tencent\", 5) as (I, S, R).",
    ] {
        let (status, answer) = call(
            &server,
            Some(&k.bob),
            "POST",
            "/v1/query",
            json!({"query": query}),
        );
        assert_eq!(status, 400, "{query}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap_or("")
                .contains("tenant"),
            "{answer}"
        );
    }
    let (status, answer) = call(
        &server,
        Some(&k.bob),
        "POST",
        "/v1/query",
        json!({"query": "?- mem_episode(I, $tenant, _, _, _, _, X).", "params": {"tenant": {"sym": "alice"}}}),
    );
    assert_eq!(status, 400, "a caller may not set $tenant: {answer}");
    let rows = post(
        &server,
        &k.bob,
        "/v1/query",
        json!({"query": "?- mem_episode(I, $tenant, _, _, _, _, X)."}),
    );
    assert_eq!(rows["total"], 1, "{rows}");
    assert!(
        text_of(&rows).contains("cello") && !text_of(&rows).contains("tencent"),
        "{rows}"
    );
    // A read-only key reads and may not write.
    let answer = post(
        &server,
        &k.reader,
        "/v1/recall",
        json!({"question": "Where do I work?", "rerank": 0}),
    );
    assert!(text_of(&answer).contains("tencent"), "{answer}");
    for (path, body) in [
        ("/v1/remember", json!({"role": "user", "text": "I quit."})),
        ("/v1/forget", json!({"subject": "Mirela"})),
        ("/v1/consolidate", json!({})),
    ] {
        let (status, answer) = call(&server, Some(&k.reader), "POST", path, body);
        assert_eq!(status, 403, "{path}: {answer}");
    }
    // The admin names the tenant and may run Datalog over all of them.
    let rows = post(
        &server,
        &k.admin,
        "/v1/query",
        json!({"query": "?- mem_episode(I, T, _, _, _, _, X)."}),
    );
    assert_eq!(rows["total"], 3, "{rows}");
    // ... or scope a query to one tenant as a tenant's key would be.
    let rows = post(
        &server,
        &k.admin,
        "/v1/query",
        json!({"query": "?- mem_episode(I, $tenant, _, _, _, _, X).", "tenant": "alice"}),
    );
    assert_eq!(rows["total"], 2, "{rows}");
    let (status, answer) = call(
        &server,
        Some(&k.admin),
        "POST",
        "/v1/recall",
        json!({"question": "Where do I work?"}),
    );
    assert_eq!(status, 400, "an admin must name the tenant: {answer}");

    // Alice's forget is hers: Bob's cello stays.
    let report = post(
        &server,
        &k.alice,
        "/v1/forget",
        json!({"subject": "Mirela"}),
    );
    assert_eq!(report["episodes"], 1, "{report}");
    let answer = post(
        &server,
        &k.bob,
        "/v1/recall",
        json!({"question": "What instrument do I play?", "rerank": 0}),
    );
    assert!(text_of(&answer).contains("cello"), "{answer}");
    server.stop().expect("stop");
}

#[test]
fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys(dir.path());
    let server = Running::start(
        dir.path(),
        ServeOptions {
            max_body_bytes: 64 << 10,
            ..options()
        },
    )
    .expect("start");
    let agent = agent();
    let url = |path: &str| format!("{}{path}", server.url);
    let bearer = format!("Bearer {}", k.alice);

    // Not JSON, JSON of the wrong shape, an unknown field.
    for raw in [
        "{\"role\": \"user\", \"text\": ",
        "[1, 2]",
        "{\"role\": \"user\", \"text\": \"x\", \"mood\": 3}",
    ] {
        let mut response = agent
            .post(&url("/v1/remember"))
            .header("Authorization", &bearer)
            .content_type("application/json")
            .send(raw)
            .expect("send");
        assert_eq!(response.status().as_u16(), 400, "{raw}");
        let body: Json = response.body_mut().read_json().expect("json");
        assert_eq!(body["error"]["code"], "bad_request", "{body}");
        assert!(!body["error"]["message"].as_str().unwrap_or("").is_empty());
    }
    // A body over the limit.
    let huge = json!({"role": "user", "text": "x".repeat(100 << 10)});
    let (status, body) = call(&server, Some(&k.alice), "POST", "/v1/remember", huge);
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["code"], "too_large", "{body}");

    // Bad values: each says which field.
    for (body, field) in [
        (
            json!({"role": "user", "text": "hi", "at": "2024-06-01T10:00:00+25:00"}),
            "at",
        ),
        (json!({"role": "user", "text": "   "}), "text"),
        (json!({"role": "", "text": "hello"}), "role"),
        (
            json!({"messages": [{"role": "user", "text": "fine"}, {"role": "user", "text": ""}]}),
            "text",
        ),
        (json!({"role": "user"}), "text"),
    ] {
        let (status, answer) = call(
            &server,
            Some(&k.alice),
            "POST",
            "/v1/remember",
            body.clone(),
        );
        assert_eq!(status, 400, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(field), "{body}: {message}");
    }
    let (status, answer) = call(
        &server,
        Some(&k.alice),
        "POST",
        "/v1/recall",
        json!({"question": "Where?", "as_of": "yesterday-ish"}),
    );
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("as_of")
    );

    // Nobody has stored anything: a read of a tenant is a 404, not an
    // empty memory.
    let (status, answer) = call(
        &server,
        Some(&k.alice),
        "POST",
        "/v1/recall",
        json!({"question": "Where do I work?"}),
    );
    assert_eq!(status, 404, "{answer}");
    assert_eq!(answer["error"]["code"], "unknown_tenant", "{answer}");

    // Keys: none, malformed, unknown.
    for key in [
        None,
        Some("letmein"),
        Some("chronolog_00000000_".to_string() + &"0".repeat(64)).as_deref(),
    ] {
        let (status, answer) = call(&server, key, "GET", "/v1/status", Json::Null);
        assert_eq!(status, 401, "{key:?}: {answer}");
        assert_eq!(answer["error"]["code"], "unauthorized");
    }
    let (status, answer) = call(&server, None, "GET", "/nowhere", Json::Null);
    assert_eq!(status, 404, "{answer}");

    // Nothing was stored by any of it.
    let (status, answer) = call(&server, Some(&k.admin), "GET", "/v1/status", Json::Null);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["last_episode"], 0, "{answer}");
    assert_eq!(answer["caller"]["admin"], true, "{answer}");
    server.stop().expect("stop");
}

#[test]
fn health_and_the_openapi_description_need_no_key_and_list_every_route() {
    let dir = tempfile::tempdir().expect("tempdir");
    keys(dir.path());
    let server = Running::start(dir.path(), options()).expect("start");
    let (status, health) = call(&server, None, "GET", "/health", Json::Null);
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    let (status, spec) = call(&server, None, "GET", "/openapi.json", Json::Null);
    assert_eq!(status, 200);
    let paths = spec["paths"].as_object().expect("paths");
    for route in [
        "/health",
        "/openapi.json",
        "/v1/remember",
        "/v1/recall",
        "/v1/history",
        "/v1/timeline",
        "/v1/forget",
        "/v1/consolidate",
        "/v1/language",
        "/v1/status",
        "/v1/query",
        "/mcp",
    ] {
        assert!(paths.contains_key(route), "{route} is not described");
    }
    server.stop().expect("stop");
}

#[test]
fn the_server_will_not_start_without_a_key_or_in_clear_on_the_network() {
    let dir = tempfile::tempdir().expect("tempdir");
    let error = Running::start(dir.path(), options())
        .err()
        .expect("refused");
    assert!(error.contains("no key"), "{error}");
    let open = ServeOptions {
        listen: SocketAddr::from(([0, 0, 0, 0], 0)),
        ..options()
    };
    keys(dir.path());
    let error = Running::start(dir.path(), open).err().expect("refused");
    assert!(error.contains("not a loopback address"), "{error}");
    // Without keys on purpose, on loopback: every caller is an admin.
    let server = Running::start(
        dir.path(),
        ServeOptions {
            insecure_no_auth: true,
            ..options()
        },
    )
    .expect("start");
    let (status, answer) = call(&server, None, "GET", "/v1/status", Json::Null);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["caller"]["admin"], true);
    server.stop().expect("stop");
}

#[test]
fn a_revoked_key_is_refused_from_the_next_request_and_a_new_one_works_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys(dir.path());
    let server = Running::start(dir.path(), options()).expect("start");
    let (status, _) = call(&server, Some(&k.bob), "GET", "/v1/status", Json::Null);
    assert_eq!(status, 200);
    // The command line changes the file while the server runs.
    let store = KeyStore::at(dir.path());
    let id = &k.bob["chronolog_".len().."chronolog_".len() + 8];
    assert!(store.revoke(id).expect("revoke"));
    let (status, _) = call(&server, Some(&k.bob), "GET", "/v1/status", Json::Null);
    assert_eq!(status, 401);
    let (_, carol) = store
        .add(Scope::Tenant("carol".into()), false)
        .expect("add");
    let (status, answer) = call(&server, Some(&carol), "GET", "/v1/status", Json::Null);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["caller"]["tenant"], "carol");
    server.stop().expect("stop");
}

#[test]
fn shutdown_releases_the_database_with_every_acknowledged_message_in_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys(dir.path());
    let server = Running::start(dir.path(), options()).expect("start");
    let ids = post(
        &server,
        &k.alice,
        "/v1/remember",
        json!({"role": "user", "text": "I adopted a cat called Luna."}),
    );
    server.stop().expect("stop");
    // The lock is released: the directory opens again in this process.
    let memory = chronolog_server::open_memory(dir.path(), "hashing").expect("reopen");
    let episodes = memory
        .engine()
        .session()
        .run("?- mem_episode(I, alice, _, _, _, _, X).")
        .expect("query");
    assert!(format!("{episodes:?}").contains("Luna"), "{ids}");
}

#[test]
fn sixteen_clients_over_four_tenants_lose_nothing_and_see_no_other_tenant() {
    const WRITES: usize = 12;
    let dir = tempfile::tempdir().expect("tempdir");
    let store = KeyStore::at(dir.path());
    let tenants = ["t0", "t1", "t2", "t3"];
    let tenant_keys: Vec<String> = tenants
        .iter()
        .map(|t| store.add(Scope::Tenant((*t).into()), false).expect("key").1)
        .collect();
    let (_, admin) = store.add(Scope::Admin, false).expect("admin");
    let server = Arc::new(Running::start(dir.path(), options()).expect("start"));
    // Every tenant exists before the readers start.
    for (t, key) in tenant_keys.iter().enumerate() {
        post(
            &server,
            key,
            "/v1/remember",
            json!({"role": "user", "text": format!("Tenant {t} keeps a diary.")}),
        );
    }

    let mut threads = Vec::new();
    for client in 0..16 {
        let server = server.clone();
        let t = client % tenants.len();
        let key = tenant_keys[t].clone();
        let tenant = tenants[t];
        threads.push(std::thread::spawn(move || -> (Vec<String>, usize) {
            let mut acknowledged = Vec::new();
            let mut seen = 0;
            for i in 0..WRITES {
                if client < 8 {
                    let text = format!("Note {i} of writer {client}: I visited town number {i}.");
                    let answer = post(&server, &key, "/v1/remember", json!({"role": "user", "text": text}));
                    let id = answer["episodes"][0].as_str().unwrap_or_default().to_string();
                    acknowledged.push(id);
                } else {
                    let answer = post(
                        &server,
                        &key,
                        "/v1/recall",
                        json!({"question": format!("Which town did I visit, note {i}?"), "rerank": 0}),
                    );
                    for item in answer["items"].as_array().into_iter().flatten() {
                        seen += 1;
                        let id = item["id"].as_str().unwrap_or_default();
                        assert!(
                            id.starts_with(&format!("{tenant}/")) || item["kind"] == "fact",
                            "tenant {tenant} was shown {item}"
                        );
                        let text = item["text"].as_str().unwrap_or_default();
                        if let Some(rest) = text.split("of writer ").nth(1) {
                            let writer: usize = rest
                                .split(':')
                                .next()
                                .and_then(|w| w.trim().parse().ok())
                                .unwrap_or(usize::MAX);
                            assert_eq!(writer % 4, t, "tenant {tenant} was shown {text}");
                        }
                    }
                }
            }
            (acknowledged, seen)
        }));
    }
    let mut acknowledged = Vec::new();
    let mut seen = 0;
    for thread in threads {
        let (ids, items) = thread.join().expect("a client failed");
        acknowledged.extend(ids);
        seen += items;
    }
    assert_eq!(acknowledged.len(), 8 * WRITES);
    assert!(
        seen > 8 * WRITES,
        "the readers were shown almost nothing ({seen} items)"
    );
    let rows = post(
        &server,
        &admin,
        "/v1/query",
        json!({"query": "?- mem_episode(I, _, _, _, _, _, _)."}),
    );
    let stored = rows["rows"].to_string();
    for id in &acknowledged {
        assert!(stored.contains(&format!("\"{id}\"")), "{id} is lost");
    }
    assert_eq!(rows["total"], 8 * WRITES + 4, "{rows}");
}

#[test]
fn a_client_that_goes_away_stops_the_query_it_started() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys(dir.path());
    let server = Running::start(dir.path(), options()).expect("start");
    let messages: Vec<Json> = (0..200)
        .map(|i| json!({"role": "user", "text": format!("message {i}")}))
        .collect();
    post(
        &server,
        &k.alice,
        "/v1/remember",
        json!({"messages": messages}),
    );
    // 200^4 rows: it would run into its 10 s limit.
    let impatient: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_millis(500)))
        .build()
        .into();
    let gave_up = impatient
        .post(&format!("{}/v1/query", server.url))
        .header("Authorization", &format!("Bearer {}", k.admin))
        .send_json(json!({"query": "?- mem_episode(A, _, _, _, _, _, _), mem_episode(B, _, _, _, _, _, _), \
                                    mem_episode(C, _, _, _, _, _, _), mem_episode(D, _, _, _, _, _, _)."}));
    assert!(gave_up.is_err(), "the query answered in 500 ms");
    // The server drains and closes the memory only once the query has
    // stopped: well before its own limit when the disconnect stopped it.
    let started = std::time::Instant::now();
    server.stop().expect("stop");
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "the query ran on for {took:?}"
    );
}

#[test]
fn a_tenant_pins_its_language_and_a_message_may_name_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys(dir.path());
    let server = Running::start(dir.path(), options()).expect("start");
    // Not pinned; a tenant with no messages yet may be pinned.
    let answer = post(&server, &k.alice, "/v1/language", json!({}));
    assert_eq!(answer, json!({"tenant": "alice", "lang": null}));
    let answer = post(&server, &k.alice, "/v1/language", json!({"pin": "de"}));
    assert_eq!(answer, json!({"tenant": "alice", "lang": "de"}));
    // A key that only reads may see the pin but not set it; a bad code
    // and another tenant are refused.
    let answer = post(&server, &k.reader, "/v1/language", json!({}));
    assert_eq!(answer["lang"], "de");
    let (status, _) = call(
        &server,
        Some(&k.reader),
        "POST",
        "/v1/language",
        json!({"pin": "en"}),
    );
    assert_eq!(status, 403);
    let (status, body) = call(
        &server,
        Some(&k.alice),
        "POST",
        "/v1/language",
        json!({"pin": "fr"}),
    );
    assert_eq!(status, 400, "{body}");
    assert!(text_of(&body).contains("not a language served"), "{body}");
    let (status, _) = call(
        &server,
        Some(&k.alice),
        "POST",
        "/v1/language",
        json!({"tenant": "bob", "pin": "en"}),
    );
    assert_eq!(status, 403);
    // Read in German: the pinned tenant's short message, and bob's whose
    // message names its language; detection alone reads it as English.
    post(
        &server,
        &k.alice,
        "/v1/remember",
        json!({"role": "user", "text": "Ich mag Jazz.", "at": "2024-01-01"}),
    );
    post(
        &server,
        &k.bob,
        "/v1/remember",
        json!({"messages": [{"role": "user", "text": "Ich mag Jazz.", "at": "2024-01-01", "lang": "de"}]}),
    );
    let (status, body) = call(
        &server,
        Some(&k.bob),
        "POST",
        "/v1/remember",
        json!({"role": "user", "text": "Ich mag Jazz.", "lang": "klingon"}),
    );
    assert_eq!(status, 400, "{body}");
    post(&server, &k.admin, "/v1/consolidate", json!({}));
    for key in [&k.alice, &k.bob] {
        let answer = post(&server, key, "/v1/history", json!({"subject": "user"}));
        assert!(text_of(&answer).contains("jazz"), "{answer}");
    }
    // Unpinned, and still unpinned for the next server.
    let answer = post(&server, &k.alice, "/v1/language", json!({"pin": "none"}));
    assert_eq!(answer["lang"], Json::Null);
    server.stop().expect("stop");
    let server = Running::start(dir.path(), options()).expect("start");
    assert_eq!(
        post(&server, &k.alice, "/v1/language", json!({}))["lang"],
        Json::Null
    );
    server.stop().expect("stop");
}
