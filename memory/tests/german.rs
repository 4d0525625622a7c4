//! The acceptance conversations told and asked in German: a job change
//! learned over time, a move, a corrected rumour, a question never
//! answered, two tenants. The same beliefs as their English twins.

use chronolog_engine::Output;
use chronolog_memory::{Context, ItemKind, Lang, Memory, Message, SearchOptions};

mod common;
use common::{at, believed, memory, ran, say, say_as};

fn ask(memory: &Memory, tenant: &str, question: &str) -> Context {
    memory
        .search(tenant, question, &SearchOptions::default())
        .expect("search")
}

fn fact_items(context: &Context) -> Vec<String> {
    context
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Fact)
        .map(|i| i.text.clone())
        .collect()
}

fn job_change(tenant: &str) -> Memory {
    let memory = memory();
    say(
        &memory,
        tenant,
        "2021-03-01",
        "Ich arbeite bei Tencent in Shenzhen.",
    );
    say(
        &memory,
        tenant,
        "2021-05-01",
        "Das Wetter in Shenzhen ist sehr schwül.",
    );
    say(
        &memory,
        tenant,
        "2024-06-01",
        "Große Neuigkeiten: Ich habe gerade bei Moonshot angefangen!",
    );
    memory.consolidate_now().expect("consolidate");
    memory
}

#[test]
fn a_job_change_in_german_supersedes_the_old_job() {
    let memory = job_change("jürgen");
    assert_eq!(
        believed(&memory, "jürgen", "2022-01-01", "works_at"),
        ["Tencent"]
    );
    assert_eq!(
        believed(&memory, "jürgen", "2025-01-01", "works_at"),
        ["Moonshot"]
    );
    let history = memory.history("jürgen", "user").expect("history");
    assert!(
        history
            .iter()
            .any(|f| f.object == "Moonshot" && f.supersedes.as_deref() == Some("Tencent")),
        "{history:#?}"
    );
    let context = ask(&memory, "jürgen", "Wo arbeite ich?");
    assert!(!context.abstain, "{context:#?}");
    let facts = fact_items(&context);
    assert!(
        facts.iter().any(|f| f.contains("Arbeitgeber: Moonshot")),
        "{facts:?}"
    );
    // Paraphrases ask the same fact by its predicate.
    for question in [
        "Bei welcher Firma bin ich?",
        "Wer ist mein Arbeitgeber?",
        "Was ist mein Job?",
    ] {
        let context = ask(&memory, "jürgen", question);
        assert!(!context.abstain, "{question}: {context:#?}");
        let facts = fact_items(&context);
        assert!(
            facts.iter().any(|f| f.contains("Arbeitgeber: Moonshot")),
            "{question}: {facts:?}"
        );
    }
    let then = ask(&memory, "jürgen", "Wo habe ich im Jahr 2022 gearbeitet?");
    let facts = fact_items(&then);
    assert!(
        facts.iter().any(|f| f.contains("Arbeitgeber: Tencent")),
        "{then:#?}"
    );
    assert!(!facts.iter().any(|f| f.contains("Moonshot")), "{facts:?}");
}

#[test]
fn a_question_never_answered_in_german_abstains_and_a_said_one_does_not() {
    let memory = job_change("u1");
    let never = ask(&memory, "u1", "Wie heißt mein Leguan?");
    assert!(never.abstain, "{never:#?}");
    let said = ask(&memory, "u1", "Wie ist das Wetter in Shenzhen?");
    assert!(!said.abstain, "{said:#?}");
    assert!(said.to_text().contains("schwül"), "{}", said.to_text());
}

#[test]
fn a_rumour_withdrawn_in_german_gives_the_old_job_back() {
    let memory = memory();
    say(&memory, "u1", "2021-03-01", "Ich arbeite bei Tencent.");
    say(
        &memory,
        "u1",
        "2024-03-01",
        "Ich habe letzte Woche bei OpenAI angefangen.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "u1", "2024-03-02", "works_at"),
        ["OpenAI"]
    );
    say(
        &memory,
        "u1",
        "2024-04-01",
        "Eigentlich habe ich nie bei OpenAI angefangen, das war ein Gerücht.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "u1", "2024-04-02", "works_at"),
        ["Tencent"]
    );
}

#[test]
fn a_move_in_german_is_read_with_its_time_and_tenants_stay_apart() {
    let memory = memory();
    say(&memory, "anna", "2023-05-17", "Ich wohne in Hamburg.");
    say(
        &memory,
        "anna",
        "2024-05-17",
        "Letzten Monat bin ich nach Berlin gezogen.",
    );
    say(&memory, "bernd", "2024-05-17", "Ich wohne in Köln.");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "anna", "2024-04-15", "lives_in"),
        ["Berlin"]
    );
    assert_eq!(
        believed(&memory, "anna", "2024-03-15", "lives_in"),
        ["Hamburg"]
    );
    assert_eq!(
        believed(&memory, "bernd", "2024-06-01", "lives_in"),
        ["Köln"]
    );
    let context = ask(&memory, "anna", "Wo wohne ich?");
    assert!(!context.abstain, "{context:#?}");
    assert!(!context.to_text().contains("Köln"), "{}", context.to_text());
}

