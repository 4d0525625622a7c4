//! How the rule extractor reads a sentence's parts: sentences, where an
//! object ends and whether what is left is a thing, and whether a
//! sentence speaks of the future.

use std::sync::LazyLock;

use regex::Regex;

/// Where an object stops: a clause or a time expression after it.
static OBJECT_END: LazyLock<Regex> = LazyLock::new(|| {
    // A dash set apart by spaces starts an aside ("adopting a rescue dog
    // - for love").
    Regex::new(r"(?i)\s+(?:and|but|because|since|so|which|who|where|while|when|until|for|as|with my|with her|with his|after|before|now|anymore|any more|these days|lately|too|though|again|right now|at the moment|this|last|next|yesterday|today|tomorrow|ago|in|on|from|recently|so far|not so long|not long)\b|\s+[-–—](?:\s|$)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// The object as said, cut where its clause ends, articles and possessives
/// dropped; `None` when nothing is left or it is too long to be one thing.
pub(super) fn clean_object(raw: &str) -> Option<String> {
    let mut text = raw.trim();
    if let Some(m) = OBJECT_END.find(text) {
        text = &text[..m.start()];
    }
    let text = text.trim_end_matches(['\'', '"', ' ']);
    let lower = text.to_ascii_lowercase();
    let mut text = text;
    for article in ["a ", "an ", "the ", "my ", "our ", "some ", "to "] {
        if lower.starts_with(article) {
            text = &text[article.len()..];
            break;
        }
    }
    let text = text.trim().replace(KEPT_PERIOD, ".");
    // "guitar about five years ago" less its time: "about" was the time's.
    let text = match text.rsplit_once(' ') {
        Some((kept, last)) if HEDGES.contains(&last.to_ascii_lowercase().as_str()) => kept,
        _ => text.as_str(),
    };
    let words = text.split_whitespace().count();
    let vague = [
        "it", "that", "this", "them", "there", "here", "one", "so", "you", "to",
    ];
    let first = text
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let verb_first = [
        "is", "was", "are", "were", "be", "been", "it", "that", "this", "these",
    ];
    if words == 0
        || words > 6
        || vague.contains(&text.to_ascii_lowercase().as_str())
        || verb_first.contains(&first.as_str())
        || CLAUSE_FIRST.contains(&first.as_str())
        || NO_THING_FIRST.contains(&first.as_str())
        || (words == 1 && needs_complement(&first))
        || text
            .split_whitespace()
            .any(|w| REFERS_ELSEWHERE.contains(&w.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    Some(text.to_string())
}

/// Words that open a clause, not a thing: "I love how it shows...",
/// "why we love what we do".
const CLAUSE_FIRST: &[&str] = &[
    "how", "what", "when", "why", "where", "who", "whatever", "not", "every",
];

/// What begins no thing: a preposition or a dash, left first when the
/// verb's object stands before it ("a pic I took during a workout", "the
/// petition I started - it's tricky").
const NO_THING_FIRST: &[&str] = &[
    "-", "–", "—", "during", "about", "for", "with", "from", "at", "by", "on", "in", "into",
    "after", "before", "since", "while",
];

/// Words that hedge a time phrase ("about five years ago"), left at the
/// end of an object when the time is taken out.
const HEDGES: &[&str] = &["about", "around", "almost", "nearly", "roughly", "over"];

/// Words that make an object point at something said elsewhere ("I love
/// holding them"): the thing itself is not in the sentence.
const REFERS_ELSEWHERE: &[&str] = &["them", "it", "him", "me", "us"];

/// Whether `word` is a verb that says nothing without what follows it
/// ("I love going on road trips" cut at "on" leaves "going"; "Love to
/// hear more" leaves "hear"), in any of its forms. A taste such as
/// "hiking" or "reading" stands alone and is kept.
fn needs_complement(word: &str) -> bool {
    const LIGHT: &[&str] = &[
        "go", "make", "play", "do", "get", "have", "take", "see", "try", "hear", "watch", "use",
        "put", "give", "keep", "find", "come", "be", "know", "say", "tell",
    ];
    let stem = word
        .strip_suffix("ing")
        .or_else(|| word.strip_suffix('s'))
        .unwrap_or(word);
    // "making" -> "mak", "getting" -> "gett", "going" -> "go".
    LIGHT.iter().any(|verb| {
        stem == *verb
            || stem == verb.trim_end_matches('e')
            || stem.strip_suffix(|c: char| verb.ends_with(c)) == Some(verb)
    })
}

/// Sentences of a message, cut at `.`, `!`, `?` and new lines.
pub(super) fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut cuts = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let ends = match c {
            '!' | '?' | '\n' => true,
            // "St. Mary's", "Dr. Smith": a title's period ends nothing.
            '.' => {
                let word = text[..i].rsplit(|c: char| !c.is_alphabetic()).next();
                !word.is_some_and(|w| ABBREVIATIONS.contains(&w))
            }
            _ => false,
        };
        if ends {
            cuts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    cuts.push(&text[start..]);
    cuts.into_iter().map(str::trim).filter(|s| !s.is_empty())
}

/// A title's period inside a sentence, kept apart from the periods the
/// rules stop objects at ("St. Mary's" is one name); `clean_object`
/// gives it back.
const KEPT_PERIOD: char = '\u{2024}';

/// `sentence` with each abbreviation's period made [`KEPT_PERIOD`].
pub(super) fn keep_abbreviations(sentence: &str) -> String {
    let mut out = String::with_capacity(sentence.len());
    for (i, c) in sentence.char_indices() {
        let abbreviation = c == '.'
            && sentence[..i]
                .rsplit(|c: char| !c.is_alphabetic())
                .next()
                .is_some_and(|w| ABBREVIATIONS.contains(&w));
        out.push(if abbreviation { KEPT_PERIOD } else { c });
    }
    out
}

/// Words shortened with a period that ends no sentence.
const ABBREVIATIONS: &[&str] = &[
    "St", "Dr", "Mr", "Mrs", "Ms", "Jr", "Sr", "Prof", "Mt", "Ft",
];

/// Words that put a sentence in the future, the present of a schedule
/// among them ("I start on April 1st").
static AHEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:will|'ll|going to|gonna|plan to|planning to|next|upcoming|coming|(?:am|are|is) (?:moving|relocating|starting|joining|leaving)|(?:I|we|he|she|they) (?:start|begin|move|leave)s? (?:on|in)\b)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

pub(super) fn looks_ahead(sentence: &str) -> bool {
    AHEAD.is_match(sentence)
}

/// An age said in words ("seven", "forty-two") as the number it says,
/// written in digits as an age said in digits is, and as Chinese and
/// German ages are: "turned seven" and "is 7" are one value.
pub(super) fn cardinal(word: &str) -> Option<u32> {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let word = word.trim().to_ascii_lowercase();
    if let Some(n) = UNITS.iter().position(|u| *u == word) {
        return u32::try_from(n).ok();
    }
    let (tens, unit) = word.split_once('-').unwrap_or((&word, "zero"));
    let tens = TENS.iter().position(|t| *t == tens)?;
    let unit = UNITS[..10].iter().position(|u| *u == unit)?;
    u32::try_from(20 + 10 * tens + unit).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_age_in_words_reads_as_its_number() {
        assert_eq!(cardinal("seven"), Some(7));
        assert_eq!(cardinal("Nineteen"), Some(19));
        assert_eq!(cardinal("forty"), Some(40));
        assert_eq!(cardinal("ninety-nine"), Some(99));
        assert_eq!(cardinal("forty-ten"), None);
        assert_eq!(cardinal("Jack"), None);
    }

    #[test]
    fn a_schedule_in_the_present_looks_ahead() {
        assert!(looks_ahead("I start on April 1st"));
        assert!(looks_ahead("we move in June"));
        assert!(!looks_ahead("I started in April"));
    }

    #[test]
    fn an_object_is_a_thing_not_what_follows_the_verb() {
        assert_eq!(clean_object("during a morning workout"), None);
        assert_eq!(clean_object("- it's tricky"), None);
        assert_eq!(
            clean_object("playing acoustic guitar about").as_deref(),
            Some("playing acoustic guitar")
        );
        assert_eq!(
            clean_object("in-line skating").as_deref(),
            Some("in-line skating")
        );
        assert_eq!(
            clean_object("a pottery class").as_deref(),
            Some("pottery class")
        );
    }
}
