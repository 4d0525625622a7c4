//! German claims: regular expressions over each sentence of a message,
//! the relations the English rules read with the same canonical
//! predicates. German puts participles last ("Ich habe bei Moonshot
//! angefangen") and time phrases between verb and object ("Ich bin
//! letzten Monat nach Berlin gezogen"), so the sentence's time phrase is
//! read first and taken out, and verb-final rules end their object at the
//! participle.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::German;
use super::pastimes::PASTIMES;
use super::plans::CALLED_OFF;
use super::rule::{Predicate, Rule};
use super::rules::RULES;
use super::words::{FAMILY, FAVORITES, NOT_JOBS, PETS};
use crate::claim::{self, Claim, ClaimKind, EpisodeView, Subject};
use crate::when::{self, When};

/// Words that start a sentence with a capital but name nobody (German
/// capitalises every noun, so a capital alone says little).
const NOT_NAMES: &[&str] = &[
    "Ich",
    "Wir",
    "Er",
    "Sie",
    "Es",
    "Du",
    "Ihr",
    "Der",
    "Die",
    "Das",
    "Den",
    "Dem",
    "Ein",
    "Eine",
    "Mein",
    "Meine",
    "Dein",
    "Deine",
    "Sein",
    "Seine",
    "Unser",
    "Unsere",
    "Heute",
    "Gestern",
    "Morgen",
    "Jetzt",
    "Dann",
    "Aber",
    "Und",
    "Also",
    "Ja",
    "Nein",
    "Oh",
    "Wow",
    "Hallo",
    "Danke",
    "Leider",
    "Zum",
    "Zur",
    "Im",
    "Am",
    "Vor",
    "Seit",
    "Nach",
    "Was",
    "Wer",
    "Wo",
    "Wann",
    "Wie",
    "Warum",
    "Welche",
    "Welcher",
    "Welches",
    "Letzte",
    "Letzten",
    "Letztes",
    "Nächste",
    "Nächsten",
    "Nächstes",
    "Eigentlich",
    "Übrigens",
    "Endlich",
];

/// Articles and possessives before a subject: "Meine Schwester wohnt" is
/// about a relative, not someone named Schwester.
const DETERMINERS: &[&str] = &[
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "mein",
    "meine", "meinem", "meinen", "meiner", "dein", "deine", "sein", "seine", "ihr", "ihre",
    "unser", "unsere",
];

/// The claims `episode` makes.
pub(super) fn claims(episode: &EpisodeView<'_>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for sentence in super::sentences(episode.text) {
        let found = when::find(&German, sentence, episode.at, looks_ahead(sentence));
        // The time phrase is read, then taken out of the sentence.
        let text = match found {
            Some(f) => format!("{} {}", &sentence[..f.start], &sentence[f.end..])
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            None => sentence.to_string(),
        };
        let text = subject_first(&text);
        let text = subject_carried(&text);
        let valid = found.map(|f| f.when);
        let first = claims.len();
        let mut read = claim::ReadSpans::default();
        for rule in CALLED_OFF.iter().chain(PASTIMES.iter()).chain(RULES.iter()) {
            for caps in rule.re.captures_iter(&text) {
                let Some(whole) = caps.get(0) else { continue };
                // The subject may be shared, and with whom (`w`) may be
                // another rule's read ("mit meinem Mann Markus").
                let start = caps
                    .name("w")
                    .or_else(|| caps.name("s"))
                    .map_or(whole.start(), |m| m.end());
                if read.overlaps(start, whole.end()) {
                    continue;
                }
                let mut made = claims_of(rule, &caps, &text, sentence, valid);
                if !rule.accepts(&made) {
                    continue;
                }
                if let Some(first) = made.first() {
                    read.read(&caps, start, &first.object);
                    claims.append(&mut made);
                }
            }
        }
        // "..., nicht bei Tencent": the value denied never held.
        let denied: Vec<String> = DENIED
            .captures_iter(&text)
            .filter_map(|c| c.name("x").map(|m| m.as_str().to_string()))
            .collect();
        let mut corrected = claim::corrections(&claims[first..], &denied);
        // "Clara ist meine Cousine, nicht meine Schwester."
        let relations = claim::relations_denied(&DENIED_RELATION, &text, FAMILY);
        corrected.extend(claim::relation_corrections(&claims[first..], &relations));
        claims.append(&mut corrected);
        if claims.len() == first {
            claims.extend(claim::misspoken_in(
                episode.text,
                sentence,
                &MISTAKE,
                &MISSPOKEN,
                |v| match v.trim_matches(['"', '\'', '„', '“']) {
                    // "Nein, nicht wirklich" corrects nothing.
                    "Nein" | "Ja" | "Naja" | "Na" | "Also" | "Gut" | "Okay" => "",
                    v => v,
                },
            ));
        }
    }
    // "Wir haben eine Katze. Sie heißt Mochi": a pet's name.
    claim::pet_names_kept_off_people(&mut claims, PET_WORD.is_match(episode.text));
    claims
}

