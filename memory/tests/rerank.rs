//! The reranker reorders what fusion found: the message that answers
//! comes first even when others share more of the question's words.

mod common;

use std::sync::Arc;

use chronolog_memory::{Memory, SearchOptions, Tuning};
use common::{memory_with, say, say_as};

/// Caroline says "work" in two messages; the one that says where she
/// works never uses the word.
fn caroline(reranker: Option<Arc<dyn chronolog_engine::Reranker>>) -> Memory {
    let memory = memory_with(reranker, Tuning::default());
    for (date, text) in [
        (
            "2023-05-01",
            "Work has been crazy, my boss keeps me late at work.",
        ),
        (
            "2023-05-02",
            "I got a job as a counselor at the LGBTQ center.",
        ),
        ("2023-05-03", "I need to work on my painting more."),
    ] {
        say_as(&memory, "t", "Caroline", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    memory
}

/// A memory with the reranker that the user of `tenant` told each
/// `(date, text)`, consolidated.
fn told(
    reranker: Arc<dyn chronolog_engine::Reranker>,
    tenant: &str,
    said: &[(&str, &str)],
) -> Memory {
    let memory = memory_with(Some(reranker), Tuning::default());
    for (date, text) in said {
        say(&memory, tenant, date, text);
    }
    memory.consolidate_now().expect("consolidate");
    memory
}

fn first_message(memory: &Memory, options: &SearchOptions) -> String {
    let context = memory
        .search("t", "Where does Caroline work?", options)
        .expect("search");
    context.ranked_episodes.first().cloned().unwrap_or_default()
}

#[test]
fn the_answer_leads_once_reranked_and_not_before() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let options = SearchOptions {
        abstain: false,
        ..SearchOptions::default()
    };
    let fused_only = SearchOptions {
        rerank_depth: 0,
        ..options.clone()
    };
    let memory = caroline(Some(reranker));
    // Words alone put a message full of "work" first.
    assert_ne!(first_message(&memory, &fused_only), "t/e2");
    assert_eq!(first_message(&memory, &options), "t/e2");
    // explain shows what the reranker read and where fusion had put it.
    let explained = memory
        .explain_search("t", "Where does Caroline work?", &options)
        .expect("explain");
    assert!(
        explained.contains("reranked by ms-marco-MiniLM-L-12-v2") && explained.contains("1. t/e2 "),
        "{explained}"
    );
    // Without a reranker the option changes nothing.
    let plain = caroline(None);
    assert_eq!(
        first_message(&plain, &options),
        first_message(&plain, &fused_only)
    );
}

/// The cross-encoder reads English: a German question keeps its fused
/// order, and explain says why.
#[test]
fn a_question_in_another_language_is_not_reranked_by_an_english_model() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let memory = caroline(Some(reranker));
    let options = SearchOptions {
        abstain: false,
        ..SearchOptions::default()
    };
    let question = "Wo arbeitet Caroline?";
    let explained = memory
        .explain_search("t", question, &options)
        .expect("explain");
    assert!(explained.contains("(de)"), "{explained}");
    assert!(explained.contains("reranked: no"), "{explained}");
    let reranked = memory.search("t", question, &options).expect("search");
    let fused = memory
        .search(
            "t",
            question,
            &SearchOptions {
                rerank_depth: 0,
                ..options.clone()
            },
        )
        .expect("search");
    assert_eq!(reranked.ranked_episodes, fused.ranked_episodes);
}

