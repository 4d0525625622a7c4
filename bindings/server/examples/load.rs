//! The server under load on loopback: 8 writers remembering and 8 readers
//! recalling over 4 tenants at once, each client with its tenant's key;
//! prints throughput and latency percentiles per kind of call.
//!
//! `cargo run --release -p chronolog-server --example load -- [OPS_PER_CLIENT] [EMBEDDER]`
//! (default 200 and `hashing`; `model` embeds with the default sentence model as a
//! deployment would, with the consolidation worker running beside).
//! Recalls run without the reranker (`rerank: 0`), whose seconds per call
//! would measure the model, not the server.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chronolog_server::{KeyStore, Scope, ServeOptions, Server};
use serde_json::{Value as Json, json};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let ops: usize = args.next().map_or(Ok(200), |a| a.parse())?;
    let embedder = args.next().unwrap_or_else(|| "hashing".into());
    let dir = tempfile::tempdir()?;
    let store = KeyStore::at(dir.path());
    let tenants = ["t0", "t1", "t2", "t3"];
    let keys = tenants
        .iter()
        .map(|t| {
            store
                .add(Scope::Tenant((*t).into()), false)
                .map(|(_, key)| key)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let memory = chronolog_server::open_memory(dir.path(), &embedder)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let options = ServeOptions {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        ..ServeOptions::default()
    };
    let server = runtime.block_on(Server::bind(dir.path(), Arc::new(memory), &options))?;
    let url = format!("http://{}", server.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = runtime.spawn(server.run(async move {
        let _ = stopped.await;
    }));

    // Each tenant has a message before the readers start.
    for key in &keys {
        call(
            &url,
            key,
            "/v1/remember",
            &json!({"role": "user", "text": "I keep a diary."}),
        )?;
    }
    let started = Instant::now();
    let clients: Vec<_> = (0..16)
        .map(|client| {
            let (url, key) = (url.clone(), keys[client % keys.len()].clone());
            std::thread::spawn(move || -> Result<Vec<Duration>, String> {
                let mut latencies = Vec::with_capacity(ops);
                for i in 0..ops {
                    let (path, body) = if client < 8 {
                        let text = format!(
                            "Note {i} from client {client}: today I walked to the lake and read."
                        );
                        ("/v1/remember", json!({"role": "user", "text": text}))
                    } else {
                        let question = format!("What did I do on day {i} at the lake?");
                        ("/v1/recall", json!({"question": question, "rerank": 0}))
                    };
                    let t = Instant::now();
                    call(&url, &key, path, &body).map_err(|e| e.to_string())?;
                    latencies.push(t.elapsed());
                }
                Ok(latencies)
            })
        })
        .collect();
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    for (client, handle) in clients.into_iter().enumerate() {
        let latencies = handle.join().map_err(|_| "a client panicked")??;
        if client < 8 {
            writes.extend(latencies);
        } else {
            reads.extend(latencies);
        }
    }
    let wall = started.elapsed();
    println!(
        "16 clients (8 writers, 8 readers, 4 tenants), {ops} calls each, embedder {embedder}: \
         {} calls in {:.1} s, {:.0} calls/s",
        writes.len() + reads.len(),
        wall.as_secs_f64(),
        (writes.len() + reads.len()) as f64 / wall.as_secs_f64()
    );
    for (name, mut latencies) in [("remember", writes), ("recall", reads)] {
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
        println!(
            "{name:>8}: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            at(0.5).as_secs_f64() * 1e3,
            at(0.99).as_secs_f64() * 1e3,
            at(1.0).as_secs_f64() * 1e3
        );
    }
    let _ = stop.send(());
    runtime.block_on(serving)??;
    Ok(())
}

fn call(url: &str, key: &str, path: &str, body: &Json) -> Result<Json, Box<dyn std::error::Error>> {
    let mut response = ureq::post(&format!("{url}{path}"))
        .header("Authorization", &format!("Bearer {key}"))
        .send_json(body)?;
    Ok(response.body_mut().read_json()?)
}