static PET_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"\b(?:{PETS})\w*")).unwrap_or_else(|e| unreachable!("{e}"))
});

/// A message owning a mistake: what lets "X, nicht Y" correct a value.
static MISTAKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:ich meinte|ich meine|gemeint|korrektur|korrigiere|sorry|entschuldigung|ups|hoppla|mein fehler|vertippt|verschrieben|versprochen|verwechselt|eigentlich|moment)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// "Ich meinte Emily, nicht Emma", "es ist Spotify, nicht Shopify",
/// "nicht Emma, sondern Emily": the right value `x` and the wrong one `y`.
static MISSPOKEN: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?:^|[,:;!]\s*)(?:(?i:es ist|es war|das ist|das war)\s+)?nicht (?P<y>[^,.;:!?]+?),? sondern (?P<x>[^,.;!?]+?)\s*(?:[.!?,;]|$)",
        r"(?:^|[,:;!]\s*)(?i:ich meinte|ich meine|gemeint war|es ist|es war|das ist|das war|sie heißt|er heißt|der name ist)\s+(?P<x>[^,.;:!?]+?),? (?:und )?nicht (?P<y>[^,.;!?]+?)\s*(?:[.!?,;]|$)",
        // Without a lead, a value is a capitalised word or few.
        r"(?:^|[,:;!]\s*)(?P<x>[A-ZÄÖÜ][\wäöüß'-]*(?: [A-ZÄÖÜ][\wäöüß'-]*){0,3}),? (?:und )?nicht (?P<y>[^,.;!?]+?)\s*(?:[.!?,;]|$)",
    ]
    .iter()
    .map(|re| Regex::new(re).unwrap_or_else(|e| unreachable!("{e}")))
    .collect()
});

/// A relation a sentence denies: "nicht meine Schwester".
static DENIED_RELATION: LazyLock<Regex> = LazyLock::new(|| {
    let family = FAMILY.iter().map(|(w, _)| *w).collect::<Vec<_>>().join("|");
    Regex::new(&format!(
        r"\b(?:nicht|statt) (?:mein|meine|meinen|meiner) (?P<r>{family})\b"
    ))
    .unwrap_or_else(|e| unreachable!("{e}"))
});

/// Whether a sentence speaks of the future: "werde", "nächste", or a
/// verb of change in the present ("Im August ziehe ich nach Kopenhagen",
/// "fange ich bei X an"), which German uses for what is ahead.
fn looks_ahead(sentence: &str) -> bool {
    static AHEAD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:werde|wirst|wird|werden|nächste[nrms]?|kommende[nrms]?|demnächst|bald|ziehe|zieht|ziehen|fange|fängt|fangen)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    AHEAD.is_match(sentence)
}