/// The everyday conversation of `conversations/everyday.conv`, said to a
/// memory with the reranker.
fn everyday(reranker: Arc<dyn chronolog_engine::Reranker>) -> Memory {
    let memory = memory_with(Some(reranker), Tuning::default());
    for (date, text) in [
        ("2024-06-15", "Two years ago I worked at IBM."),
        ("2024-06-15", "I have lived in Tokyo for three years."),
        ("2024-06-16", "I worked at Oracle until March 2023."),
        ("2024-06-17", "I joined Sony in 2023."),
        (
            "2024-06-18",
            "My dog Rex is the best and my boyfriend Tom is a chef.",
        ),
        ("2024-06-19", "My friend Tom likes old westerns."),
        ("2024-07-01", "Actually I live in Osaka, not Tokyo."),
        ("2024-08-10", "My dog passed away last week."),
        ("2024-08-20", "We broke up."),
        ("2024-09-02", "I got laid off yesterday."),
    ] {
        say_as(&memory, "sam", "user", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    memory
}

/// A low score is a judgement of what the reranker read: with more
/// candidate messages than it reads the answer may be among the rest
/// (LongMemEval's temporal questions, whose evidence ranks below the
/// first 20), so the gate abstains on it only once every candidate was
/// read.
#[test]
fn a_low_score_abstains_only_when_every_candidate_was_read() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let memory = everyday(reranker);
    for day in 1..=40 {
        say_as(
            &memory,
            "sam",
            "user",
            "2024-10-01",
            &format!("Note {day}: this year I walked {day} kilometres by the river."),
        );
    }
    memory.consolidate_now().expect("consolidate");
    let ask = |depth: usize| {
        memory
            .search(
                "sam",
                "How much do I earn per year?",
                &SearchOptions {
                    rerank_depth: depth,
                    ..SearchOptions::default()
                },
            )
            .expect("search")
    };
    let floored = |c: &chronolog_memory::Context| {
        c.reason
            .as_deref()
            .is_some_and(|r| r.starts_with("nothing found answers the question"))
    };
    let partly_read = ask(20);
    assert!(
        partly_read.evidence_score.is_some_and(|e| e < -9.0) && !floored(&partly_read),
        "{:?} {:?}",
        partly_read.evidence_score,
        partly_read.reason
    );
    let all_read = ask(200);
    assert!(
        all_read.abstain && floored(&all_read),
        "{:?} {:?}",
        all_read.evidence_score,
        all_read.reason
    );
}

/// Issue 30: words a question shares with memory are no evidence when
/// the reranker judges nothing found an answer; what memory holds is
/// answered, paraphrased or not, and the reranker's judgement that a
/// message answers outweighs a paraphrase's missing words.
#[test]
fn the_gate_abstains_when_the_reranker_finds_no_answer() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let memory = everyday(reranker);
    let ask = |q: &str| {
        memory
            .search("sam", q, &SearchOptions::default())
            .expect("search")
    };
    for q in [
        "How much do I earn per year?",
        "When is Tom's birthday?",
        "What is my blood type?",
        "Which university did I study at?",
    ] {
        let context = ask(q);
        assert!(
            context.abstain && context.items.is_empty(),
            "{q}: {:?} {}",
            context.evidence_score,
            context.to_text()
        );
    }
    let earn = ask("How much do I earn per year?");
    assert!(
        earn.reason
            .as_deref()
            .is_some_and(|r| r.starts_with("nothing found answers the question")),
        "{:?}",
        earn.reason
    );
    for (q, said) in [
        ("Where do I live?", "Osaka"),
        ("Which city am I living in now?", "Osaka"),
        ("What does Tom like?", "westerns"),
        ("What happened to my dog?", "passed away"),
        ("Where did I work in 2022?", "IBM"),
    ] {
        let context = ask(q);
        assert!(
            !context.abstain && context.to_text().contains(said),
            "{q}: {:?} {:?}",
            context.evidence_score,
            context.reason
        );
        assert!(context.evidence_score.is_some_and(|e| e > -9.0));
    }
}

