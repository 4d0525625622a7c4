//! The bundled demo (`chronolog demo`, the README's main job): the design
//! card's story in the language, on a database directory, each query
//! printed before its answer.

use std::io::Write;

use chronolog_engine::{Output, Session};

const STORY: &str = "
:create works_at(person: sym key, company: sym).
:create lives_in(person: sym key, city: sym).
:create knows(a: sym, b: sym).
:create blocked(who: sym).
:create episode(id: sym key, text: str search embed).
:create mentions(episode: sym, entity: sym).

works_at(alice, tencent) valid 2021-03-01.
works_at(bob, tencent) valid 2020-05-01.
works_at(carol, acme) valid 2019-01-01.
lives_in(alice, shenzhen) valid 2021-03-01.
lives_in(erin, hangzhou) valid 2020-01-01.
lives_in(erin, shanghai) valid 2023-03-05.
knows(alice, bob) valid always. knows(bob, carol) valid always.
knows(carol, dave) valid always. knows(dave, erin) valid always.
blocked(dave) valid always.

episode(m1, \"Alice: I just started at Tencent in Shenzhen!\") valid 2021-03-01.
episode(m2, \"Bob says the Tencent canteen is great\") valid 2021-04-10.
episode(m3, \"Alice: big news, I am joining Moonshot in June\") valid 2024-05-20.
episode(m4, \"Carol went hiking with Dave last weekend\") valid 2024-07-01.
episode(m5, \"Alice moved to Beijing for the new job\") valid 2024-06-15.
episode(m6, \"Dave: anyone up for climbing on Saturday?\") valid 2021-05-02.
episode(m7, \"Erin adopted a cat called Miso\") valid 2021-06-18.
episode(m8, \"Bob got promoted to team lead at Tencent\") valid 2021-09-01.
episode(m9, \"Carol: Acme is moving our office downtown\") valid 2022-01-15.
episode(m10, \"Alice recommends the dumplings near the Shenzhen office\") valid 2022-03-03.
episode(m11, \"Dave started learning Mandarin\") valid 2022-04-20.
episode(m12, \"Erin ran her first marathon in 4 hours 10 minutes\") valid 2022-05-29.
episode(m13, \"Bob and Carol met at a conference about databases\") valid 2022-07-07.
episode(m14, \"Alice is mentoring two interns this summer\") valid 2022-07-15.
episode(m15, \"Carol thinks Acme will ship the new product in the fall\") valid 2022-08-30.
episode(m16, \"Dave is blocked from the group chat after the argument\") valid 2022-10-01.
episode(m17, \"Bob: the Tencent team offsite is in Hangzhou\") valid 2023-02-11.
episode(m18, \"Erin moved to Shanghai for a design job\") valid 2023-03-05.
episode(m19, \"Alice gave a talk about large language models\") valid 2023-06-21.
episode(m20, \"Carol is learning to sail on weekends\") valid 2023-08-14.
episode(m21, \"Bob says Tencent is hiring backend engineers\") valid 2023-11-02.
episode(m22, \"Alice: thinking about leaving Tencent next year\") valid 2024-01-09.
episode(m23, \"Dave and Erin went to a jazz concert\") valid 2024-02-17.
episode(m24, \"Carol interviewed at Tencent for a product role\") valid 2024-11-20.
episode(m25, \"Carol: I accepted the Tencent offer, starting in February\") valid 2025-01-10.
episode(m26, \"Alice says the Moonshot office in Beijing has a great view\") valid 2025-03-12.
episode(m27, \"Bob heard a rumour he might join OpenAI\") valid 2025-12-01.
episode(m28, \"Erin's cat Miso turned four\") valid 2025-06-18.
episode(m29, \"Dave is training for a triathlon\") valid 2025-07-04.
episode(m30, \"Alice and Carol had lunch to talk about Tencent\") valid 2025-03-30.
mentions(m1, alice) valid 2021-03-01. mentions(m1, tencent) valid 2021-03-01.
mentions(m2, bob) valid 2021-04-10. mentions(m2, tencent) valid 2021-04-10.
mentions(m3, alice) valid 2024-05-20. mentions(m3, moonshot) valid 2024-05-20.
mentions(m4, carol) valid 2024-07-01. mentions(m5, alice) valid 2024-06-15.
mentions(m6, dave) valid 2021-05-02. mentions(m7, erin) valid 2021-06-18.
mentions(m8, bob) valid 2021-09-01. mentions(m8, tencent) valid 2021-09-01.
mentions(m9, carol) valid 2022-01-15. mentions(m9, acme) valid 2022-01-15.
mentions(m10, alice) valid 2022-03-03. mentions(m11, dave) valid 2022-04-20.
mentions(m12, erin) valid 2022-05-29. mentions(m13, bob) valid 2022-07-07.
mentions(m13, carol) valid 2022-07-07. mentions(m14, alice) valid 2022-07-15.
mentions(m15, carol) valid 2022-08-30. mentions(m15, acme) valid 2022-08-30.
mentions(m16, dave) valid 2022-10-01. mentions(m17, bob) valid 2023-02-11.
mentions(m18, erin) valid 2023-03-05. mentions(m19, alice) valid 2023-06-21.
mentions(m20, carol) valid 2023-08-14. mentions(m21, bob) valid 2023-11-02.
mentions(m22, alice) valid 2024-01-09. mentions(m22, tencent) valid 2024-01-09.
mentions(m23, dave) valid 2024-02-17. mentions(m23, erin) valid 2024-02-17.
mentions(m24, carol) valid 2024-11-20. mentions(m25, carol) valid 2025-01-10.
mentions(m25, tencent) valid 2025-01-10. mentions(m26, alice) valid 2025-03-12.
mentions(m26, moonshot) valid 2025-03-12. mentions(m27, bob) valid 2025-12-01.
mentions(m28, erin) valid 2025-06-18. mentions(m29, dave) valid 2025-07-04.
mentions(m30, alice) valid 2025-03-30. mentions(m30, carol) valid 2025-03-30.
";

/// Later news, each batch its own transaction.
const NEWS: [&str; 3] = [
    "works_at(alice, moonshot) valid 2024-06-01. lives_in(alice, beijing) valid 2024-06-15.",
    "works_at(carol, tencent) valid 2025-02-01.",
    "works_at(bob, openai) valid 2026-01-01.",
];

const QUESTIONS: &str = "
let t1 = 2022-01-01.
?- works_at(alice, Y) as_of t1.
?- works_at(alice, Y).
?- lives_in(alice, C) as_of 2024-06-10.
?- history works_at(alice, Y).
?- history works_at(bob, Y).
colleague(X, Y) :- works_at(X, C), works_at(Y, C), X != Y.
?- colleague(X, Y) as_of 2025-06-01.
reach(X, Y) :- knows(X, Y).
reach(X, Y) :- reach(X, Z), knows(Z, Y).
?- reach(alice, Y), not blocked(Y).
headcount(C, count(P)) :- works_at(P, C).
?- headcount(C, N) as_of 2025-06-01.
?- rrf(near(episode, \"where does alice work\", 5), bm25(episode, \"alice job\", 5), hops(alice, 1, [mentions])) as (Id, Score, Rank), episode(Id, Text) order by Rank limit 3.
?- rrf(near(episode, \"where does alice work\", 5), bm25(episode, \"alice job\", 5), hops(alice, 1, [mentions])) as (Id, Score, Rank), episode(Id, Text) as_of 2022-01-01 order by Rank limit 3.
";

/// Writes the story into the database at `dir` (unless it is already
/// there), then asks its questions, printing each before its answer.
pub fn run(dir: &std::path::Path, out: &mut dyn Write) -> Result<(), Box<dyn std::error::Error>> {
    let (embedder, notice) = chronolog_engine::default_embedder_with_notice();
    let mut db = Session::with_embedder(chronolog_engine::Store::open(dir)?, embedder);
    writeln!(out, "database: {}", dir.display())?;
    writeln!(out, "embedder: {}", db.embedder_name())?;
    if let Some(notice) = notice {
        writeln!(out, "  ({notice})")?;
    }
    if db.store().relation_id("works_at").is_err() {
        db.run(STORY)?;
        for news in NEWS {
            db.run(news)?;
        }
        // Bob's move was a rumour: correct it (withdrawn, not deleted).
        db.run("correct works_at(bob, openai).")?;
        writeln!(
            out,
            "wrote the story (one transaction per batch of news; one correction)"
        )?;
    } else {
        writeln!(out, "reopened: the story is already on disk")?;
    }
    let first_tx = {
        let answer = db.run("?- history works_at(alice, Y).")?;
        match answer.last() {
            Some(Output::Rows(rows)) => rows.row(0).map(|r| db.render(&r[3])),
            _ => None,
        }
    };
    let mut script = QUESTIONS.to_string();
    if let Some(tx) = first_tx {
        script += &format!("?- works_at(alice, Y) as_of 2025-01-01 known_at {tx}.\n");
    }
    // One statement at a time, so each query is printed before its answer.
    for statement in script.lines().map(str::trim).filter(|l| !l.is_empty()) {
        for output in db.run(statement).map_err(|e| e.render(statement))? {
            match output {
                Output::Rows(rows) => {
                    writeln!(out, "\n{statement}")?;
                    writeln!(out, "  {}", rows.columns.join(" | "))?;
                    for row in &rows {
                        let cells: Vec<String> = row.iter().map(|v| db.render(v)).collect();
                        writeln!(out, "  {}", cells.join(" | "))?;
                    }
                    if rows.is_empty() {
                        writeln!(out, "  (nothing)")?;
                    }
                }
                Output::RuleAdded(_) => writeln!(out, "\n{statement}")?,
                _ => {}
            }
        }
    }
    Ok(())
}
