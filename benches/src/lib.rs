//! Workloads shared by the criterion benches and the `compare` report, built
//! the same way for Chronolog and for cozo so that both engines answer the
//! same questions over the same data in the same run.
//!
//! The functional workload: `entities` people, each with `versions` jobs over
//! time (`works_at(person key, company)`); version `k` of person `i` starts
//! `k` years after 2015-01-01 plus `i % 97` days.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{Context, Result};
use chronolog_storage::{
    ColumnDef, ColumnType, Interval, RelationId, Schema, Store, Symbol, Timestamp, Value,
};
use cozo::{DataValue, DbInstance, ScriptMutability};

/// Rows per write transaction when loading.
pub const BATCH: usize = 10_000;

const DAY_US: i64 = 86_400_000_000;
const YEAR_US: i64 = 365 * DAY_US;

/// Shape of the functional workload.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    /// Distinct people (slots).
    pub entities: usize,
    /// Versions per person.
    pub versions: usize,
}

impl Workload {
    /// The target size: 100,000 entities x 5 versions.
    pub const STANDARD: Workload = Workload {
        entities: 100_000,
        versions: 5,
    };

    /// Logical rows (one per version asserted).
    pub fn rows(&self) -> usize {
        self.entities * self.versions
    }

    /// Valid-time start of version `k` of person `i`, in microseconds.
    pub fn valid_from(&self, i: usize, k: usize) -> i64 {
        base() + k as i64 * YEAR_US + (i % 97) as i64 * DAY_US
    }

    /// A valid time in the middle of the history (inside version 2).
    pub fn mid_time(&self) -> i64 {
        base() + 2 * YEAR_US + 180 * DAY_US
    }

    /// Person name.
    pub fn person(i: usize) -> String {
        format!("p{i}")
    }

    /// Company of version `k` of person `i`.
    pub fn company(i: usize, k: usize) -> String {
        format!("c{}", Self::company_index(i, k))
    }

    fn company_index(i: usize, k: usize) -> usize {
        (i * 7 + k * 13) % 1000
    }

    /// Every name the workload uses, built once so that loads time the
    /// engines, not string formatting.
    pub fn names(&self) -> Names {
        Names {
            people: (0..self.entities).map(Self::person).collect(),
            companies: (0..1000).map(|c| format!("c{c}")).collect(),
        }
    }

    /// Raw size of the data as a user would hand it over: per version the
    /// two names' bytes plus four 8-byte time bounds.
    pub fn raw_bytes(&self) -> usize {
        let mut total = 0;
        for i in 0..self.entities {
            for k in 0..self.versions {
                total += Self::person(i).len() + Self::company(i, k).len() + 32;
            }
        }
        total
    }
}

fn base() -> i64 {
    Timestamp::parse("2015-01-01").map(|t| t.0).unwrap_or(0)
}

/// The workload's names, prebuilt.
pub struct Names {
    people: Vec<String>,
    companies: Vec<String>,
}

impl Names {
    fn person(&self, i: usize) -> &str {
        &self.people[i]
    }

    fn company(&self, i: usize, k: usize) -> &str {
        &self.companies[Workload::company_index(i, k)]
    }
}

/// A Chronolog store holding the workload, with the symbols the benches need.
pub struct ChronologDb {
    /// The store.
    pub store: Store,
    /// The `works_at` relation.
    pub works_at: RelationId,
    /// Person symbols by index.
    pub people: Vec<Symbol>,
}

/// The `works_at` schema.
pub fn works_at_schema() -> Schema {
    Schema::new(
        "works_at",
        vec![
            ColumnDef::new("person", ColumnType::Sym).key(),
            ColumnDef::new("company", ColumnType::Sym),
        ],
    )
}

