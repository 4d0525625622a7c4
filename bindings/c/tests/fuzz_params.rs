//! A bounded random driver for the C ABI's JSON parameters (cargo-fuzz
//! needs nightly, which is not available here): thousands of calls to
//! `chronolog_execute` with parameter text that is well-formed, wrongly
//! typed, deeply nested, truncated or not JSON at all, against scripts that
//! use the parameters in facts, lookups, arithmetic, time travel and
//! retrieval. Every call must return a status with a message when it is
//! not OK, and never an internal error (a caught panic).

#![allow(unsafe_code)] // It drives the C ABI, whose functions are unsafe to call.

use std::ffi::{CStr, CString, c_char};

use chronolog::{
    ChronologStatus, chronolog_close, chronolog_execute, chronolog_free_string,
    chronolog_last_error, chronolog_open,
};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

const CALLS: usize = 6_000;

const SCRIPTS: [&str; 10] = [
    "?- w($p, C).",
    "w($p, acme) valid $t.",
    "n($n, $p).",
    "?- near(doc, $v, 3).",
    "?- bm25(doc, $p, 3).",
    "?- X = $n + 1.",
    "?- n(X, S), X < $n limit 2.",
    "?- w(P, C) as_of $t known_at $t.",
    "?- rrf(near(doc, $p, 2), bm25(doc, $p, 2)).",
    "?- history w($p, C).",
];

fn json_value(rng: &mut StdRng, depth: u32) -> String {
    match rng.gen_range(0..14) {
        0 => "null".into(),
        1 => ["true", "false"].choose(rng).unwrap_or(&"true").to_string(),
        2 => rng.gen_range(-1_000i64..1_000).to_string(),
        3 => [
            "9223372036854775807",
            "-9223372036854775808",
            "1e400",
            "-0",
            "3.5",
            "18446744073709551616",
        ]
        .choose(rng)
        .unwrap_or(&"0")
        .to_string(),
        4 => format!(
            "{:?}",
            ["alice", "", "notes: pricing", "é漢字", "x\\u0041"]
                .choose(rng)
                .unwrap_or(&"a")
        ),
        5 => format!(
            "{{\"{}\": {}}}",
            ["sym", "time", "str", "vec", "nope"]
                .choose(rng)
                .unwrap_or(&"sym"),
            json_value(rng, depth.saturating_sub(1))
        ),
        6 => format!(
            "{{\"time\": {:?}}}",
            ["2022-01-01", "2021-02-30", "yesterday", "9999-12-31"]
                .choose(rng)
                .unwrap_or(&"x")
        ),
        7 => format!(
            "{{\"sym\": {:?}}}",
            ["alice", "bob", "", "A B"].choose(rng).unwrap_or(&"x")
        ),
        8 if depth > 0 => {
            let n = rng.gen_range(0..5);
            let items: Vec<String> = (0..n).map(|_| json_value(rng, depth - 1)).collect();
            format!("[{}]", items.join(", "))
        }
        9 => format!(
            "[{}]",
            (0..384)
                .map(|i| format!("{}.5", i % 7))
                .collect::<Vec<_>>()
                .join(",")
        ),
        10 => format!(
            "{}1{}",
            "[".repeat(rng.gen_range(100..3000)),
            "]".repeat(rng.gen_range(0..3000))
        ),
        _ => rng.gen_range(0.0f64..10.0).to_string(),
    }
}

fn params(rng: &mut StdRng) -> Option<String> {
    let text = match rng.gen_range(0..10) {
        0 => return None,
        1 => ["", "{", "[]", "42", "\"p\"", "{\"p\":}", "{'p': 1}"]
            .choose(rng)
            .unwrap_or(&"")
            .to_string(),
        _ => {
            let names = ["p", "t", "n", "v", "q"];
            let mut entries = Vec::new();
            for name in names {
                if rng.gen_bool(0.7) {
                    entries.push(format!("\"{name}\": {}", json_value(rng, 3)));
                }
            }
            format!("{{{}}}", entries.join(", "))
        }
    };
    if rng.gen_bool(0.05) && !text.is_empty() {
        let cut = rng.gen_range(0..text.len());
        return text.get(..cut).map(str::to_string);
    }
    Some(text)
}

fn last_error() -> Option<String> {
    let ptr = chronolog_last_error();
    // SAFETY: null or a NUL-terminated string valid until the next call.
    (!ptr.is_null()).then(|| {
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned()
    })
}

#[test]
fn random_parameters_get_a_status_never_an_internal_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = CString::new(dir.path().join("db").to_string_lossy().as_bytes()).expect("path");
    let mut db = 0u64;
    // SAFETY: a valid C string and a valid out pointer.
    assert_eq!(
        unsafe { chronolog_open(path.as_ptr(), &mut db) },
        ChronologStatus::Ok
    );
    let setup = CString::new(
        ":create w(p: sym key, c: sym). :create n(x: int, s: sym).
         :create doc(id: sym key, text: str search embed, v: vec<384>).",
    )
    .expect("setup");
    let mut out: *mut c_char = std::ptr::null_mut();
    // SAFETY: valid strings and out pointer.
    let status = unsafe { chronolog_execute(db, setup.as_ptr(), std::ptr::null(), &mut out) };
    assert_eq!(status, ChronologStatus::Ok, "{:?}", last_error());
    // SAFETY: returned by the library.
    unsafe { chronolog_free_string(out) };

    let mut rng = StdRng::seed_from_u64(0xC0_FFEE);
    let mut by_status = std::collections::BTreeMap::new();
    for i in 0..CALLS {
        let script = SCRIPTS.choose(&mut rng).unwrap_or(&SCRIPTS[0]);
        let params = params(&mut rng);
        let script_c = CString::new(*script).expect("script");
        let params_c = params.as_deref().map(|p| CString::new(p).expect("no NUL"));
        let mut out: *mut c_char = std::ptr::null_mut();
        // SAFETY: valid strings (or null) and a valid out pointer.
        let status = unsafe {
            chronolog_execute(
                db,
                script_c.as_ptr(),
                params_c.as_ref().map_or(std::ptr::null(), |p| p.as_ptr()),
                &mut out,
            )
        };
        assert_ne!(
            status,
            ChronologStatus::InternalError,
            "call {i}: {script} with {params:?}: {:?}",
            last_error()
        );
        if status == ChronologStatus::Ok {
            assert!(!out.is_null());
            // SAFETY: returned by the library, freed once.
            assert_eq!(unsafe { chronolog_free_string(out) }, ChronologStatus::Ok);
        } else {
            assert!(out.is_null(), "call {i}: out is cleared on error");
            assert!(
                last_error().is_some_and(|m| !m.is_empty()),
                "call {i}: a message"
            );
        }
        *by_status.entry(format!("{status:?}")).or_insert(0usize) += 1;
    }
    eprintln!("{CALLS} calls with random parameters: {by_status:?}");
    assert!(
        by_status.get("Ok").copied().unwrap_or(0) > CALLS / 20,
        "{by_status:?}"
    );
    assert_eq!(chronolog_close(db), ChronologStatus::Ok);
}
