//! How a German question reads: whether it speaks in the first person,
//! asks when (wann, wie lange, seit wann), about the past (früher, vorher)
//! or for several things (welche Bücher), and how it ties its time to the
//! tenant's timeline ("bevor ich nach Berlin gezogen bin").

use std::sync::LazyLock;

use regex::Regex;

use crate::lang::{QuestionWords, TimelineAnchor};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("{e}"))
}

static FIRST_PERSON: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:ich|mich|mir|mein|meine|meinen|meinem|meiner|meines)\b"));
/// "du", "dein", "Ihnen" and a "Sie" inside the sentence: the one asked.
static SECOND_PERSON: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(?:[Dd]u|[Dd]ich|[Dd]ir|[Dd]ein\w*|Ihnen|Ihr\w*)\b|[^.?!]\s+Sie\b"));
/// A "du" or "Sie" that asks ("Kannst du mir sagen", "Könnten Sie").
static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:kannst|könntest|würdest|magst) du\b|\b(?:[Kk]önnen|[Kk]önnten|[Ww]ürden) Sie\b")
});
static FIRST_PLURAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:wir|uns|unser\w*)\b"));
static WHEN_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*wann\b|\bwie lange\b|\bseit wann\b|\bin welchem (?:jahr|monat)\b|\bwelches jahr\b|\ban welchem tag\b",
    )
});
static PAST_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:früher|vorher|ehemals|damals|einst|ursprünglich|nicht mehr|noch|nach wie vor|weiterhin|zuvor|vormals)\b",
    )
});
static LIST_WORDS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*(?:welche|was für) [a-zäöüß-]*(?:en|er|s)\b"));
/// "Wie viele Hochzeiten ...", "Wie oft ...", "insgesamt": a count is of
/// several things, each said in its own message.
static COUNT_WORDS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bwie (?:viele|oft)\b|\binsgesamt\b|\bgesamt"));
static ANCHOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?P<dir>bevor|nachdem|als|während)\s+(?:ich|wir|er|sie)?\s*(?:nach|bei|zu|in|für)?\s*(?P<x>[A-ZÄÖÜ][\wäöüß'-]*)",
    )
});
static AND_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i),?\s+und\s+(?:auch\s+)?(?:was|wo|wann|wer|wen|wem|welche[nrs]?|warum|wie)\b")
});
static WORDS: LazyLock<Regex> = LazyLock::new(|| re(r"[\wäöüßÄÖÜ'-]+"));

/// Capitalised words that start questions or are no names.
const NOT_NAMES: &[&str] = &[
    "Ich", "Was", "Wann", "Wo", "Wer", "Wen", "Wem", "Wie", "Warum", "Welche", "Welcher",
    "Welches", "Habe", "Hat", "Bin", "Ist", "Sind", "War", "Der", "Die", "Das", "Mein", "Meine",
    "Im", "Am", "In", "Seit", "Vor", "Bevor", "Nachdem",
];

/// What `question`'s words say.
pub(super) fn read(question: &str) -> QuestionWords {
    let anchor = ANCHOR.captures(question).and_then(|caps| {
        let (dir, x) = (caps.name("dir")?, caps.name("x")?);
        let word = dir.as_str().to_lowercase();
        Some(TimelineAnchor {
            before: word == "bevor",
            word,
            object: x.as_str().to_string(),
        })
    });
    // German capitalises every noun: a capitalised word may be a name the
    // tenant knows, but none is taken for an unknown name.
    let mut lower_words = Vec::new();
    for m in WORDS.find_iter(question) {
        let word = m.as_str();
        if word.chars().count() < 3 || NOT_NAMES.contains(&word) {
            continue;
        }
        lower_words.push(word.to_string());
        // "Annas Hund": the genitive's s is no part of the name.
        if let Some(name) = word.strip_suffix('s').filter(|n| n.chars().count() >= 3) {
            lower_words.push(name.to_string());
        }
    }
    let about_listener = FIRST_PLURAL.is_match(question)
        || SECOND_PERSON.find_iter(question).count() > REQUEST.find_iter(question).count();
    QuestionWords {
        first_person: FIRST_PERSON.is_match(question),
        about_listener,
        names: Vec::new(),
        lower_words,
        asks_when: WHEN_WORDS.is_match(question),
        asks_past: PAST_WORDS.is_match(question) && anchor.is_none(),
        asks_list: LIST_WORDS.is_match(question) || COUNT_WORDS.is_match(question),
        anchor,
        relatives: relatives(question),
    }
}