/// A value a sentence denies: "nicht bei Tencent", "nicht in München".
static DENIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:nicht|statt|anstatt) (?:bei |in |für |nach )?(?P<x>[A-ZÄÖÜ][\wäöüß'-]*(?: [A-ZÄÖÜ][\wäöüß'-]*)?)")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// German puts the verb second: "Eigentlich habe ich...", "Letzten Monat
/// bin ich..." (once the time phrase is out: "bin ich..."). The subject
/// moves before its verb, so one rule reads both orders.
fn subject_first(text: &str) -> String {
    static INVERTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?P<lead>^|, )(?P<pre>(?:[\wäöüßÄÖÜ]+ ){0,3}?)(?P<v>(?i:habe|hat|haben|bin|ist|sind|arbeite|arbeitet|arbeiten|wohne|wohnt|wohnen|lebe|lebt|leben|liebe|liebt|mag|mögen|hasse|hasst|komme|kommt|ziehe|zieht|ziehen|bleibe|bleibt|bleiben|esse|isst|trinke|trinkt|spiele|spielt|lese|liest|koche|kocht|fange|fängt|fangen|lerne|lernt|lernen|gehe|geht|gehen)) (?P<s>ich|wir|er|sie)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    // Each clause's own: "Früher habe ich in Köln gewohnt, jetzt wohne
    // ich in Leipzig".
    INVERTED
        .replace_all(text, |caps: &regex::Captures<'_>| {
            format!(
                "{}{}{} {}",
                &caps["lead"],
                &caps["pre"],
                &caps["s"],
                caps["v"].to_lowercase()
            )
        })
        .into_owned()
}

/// "..., und habe bei Zalando angefangen": a clause after "und" or "aber"
/// that starts with its verb has the sentence's subject.
fn subject_carried(text: &str) -> String {
    static ELLIPSIS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?P<c>und|aber|dann) (?P<v>habe|hat|haben|bin|ist|sind|arbeite|arbeitet|wohne|wohnt|lebe|lebt|liebe|liebt|mag|ziehe|zieht)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    static FIRST_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:[Ii]ch|[Ww]ir|[Ee]r|[Ss]ie)\b").unwrap_or_else(|e| unreachable!("{e}"))
    });
    // "Mein Bruder heißt Daniel und ist Zahnarzt": a sentence about one's
    // relative goes on about them, said here by a pronoun that resolves
    // to the one the message names.
    static RELATIVE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
        let family = FAMILY.iter().map(|(w, _)| *w).collect::<Vec<_>>().join("|");
        Regex::new(&format!(r"^(?:[Mm]ein|[Mm]eine) (?:{family})\b"))
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    // "Ich habe bei Siemens gekündigt und bei SAP angefangen": a second
    // participle shares the first clause's subject and auxiliary.
    static AUXILIARY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?P<s>[Ii]ch|[Ww]ir|[Ee]r|[Ss]ie) (?P<a>habe|hat|haben|bin|ist|sind)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    static PARTICIPLE_ELLIPSIS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:,)? \bund (?P<p>bei|in|im|nach|als|an|am|für|mit|zu|zum|zur|von|aus) ")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    let subject = match FIRST_SUBJECT.find(text) {
        Some(subject) => subject.as_str().to_lowercase(),
        None if RELATIVE_FIRST.is_match(text) => "er".to_string(),
        None => return text.to_string(),
    };
    let text = ELLIPSIS.replace_all(text, format!("$c {subject} $v").as_str());
    match AUXILIARY.captures(&text) {
        Some(aux) => {
            // A clause of its own, so no object reads across it.
            let shared = format!(", und {} {} $p ", aux["s"].to_lowercase(), &aux["a"]);
            PARTICIPLE_ELLIPSIS
                .replace_all(&text, shared.as_str())
                .into_owned()
        }
        None => text.into_owned(),
    }
}

