//! What a user tells in passing, in each language served, becomes the
//! facts a later question needs: a home left before the memory knew of
//! it, a relative's trade said beside their name, an allergy, someone one
//! lives with. The labelled sets in `benches/eval/data/extraction/` score
//! the same ground; these tests hold the behaviour end to end, through
//! consolidation and the read path.

mod common;

use chronolog_memory::{ItemKind, Lang, Memory, SearchOptions};
use common::{believed, memory, say};

/// The tenant `tenant`, pinned to `lang`, told `said` a day apart from
/// 2024-06-01, consolidated.
fn told(memory: &Memory, tenant: &str, lang: Lang, said: &[&str]) {
    memory.pin_language(tenant, Some(lang)).expect("pin");
    for (day, text) in said.iter().enumerate() {
        say(memory, tenant, &format!("2024-06-{:02}", day + 1), text);
    }
    memory.consolidate_now().expect("consolidate");
}

/// The objects of `predicate` whose subject is `name` believed now.
fn about(memory: &Memory, tenant: &str, name: &str, predicate: &str) -> Vec<String> {
    memory
        .timeline(tenant)
        .expect("timeline")
        .into_iter()
        .filter(|f| f.predicate == predicate && f.subject.ends_with(&format!("/{name}")))
        .map(|f| f.object)
        .collect()
}

fn answered(memory: &Memory, tenant: &str, question: &str, expected: &str) {
    let context = memory
        .search(tenant, question, &SearchOptions::default())
        .expect("search");
    assert!(!context.abstain, "{question}: {context:#?}");
    let text = context.to_text();
    assert!(
        text.contains(expected),
        "{question}: {expected:?} not in\n{text}"
    );
}

#[test]
fn a_home_left_before_the_memory_knew_of_it_is_kept_as_past() {
    let memory = memory();
    for (tenant, lang, said, past, now) in [
        (
            "en",
            Lang::English,
            "I used to live in Porto, but now I live in Lisbon.",
            "Porto",
            "Lisbon",
        ),
        (
            "de",
            Lang::German,
            "Früher habe ich in Bremen gewohnt, jetzt wohne ich in Kiel.",
            "Bremen",
            "Kiel",
        ),
        (
            "zh",
            Lang::Chinese,
            "我以前住在重庆，现在住在厦门。",
            "重庆",
            "厦门",
        ),
    ] {
        told(&memory, tenant, lang, &[said]);
        assert_eq!(believed(&memory, tenant, "2024-07-01", "lives_in"), [now]);
        // Held until it was said, from a time never said.
        assert_eq!(
            believed(&memory, tenant, "2024-05-01", "lives_in"),
            [past],
            "{tenant}"
        );
    }
}

#[test]
fn a_relatives_trade_said_beside_their_name_is_theirs() {
    let memory = memory();
    for (tenant, lang, said, name, trade) in [
        (
            "en",
            Lang::English,
            "My cousin is called Ana and she's a pharmacist.",
            "ana",
            "pharmacist",
        ),
        (
            "de",
            Lang::German,
            "Meine Cousine heißt Ana und ist Apothekerin.",
            "ana",
            "Apothekerin",
        ),
        (
            "zh",
            Lang::Chinese,
            "我表姐叫安娜，她是药剂师。",
            "安娜",
            "药剂师",
        ),
    ] {
        told(&memory, tenant, lang, &[said]);
        assert_eq!(
            about(&memory, tenant, name, "job_title"),
            [trade],
            "{tenant}"
        );
        // Not the speaker's.
        assert!(about(&memory, tenant, "user", "job_title").is_empty());
    }
}