/// A paraphrase that shares no word with what was said ("dog" for
/// "puppy", "meat" for "vegetarian", "fiancé" for "engaged") is answered
/// when the reranker finds its message, however far below even odds: the
/// word gates ask whether anything is about the question.
#[test]
fn a_paraphrase_sharing_no_word_is_answered_on_the_rerankers_judgement() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let memory = told(
        reranker,
        "maya",
        &[
            (
                "2024-02-11",
                "Got a puppy last weekend, a beagle named Biscuit!",
            ),
            ("2024-03-02", "My boyfriend Erik and I just got engaged!!"),
            ("2024-04-20", "I've been vegetarian for five years now."),
            ("2024-06-30", "The weather has been lovely all week."),
        ],
    );
    for (q, said) in [
        ("What's my dog's name?", "Biscuit"),
        ("Do I eat meat?", "vegetarian"),
        ("Who is my fiancé?", "Erik"),
    ] {
        let context = memory
            .search("maya", q, &SearchOptions::default())
            .expect("search");
        assert!(
            !context.abstain && context.to_text().contains(said),
            "{q}: {:?} {:?}",
            context.evidence_score,
            context.reason
        );
    }
}

/// Melanie's answer names no painting ("A sunset over the lake"); the
/// question it answers is Caroline's, the message before. The reranker
/// reads that question with the answer and puts it first; reading the
/// answer alone, it prefers a message that says "painting".
fn melanie(reranker: Arc<dyn chronolog_engine::Reranker>, before_chars: usize) -> Memory {
    let mut tuning = Tuning::default();
    tuning
        .set("rerank_before_chars", &before_chars.to_string())
        .expect("a tuning field");
    let memory = memory_with(Some(reranker), tuning);
    for (role, date, text) in [
        ("Caroline", "2023-05-01", "What did you paint last weekend?"),
        (
            "Melanie",
            "2023-05-01",
            "A sunset over the lake, with purple clouds.",
        ),
        ("Caroline", "2023-05-02", "How are the kids?"),
        (
            "Melanie",
            "2023-05-02",
            "Painting with the kids is how I relax after work.",
        ),
    ] {
        say_as(&memory, "t", role, date, text);
    }
    memory.consolidate_now().expect("consolidate");
    memory
}

#[test]
fn the_reranker_reads_the_question_an_answer_answers() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let options = SearchOptions {
        abstain: false,
        ..SearchOptions::default()
    };
    let first = |before_chars| {
        let memory = melanie(reranker.clone(), before_chars);
        memory
            .search("t", "What did Melanie paint?", &options)
            .expect("search")
            .ranked_episodes
            .first()
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(first(0), "t/e4");
    assert_eq!(first(300), "t/e2");
}

/// Of the many values of a predicate asked ("What instruments do I
/// play?" asks every `likes`), the reranker's judgement of each fact
/// against the question decides which lead: the cello, before the
/// pastimes that share the question's word "play".
#[test]
fn of_many_tastes_asked_the_one_that_answers_leads() {
    let Some(reranker) = common::reranker() else {
        return;
    };
    let memory = told(
        reranker,
        "t",
        &[
            ("2024-03-01", "I love playing board games with friends."),
            ("2024-03-02", "I love playing video games at night."),
            ("2024-03-03", "I love hiking in the hills."),
            ("2024-03-04", "I took up the cello in March."),
            ("2024-03-05", "I love baking bread on Sundays."),
        ],
    );
    let question = "What instruments do I play?";
    let first_fact = |options: &SearchOptions| {
        let context = memory.search("t", question, options).expect("search");
        context
            .items
            .iter()
            .find(|item| item.kind == chronolog_memory::ItemKind::Fact)
            .map(|item| item.id.clone())
            .unwrap_or_default()
    };
    let options = SearchOptions {
        abstain: false,
        ..SearchOptions::default()
    };
    let fused_only = SearchOptions {
        rerank_depth: 0,
        ..options.clone()
    };
    assert_eq!(first_fact(&options), "t/user/feels_about/cello");
    // Fusion alone puts a fact that shares the word "play" first.
    assert_ne!(first_fact(&fused_only), "t/user/feels_about/cello");
    let explained = memory
        .explain_search("t", question, &options)
        .expect("explain");
    assert!(
        explained.contains("facts asked, ordered by ms-marco-MiniLM-L-12-v2")
            && explained.contains("1. t/user/feels_about/cello "),
        "{explained}"
    );
}