fn claims_of(
    rule: &Rule,
    caps: &Captures<'_>,
    text: &str,
    sentence: &str,
    valid: Option<When>,
) -> Vec<Claim> {
    let subject = match caps.name("s") {
        None => Subject::Speaker,
        Some(m) => match m.as_str() {
            "ich" | "Ich" | "wir" | "Wir" => Subject::Speaker,
            "er" | "Er" | "sie" | "Sie" => Subject::Pronoun(m.as_str().to_lowercase()),
            // "Ihr Name ist ...", "Sein Name ist ...".
            "ihr" | "Ihr" => Subject::Pronoun("sie".into()),
            "sein" | "Sein" => Subject::Pronoun("er".into()),
            // "Meine Schwester ist Krankenschwester".
            s if let Some((_, said)) = s.split_once(' ') => Subject::Relative(lookup(FAMILY, said)),
            s if NOT_NAMES.contains(&s) => return Vec::new(),
            s => {
                let before = text[..m.start()].trim_end().to_lowercase();
                let after_determiner = before
                    .rsplit(' ')
                    .next()
                    .is_some_and(|w| DETERMINERS.contains(&w));
                if after_determiner {
                    return Vec::new();
                }
                Subject::Named(s.to_string())
            }
        },
    };
    let predicate = match &rule.predicate {
        Predicate::Fixed(p) => (*p).to_string(),
        Predicate::Family => {
            let word = caps.name("rel").map_or("", |m| m.as_str());
            lookup(FAMILY, word)
        }
        Predicate::Favorite => {
            let word = caps.name("cat").map_or("", |m| m.as_str()).to_lowercase();
            format!("favorite_{}", lookup(FAVORITES, &word))
        }
    };
    if predicate.is_empty() {
        return Vec::new();
    }
    let claim = |object: String, kind: ClaimKind| Claim {
        subject: subject.clone(),
        predicate: predicate.clone(),
        object,
        object_kind: rule.object_kind,
        kind,
        valid,
        text: sentence.trim().to_string(),
        confidence: rule.confidence,
    };
    let object = caps
        .name("o")
        .and_then(|m| clean(m.as_str()))
        .map(|o| match cardinal(&o) {
            Some(age) if predicate == "age" => age.to_string(),
            _ => o,
        });
    let Some(object) = object else {
        // "Ich habe gekündigt": ends whatever job there was ("Wir haben
        // uns getrennt": whichever partner; "der Umzug ist geplatzt":
        // whichever move).
        if matches!(rule.kind, ClaimKind::Ended | ClaimKind::CalledOff)
            && matches!(rule.predicate, Predicate::Fixed(_))
        {
            return vec![claim(String::new(), rule.kind)];
        }
        return Vec::new();
    };
    // "Ich bin Krankenschwester bei X": the title is a claim of its own;
    // a word formed like a title that names no job ("Berliner") makes
    // neither.
    let title = caps.name("t").map(|m| m.as_str().to_string());
    let titled = if predicate == "job_title" {
        Some(object.as_str())
    } else {
        title.as_deref()
    };
    if titled.is_some_and(|t| NOT_JOBS.contains(&t)) {
        return Vec::new();
    }
    let mut out = vec![claim(object, rule.kind)];
    if let Some(title) = title {
        out.push(Claim {
            predicate: "job_title".into(),
            object_kind: None,
            ..claim(title, rule.kind)
        });
    }
    if let Some(from) = caps.name("from").and_then(|m| clean(m.as_str())) {
        out.push(claim(from, ClaimKind::Ended));
    }
    out
}

fn lookup(pairs: &[(&str, &str)], word: &str) -> String {
    pairs
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(word) || *w == word)
        .map_or_else(String::new, |(_, p)| (*p).to_string())
}

/// Where an object stops: a clause or an adverb after it.
static OBJECT_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\s+(?:und|aber|weil|denn|da|als|wenn|wo|seit|in|im|mit|an|am|auf|jetzt|nun|schon|noch|auch|sehr|gern|gerne|zurück|wieder|sein|haben|ist|sind|hat|habe|bin|war|wurde|gearbeitet|angefangen|gewohnt)\b")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// Articles, possessives and prepositions that open an object.
const OPENERS: &[&str] = &[
    "der ", "die ", "das ", "den ", "dem ", "ein ", "eine ", "einen ", "einem ", "einer ", "mein ",
    "meine ", "meinen ", "meinem ", "unser ", "unsere ", "zu ", "zum ", "zur ", "nach ", "bei ",
    "im ",
];