#[test]
fn a_correction_in_german_withdraws_the_value_it_denies() {
    let memory = memory();
    say(&memory, "u1", "2024-01-01", "Ich arbeite bei Tencent.");
    say(
        &memory,
        "u1",
        "2024-02-01",
        "Eigentlich arbeite ich bei Alibaba, nicht bei Tencent.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "u1", "2024-03-01", "works_at"),
        ["Alibaba"]
    );
    assert!(believed(&memory, "u1", "2024-01-15", "works_at").is_empty());
}

#[test]
fn a_short_message_of_a_german_tenant_is_heard_in_german() {
    // Nothing pinned: the names make "Ups, ich meinte Emily, nicht Emma."
    // look English to lingua, but this tenant has written only German.
    let memory = memory();
    say(&memory, "u1", "2024-06-01", "Meine Tochter heißt Emma.");
    say(
        &memory,
        "u1",
        "2024-06-02",
        "Ups, ich meinte Emily, nicht Emma.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u1", "2024-06-03", "daughter"), ["Emily"]);
}

#[test]
fn endings_in_german_end_what_they_name_and_until_bounds_a_job() {
    let memory = memory();
    say(
        &memory,
        "u1",
        "2022-01-01",
        "Mein Hund heißt Bello und ist sehr lieb.",
    );
    say(&memory, "u1", "2022-02-01", "Mein Freund Tom ist Koch.");
    say(&memory, "u1", "2022-03-01", "Ich arbeite bei Acme.");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u1", "2023-01-01", "has_pet"), ["Bello"]);
    say(&memory, "u1", "2024-05-10", "Mein Hund ist gestorben.");
    say(&memory, "u1", "2024-05-12", "Ich wurde entlassen.");
    memory.consolidate_now().expect("consolidate");
    assert!(believed(&memory, "u1", "2024-06-01", "has_pet").is_empty());
    assert!(believed(&memory, "u1", "2024-06-01", "works_at").is_empty());
    assert_eq!(believed(&memory, "u1", "2024-05-11", "works_at"), ["Acme"]);

    say(
        &memory,
        "u2",
        "2024-06-15",
        "Ich habe bis 2020 bei IBM gearbeitet.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u2", "2019-06-01", "works_at"), ["IBM"]);
    assert!(believed(&memory, "u2", "2021-01-01", "works_at").is_empty());
}

/// How many of `tenant`'s rows in `mem_said_in` match `lang` and `how`
/// (`_`: any).
fn said_in(memory: &Memory, tenant: &str, lang: &str, how: &str) -> usize {
    let out = memory
        .engine()
        .session()
        .run(&format!("?- mem_said_in(E, \"{tenant}\", {lang}, {how})."))
        .expect("query");
    match out.last() {
        Some(Output::Rows(rows)) => rows.len(),
        other => panic!("rows: {other:?}"),
    }
}

#[test]
fn a_pinned_tenant_or_a_message_given_its_language_is_read_in_it() {
    // Too short for detection, which reads it as English and finds nothing.
    let jazz = "Ich mag Jazz.";
    assert_eq!(Lang::detect(jazz), Lang::English);
    let dir = tempfile::tempdir().expect("a directory");
    {
        let memory = common::memory_in(dir.path());
        say(&memory, "detected", "2024-01-01", jazz);
        memory
            .pin_language("pinned", Some(Lang::German))
            .expect("pin");
        say(&memory, "pinned", "2024-01-01", jazz);
        memory
            .add(
                "given",
                Message::new("user", jazz)
                    .at(at("2024-01-01"))
                    .lang(Lang::German),
            )
            .expect("add");
        memory.consolidate_now().expect("consolidate");
        assert!(believed(&memory, "detected", "2024-06-01", "likes").is_empty());
        assert_eq!(believed(&memory, "pinned", "2024-06-01", "likes"), ["Jazz"]);
        assert_eq!(believed(&memory, "given", "2024-06-01", "likes"), ["Jazz"]);
        assert_eq!(said_in(&memory, "detected", "en", "detected"), 1);
        assert_eq!(said_in(&memory, "pinned", "de", "pinned"), 1);
        assert_eq!(said_in(&memory, "given", "de", "given"), 1);
        assert_eq!(said_in(&memory, "given", "_", "_"), 1);
    }
    // The pin is durable; a question to the pinned tenant is read in
    // German and answered in it.
    let memory = common::memory_in(dir.path());
    assert_eq!(
        memory.pinned_language("pinned").expect("pinned"),
        Some(Lang::German)
    );
    assert_eq!(memory.pinned_language("given").expect("pinned"), None);
    let context = ask(&memory, "pinned", "Was mag ich?");
    assert!(
        fact_items(&context).iter().any(|f| f.contains("Jazz")),
        "{context:#?}"
    );
    // A search that names its language keeps it.
    let english = memory
        .explain_search(
            "pinned",
            "Was mag ich?",
            &SearchOptions {
                lang: Some(Lang::English),
                ..SearchOptions::default()
            },
        )
        .expect("explain");
    let german = memory
        .explain_search("pinned", "Was mag ich?", &SearchOptions::default())
        .expect("explain");
    assert_ne!(english, german);
    memory.pin_language("pinned", None).expect("unpin");
    assert_eq!(memory.pinned_language("pinned").expect("pinned"), None);
    // A message is read in its language from then on; forgetting it takes
    // the record of its language with it.
    let report = memory.forget("given", "Jazz").expect("forget");
    assert_eq!(report.episodes, 1);
    assert_eq!(said_in(&memory, "given", "_", "_"), 0);
    drop(memory);
    let memory = common::memory_in(dir.path());
    assert_eq!(memory.pinned_language("pinned").expect("pinned"), None);
    // Unpinned and reopened, the tenant's memory is still known to be in
    // German: its languages are read back from what consolidation
    // recorded, not detected again (which would say English).
    let explained = memory
        .explain_search(
            "pinned",
            "Was mag ich?",
            &SearchOptions {
                lang: Some(Lang::German),
                ..SearchOptions::default()
            },
        )
        .expect("explain");
    assert!(!explained.contains("across languages"), "{explained}");
    let explained = memory
        .explain_search(
            "detected",
            "Was mag ich?",
            &SearchOptions {
                lang: Some(Lang::German),
                ..SearchOptions::default()
            },
        )
        .expect("explain");
    assert!(
        explained.contains("across languages: the memory is in en;"),
        "{explained}"
    );
    assert!(
        memory
            .pin_language("bad tenant", Some(Lang::German))
            .is_err()
    );
}

