//! Extraction and consolidation on LoCoMo's dev conversations: each
//! conversation is one tenant, each turn one episode said by its speaker
//! at its session's date; everything is consolidated, and the report says
//! how many facts each conversation yields (by predicate), how long
//! ingestion and consolidation took, and what share of consolidation the
//! embedder took (the same run with the hashing embedder, which costs
//! next to nothing, is the baseline).
//!
//! ```text
//! cargo run --release -p chronolog-memory --example consolidate_locomo -- ../shared/data/locomo10-dev.json
//! cargo run --release -p chronolog-memory --example consolidate_locomo -- ../shared/data/locomo10-dev.json --sample 40
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use chronolog_engine::{Embedder, Engine, HashingEmbedder, Store, Timestamp};
use chronolog_memory::{Memory, Message, Options};
use serde_json::Value as Json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: consolidate_locomo LOCOMO.json [--sample N]")?;
    let sample: usize = match (args.next().as_deref(), args.next()) {
        (Some("--sample"), Some(n)) => n.parse()?,
        _ => 0,
    };
    let data: Json = serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let conversations = data.as_array().ok_or("expected a list of conversations")?;
    let loaded: Vec<(String, Vec<Message>)> = conversations.iter().map(load).collect();
    let turns: usize = loaded.iter().map(|(_, m)| m.len()).sum();

    let (model, notice) = chronolog_engine::default_embedder_with_notice();
    if let Some(notice) = notice {
        eprintln!("{notice}");
    }
    let hashing: Arc<dyn Embedder> = Arc::new(HashingEmbedder::new(384));
    let mut seconds = Vec::new();
    for (name, embedder) in [("hashing", hashing), ("model", model)] {
        let memory = Memory::with_engine(
            Engine::with_embedder(Store::in_memory(), embedder.clone()),
            Options::manual(),
        )?;
        let started = Instant::now();
        for (tenant, messages) in &loaded {
            memory.add_batch(tenant, messages)?;
        }
        let added = started.elapsed().as_secs_f64();
        let report = memory.consolidate_now()?;
        let consolidated = started.elapsed().as_secs_f64() - added;
        seconds.push(consolidated);
        println!(
            "{name} ({}): {turns} turns added in {added:.3} s; consolidated in {consolidated:.2} s \
             ({:.0} messages/s): {report:?}",
            embedder.name(),
            turns as f64 / consolidated,
        );
        if name == "model" {
            for (tenant, _) in &loaded {
                let facts = memory.timeline(tenant)?;
                let mut by_predicate: BTreeMap<&str, usize> = BTreeMap::new();
                for f in &facts {
                    *by_predicate.entry(f.predicate.as_str()).or_default() += 1;
                }
                println!("{tenant}: {} facts {by_predicate:?}", facts.len());
                for f in facts.iter().take(sample) {
                    println!(
                        "  {} {} {:?} [{} .. {}]  <- {:?}",
                        f.subject, f.predicate, f.object, f.valid.from, f.valid.to, f.text
                    );
                }
            }
        }
    }
    if let [hashing, model] = seconds[..] {
        println!(
            "embedding share of consolidation: {:.0}%",
            100.0 * (model - hashing).max(0.0) / model
        );
    }
    Ok(())
}

/// A conversation's turns as messages: speaker, text (with any image
/// caption), the session's date, the session's name.
fn load(conv: &Json) -> (String, Vec<Message>) {
    let tenant = conv["sample_id"].as_str().unwrap_or("conv").to_string();
    let mut messages = Vec::new();
    let Some(sessions) = conv["conversation"].as_object() else {
        return (tenant, messages);
    };
    let mut keys: Vec<(u32, &String)> = sessions
        .keys()
        .filter_map(|k| {
            let n = k.strip_prefix("session_")?;
            n.parse().ok().map(|n| (n, k))
        })
        .collect();
    keys.sort();
    for (n, key) in keys {
        let date = sessions
            .get(&format!("session_{n}_date_time"))
            .and_then(Json::as_str)
            .and_then(parse_date);
        for turn in sessions[key].as_array().into_iter().flatten() {
            let mut text = turn["text"].as_str().unwrap_or_default().to_string();
            if let Some(caption) = turn["blip_caption"].as_str() {
                text = format!("{text} [image: {caption}]");
            }
            let mut m = Message::new(turn["speaker"].as_str().unwrap_or("unknown"), text)
                .session(key.clone());
            if let Some(at) = date {
                m = m.at(at);
            }
            messages.push(m);
        }
    }
    (tenant, messages)
}

/// "1:56 pm on 8 May, 2023" as UTC.
fn parse_date(text: &str) -> Option<Timestamp> {
    let dt = jiff::civil::DateTime::strptime("%I:%M %p on %d %B, %Y", text.trim()).ok()?;
    let ts = jiff::tz::TimeZone::UTC.to_timestamp(dt).ok()?;
    Some(Timestamp(ts.as_microsecond()))
}