/// Pronouns: the thing is not in the sentence.
const VAGUE: &[&str] = &[
    "es", "das", "dies", "ihn", "sie", "ihm", "ihr", "dich", "mich", "uns", "euch", "dort", "hier",
    "da", "man", "alles", "nichts", "etwas",
];

/// An age said in words ("sieben", "zweiundvierzig") as the number it
/// says, written in digits as an age said in digits is, and as Chinese
/// and English ages are: "ist sieben geworden" and "ist 7" are one value.
fn cardinal(word: &str) -> Option<u32> {
    const UNITS: [&str; 20] = [
        "null",
        "eins",
        "zwei",
        "drei",
        "vier",
        "fünf",
        "sechs",
        "sieben",
        "acht",
        "neun",
        "zehn",
        "elf",
        "zwölf",
        "dreizehn",
        "vierzehn",
        "fünfzehn",
        "sechzehn",
        "siebzehn",
        "achtzehn",
        "neunzehn",
    ];
    const TENS: [&str; 8] = [
        "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig",
    ];
    let word = word.trim().to_lowercase();
    if let Some(n) = UNITS.iter().position(|u| *u == word) {
        return u32::try_from(n).ok();
    }
    // "zweiundvierzig": the unit comes first, "ein" before "und".
    let (unit, tens) = word.split_once("und").unwrap_or(("null", &word));
    let tens = TENS.iter().position(|t| *t == tens)?;
    let unit = match unit {
        "ein" => 1,
        unit => UNITS[..10].iter().position(|u| *u == unit)?,
    };
    u32::try_from(20 + 10 * tens + unit).ok()
}

