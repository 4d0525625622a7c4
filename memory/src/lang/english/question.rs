//! How an English question reads: the names it may mention, whether it
//! speaks in the first person, asks when, about the past or for several
//! things, and how it ties its time to the tenant's timeline ("before I
//! moved to Berlin").

use std::sync::LazyLock;

use regex::Regex;

use crate::lang::{QuestionWords, TimelineAnchor};

static BEFORE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?P<dir>before|after|when|while)\s+(?:I|we|he|she|they)?\s*(?:was|were|am|lived|moved|worked|started|joined|left|went|got)?\s*(?:to|at|in|for|with)?\s*(?P<x>[A-Za-z][\w'-]*(?: [A-Z][\w'-]*)?)",
    )
    .unwrap_or_else(|e| unreachable!("{e}"))
});

static PAST_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:used to|use to|previous(?:ly)?|former(?:ly)?|before|ever|in the past|earlier|no longer|any ?more|still|originally|at first)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// "What/Which (kind of) <plural> has/does...", "What are (the) X's
/// <plural>".
static LIST_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:(?:what|which)\s+(?:\S+\s+){0,2}?[a-z-]*[^s'\s]s\s+(?:has|have|does|do|did|is|are|was|were)\b|what\s+are\s+(?:some\s+)?(?:the\s+)?(?:\S+'s\s+)?[a-z-]*[^s'\s]s\b)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// "How many weddings ...", "How often ...", "the total amount": a count
/// is of several things, each said in its own message.
static COUNT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow (?:many|often)\b|\btotal\b|\baltogether\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

static WHEN_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*when\b|\bhow long\b|\bwhat (?:year|month|date|day)\b|\bsince when\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

static NAMES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Z][\w'-]*(?: [A-Z][\w'-]*)?\b").unwrap_or_else(|e| unreachable!("{e}"))
});

/// Capitalised words that start questions or are no names.
const NOT_NAMES: &[&str] = &[
    "I",
    "What",
    "When",
    "Where",
    "Who",
    "Why",
    "How",
    "Which",
    "Am",
    "Did",
    "Do",
    "Does",
    "Is",
    "Are",
    "Was",
    "Were",
    "Has",
    "Have",
    "Had",
    "Can",
    "Could",
    "Would",
    "Will",
    "Should",
    "The",
    "A",
    "An",
    "My",
    "In",
    "On",
    "At",
    "Before",
    "After",
    "Since",
    "Tell",
    "Please",
    "Remind",
    "Me",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Last",
    "Next",
    "This",
];

/// What `question`'s words say.
pub(super) fn read(question: &str) -> QuestionWords {
    static FIRST_PERSON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:I|me|my|My|mine)\b").unwrap_or_else(|e| unreachable!("{e}"))
    });
    let names = NAMES
        .find_iter(question)
        .map(|m| {
            let words: Vec<&str> = m.as_str().split(' ').collect();
            // A two-word match may be a name after a question word ("Did
            // Alice"); one with a word that is no name ("Do I") is never
            // one name.
            let readings = if words.len() == 2 {
                if words.iter().any(|w| NOT_NAMES.contains(w)) {
                    vec![words[0], words[1]]
                } else {
                    vec![m.as_str(), words[0], words[1]]
                }
            } else {
                vec![m.as_str()]
            };
            readings
                .into_iter()
                .map(|r| r.trim_end_matches("'s"))
                .filter(|r| !NOT_NAMES.contains(r))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|readings| !readings.is_empty())
        .collect();
    let lower_words = question
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| w.len() >= 3 && !w.chars().next().is_some_and(char::is_uppercase))
        .map(str::to_string)
        .collect();
    let anchor = BEFORE_AFTER.captures(question).and_then(|caps| {
        let (dir, x) = (caps.name("dir")?, caps.name("x")?);
        // "When did I move?" asks when; it anchors nothing.
        if dir.as_str().eq_ignore_ascii_case("when") && caps.get(0)?.start() == 0 {
            return None;
        }
        let word = dir.as_str().to_lowercase();
        Some(TimelineAnchor {
            before: word == "before",
            word,
            object: x.as_str().to_string(),
        })
    });
    // "you" that asks ("Can you remind me", "if you could") refers to
    // nothing said; any other "you", and "we" or "our", does.
    static SECOND_PERSON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:you|your|yours|yourself)\b").unwrap_or_else(|e| unreachable!("{e}"))
    });
    static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:can|could|would|will|do|if) you\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    static FIRST_PLURAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:we|us|our|ours)\b").unwrap_or_else(|e| unreachable!("{e}"))
    });
    let about_listener = FIRST_PLURAL.is_match(question)
        || SECOND_PERSON.find_iter(question).count() > REQUEST.find_iter(question).count();
    QuestionWords {
        first_person: FIRST_PERSON.is_match(question),
        about_listener,
        names,
        lower_words,
        asks_when: WHEN_WORDS.is_match(question),
        asks_past: PAST_WORDS.is_match(question),
        asks_list: LIST_WORDS.is_match(question) || COUNT_WORDS.is_match(question),
        anchor,
        relatives: relatives(question),
    }
}

