//! A bounded random-program driver for the language (cargo-fuzz needs a
//! nightly toolchain, which is not available here): thousands of programs
//! built from the grammar's pieces, well-formed and not — facts of mixed
//! types, rules that recurse, negate and aggregate, deep and long
//! expressions, retrieval with absurd `k`, history with modifiers — run
//! against one evolving database. Every program must come back as answers
//! or a typed error that renders with a caret; none may panic, and none may
//! run past its limits.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use chronolog_engine::{Limits, Session};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

const PROGRAMS: usize = 20_000;

const RELATIONS: [&str; 6] = ["e", "w", "n", "doc", "nope", "r"];
const VARS: [&str; 5] = ["X", "Y", "Z", "_", "_Q"];

fn constant(rng: &mut StdRng) -> String {
    match rng.gen_range(0..12) {
        0 => rng.gen_range(-5i64..20).to_string(),
        1 => ["9223372036854775807", "-9223372036854775807", "0", "-0"]
            .choose(rng)
            .map_or_else(String::new, |s| s.to_string()),
        2 => format!("{:.2}", rng.gen_range(-3.0f64..30.0)),
        3 => ["alice", "bob", "acme", "zed", "Mia"]
            .choose(rng)
            .map_or_else(String::new, |s| s.to_string()),
        4 => [
            "\"alice\"",
            "\"x\\u{41}y\"",
            "\"\"",
            "\"a: b - c\"",
            "\"notes: pricing\"",
        ]
        .choose(rng)
        .map_or_else(String::new, |s| s.to_string()),
        5 => [
            "2021-03-01",
            "2024-06-01T10:00:00Z",
            "2021-02-30",
            "9999-12-31",
            "1970-01-01",
        ]
        .choose(rng)
        .map_or_else(String::new, |s| s.to_string()),
        6 => ["true", "false", "null"]
            .choose(rng)
            .map_or_else(String::new, |s| s.to_string()),
        7 => format!("${}", ["p", "t", "missing"].choose(rng).unwrap_or(&"p")),
        _ => VARS.choose(rng).map_or_else(String::new, |s| s.to_string()),
    }
}

fn expr(rng: &mut StdRng, depth: u32) -> String {
    if depth == 0 || rng.gen_bool(0.5) {
        return constant(rng);
    }
    match rng.gen_range(0..40) {
        5..=39 => VARS.choose(rng).map_or_else(String::new, |s| s.to_string()),
        0 => format!("({})", expr(rng, depth - 1)),
        1 => format!("-{}", expr(rng, depth - 1)),
        2 => {
            let op = ["+", "-", "*", "/"].choose(rng).unwrap_or(&"+");
            format!("{} {op} {}", expr(rng, depth - 1), expr(rng, depth - 1))
        }
        3 => format!(
            "{}{}{}",
            "(".repeat(rng.gen_range(100..300)),
            constant(rng),
            ")".repeat(rng.gen_range(100..300))
        ),
        _ => format!("1{}", " + 1".repeat(rng.gen_range(1..400))),
    }
}

fn atom(rng: &mut StdRng) -> String {
    let rel = RELATIONS.choose(rng).unwrap_or(&"e");
    // Mostly the declared arity (every relation here has two columns but
    // `r`, derived with one or two), sometimes not.
    let arity = if rng.gen_bool(0.85) {
        2
    } else {
        rng.gen_range(0..4)
    };
    let args: Vec<String> = (0..arity).map(|_| expr(rng, 2)).collect();
    format!("{rel}({})", args.join(", "))
}

fn ranked(rng: &mut StdRng, depth: u32) -> String {
    let k = ["0", "1", "5", "4294967295", "-1", "10000000", "$p"]
        .choose(rng)
        .unwrap_or(&"5");
    let column = ["a", "s", "score", "at", "when"]
        .choose(rng)
        .unwrap_or(&"a");
    match rng.gen_range(0..6) {
        0 => format!("near(doc, {}, {k})", constant(rng)),
        1 => format!("bm25(doc, {}, {k})", constant(rng)),
        2 => format!("hops({}, {})", constant(rng), rng.gen_range(-1..4)),
        3 => format!("top(n, {column}, {k}, s = {})", constant(rng)),
        4 => format!("decayed(m, {column}, at, {}, {k})", constant(rng)),
        _ if depth > 0 => format!(
            "rrf({}, {})",
            ranked(rng, depth - 1),
            ranked(rng, depth - 1)
        ),
        _ => format!("bm25(doc, \"alice\", {k})"),
    }
}