/// Loads the workload version by version, `BATCH` asserts per commit.
/// Returns the store and the seconds the load took.
pub fn load_chronolog(store: Store, w: Workload) -> Result<(ChronologDb, f64)> {
    let works_at = store.create_relation(works_at_schema())?;
    let names = w.names();
    let started = Instant::now();
    let mut people = Vec::with_capacity(w.entities);
    for k in 0..w.versions {
        for chunk in (0..w.entities).collect::<Vec<_>>().chunks(BATCH) {
            let mut txn = store.begin();
            for &i in chunk {
                let person = if k == 0 {
                    let s = txn.symbol(names.person(i))?;
                    people.push(s);
                    s
                } else {
                    people[i]
                };
                let company = txn.symbol(names.company(i, k))?;
                txn.assert(
                    works_at,
                    vec![Value::Sym(person), Value::Sym(company)],
                    Interval::starting(Timestamp(w.valid_from(i, k))),
                    None,
                )?;
            }
            txn.commit()?;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok((
        ChronologDb {
            store,
            works_at,
            people,
        },
        seconds,
    ))
}

/// Chronolog's answer to `works_at(person, Y) as_of t`: the company symbol.
pub fn chronolog_point(
    db: &ChronologDb,
    snap: &chronolog_storage::Snapshot,
    i: usize,
    t: i64,
) -> Option<Symbol> {
    let mut out = None;
    let scan = snap
        .scan(db.works_at)
        .as_of(Timestamp(t))
        .eq(0, Value::Sym(db.people[i]));
    let _ = scan.for_each(|row| {
        if let chronolog_storage::ValueRef::Sym(s) = row.value(1) {
            out = Some(s);
        }
    });
    out
}

/// Rows live now, read through the scan API (person and company of each).
pub fn chronolog_scan_now(db: &ChronologDb, snap: &chronolog_storage::Snapshot) -> Result<usize> {
    let mut n = 0usize;
    snap.scan(db.works_at).for_each(|row| {
        if let (chronolog_storage::ValueRef::Sym(_), chronolog_storage::ValueRef::Sym(_)) =
            (row.value(0), row.value(1))
        {
            n += 1;
        }
    })?;
    Ok(n)
}

/// cozo in memory with a `Validity` key column holding the same workload.
pub fn load_cozo(w: Workload) -> Result<(DbInstance, f64)> {
    let db = DbInstance::new("mem", "", "").map_err(|e| anyhow::anyhow!("{e}"))?;
    db.run_script(
        ":create works_at {person: String, vld: Validity => company: String}",
        BTreeMap::new(),
        ScriptMutability::Mutable,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let names = w.names();
    let started = Instant::now();
    for k in 0..w.versions {
        for chunk in (0..w.entities).collect::<Vec<_>>().chunks(BATCH) {
            let rows: Vec<DataValue> = chunk
                .iter()
                .map(|&i| {
                    DataValue::List(vec![
                        DataValue::from(names.person(i)),
                        DataValue::List(vec![
                            DataValue::from(w.valid_from(i, k)),
                            DataValue::from(true),
                        ]),
                        DataValue::from(names.company(i, k)),
                    ])
                })
                .collect();
            let params = BTreeMap::from([("rows".to_string(), DataValue::List(rows))]);
            db.run_script(
                "?[person, vld, company] <- $rows :put works_at {person, vld => company}",
                params,
                ScriptMutability::Mutable,
            )
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("cozo batch insert")?;
        }
    }
    Ok((db, started.elapsed().as_secs_f64()))
}

/// cozo's textual point query `works_at(person, Y) as of t`.
pub const COZO_POINT: &str = "?[c] := *works_at{person: $p, company: c @ $t}";
/// cozo's as-of scan of every person's current company.
pub const COZO_SCAN: &str = "?[p, c] := *works_at{person: p, company: c @ $t}";

/// Runs one cozo query with parameters `p` (person) and `t` (time).
pub fn cozo_query(db: &DbInstance, script: &str, person: Option<usize>, t: i64) -> Result<usize> {
    let mut params = BTreeMap::from([("t".to_string(), DataValue::from(t))]);
    if let Some(i) = person {
        params.insert("p".to_string(), DataValue::from(Workload::person(i)));
    }
    let rows = db
        .run_script(script, params, ScriptMutability::Immutable)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(rows.rows.len())
}

pub mod peers;
pub mod retrieval;

/// Percentile (0..=100) of a sample of timings (sorted in place).
pub fn percentile(samples: &mut [u64], pct: f64) -> u64 {
    samples.sort_unstable();
    if samples.is_empty() {
        return 0;
    }
    let rank = ((pct / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank]
}

/// Resident set size of this process, in bytes.
pub fn rss_bytes() -> usize {
    memory_stats::memory_stats().map_or(0, |m| m.physical_mem)
}

/// The edges of a random graph: `edges` pairs over `nodes` nodes.
pub fn graph_edges(nodes: i64, edges: usize, seed: u64) -> Vec<(i64, i64)> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..edges)
        .map(|_| (rng.gen_range(0..nodes), rng.gen_range(0..nodes)))
        .collect()
}

/// A graph as `e(a: int, b: int)` in Chronolog.
pub fn load_graph_chronolog(pairs: &[(i64, i64)]) -> Result<chronolog_engine::Session> {
    let store = Store::in_memory();
    let e = store.create_relation(Schema::new(
        "e",
        vec![
            ColumnDef::new("a", ColumnType::Int),
            ColumnDef::new("b", ColumnType::Int),
        ],
    ))?;
    for chunk in pairs.chunks(BATCH) {
        let mut txn = store.begin();
        for &(a, b) in chunk {
            txn.assert(
                e,
                vec![Value::Int(a), Value::Int(b)],
                Interval::ALWAYS,
                None,
            )?;
        }
        txn.commit()?;
    }
    Ok(chronolog_engine::Session::new(store))
}

/// The same graph as `e {a, b}` in cozo.
pub fn load_graph_cozo(pairs: &[(i64, i64)]) -> Result<DbInstance> {
    let cozo = DbInstance::new("mem", "", "").map_err(|e| anyhow::anyhow!("{e}"))?;
    cozo.run_script(
        ":create e {a: Int, b: Int}",
        BTreeMap::new(),
        ScriptMutability::Mutable,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    for chunk in pairs.chunks(BATCH) {
        let rows = chunk
            .iter()
            .map(|&(a, b)| DataValue::List(vec![DataValue::from(a), DataValue::from(b)]))
            .collect();
        cozo.run_script(
            "?[a, b] <- $rows :put e {a, b}",
            BTreeMap::from([("rows".to_string(), DataValue::List(rows))]),
            ScriptMutability::Mutable,
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(cozo)
}

/// `colleague`'s rule in Chronolog and its query in cozo: every pair of
/// distinct people at one company.
pub const COLLEAGUE_RULE: &str = "colleague(X, Y) :- works_at(X, C), works_at(Y, C), X != Y.";
/// See [`COLLEAGUE_RULE`].
pub const COLLEAGUE_COZO: &str = "?[x, y] := *w[x, c], *w[y, c], x != y";

/// `people` people, person `p` working at company `p % companies`: as
/// `works_at(person, company)` symbols in Chronolog (with the `colleague`
/// rule defined) and as `w {p => c}` ints in cozo.
pub fn load_colleagues(
    people: i64,
    companies: i64,
) -> Result<(chronolog_engine::Session, DbInstance)> {
    let store = Store::in_memory();
    let rel = store.create_relation(works_at_schema())?;
    let cozo = DbInstance::new("mem", "", "").map_err(|e| anyhow::anyhow!("{e}"))?;
    cozo.run_script(
        ":create w {p: Int => c: Int}",
        BTreeMap::new(),
        ScriptMutability::Mutable,
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let all: Vec<i64> = (0..people).collect();
    for chunk in all.chunks(BATCH) {
        let mut txn = store.begin();
        let mut rows = Vec::new();
        for &p in chunk {
            let person = txn.symbol(&format!("p{p}"))?;
            let company = txn.symbol(&format!("c{}", p % companies))?;
            txn.assert(
                rel,
                vec![Value::Sym(person), Value::Sym(company)],
                Interval::ALWAYS,
                None,
            )?;
            rows.push(DataValue::List(vec![
                DataValue::from(p),
                DataValue::from(p % companies),
            ]));
        }
        txn.commit()?;
        cozo.run_script(
            "?[p, c] <- $rows :put w {p => c}",
            BTreeMap::from([("rows".to_string(), DataValue::List(rows))]),
            ScriptMutability::Mutable,
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let mut db = chronolog_engine::Session::new(store);
    db.run(COLLEAGUE_RULE)?;
    Ok((db, cozo))
}

/// Agent-memory workloads: generated conversation turns.
pub mod memory {
    use chronolog_engine::Timestamp;
    use chronolog_memory::Message;

    /// The questions the search benchmarks ask of the generated turns, in
    /// turn (the report binary and criterion alike).
    pub const QUESTIONS: [&str; 8] = [
        "Where do I work?",
        "Where does Mia live?",
        "What did I do yesterday?",
        "Do I like sushi?",
        "When did I move to Berlin?",
        "What pets do I have?",
        "Where did I live before Berlin?",
        "What did Alice start?",
    ];

    /// [`QUESTIONS`] in Chinese.
    pub const QUESTIONS_ZH: [&str; 8] = [
        "我在哪里工作？",
        "米娅住在哪里？",
        "我昨天做了什么？",
        "我喜欢寿司吗？",
        "我什么时候搬到柏林的？",
        "我养了什么宠物？",
        "搬到柏林之前我住在哪里？",
        "爱丽丝开始了什么？",
    ];

    /// [`QUESTIONS`] in German.
    pub const QUESTIONS_DE: [&str; 8] = [
        "Wo arbeite ich?",
        "Wo wohnt Mia?",
        "Was habe ich gestern gemacht?",
        "Mag ich Sushi?",
        "Wann bin ich nach Berlin gezogen?",
        "Welche Haustiere habe ich?",
        "Wo habe ich vor Berlin gewohnt?",
        "Was hat Alice angefangen?",
    ];

    /// The questions in `lang` (`en`, `zh`, `de`).
    pub fn questions_in(lang: &str) -> [&'static str; 8] {
        match lang {
            "zh" => QUESTIONS_ZH,
            "de" => QUESTIONS_DE,
            _ => QUESTIONS,
        }
    }

    const SUBJECTS: [&str; 8] = [
        "I",
        "My sister Mia",
        "My friend Tom",
        "I",
        "We",
        "I",
        "Alice",
        "I",
    ];
    const CLAUSES: [&str; 12] = [
        "work at Acme",
        "moved to Berlin last month",
        "love hiking in the mountains",
        "went to a concert yesterday",
        "am planning to visit Lisbon next week",
        "don't like sushi anymore",
        "have a dog named Max",
        "started a pottery class",
        "live in Oslo these days",
        "ran a marathon last May",
        "finished reading a long novel",
        "switched from Android to an iPhone",
    ];

    /// The same statements in Chinese (a subject and its clause written
    /// together, no space, as Chinese is).
    const SUBJECTS_ZH: [&str; 8] = [
        "我",
        "我的姐姐米娅",
        "我的朋友汤姆",
        "我",
        "我们",
        "我",
        "爱丽丝",
        "我",
    ];
    const CLAUSES_ZH: [&str; 12] = [
        "在阿克米工作",
        "上个月搬到了柏林",
        "喜欢在山里徒步",
        "昨天去了一场音乐会",
        "打算下周去里斯本",
        "不再喜欢寿司了",
        "养了一只叫麦克斯的狗",
        "开始上陶艺课",
        "最近住在奥斯陆",
        "去年五月跑了马拉松",
        "读完了一本很长的小说",
        "从安卓换成了苹果手机",
    ];

    /// And in German.
    const SUBJECTS_DE: [&str; 8] = [
        "Ich",
        "Meine Schwester Mia",
        "Mein Freund Tom",
        "Ich",
        "Wir",
        "Ich",
        "Alice",
        "Ich",
    ];
    const CLAUSES_DE: [&str; 12] = [
        "arbeite bei Acme",
        "bin letzten Monat nach Berlin gezogen",
        "wandere gern in den Bergen",
        "war gestern auf einem Konzert",
        "plane, nächste Woche Lissabon zu besuchen",
        "mag kein Sushi mehr",
        "habe einen Hund namens Max",
        "habe einen Töpferkurs angefangen",
        "wohne zurzeit in Oslo",
        "bin letzten Mai einen Marathon gelaufen",
        "habe einen langen Roman zu Ende gelesen",
        "bin von Android zu einem iPhone gewechselt",
    ];

    /// The `i`-th generated turn: a mix of statements the rule extractor
    /// reads and small talk it does not, dated a day apart per tenant.
    pub fn turn(i: u64) -> Message {
        turn_in("en", i)
    }

    /// [`turn`] in `lang`: `en`, `zh` or `de` (another code is English).
    /// The statements say the same things in each language (the
    /// conjugation of the German clauses follows the first person).
    pub fn turn_in(lang: &str, i: u64) -> Message {
        let (subjects, clauses, small_talk, join) = match lang {
            "zh" => (&SUBJECTS_ZH, &CLAUSES_ZH, "听起来很有意思，多讲讲第", ""),
            "de" => (
                &SUBJECTS_DE,
                &CLAUSES_DE,
                "Das klingt toll, erzähl mir mehr über Nummer ",
                " ",
            ),
            _ => (
                &SUBJECTS,
                &CLAUSES,
                "That sounds fun, tell me more about number ",
                " ",
            ),
        };
        let text = if i % 3 == 2 {
            match lang {
                "zh" => format!("{small_talk}{i}个吧！"),
                _ => format!("{small_talk}{i}!"),
            }
        } else {
            let s = subjects[(i % 8) as usize];
            let c = clauses[((i / 8) % 12) as usize];
            match lang {
                "zh" => format!("{s}{join}{c}。"),
                _ => format!("{s}{join}{c}."),
            }
        };
        let day = 86_400_000_000i64;
        let start = Timestamp::parse("2020-01-01").map_or(0, |t| t.micros());
        Message::new(
            if i.is_multiple_of(2) {
                "user"
            } else {
                "assistant"
            },
            text,
        )
        .at(Timestamp(start + (i as i64 / 100) * day))
        .session(format!("s{}", i / 50))
    }
}