/// The object as said, cut where its clause ends, its article dropped;
/// `None` when nothing is left, it is vague, or too long to be one thing.
fn clean(raw: &str) -> Option<String> {
    let mut text = raw.trim();
    if let Some(m) = OBJECT_END.find(text) {
        text = &text[..m.start()];
    }
    let lower = text.to_lowercase();
    for opener in OPENERS {
        if lower.starts_with(opener) {
            text = &text[opener.len()..];
            break;
        }
    }
    let text = text.trim().trim_end_matches(['\'', '"']);
    let words = text.split_whitespace().count();
    if words == 0 || words > 6 || VAGUE.contains(&text.to_lowercase().as_str()) {
        return None;
    }
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use chronolog_engine::Timestamp;

    fn claims(text: &str) -> Vec<String> {
        let at = Timestamp::parse("2023-05-17").expect("time");
        let episode = EpisodeView {
            id: "e1",
            role: "user",
            text,
            at,
            lang: Lang::German,
        };
        super::claims(&episode)
            .into_iter()
            .map(|c| {
                let who = match c.subject {
                    Subject::Speaker => "ich".to_string(),
                    Subject::Named(n) => n,
                    Subject::Pronoun(p) => p,
                    Subject::Relative(r) => format!("@{r}"),
                };
                let when = c
                    .valid
                    .and_then(|w| when::date_of(w.from))
                    .map_or(String::new(), |d| format!(" @{d}"));
                format!("{:?} {who} {} {}{when}", c.kind, c.predicate, c.object)
            })
            .collect()
    }

    #[test]
    fn an_age_reached_in_digits_or_words() {
        assert_eq!(
            claims("Meine Tochter Ella ist gestern sieben geworden."),
            [
                "Holds Ella age 7 @2023-05-16",
                "Holds ich daughter Ella @2023-05-16"
            ]
        );
        // A bare age closes its clause; words are written in digits.
        assert_eq!(
            claims("Mein Bruder Jakob ist zweiundvierzig."),
            ["Holds Jakob age 42", "Holds ich brother Jakob"]
        );
        assert_eq!(cardinal("einundzwanzig"), Some(21));
        assert_eq!(cardinal("neunzehn"), Some(19));
        assert_eq!(cardinal("Sieben"), Some(7));
        assert_eq!(cardinal("und"), None);
        assert_eq!(cardinal("Berlin"), None);
        assert_eq!(
            claims("Ich bin letzte Woche 30 geworden."),
            ["Holds ich age 30 @2023-05-08"]
        );
    }

    #[test]
    fn pastimes_taken_up_and_given_up() {
        assert_eq!(
            claims("Ich habe letztes Jahr mit dem Klettern angefangen."),
            ["Holds ich likes Klettern @2022-01-01"]
        );
        assert_eq!(
            claims("Im Januar habe ich angefangen, Cello zu lernen."),
            ["Holds ich likes Cello @2023-01-01"]
        );
        assert_eq!(
            claims("Ich lerne seit Januar Cello."),
            ["Holds ich likes Cello @2023-01-01"]
        );
        assert_eq!(
            claims("Ich habe das Bouldern für mich entdeckt."),
            ["Holds ich likes Bouldern"]
        );
        assert_eq!(
            claims("Ich habe mit dem Cello aufgehört."),
            ["Ended ich likes Cello"]
        );
        assert_eq!(
            claims("Ich habe das Laufen aufgegeben."),
            ["Ended ich likes Laufen"]
        );
        assert_eq!(
            claims("Ich spiele kein Tennis mehr."),
            ["Ended ich likes Tennis"]
        );
        assert_eq!(claims("Sie spielt Geige."), ["Holds sie likes Geige"]);
        assert_eq!(
            claims("Ich spiele am Wochenende Gitarre in einer Band."),
            ["Holds ich likes Gitarre"]
        );
        assert_eq!(
            claims("Ich habe angefangen, Klavier spielen zu lernen."),
            ["Holds ich likes Klavier"]
        );
        assert!(claims("Ich spiele am Wochenende mit meinen Kindern.").is_empty());
        assert_eq!(
            claims("Ich spiele gerne Tennis."),
            ["Holds ich likes Tennis"]
        );
        assert_eq!(
            claims("Seit letztem Herbst gehe ich zweimal die Woche bouldern."),
            ["Holds ich likes bouldern @2022-09-01"]
        );
        assert_eq!(
            claims("Ich habe bei Zalando als Art Director angefangen."),
            [
                "Holds ich works_at Zalando",
                "Holds ich job_title Art Director"
            ]
        );
        // What names no pastime.
        assert!(claims("Ich habe mit dem Packen angefangen.").is_empty());
        assert!(claims("Wir haben mit dem Umzug angefangen.").is_empty());
        assert_eq!(
            claims("Wir haben einen Hund adoptiert, einen Windhund namens Biscuit."),
            ["Holds ich has_pet Biscuit"]
        );
    }

    #[test]
    fn a_plan_called_off_names_its_slot() {
        assert_eq!(
            claims("Wir ziehen doch nicht nach Hamburg."),
            ["CalledOff ich lives_in Hamburg"]
        );
        assert_eq!(
            claims("Der Umzug ist geplatzt."),
            ["CalledOff ich lives_in "]
        );
        assert_eq!(
            claims("Wir bleiben doch in Köln."),
            ["CalledOff ich lives_in "]
        );
        assert_eq!(
            claims("Ich fange doch nicht bei SAP an."),
            ["CalledOff ich works_at SAP"]
        );
        assert_eq!(
            claims("Ich habe das Angebot von SAP abgelehnt."),
            ["CalledOff ich works_at SAP"]
        );
    }

    #[test]
    fn a_value_said_by_mistake_is_named_for_consolidation_to_find() {
        assert_eq!(
            claims("Ups, ich meinte Emily, nicht Emma."),
            [
                "Withdrawn ich _misspoken Emma",
                "Holds ich _misspoken Emily"
            ]
        );
        assert_eq!(
            claims("Korrektur: nicht Shopify, sondern Spotify."),
            [
                "Withdrawn ich _misspoken Shopify",
                "Holds ich _misspoken Spotify"
            ]
        );
        // No word owns a mistake: nothing is corrected.
        assert!(claims("Treffen wir uns in Paris, nicht London.").is_empty());
        assert!(claims("Nein, nicht wirklich. Eigentlich macht es Spaß.").is_empty());
    }

    #[test]
    fn work_home_and_changes() {
        assert_eq!(
            claims("Ich arbeite bei Tencent in Shenzhen."),
            ["Holds ich works_at Tencent"]
        );
        assert_eq!(
            claims("Ich habe letzten Monat bei Moonshot angefangen!"),
            ["Holds ich works_at Moonshot @2023-04-01"]
        );
        // The second participle shares the first clause's "ich habe".
        assert_eq!(
            claims("Ich habe letzten Monat bei Siemens gekündigt und bei SAP angefangen."),
            [
                "Ended ich works_at Siemens @2023-04-01",
                "Holds ich works_at SAP @2023-04-01"
            ]
        );
        assert_eq!(
            claims("Ich bin zu Moonshot AI gewechselt."),
            ["Holds ich works_at Moonshot AI"]
        );
        assert_eq!(
            claims("Ich arbeite nicht mehr bei Google."),
            ["Ended ich works_at Google"]
        );
        assert_eq!(
            claims("Ich bin letzten Monat nach Berlin gezogen."),
            ["Holds ich lives_in Berlin @2023-04-01"]
        );
        assert_eq!(
            claims("Ich wohne in München."),
            ["Holds ich lives_in München"]
        );
        // The verb second, the subject after it.
        assert_eq!(
            claims("Eigentlich habe ich nie bei OpenAI angefangen, das war ein Gerücht."),
            ["Withdrawn ich works_at OpenAI"]
        );
        assert_eq!(
            claims("Letzten Monat bin ich nach Berlin gezogen."),
            ["Holds ich lives_in Berlin @2023-04-01"]
        );
        assert_eq!(
            claims("Ich habe nie bei OpenAI angefangen, das war ein Gerücht."),
            ["Withdrawn ich works_at OpenAI"]
        );
        assert_eq!(
            claims("Anna arbeitet für Siemens."),
            ["Holds Anna works_at Siemens"]
        );
        assert_eq!(
            claims("Ich bin Apotheker."),
            ["Holds ich job_title Apotheker"]
        );
    }

    #[test]
    fn jobs_said_the_everyday_ways() {
        assert_eq!(
            claims("Ich bin Krankenschwester im Marienkrankenhaus in Leeds."),
            [
                "Holds ich works_at Marienkrankenhaus",
                "Holds ich job_title Krankenschwester"
            ]
        );
        assert_eq!(
            claims("Anna ist Ärztin bei der Charité."),
            ["Holds Anna works_at Charité", "Holds Anna job_title Ärztin"]
        );
        // A town is no employer; a form of a title that names no job.
        assert_eq!(
            claims("Ich bin Lehrerin in Hamburg."),
            ["Holds ich job_title Lehrerin"]
        );
        assert!(claims("Ich bin Berliner.").is_empty());
        assert_eq!(
            claims("Nächsten Montag fange ich bei einer Privatklinik an."),
            ["Holds ich works_at Privatklinik @2023-05-22"]
        );
        assert_eq!(
            claims("Ich habe im Krankenhaus gekündigt."),
            ["Ended ich works_at Krankenhaus"]
        );
    }

    #[test]
    fn an_introduction_and_a_move_ahead() {
        assert_eq!(claims("Hallo, ich bin Maya!"), ["Holds ich name Maya"]);
        assert_eq!(claims("Ich bin 29."), ["Holds ich age 29"]);
        assert_eq!(
            claims("Ich arbeite als Datenanalystin bei Spotify."),
            [
                "Holds ich works_at Spotify",
                "Holds ich job_title Datenanalystin"
            ]
        );
        assert_eq!(
            claims("Wir haben uns letzte Woche verlobt!"),
            ["Holds ich relationship_status verlobt @2023-05-08"]
        );
        assert_eq!(
            claims("Ich bin verheiratet."),
            ["Holds ich relationship_status verheiratet"]
        );
        assert_eq!(
            claims("Im August ziehe ich nach Kopenhagen."),
            ["Holds ich lives_in Kopenhagen @2023-08-01"]
        );
    }

    #[test]
    fn a_relation_corrected_is_withdrawn_for_that_person() {
        assert_eq!(
            claims("Entschuldigung, Clara ist meine Cousine, nicht meine Schwester."),
            ["Holds ich cousin Clara", "Withdrawn ich sister Clara"]
        );
        assert!(claims("Das ist meine Schwester.").is_empty());
    }

    #[test]
    fn people_pets_and_tastes() {
        assert_eq!(
            claims("Meine Schwester heißt Mia."),
            ["Holds ich sister Mia"]
        );
        // A relative by relation, not a person named "Schwester".
        assert_eq!(
            claims("Meine Schwester wohnt in Köln."),
            ["Holds @sister lives_in Köln"]
        );
        assert_eq!(
            claims("Mein Hund heißt Bello."),
            ["Holds ich has_pet Bello"]
        );
        assert_eq!(claims("Ich habe eine Katze."), ["Holds ich has_pet Katze"]);
        assert_eq!(claims("Ich liebe Sushi."), ["Holds ich likes Sushi"]);
        assert_eq!(
            claims("Ich mag keinen Koriander."),
            ["Holds ich dislikes Koriander"]
        );
        assert_eq!(
            claims("Meine Lieblingsfarbe ist Grün."),
            ["Holds ich favorite_color Grün"]
        );
        assert_eq!(claims("Ich bin 30 Jahre alt."), ["Holds ich age 30"]);
        assert!(claims("Das Wetter ist schön.").is_empty());
    }

    #[test]
    fn what_is_said_in_passing() {
        assert_eq!(
            claims("Ich habe einen Welpen namens Max adoptiert."),
            ["Holds ich has_pet Max"]
        );
        assert_eq!(
            claims("Unser Hund Bello wird langsam alt."),
            ["Holds ich has_pet Bello"]
        );
        assert_eq!(
            claims("Ich unterrichte an der Goethe-Schule."),
            ["Holds ich works_at Goethe-Schule"]
        );
        assert_eq!(
            claims("Ich wohne mit meiner Frau Priya in Leipzig."),
            ["Holds ich lives_in Leipzig", "Holds ich wife Priya"]
        );
        // Each clause's verb second: "jetzt wohne ich".
        assert_eq!(
            claims("Früher habe ich in Bremen gewohnt, jetzt wohne ich in Kiel."),
            ["Holds ich lives_in Kiel", "Happened ich lives_in Bremen"]
        );
        // A sentence about one's relative goes on about them.
        assert_eq!(
            claims("Meine Cousine heißt Ana und ist Apothekerin."),
            ["Holds er job_title Apothekerin", "Holds ich cousin Ana"]
        );
        assert_eq!(
            claims("Ich habe als Pflegerin bei der Charité angefangen."),
            [
                "Holds ich works_at Charité",
                "Holds ich job_title Pflegerin"
            ]
        );
        assert_eq!(
            claims("Ich arbeite im Homeoffice für Zalando."),
            ["Holds ich works_at Zalando"]
        );
        assert_eq!(
            claims("Ich fahre einen alten Golf."),
            ["Holds ich owns Golf"]
        );
        assert_eq!(
            claims("Ich bin stark allergisch gegen Erdnüsse."),
            ["Holds ich allergic_to Erdnüsse"]
        );
        assert_eq!(
            claims("Ich kann Rosinen nicht ausstehen."),
            ["Holds ich dislikes Rosinen"]
        );
        assert_eq!(
            claims("Ich plane, einen Tanzkurs zu machen."),
            ["Holds ich plans Tanzkurs zu machen"]
        );
        assert_eq!(
            claims("Wir haben einen Hund, er heißt Bruno."),
            ["Holds ich has_pet Bruno"]
        );
        assert_eq!(
            claims("Meine Freundin Lea und ich sind seit einem Jahr zusammen."),
            ["Holds ich girlfriend Lea @2022-05-17"]
        );
    }
}