/// "my mom", "our son's": the relatives a question names by relation.
fn relatives(question: &str) -> Vec<String> {
    static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
        let said = crate::claim::FAMILY
            .iter()
            .filter(|r| crate::claim::known_by_relation(r))
            .map(|r| r.replace('_', " "))
            .collect::<Vec<_>>()
            .join("|");
        Regex::new(&format!(r"(?i)\b(?:my|our) (?P<r>{said})\b"))
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    RELATIVE
        .captures_iter(question)
        .filter_map(|c| c.name("r"))
        .map(|r| r.as_str().to_lowercase().replace(' ', "_"))
        .collect()
}

/// The parts of a multi-part question: "Where do I work and where do I
/// live?" is two, cut at a question mark or at "and" before a question
/// word; "Do I like tea and coffee?" stays one.
pub(super) fn parts(question: &str) -> Vec<String> {
    static AND_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i),?\s+and\s+(?:also\s+)?(what|where|when|who|whom|which|why|how|did|do|does|is|are|was|were|has|have)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let mut out = Vec::new();
    for piece in question.split('?') {
        let mut rest = piece;
        while let Some(m) = AND_QUESTION.find(rest) {
            let (head, tail) = rest.split_at(m.start());
            out.push(head.trim().to_string());
            // Keep the question word: skip ", and" only.
            let tail = tail.trim_start_matches(',').trim_start();
            let tail = tail
                .get(3..)
                .map_or("", str::trim_start)
                .trim_start_matches("also ")
                .trim_start();
            rest = tail;
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
    fn a_question_word_and_i_are_no_name() {
        for question in [
            "Am I still a teacher?",
            "Do I still live in Leeds?",
            "Had I met Sam?",
        ] {
            let names = read(question).names;
            assert!(
                names.iter().flatten().all(|n| !n.contains(' ')),
                "{question}: {names:?}"
            );
        }
        assert_eq!(read("Do I still live in Leeds?").names, [["Leeds"]]);
        assert_eq!(
            read("Where does Alice Smith live?").names[0][0],
            "Alice Smith"
        );
    }

    #[test]
    fn still_and_any_more_ask_about_the_past() {
        for past in [
            "Do I still play the cello?",
            "Am I still at AstraZeneca?",
            "Do I play the cello any more?",
            "Where did I use to live?",
        ] {
            assert!(read(past).asks_past, "{past}");
        }
        assert!(!read("Do I play the cello?").asks_past);
    }

    #[test]
    fn a_question_about_what_the_one_asked_said_is_told_from_a_request() {
        for about_listener in [
            "What was the restaurant you recommended?",
            "Can you remind me what you said about eggs?",
            "I remember you told me about refineries.",
            "What did we talk about last time?",
            "Remind me of our previous conversation about music.",
            "Which of your suggestions did I like?",
        ] {
            assert!(read(about_listener).about_listener, "{about_listener}");
        }
        for request in [
            "Can you suggest some activities I can do on my commute?",
            "Could you remind me where I parked?",
            "I was wondering if you could remind me of my dentist's name.",
            "Do you have any ideas for my garden?",
            "Where do I work?",
            "What did Caroline paint?",
        ] {
            assert!(!read(request).about_listener, "{request}");
        }
    }

    #[test]
    fn relatives_named_by_relation() {
        assert_eq!(read("Where does my mom live?").relatives, ["mom"]);
        assert_eq!(
            read("What does my best friend's husband do?").relatives,
            ["best_friend"]
        );
        assert!(read("Where does my friend live?").relatives.is_empty());
        assert!(read("Where does Anna's mom live?").relatives.is_empty());
    }

    #[test]
    fn multi_part_questions_are_cut_before_their_question_words() {
        assert_eq!(
            parts("Where do I work and where do I live?"),
            ["Where do I work", "where do I live"]
        );
        assert_eq!(
            parts("Where do I work? When did I move?"),
            ["Where do I work", "When did I move"]
        );
        assert_eq!(
            parts("Do I like tea and coffee?"),
            ["Do I like tea and coffee"]
        );
        assert_eq!(
            parts("Who is Mia, and also what does she do?"),
            ["Who is Mia", "what does she do"]
        );
    }

    #[test]
    fn a_question_for_several_things_is_told_from_one_for_one() {
        for list in [
            "What books has Tim read?",
            "Which cities has Jon visited?",
            "What kind of interests do Joanna and Nate share?",
            "What LGBTQ+ events has Caroline participated in?",
            "What are Joanna's hobbies?",
            "What are some changes Caroline has faced?",
        ] {
            assert!(LIST_WORDS.is_match(list), "{list}");
        }
        for one in [
            "What is Caroline's identity?",
            "Where does Alice work?",
            "What pet does Caroline have?",
            "What does Melanie's necklace symbolize?",
            "When did Nate get his glasses?",
            "What class is Melanie taking?",
            "What was grandma's gift to Melanie?",
        ] {
            assert!(!LIST_WORDS.is_match(one), "{one}");
        }
        for count in [
            "How many weddings have I attended this year?",
            "How often did I go to the gym last month?",
            "What is the total amount I spent on gifts?",
            "How much did I spend on books altogether?",
        ] {
            assert!(read(count).asks_list, "{count}");
        }
        for one in ["How much do I earn per year?", "How old is my sister?"] {
            assert!(!read(one).asks_list, "{one}");
        }
    }
}