/// The real reranker, counting what each message pass gives it to read.
struct Counted {
    model: Arc<dyn chronolog_engine::Reranker>,
    /// Per call that read messages (`user: ...`): the characters of each.
    read: std::sync::Mutex<Vec<Vec<usize>>>,
}

impl chronolog_engine::Reranker for Counted {
    fn name(&self) -> String {
        self.model.name()
    }

    fn language(&self) -> Option<&'static str> {
        self.model.language()
    }

    fn score(&self, question: &str, passages: &[&str]) -> chronolog_engine::Result<Vec<f32>> {
        if passages.iter().all(|p| p.starts_with("user: ")) {
            let lengths = passages.iter().map(|p| p.chars().count()).collect();
            if let Ok(mut read) = self.read.lock() {
                read.push(lengths);
            }
        }
        self.model.score(question, passages)
    }
}

/// The model's time grows with what it reads: with `rerank_budget_chars`
/// the messages are read in fused order only while their text fits in
/// it, so a question among long messages has fewer read; without it,
/// every candidate up to `rerank_depth`.
#[test]
fn a_budget_bounds_what_the_reranker_reads_in_one_search() {
    let Some(model) = common::reranker() else {
        return;
    };
    let trips = [
        "We drove up the coast to Big Sur last weekend, stopping at every viewpoint along Highway 1, and we camped under the redwoods where the kids roasted marshmallows until midnight and counted shooting stars.",
        "The hiking trip to Yosemite was the best part of the summer: we climbed to the top of Half Dome on the cables, watched the sunrise from Glacier Point and swam in the Merced River afterwards.",
        "My sister and I took the train through the Swiss Alps in June, from Zurich to Zermatt, and spent three days walking between mountain huts with views of the Matterhorn at every turn of the trail.",
        "For our anniversary we flew to Lisbon and spent a week wandering the old town, riding the yellow trams up the hills and eating custard tarts in a tiny bakery near the river every single morning.",
        "Last month I went camping alone in the desert near Joshua Tree, and the silence at night was something I had never experienced before, with only the wind and a coyote somewhere far off in the dark.",
    ];
    let said: Vec<(&str, &str)> = trips.iter().map(|trip| ("2023-05-01", *trip)).collect();
    let question = "Where did I go on my trips?";
    let options = SearchOptions {
        abstain: false,
        ..SearchOptions::default()
    };
    let read = |budget: usize| {
        let counted = Arc::new(Counted {
            model: model.clone(),
            read: std::sync::Mutex::new(Vec::new()),
        });
        let mut tuning = Tuning::default();
        tuning.rerank_budget_chars = budget;
        let memory = memory_with(Some(counted.clone()), tuning);
        for (date, text) in &said {
            say(&memory, "t", date, text);
        }
        memory.consolidate_now().expect("consolidate");
        let context = memory.search("t", question, &options).expect("search");
        assert_eq!(context.ranked_episodes.len(), trips.len(), "{context:?}");
        counted.read.lock().expect("lock").clone()
    };
    // Without a budget every candidate is read, in one pass.
    let unbounded = read(0);
    assert_eq!(unbounded.len(), 1, "{unbounded:?}");
    assert_eq!(unbounded[0].len(), trips.len(), "{unbounded:?}");
    assert!(unbounded[0].iter().all(|&n| n > 190), "{unbounded:?}");
    // Each message is about 200 characters: 500 reads the first two in
    // fused order, and no more than the budget.
    let bounded = read(500);
    assert_eq!(bounded.len(), 1, "{bounded:?}");
    assert_eq!(bounded[0].len(), 2, "{bounded:?}");
    assert!(bounded[0].iter().sum::<usize>() <= 500, "{bounded:?}");
    // Room for one alone: there is nothing to reorder, so nothing is read.
    assert_eq!(read(250), Vec::<Vec<usize>>::new());
}