#[test]
fn an_allergy_is_a_fact_and_is_asked_for() {
    let memory = memory();
    for (tenant, lang, said, allergen, question) in [
        (
            "en",
            Lang::English,
            "Just so you know, I'm severely allergic to peanuts.",
            "peanuts",
            "What am I allergic to?",
        ),
        (
            "de",
            Lang::German,
            "Ich bin stark allergisch gegen Erdnüsse.",
            "Erdnüsse",
            "Wogegen bin ich allergisch?",
        ),
        (
            "zh",
            Lang::Chinese,
            "我对芒果过敏。",
            "芒果",
            "我对什么过敏？",
        ),
    ] {
        told(&memory, tenant, lang, &[said]);
        assert_eq!(
            believed(&memory, tenant, "2024-07-01", "allergic_to"),
            [allergen],
            "{tenant}"
        );
        answered(&memory, tenant, question, allergen);
    }
}

#[test]
fn whom_one_lives_with_is_read_beside_where() {
    let memory = memory();
    for (tenant, lang, said, relation, name, city) in [
        (
            "en",
            Lang::English,
            "I live in Leeds with my wife Priya.",
            "wife",
            "Priya",
            "Leeds",
        ),
        (
            "de",
            Lang::German,
            "Ich wohne mit meiner Frau Priya in Leipzig.",
            "wife",
            "Priya",
            "Leipzig",
        ),
        (
            "zh",
            Lang::Chinese,
            "我和老婆小雅住在苏州。",
            "wife",
            "小雅",
            "苏州",
        ),
    ] {
        told(&memory, tenant, lang, &[said]);
        assert_eq!(
            believed(&memory, tenant, "2024-07-01", "lives_in"),
            [city],
            "{tenant}"
        );
        assert_eq!(
            believed(&memory, tenant, "2024-07-01", relation),
            [name],
            "{tenant}"
        );
    }
}

