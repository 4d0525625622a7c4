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
use crate::claim::{self, Claim, ClaimKind, EpisodeView, Subject};
use crate::when::{self, When};

struct Rule {
    re: Regex,
    predicate: Predicate,
    kind: ClaimKind,
    object_kind: Option<&'static str>,
    confidence: f64,
}

enum Predicate {
    Fixed(&'static str),
    /// A family word, mapped to its canonical predicate.
    Family,
    /// `favorite_` and the category, mapped.
    Favorite,
}

const SUBJECT: &str = r"(?P<s>\b[Ii]ch\b|\b[Ww]ir\b|\b[Ee]r\b|\b[Ss]ie\b|\b[A-ZÄÖÜ][a-zäöüß]+\b)";
/// An object running to the clause's end (cut later by [`clean`]).
const OBJECT: &str = r"(?P<o>[^,.;!?()]+)";
/// An object ended by the participle the rule names next.
const OBJECT_WITHIN: &str = r"(?P<o>[^,.;!?()]+?)";
const NAME: &str = r"(?P<o>[A-ZÄÖÜ][a-zäöüß]+(?: [A-ZÄÖÜ][a-zäöüß]+)?)";
const ADVERBS: &str = r"(?: (?:jetzt|nun|gerade|kürzlich|endlich|derzeit|zurzeit|momentan|inzwischen|noch|schon|auch|wieder|eigentlich|tatsächlich|doch))*";

const FAMILY: &[(&str, &str)] = &[
    ("Schwester", "sister"),
    ("Bruder", "brother"),
    ("Mutter", "mother"),
    ("Mama", "mom"),
    ("Vater", "father"),
    ("Papa", "dad"),
    ("Ehefrau", "wife"),
    ("Frau", "wife"),
    ("Ehemann", "husband"),
    ("Mann", "husband"),
    ("Partnerin", "partner"),
    ("Partner", "partner"),
    ("beste Freundin", "best_friend"),
    ("bester Freund", "best_friend"),
    ("Freundin", "friend"),
    ("Freund", "friend"),
    ("Sohn", "son"),
    ("Tochter", "daughter"),
    ("Cousine", "cousin"),
    ("Cousin", "cousin"),
    ("Tante", "aunt"),
    ("Onkel", "uncle"),
    ("Großmutter", "grandmother"),
    ("Oma", "grandma"),
    ("Großvater", "grandfather"),
    ("Opa", "grandpa"),
    ("Chefin", "boss"),
    ("Chef", "boss"),
    ("Kollegin", "colleague"),
    ("Kollege", "colleague"),
    ("Mitbewohnerin", "roommate"),
    ("Mitbewohner", "roommate"),
    ("Verlobte", "fiancee"),
    ("Verlobter", "fiance"),
    ("Nichte", "niece"),
    ("Neffe", "nephew"),
];

const PETS: &str = "Hund|Katze|Kater|Papagei|Vogel|Hamster|Kaninchen|Hase|Fisch|Schildkröte|Schlange|Pferd|Meerschweinchen|Welpe|Kätzchen";

const FAVORITES: &[(&str, &str)] = &[
    ("farbe", "color"),
    ("essen", "food"),
    ("gericht", "food"),
    ("film", "movie"),
    ("buch", "book"),
    ("sport", "sport"),
    ("lied", "song"),
    ("stadt", "city"),
    ("tier", "animal"),
    ("band", "band"),
];

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let alternatives = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(word, _)| *word)
            .collect::<Vec<_>>()
            .join("|")
    };
    let (family, favorites) = (alternatives(FAMILY), alternatives(FAVORITES));
    let rule = |re: &str, predicate, kind, object_kind, confidence| {
        let re = re
            .replace("{S}", SUBJECT)
            .replace("{A}", ADVERBS)
            .replace("{OW}", OBJECT_WITHIN)
            .replace("{O}", OBJECT)
            .replace("{NAME}", NAME)
            .replace("{FAMILY}", &family)
            .replace("{PETS}", PETS)
            .replace("{FAVORITES}", &favorites);
        Rule {
            re: Regex::new(&re).unwrap_or_else(|e| unreachable!("bad rule {re}: {e}")),
            predicate,
            kind,
            object_kind,
            confidence,
        }
    };
    use ClaimKind::*;
    use Predicate::*;
    let work = Some("organisation");
    let place = Some("place");
    vec![
        // Withdrawals first: "Ich habe nie bei X angefangen".
        rule(
            r"{S} (?i:habe|hat|haben|bin|ist|sind){A} (?i:nie|niemals|gar nicht|nicht) (?i:bei |für |zu )?{OW} (?i:angefangen|gearbeitet|gewechselt|gegangen)\b",
            Fixed("works_at"),
            Withdrawn,
            None,
            0.8,
        ),
        rule(
            r"{S} (?i:habe|hat|haben|bin|ist|sind){A} (?i:nie|niemals) (?i:in )?{OW} (?i:gewohnt|gelebt|gezogen)\b",
            Fixed("lives_in"),
            Withdrawn,
            None,
            0.8,
        ),
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} (?i:nie|niemals) (?i:bei|für) {O}",
            Fixed("works_at"),
            Withdrawn,
            None,
            0.8,
        ),
        // Work.
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} (?i:nicht mehr|nicht länger) (?i:bei|für) {O}",
            Fixed("works_at"),
            Ended,
            work,
            0.8,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:bei |meinen job bei |meine stelle bei )?{OW} (?i:gekündigt|verlassen|aufgehört)\b",
            Fixed("works_at"),
            Ended,
            work,
            0.6,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:gekündigt)\b",
            Fixed("works_at"),
            Ended,
            work,
            0.6,
        ),
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} (?i:seit \S+ )?(?i:bei|für) {O}",
            Fixed("works_at"),
            Holds,
            work,
            0.8,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:bei )(?P<o>[A-ZÄÖÜ][^,.;!?()]*?) (?i:angefangen|begonnen)\b",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        rule(
            r"{S} (?i:bin|ist|sind){A} (?i:zu )(?P<o>[A-ZÄÖÜ][^,.;!?()]*?) (?i:gewechselt|gegangen)\b",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        rule(
            r"{S} (?i:bin|ist|sind){A} (?P<o>[A-ZÄÖÜ][^,.;!?()]*?) (?i:beigetreten)\b",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        rule(
            r"(?i:mein(?:e)? (?:neuer |neue )?(?:job|stelle|arbeitgeber|firma) (?:ist )?(?:bei )?){O}",
            Fixed("works_at"),
            Holds,
            work,
            0.7,
        ),
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} als {O}",
            Fixed("job_title"),
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:bin|ist){A} (?i:von beruf )?(?P<o>[A-ZÄÖÜ][a-zäöüß]*(?:in|er|ist|eur|or|arzt|ärztin|koch|köchin|pfleger|pflegerin|lehrer|lehrerin))\b",
            Fixed("job_title"),
            Holds,
            None,
            0.6,
        ),
        // Home.
        rule(
            r"{S} (?i:wohne|wohnt|wohnen|lebe|lebt|leben){A} (?i:nicht mehr) in {O}",
            Fixed("lives_in"),
            Ended,
            place,
            0.7,
        ),
        rule(
            r"{S} (?i:wohne|wohnt|wohnen|lebe|lebt|leben){A} (?i:seit \S+ )?in {O}",
            Fixed("lives_in"),
            Holds,
            place,
            0.8,
        ),
        rule(
            r"{S} (?i:bin|ist|sind){A} (?i:nach|zurück nach|in die|in den) {OW} (?i:gezogen|umgezogen)\b",
            Fixed("lives_in"),
            Holds,
            place,
            0.8,
        ),
        rule(
            r"{S} (?i:ziehe|zieht|ziehen){A} (?i:nach) {O}",
            Fixed("lives_in"),
            Holds,
            place,
            0.6,
        ),
        rule(
            r"{S} (?i:komme|kommt|kommen|stamme|stammt){A} (?i:ursprünglich )?aus {NAME}",
            Fixed("from"),
            Holds,
            place,
            0.6,
        ),
        // Names, age, family.
        rule(
            r"(?i:mein name ist|ich heiße|ich heisse) {NAME}",
            Fixed("name"),
            Holds,
            None,
            0.9,
        ),
        rule(
            r"{S} (?i:bin|ist){A} (?P<o>\d{1,3}) (?i:jahre alt|jahre)",
            Fixed("age"),
            Holds,
            None,
            0.8,
        ),
        rule(
            r"(?i:mein|meine) (?P<rel>{FAMILY})(?: heißt| heisst|,)? {NAME}",
            Family,
            Holds,
            Some("person"),
            0.8,
        ),
        // Pets and possessions.
        rule(
            r"(?i:mein|meine) (?:{PETS})(?: heißt| heisst|,)? {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:einen|eine|ein|zwei|drei|einen neuen|eine neue) (?P<o>{PETS})",
            Fixed("has_pet"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:mir )?(?i:einen|eine|ein) (?i:neuen |neue |neues )?{OW} (?i:gekauft)\b",
            Fixed("owns"),
            Holds,
            None,
            0.6,
        ),
        // Tastes: dislikes before likes.
        rule(
            r"{S} (?i:hasse|hasst|hassen|mag|mögen|esse|isst|trinke|trinkt){A} (?i:keinen|keine|kein|nicht mehr|nicht) {O}",
            Fixed("dislikes"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:hasse|hasst|hassen){A} {O}",
            Fixed("dislikes"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:liebe|liebt|lieben|mag|mögen){A} (?i:wirklich |sehr |total )?{O}",
            Fixed("likes"),
            Holds,
            None,
            0.65,
        ),
        rule(
            r"{S} (?i:esse|isst|trinke|trinkt|spiele|spielt|lese|liest|koche|kocht){A} (?i:sehr )?(?i:gern|gerne) {O}",
            Fixed("likes"),
            Holds,
            None,
            0.6,
        ),
        rule(
            r"(?i:mein|meine) (?i:lieblings)(?P<cat>(?i:{FAVORITES})) (?i:ist|sind) {O}",
            Favorite,
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:bin|ist|habe|hat){A} (?i:von (?P<from>[^,.;!?]+?) )?(?i:zu|auf) (?P<o>[^,.;!?]+?) (?i:gewechselt|umgestiegen)\b",
            Fixed("uses"),
            Holds,
            None,
            0.6,
        ),
    ]
});

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
        let found = when::find(&German, sentence, episode.at, false);
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
        let mut taken: Vec<(usize, usize)> = Vec::new();
        for rule in RULES.iter() {
            for caps in rule.re.captures_iter(&text) {
                let Some(whole) = caps.get(0) else { continue };
                let start = caps.name("s").map_or(whole.start(), |m| m.end());
                if taken.iter().any(|&(s, e)| start < e && s < whole.end()) {
                    continue;
                }
                let mut made = claims_of(rule, &caps, &text, sentence, valid);
                if !made.is_empty() {
                    taken.push((whole.start(), whole.end()));
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
        claims.append(&mut corrected);
    }
    claims
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
        Regex::new(r"^(?P<pre>(?:[\wäöüßÄÖÜ]+ ){0,3}?)(?P<v>(?i:habe|hat|haben|bin|ist|sind|arbeite|arbeitet|arbeiten|wohne|wohnt|wohnen|lebe|lebt|leben|liebe|liebt|mag|mögen|hasse|hasst|komme|kommt|ziehe|zieht|esse|isst|trinke|trinkt|spiele|spielt|lese|liest|koche|kocht)) (?P<s>ich|wir|er|sie)\b")
            .unwrap_or_else(|e| unreachable!("{e}"))
    });
    match INVERTED.captures(text) {
        Some(caps) => {
            let (Some(whole), Some(pre), Some(v), Some(s)) = (
                caps.get(0),
                caps.name("pre"),
                caps.name("v"),
                caps.name("s"),
            ) else {
                return text.to_string();
            };
            format!(
                "{}{} {}{}",
                pre.as_str(),
                s.as_str(),
                v.as_str().to_lowercase(),
                &text[whole.end()..]
            )
        }
        None => text.to_string(),
    }
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
    let Some(subject) = FIRST_SUBJECT.find(text) else {
        return text.to_string();
    };
    let subject = subject.as_str().to_lowercase();
    ELLIPSIS
        .replace_all(text, format!("$c {subject} $v").as_str())
        .into_owned()
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
    let Some(object) = caps.name("o").and_then(|m| clean(m.as_str())) else {
        // "Ich habe gekündigt": ends whatever job there was.
        if rule.kind == ClaimKind::Ended && predicate == "works_at" {
            return vec![claim(String::new(), ClaimKind::Ended)];
        }
        return Vec::new();
    };
    let mut out = vec![claim(object, rule.kind)];
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
];

/// Pronouns: the thing is not in the sentence.
const VAGUE: &[&str] = &[
    "es", "das", "dies", "ihn", "sie", "ihm", "ihr", "dich", "mich", "uns", "euch", "dort", "hier",
    "da", "man", "alles", "nichts", "etwas",
];

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
    fn work_home_and_changes() {
        assert_eq!(
            claims("Ich arbeite bei Tencent in Shenzhen."),
            ["Holds ich works_at Tencent"]
        );
        assert_eq!(
            claims("Ich habe letzten Monat bei Moonshot angefangen!"),
            ["Holds ich works_at Moonshot @2023-04-01"]
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
    fn people_pets_and_tastes() {
        assert_eq!(
            claims("Meine Schwester heißt Mia."),
            ["Holds ich sister Mia"]
        );
        assert!(claims("Meine Schwester wohnt in Köln.").is_empty());
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
}