fn body(rng: &mut StdRng) -> String {
    let n = rng.gen_range(1..4);
    let parts: Vec<String> = (0..n)
        .map(|_| match rng.gen_range(0..8) {
            0 => format!("not {}", atom(rng)),
            1 => {
                let op = ["=", "!=", "<", "<=", ">", ">="]
                    .choose(rng)
                    .unwrap_or(&"=");
                format!("{} {op} {}", expr(rng, 2), expr(rng, 2))
            }
            2 => format!("{} as (X, S, R)", ranked(rng, 2)),
            _ => atom(rng),
        })
        .collect();
    parts.join(", ")
}

fn statement(rng: &mut StdRng) -> String {
    let modifiers = |rng: &mut StdRng| {
        let mut m = String::new();
        for _ in 0..rng.gen_range(0..3) {
            m += match rng.gen_range(0..4) {
                0 => " as_of 2022-01-01",
                1 => " known_at 2021-01-01",
                2 => " order by X desc",
                _ => " limit 3",
            };
        }
        m
    };
    match rng.gen_range(0..10) {
        0 => format!("{} valid {}.", atom(rng), constant(rng)),
        1 => format!("retract {}.", atom(rng)),
        2 => format!("correct {}.", atom(rng)),
        3 => {
            let head = ["r(X)", "r(X, count(Y))", "r(sum(X))", "r(X, Y)", "e(X, Y)"]
                .choose(rng)
                .unwrap_or(&"r(X)");
            format!("{head} :- {}.", body(rng))
        }
        4 => format!("?- history {}{}.", atom(rng), modifiers(rng)),
        5 => format!("?- {}{}.", ranked(rng, 3), modifiers(rng)),
        6 => format!("let t = {}.", expr(rng, 2)),
        7 => {
            // Text that is not quite a program: truncated or doubled.
            let s = format!("?- {}.", body(rng));
            let cut = rng.gen_range(0..=s.len());
            s.get(..cut).unwrap_or(&s).to_string()
        }
        _ => format!("?- {}{}.", body(rng), modifiers(rng)),
    }
}

#[test]
fn random_programs_never_panic_and_errors_render() {
    let mut db = Session::in_memory();
    db.run(
        ":create e(a: int, b: int). :create w(p: sym key, c: sym).
         :create n(a: int, s: sym). :create doc(id: sym key, text: str search embed).
         e(1, 2). e(2, 3). e(3, 1). w(alice, acme) valid 2021-03-01. n(3, x).
         doc(a, \"alice works at acme\"). doc(b, \"notes: pricing - the plan\").
         :create m(id: sym key, score: float, at: time).
         m(alice, 2.0, 2024-01-01). m(bob, 0.5, 2025-06-01).",
    )
    .expect("setup");
    let mut rng = StdRng::seed_from_u64(0xF022);
    let (mut answered, mut refused) = (0usize, 0usize);
    let started = Instant::now();
    for i in 0..PROGRAMS {
        // Mostly one statement, sometimes a script of several (a failing
        // statement stops the rest).
        let n = if rng.gen_bool(0.8) {
            1
        } else {
            rng.gen_range(2..4)
        };
        let program: Vec<String> = (0..n).map(|_| statement(&mut rng)).collect();
        let program = program.join("\n");
        let limits = Limits {
            deadline: Some(Instant::now() + Duration::from_millis(500)),
            max_memory: Some(64 << 20),
            ..Limits::default()
        };
        let params = std::collections::HashMap::new();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            match db.run_with(&program, &params, &limits) {
                Ok(_) => true,
                Err(e) => {
                    let shown = e.render(&program);
                    assert!(!shown.is_empty(), "program {i}: an empty error");
                    false
                }
            }
        }));
        match outcome {
            Ok(true) => answered += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("program {i} panicked:\n{program}"),
        }
    }
    eprintln!(
        "{PROGRAMS} random programs: {answered} answered, {refused} refused with an error, 0 panics, in {:.1?}",
        started.elapsed()
    );
    assert!(
        answered > PROGRAMS / 20,
        "the generator makes some valid programs"
    );
}