#[test]
fn a_budget_holds_in_german_and_a_larger_one_holds_more() {
    let memory = job_change("u9");
    for i in 1..=12 {
        say(
            &memory,
            "u9",
            "2024-07-01",
            &format!("Diese Woche habe ich bei Moonshot am Planer gearbeitet, Teil {i}."),
        );
    }
    memory.consolidate_now().expect("consolidate");
    let context = common::check_budgets(&memory, "u9", "Wo arbeite ich?", &[0, 15, 60, 200, 2_000]);
    assert!(!context.abstain, "{context:#?}");
    assert!(
        fact_items(&context)
            .first()
            .is_some_and(|f| f.contains("Moonshot")),
        "{context:#?}"
    );
}

#[test]
fn a_question_in_the_first_person_in_german_searches_the_users_own_words() {
    let memory = memory();
    let said = |role: &str, text: &str| say_as(&memory, "de", role, "2023-05-20", text);
    let user = said(
        "user",
        "Letzte Woche war ich wegen meiner Nebenhöhlen bei Dr. Patel.",
    );
    said(
        "assistant",
        "Nebenhöhlen? Ein Arzt für Nebenhöhlen ist ein HNO-Arzt.",
    );
    said("user", "Danke! Ich gieße heute meine Tomaten.");
    memory.consolidate_now().expect("consolidate");

    let context = ask(
        &memory,
        "de",
        "Bei welchem Arzt war ich wegen meiner Nebenhöhlen?",
    );
    assert!(ran(&context, "user_words"), "{:?}", context.channels);
    assert_eq!(context.ranked_episodes.first(), Some(&user), "{context:#?}");
    let about_doctors = ask(&memory, "de", "Welcher Arzt behandelt Nebenhöhlen?");
    assert!(
        !ran(&about_doctors, "user_words"),
        "{:?}",
        about_doctors.channels
    );
}

/// A life told the everyday way: a job said by what one is where, a job
/// quit and the next one started, a relation corrected; asked by its
/// paraphrases.
#[test]
fn a_job_said_by_what_one_is_where_is_asked_by_its_paraphrases_in_german() {
    let memory = memory();
    let dates = ["2024-01-10", "2024-02-03", "2024-05-20", "2024-06-01"];
    for (date, text) in dates.iter().zip([
        "Ich bin Krankenschwester im Marienkrankenhaus in Leeds.",
        "Meine Schwester Clara hat gerade Zwillinge bekommen!",
        "Ich habe im Krankenhaus gekündigt. Nächsten Montag fange ich bei einer Privatklinik an.",
        "Entschuldigung, Clara ist meine Cousine, nicht meine Schwester.",
    ]) {
        say(&memory, "de", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "de", "2025-01-01", "works_at"),
        ["Privatklinik"]
    );
    assert_eq!(
        believed(&memory, "de", "2025-01-01", "job_title"),
        ["Krankenschwester"]
    );
    assert_eq!(believed(&memory, "de", "2025-01-01", "cousin"), ["Clara"]);
    assert!(believed(&memory, "de", "2025-01-01", "sister").is_empty());
    for question in [
        "Wo bin ich angestellt?",
        "Wo arbeite ich?",
        "Was ist mein Beruf?",
    ] {
        let context = ask(&memory, "de", question);
        assert!(!context.abstain, "{question}: {context:#?}");
    }
    let work = ask(&memory, "de", "Wo bin ich angestellt?");
    assert!(fact_items(&work)[0].contains("Privatklinik"), "{work:#?}");
}