/// A job said in the present, then left "last month" a day later: the
/// later word corrects when the first assumed it began. The old job held
/// until the month began (from a time never said), the new one since; a
/// partner "we broke up in April" names no one and ends the one held.
#[test]
fn an_ending_said_later_corrects_a_start_the_memory_assumed() {
    let memory = memory();
    for (tenant, lang, said, old, new) in [
        (
            "en",
            Lang::English,
            [
                "I work at Google.",
                "I left Google last month and joined Stripe.",
            ],
            "Google",
            "Stripe",
        ),
        (
            "de",
            Lang::German,
            [
                "Ich arbeite bei Siemens.",
                "Ich habe letzten Monat bei Siemens gekündigt und bei SAP angefangen.",
            ],
            "Siemens",
            "SAP",
        ),
        (
            "zh",
            Lang::Chinese,
            ["我在腾讯工作。", "我上个月从腾讯离职了，加入了字节跳动。"],
            "腾讯",
            "字节跳动",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        assert_eq!(
            believed(&memory, tenant, "2024-07-01", "works_at"),
            [new],
            "{tenant}"
        );
        assert_eq!(
            believed(&memory, tenant, "2024-04-15", "works_at"),
            [old],
            "{tenant}"
        );
    }
    for (tenant, lang, said, name) in [
        (
            "en-partner",
            Lang::English,
            ["My boyfriend's name is Jake.", "We broke up in April."],
            "Jake",
        ),
        (
            "de-partner",
            Lang::German,
            [
                "Mein Freund Jonas und ich sind zusammen.",
                "Wir haben uns im April getrennt.",
            ],
            "Jonas",
        ),
        (
            "zh-partner",
            Lang::Chinese,
            ["我男朋友叫小李。", "我们四月分手了。"],
            "小李",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        assert!(
            believed(&memory, tenant, "2024-07-01", "boyfriend").is_empty(),
            "{tenant}"
        );
        assert_eq!(
            believed(&memory, tenant, "2024-03-01", "boyfriend"),
            [name],
            "{tenant}"
        );
    }
}

/// "My mom lives in Florida": a relative the speaker names by the
/// relation alone is someone, and the name said later is hers; a
/// relative named first is who "my sister" means after.
#[test]
fn a_relative_known_by_the_relation_is_someone() {
    let memory = memory();
    for (tenant, lang, said, name, city, question) in [
        (
            "en",
            Lang::English,
            ["My mom lives in Florida.", "My mom's name is Linda."],
            "Linda",
            "Florida",
            "Where does my mom live?",
        ),
        (
            "de",
            Lang::German,
            ["Meine Mutter wohnt in Bremen.", "Meine Mutter heißt Linda."],
            "Linda",
            "Bremen",
            "Wo wohnt meine Mutter?",
        ),
        (
            "zh",
            Lang::Chinese,
            ["我妈妈住在广州。", "我妈妈叫李娜。"],
            "李娜",
            "广州",
            "我妈妈住在哪里？",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        let facts = memory.timeline(tenant).expect("timeline");
        let home = facts
            .iter()
            .find(|f| f.predicate == "lives_in")
            .unwrap_or_else(|| panic!("{tenant}: {facts:#?}"));
        assert_eq!(home.object, city, "{tenant}");
        let mother = facts
            .iter()
            .find(|f| f.predicate == "mom" || f.predicate == "mother")
            .unwrap_or_else(|| panic!("{tenant}: {facts:#?}"));
        assert_eq!(mother.object, name, "{tenant}");
        // Her home, not the speaker's; asked by her name, it is found.
        assert_ne!(home.subject, format!("{tenant}/user"), "{tenant}");
        let context = memory
            .search(tenant, question, &SearchOptions::default())
            .expect("search");
        // Asked by the relation, her home leads as a fact.
        let text = context.to_text();
        assert!(
            text.lines()
                .any(|l| l.starts_with("- ") && l.contains(city)),
            "{tenant}: {text}"
        );
    }
    for (tenant, lang, said, name, city) in [
        (
            "en-named",
            Lang::English,
            ["My sister Clara is a nurse.", "My sister lives in Lyon."],
            "clara",
            "Lyon",
        ),
        (
            "de-named",
            Lang::German,
            [
                "Meine Schwester Clara ist Krankenschwester.",
                "Meine Schwester wohnt in Lyon.",
            ],
            "clara",
            "Lyon",
        ),
        (
            "zh-named",
            Lang::Chinese,
            ["我姐姐叫小美。", "我姐姐住在成都。"],
            "小美",
            "成都",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        assert_eq!(about(&memory, tenant, name, "lives_in"), [city], "{tenant}");
    }
}

#[test]
fn a_stretch_with_both_ends_said_is_a_past_period() {
    let memory = memory();
    for (tenant, lang, said) in [
        (
            "en",
            Lang::English,
            "I lived in Vancouver between 2015 and 2018.",
        ),
        (
            "de",
            Lang::German,
            "Ich habe von 2015 bis 2018 in Vancouver gewohnt.",
        ),
        ("zh", Lang::Chinese, "我2015年到2018年住在温哥华。"),
    ] {
        told(&memory, tenant, lang, &[said]);
        let home = if lang == Lang::Chinese {
            "温哥华"
        } else {
            "Vancouver"
        };
        assert!(
            believed(&memory, tenant, "2014-12-01", "lives_in").is_empty(),
            "{said}"
        );
        assert_eq!(
            believed(&memory, tenant, "2016-06-01", "lives_in"),
            [home],
            "{said}"
        );
        // The last year said is the stretch's own.
        assert_eq!(
            believed(&memory, tenant, "2018-12-01", "lives_in"),
            [home],
            "{said}"
        );
        assert!(
            believed(&memory, tenant, "2020-01-01", "lives_in").is_empty(),
            "{said}"
        );
    }
}

#[test]
fn a_value_said_by_mistake_is_corrected_where_it_was_said() {
    let memory = memory();
    for (tenant, lang, said, question, right, wrong) in [
        (
            "en",
            Lang::English,
            [
                "My daughter's name is Emma.",
                "Oops, I meant Emily, not Emma.",
            ],
            "What is my daughter's name?",
            "Emily",
            "Emma",
        ),
        (
            "de",
            Lang::German,
            [
                "Ich arbeite bei Shopify.",
                "Korrektur: nicht Shopify, sondern Spotify.",
            ],
            "Wo arbeite ich?",
            "Spotify",
            "Shopify",
        ),
        (
            "zh",
            Lang::Chinese,
            ["我在腾讯工作。", "说错了，不是腾讯，是阿里巴巴。"],
            "我在哪里工作？",
            "阿里巴巴",
            "腾讯",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        let now = memory.facts(tenant, None, None).expect("facts");
        let objects: Vec<&str> = now.iter().map(|f| f.object.as_str()).collect();
        assert_eq!(objects, [right], "{tenant}");
        // Held in the wrong one's place, from its start.
        assert_eq!(now[0].valid.from, common::at("2024-06-01"), "{tenant}");
        // The wrong one is withdrawn, not deleted: it stays on record as
        // what was believed until the correction.
        let history = memory.history(tenant, "user").expect("history");
        assert!(
            history
                .iter()
                .any(|v| v.object == wrong && v.known.to != chronolog_engine::Timestamp::MAX),
            "{tenant}: {history:#?}"
        );
        answered(&memory, tenant, question, right);
    }
    // A speaker corrects what they said, not what someone else did.
    memory
        .pin_language("en-other", Some(Lang::English))
        .expect("pin");
    say(&memory, "en-other", "2024-06-01", "I live in London.");
    common::say_as(
        &memory,
        "en-other",
        "assistant",
        "2024-06-02",
        "Sorry, I meant Paris, not London.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "en-other", "2024-06-03", "lives_in"),
        ["London"]
    );
}

#[test]
fn a_plan_called_off_leaves_what_it_would_have_ended() {
    let memory = memory();
    for (tenant, lang, said, slot, stays) in [
        (
            "en-move",
            Lang::English,
            [
                "I live in Ottawa.",
                "We're moving to Toronto next month.",
                "The move fell through, we're not moving anymore.",
            ],
            "lives_in",
            "Ottawa",
        ),
        (
            "en-job",
            Lang::English,
            [
                "I work at Shopify.",
                "I'm starting at Stripe next month.",
                "I turned down the offer from Stripe.",
            ],
            "works_at",
            "Shopify",
        ),
        (
            "de-move",
            Lang::German,
            [
                "Ich wohne in Köln.",
                "Nächsten Monat ziehen wir nach Hamburg.",
                "Wir ziehen doch nicht nach Hamburg.",
            ],
            "lives_in",
            "Köln",
        ),
        (
            "de-job",
            Lang::German,
            [
                "Ich arbeite bei Siemens.",
                "Nächsten Monat fange ich bei SAP an.",
                "Ich habe das Angebot von SAP abgelehnt.",
            ],
            "works_at",
            "Siemens",
        ),
        (
            "zh-move",
            Lang::Chinese,
            [
                "我住在上海。",
                "我们下个月搬到杭州。",
                "搬家的事泡汤了，我们还是留在上海。",
            ],
            "lives_in",
            "上海",
        ),
        (
            "zh-job",
            Lang::Chinese,
            [
                "我在腾讯工作。",
                "我下个月加入阿里巴巴。",
                "我还是不去阿里巴巴上班了。",
            ],
            "works_at",
            "腾讯",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        // What the plan would have ended holds on, one version from its
        // own start; the plan is gone from what is believed now.
        for day in ["2024-06-02", "2024-08-01", "2026-01-01"] {
            assert_eq!(
                believed(&memory, tenant, day, slot),
                [stays],
                "{tenant} {day}"
            );
        }
        let now = memory.facts(tenant, None, None).expect("facts");
        let held: Vec<_> = now.iter().filter(|f| f.predicate == slot).collect();
        assert_eq!(held.len(), 1, "{tenant}: {held:#?}");
        assert_eq!(held[0].valid.from, common::at("2024-06-01"), "{tenant}");
    }
    // A plan already carried out is no plan to call off: said after the
    // move, "not moving" leaves the new home.
    told(
        &memory,
        "en-done",
        Lang::English,
        &[
            "I live in Ottawa.",
            "We moved to Toronto today.",
            "We're not moving again anytime soon.",
        ],
    );
    assert_eq!(
        believed(&memory, "en-done", "2024-07-01", "lives_in"),
        ["Toronto"]
    );
}

#[test]
fn a_season_or_a_schedule_said_ahead_starts_when_it_says() {
    let memory = memory();
    for (tenant, lang, said, slot, before, after) in [
        (
            "en-season",
            Lang::English,
            [
                "I live in Ottawa.",
                "We're relocating to Toronto this summer.",
            ],
            "lives_in",
            "Ottawa",
            "Toronto",
        ),
        (
            "en-schedule",
            Lang::English,
            [
                "I work at Shopify.",
                "Update: I accepted an offer from Wealthsimple, I start on April 1st.",
            ],
            "works_at",
            "Shopify",
            "Wealthsimple",
        ),
        (
            "de-season",
            Lang::German,
            [
                "Ich wohne in Köln.",
                "Diesen Sommer ziehen wir nach Hamburg.",
            ],
            "lives_in",
            "Köln",
            "Hamburg",
        ),
        (
            "zh-season",
            Lang::Chinese,
            ["我住在上海。", "今年夏天我们要搬到杭州。"],
            "lives_in",
            "上海",
            "杭州",
        ),
    ] {
        // Said in March: the summer and April 1st are ahead.
        memory.pin_language(tenant, Some(lang)).expect("pin");
        say(&memory, tenant, "2025-03-01", said[0]);
        say(&memory, tenant, "2025-03-20", said[1]);
        memory.consolidate_now().expect("consolidate");
        assert_eq!(
            believed(&memory, tenant, "2025-03-25", slot),
            [before],
            "{tenant}"
        );
        assert_eq!(
            believed(&memory, tenant, "2025-12-01", slot),
            [after],
            "{tenant}"
        );
    }
    // Said inside the season, the day after the home: the move starts no
    // earlier than it is said, so it follows the home rather than
    // contesting it from the season's first day.
    for (tenant, lang, said) in [
        (
            "en-inside",
            Lang::English,
            ["I live in Ottawa.", "We're moving to Toronto this summer."],
        ),
        (
            "de-inside",
            Lang::German,
            [
                "Ich wohne in Ottawa.",
                "Diesen Sommer ziehen wir nach Toronto.",
            ],
        ),
        (
            "zh-inside",
            Lang::Chinese,
            ["我住在渥太华。", "今年夏天我们要搬到多伦多。"],
        ),
    ] {
        memory.pin_language(tenant, Some(lang)).expect("pin");
        say(&memory, tenant, "2025-06-01", said[0]);
        say(&memory, tenant, "2025-06-02", said[1]);
        memory.consolidate_now().expect("consolidate");
        let now = memory.facts(tenant, None, None).expect("facts");
        let homes: Vec<&str> = now
            .iter()
            .filter(|f| f.predicate == "lives_in")
            .map(|f| f.object.as_str())
            .collect();
        assert_eq!(homes.len(), 1, "{tenant}: {now:#?}");
        assert!(homes[0] == "Toronto" || homes[0] == "多伦多", "{tenant}");
        let history = memory.history(tenant, "user").expect("history");
        let home = history
            .iter()
            .find(|v| {
                v.predicate == "lives_in"
                    && v.known.to == chronolog_engine::Timestamp::MAX
                    && v.supersedes.is_some()
            })
            .unwrap_or_else(|| panic!("{tenant}: {history:#?}"));
        assert_eq!(home.valid.from, common::at("2025-06-02"), "{tenant}");
    }
}

#[test]
fn a_name_said_by_a_pronoun_is_the_relative_it_follows() {
    let memory = memory();
    for (tenant, lang, said, relation, name, trade) in [
        (
            "en",
            Lang::English,
            vec!["My sister is a nurse. Her name is Clara."],
            "sister",
            "Clara",
            "nurse",
        ),
        (
            "en-later",
            Lang::English,
            vec!["My brother is a dentist.", "His name is Tom."],
            "brother",
            "Tom",
            "dentist",
        ),
        (
            "de",
            Lang::German,
            vec!["Meine Schwester ist Ärztin.", "Sie heißt Clara."],
            "sister",
            "Clara",
            "Ärztin",
        ),
        (
            "zh",
            Lang::Chinese,
            vec!["我姐姐是护士，她叫李娜。"],
            "sister",
            "李娜",
            "护士",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        let facts = memory.timeline(tenant).expect("timeline");
        // The speaker's relative by name, and the trade said before the
        // name is hers: one person.
        let named = facts
            .iter()
            .find(|f| f.predicate == relation)
            .unwrap_or_else(|| panic!("{tenant}: {facts:#?}"));
        assert_eq!(named.object, name, "{tenant}");
        assert_eq!(named.subject, format!("{tenant}/user"), "{tenant}");
        let job = facts
            .iter()
            .find(|f| f.predicate == "job_title")
            .unwrap_or_else(|| panic!("{tenant}: {facts:#?}"));
        assert_eq!(job.object, trade, "{tenant}");
        let about: Vec<_> = facts.iter().map(|f| f.subject.as_str()).collect();
        assert!(
            facts
                .iter()
                .filter(|f| f.predicate == "name")
                .all(|f| f.subject == format!("{tenant}/user")),
            "{tenant}: no name fact of the relative's own: {about:?}"
        );
    }
    // A pet's name said so names no relative.
    told(
        &memory,
        "en-cat",
        Lang::English,
        &["My sister is a nurse.", "We got a cat. Her name is Mochi."],
    );
    let facts = memory.timeline("en-cat").expect("timeline");
    assert!(
        facts
            .iter()
            .all(|f| f.object != "Mochi" || f.predicate == "has_pet"),
        "{facts:#?}"
    );
}

#[test]
fn a_pastime_taken_up_holds_until_it_is_given_up() {
    let memory = memory();
    for (tenant, lang, said, kept, dropped, questions, still) in [
        (
            "en",
            Lang::English,
            [
                "I got into rock climbing last year.",
                "I also started learning the cello.",
                "I quit the cello, it was too much with work.",
                "We adopted a rescue dog, a greyhound called Biscuit.",
            ],
            "rock climbing",
            "cello",
            [
                ("What are my hobbies?", "rock climbing"),
                ("What sports do I do?", "rock climbing"),
                ("Do I play an instrument?", "cello"),
                ("What is my dog's name?", "Biscuit"),
                ("What do I do in my free time?", "rock climbing"),
            ],
            ("Do I still play the cello?", "past"),
        ),
        (
            "de",
            Lang::German,
            [
                "Ich habe letztes Jahr mit dem Klettern angefangen.",
                "Ich habe angefangen, Cello zu lernen.",
                "Ich habe mit dem Cello aufgehört, es war zu viel neben der Arbeit.",
                "Wir haben einen Hund adoptiert, einen Windhund namens Biscuit.",
            ],
            "Klettern",
            "Cello",
            [
                ("Was sind meine Hobbys?", "Klettern"),
                ("Welchen Sport mache ich?", "Klettern"),
                ("Spiele ich ein Instrument?", "Cello"),
                ("Wie heißt mein Hund?", "Biscuit"),
                ("Was mache ich in meiner freien Zeit?", "Klettern"),
            ],
            ("Spiele ich noch Cello?", "früher"),
        ),
        (
            "zh",
            Lang::Chinese,
            [
                "我去年开始攀岩。",
                "我开始学大提琴了。",
                "我不学大提琴了，工作太忙了。",
                "我们领养了一只灵缇犬，叫饼干。",
            ],
            "攀岩",
            "大提琴",
            [
                ("我有什么爱好？", "攀岩"),
                ("我做什么运动？", "攀岩"),
                ("我会什么乐器？", "大提琴"),
                ("我的狗叫什么名字？", "饼干"),
                ("我业余时间做什么？", "攀岩"),
            ],
            ("我还弹大提琴吗？", "过去"),
        ),
    ] {
        told(&memory, tenant, lang, &said);
        // The pastime taken up holds; the one given up held only while
        // it lasted, and stays on record as past.
        assert_eq!(about(&memory, tenant, "user", "likes").len(), 2, "{tenant}");
        let now = memory.facts(tenant, None, None).expect("facts");
        let liked: Vec<&str> = now
            .iter()
            .filter(|f| f.predicate == "likes")
            .map(|f| f.object.as_str())
            .collect();
        assert_eq!(liked, [kept], "{tenant}");
        let timeline = memory.timeline(tenant).expect("timeline");
        let given_up = timeline
            .iter()
            .find(|f| f.object == dropped)
            .unwrap_or_else(|| panic!("{tenant}: {timeline:#?}"));
        assert_eq!(given_up.valid.to, common::at("2024-06-03"), "{tenant}");
        for (question, expected) in questions {
            answered(&memory, tenant, question, expected);
        }
        // "Do I still play the cello?" asks about the past: the value
        // given up answers it, said past, before the one that holds.
        let (question, past) = still;
        let context = memory
            .search(tenant, question, &SearchOptions::default())
            .expect("search");
        let first = context
            .items
            .iter()
            .find(|i| i.kind == ItemKind::Fact)
            .unwrap_or_else(|| panic!("{question}: no fact in\n{}", context.to_text()));
        assert!(
            first.text.contains(dropped) && first.text.contains(past),
            "{question}: {}",
            context.to_text()
        );
    }
}

#[test]
fn an_age_said_beside_a_relatives_name_is_theirs_in_digits() {
    let memory = memory();
    for (tenant, lang, said, name, question) in [
        (
            "en",
            Lang::English,
            "My daughter Ella turned seven yesterday.",
            "ella",
            "How old is Ella?",
        ),
        (
            "de",
            Lang::German,
            "Meine Tochter Ella ist gestern sieben geworden.",
            "ella",
            "Wie alt ist Ella?",
        ),
        (
            "zh",
            Lang::Chinese,
            "我女儿小雨昨天满七岁了。",
            "小雨",
            "小雨几岁了？",
        ),
    ] {
        told(&memory, tenant, lang, &[said]);
        assert_eq!(about(&memory, tenant, name, "age"), ["7"], "{tenant}");
        let context = memory
            .search(tenant, question, &SearchOptions::default())
            .expect("search");
        let fact = context
            .items
            .iter()
            .find(|i| i.kind == ItemKind::Fact)
            .unwrap_or_else(|| panic!("{question}: no fact in\n{}", context.to_text()));
        assert!(fact.text.contains('7'), "{question}: {}", context.to_text());
    }
}

#[test]
fn whether_one_is_still_of_a_trade_is_answered_by_the_job_now_and_before() {
    let memory = memory();
    for (tenant, lang, said, question, now, before, past) in [
        (
            "en",
            Lang::English,
            [
                "I work as a teacher at a school in Leeds.",
                "I got a job as a lab manager at AstraZeneca.",
            ],
            "Am I still a teacher?",
            "lab manager",
            "teacher",
            "past",
        ),
        (
            "de",
            Lang::German,
            [
                "Ich arbeite als Lehrer an einer Schule in Leipzig.",
                "Ich arbeite jetzt als Laborleiter bei AstraZeneca.",
            ],
            "Bin ich noch Lehrer?",
            "Laborleiter",
            "Lehrer",
            "früher",
        ),
        (
            "zh",
            Lang::Chinese,
            ["我是一名老师。", "我现在是实验室经理了。"],
            "我还是老师吗？",
            "实验室经理",
            "老师",
            "过去",
        ),
    ] {
        told(&memory, tenant, lang, &said);
        let context = memory
            .search(tenant, question, &SearchOptions::default())
            .expect("search");
        let text = context.to_text();
        assert!(!context.abstain, "{question}: {context:#?}");
        let facts: Vec<&str> = context
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::Fact)
            .map(|i| i.text.as_str())
            .collect();
        assert!(
            facts.iter().any(|f| f.contains(now) && !f.contains(past)),
            "{question}: {text}"
        );
        assert!(
            facts.iter().any(|f| f.contains(before) && f.contains(past)),
            "{question}: {text}"
        );
    }
}