/// "meine Mutter", "meinem Mann": the relatives a question names by
/// relation, as family predicates.
fn relatives(question: &str) -> Vec<String> {
    static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
        let said = crate::lang::relative_words(super::words::FAMILY);
        Regex::new(&format!(
            r"\b(?i:mein|meine|meinem|meinen|meiner|meines|unser|unsere|unserem|unseren|unserer) (?P<r>{said})\b"
        ))
        .unwrap_or_else(|e| unreachable!("{e}"))
    });
    crate::lang::relatives_found(&RELATIVE, question, super::words::FAMILY)
}

/// The parts of a question that asks several things: cut at a question
/// mark, or at "und" before a question word.
pub(super) fn parts(question: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in question.split('?') {
        let mut rest = piece;
        while let Some(m) = AND_QUESTION.find(rest) {
            let (head, tail) = rest.split_at(m.start());
            out.push(head.trim().to_string());
            let tail = tail.trim_start_matches(',').trim_start();
            rest = tail.get(3..).map_or("", str::trim_start);
        }
        out.push(rest.trim().to_string());
    }
    out.retain(|p| p.split_whitespace().count() >= 2);
    if out.is_empty() {
        out.push(question.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relatives_named_by_relation() {
        assert_eq!(read("Wo wohnt meine Mutter?").relatives, ["mother"]);
        assert_eq!(
            read("Was macht mein Mann beruflich?").relatives,
            ["husband"]
        );
        assert_eq!(
            read("Wann hat meine Schwester mit meinem Mann gesprochen?").relatives,
            ["sister", "husband"]
        );
        assert!(read("Wo wohnt mein Kollege?").relatives.is_empty());
    }

    #[test]
    fn a_question_about_what_the_one_asked_said_is_told_from_a_request() {
        for about_listener in [
            "Welches Restaurant hast du mir empfohlen?",
            "Worüber haben wir letztes Mal gesprochen?",
            "Was haben Sie mir über Eier gesagt?",
            "Kannst du mich an deinen Vorschlag erinnern?",
        ] {
            assert!(read(about_listener).about_listener, "{about_listener}");
        }
        for request in [
            "Kannst du mir Aktivitäten für meinen Arbeitsweg vorschlagen?",
            "Könnten Sie mich erinnern, wo ich geparkt habe?",
            "Wo arbeite ich?",
            "Sie hat ein Bild gemalt: welches?",
        ] {
            assert!(!read(request).about_listener, "{request}");
        }
    }

    #[test]
    fn cues_anchors_and_parts() {
        let q = read("Wo habe ich gearbeitet, bevor ich nach Berlin gezogen bin?");
        assert!(q.first_person);
        let anchor = q.anchor.expect("anchor");
        assert!(anchor.before);
        assert_eq!(anchor.object, "Berlin");
        assert!(read("Wann habe ich bei Moonshot angefangen?").asks_when);
        assert!(read("Wo habe ich früher gewohnt?").asks_past);
        // "Noch" asks whether something held then holds now.
        assert!(read("Spiele ich noch Cello?").asks_past);
        assert!(read("Arbeite ich immer noch bei Zalando?").asks_past);
        assert!(read("Welche Bücher hat Anna gelesen?").asks_list);
        assert!(!read("Welche Stadt mag ich?").asks_list);
        assert!(read("Wie viele Hochzeiten habe ich dieses Jahr besucht?").asks_list);
        assert!(read("Wie viel habe ich insgesamt für Bücher ausgegeben?").asks_list);
        assert!(!read("Wie viel verdiene ich im Jahr?").asks_list);
        assert_eq!(
            parts("Wo arbeite ich und wo wohne ich?"),
            ["Wo arbeite ich", "wo wohne ich"]
        );
    }
}
