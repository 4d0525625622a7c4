//! How a German rule is made: the claim it makes of a match (predicate,
//! kind, confidence) and its pattern, with the placeholders every rule
//! shares (who, what, a name, the adverbs German puts between) put in.
//! The rules themselves are `rules.rs` and `plans.rs`.

use super::words::{FAMILY, FAVORITES, PETS, TITLE};
use crate::claim::ClaimKind;
use crate::lang::alternatives;

/// A rule whose predicate is this language's [`Predicate`].
pub(super) type Rule = crate::lang::Rule<Predicate>;

pub(super) enum Predicate {
    Fixed(&'static str),
    /// A family word, mapped to its canonical predicate.
    Family,
    /// `favorite_` and the category, mapped.
    Favorite,
}

/// Who: the speaker, a pronoun, a relative by relation ("meine
/// Schwester"), a name.
const SUBJECT: &str = r"(?P<s>\b[Ii]ch\b|\b[Ww]ir\b|\b[Ee]r\b|\b[Ss]ie\b|\b(?:[Mm]ein|[Mm]eine) (?:{RELATIVES})\b|\b[A-ZÄÖÜ][a-zäöüß]+\b)";
/// An object running to the clause's end (cut later by `clean` in claims.rs).
const OBJECT: &str = r"(?P<o>[^,.;!?()]+)";
/// An object ended by the participle the rule names next.
const OBJECT_WITHIN: &str = r"(?P<o>[^,.;!?()]+?)";
const NAME: &str = r"(?P<o>[A-ZÄÖÜ][a-zäöüß]+(?: [A-ZÄÖÜ][a-zäöüß]+)?)";
/// An age, in digits or in words up to neunundneunzig.
const AGE: &str = r"(?P<o>\d{1,3}|(?i:(?:(?:ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun)und)?(?:zwanzig|dreißig|vierzig|fünfzig|sechzig|siebzig|achtzig|neunzig)|eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|dreizehn|vierzehn|fünfzehn|sechzehn|siebzehn|achtzehn|neunzehn))";
const ADVERBS: &str = r"(?: (?:jetzt|nun|gerade|kürzlich|endlich|derzeit|zurzeit|momentan|inzwischen|noch|schon|auch|wieder|eigentlich|tatsächlich|doch))*";

/// A rule from its pattern, the placeholders (`{S}`, `{O}`, `{NAME}`,
/// the word lists) put in.
pub(super) fn rule(
    re: &str,
    predicate: Predicate,
    kind: ClaimKind,
    object_kind: Option<&'static str>,
    confidence: f64,
) -> Rule {
    let re = re
        .replace("{S}", SUBJECT)
        // The family words whose "my ..." means one person.
        .replace("{RELATIVES}", &crate::lang::relative_words(FAMILY))
        .replace("{A}", ADVERBS)
        .replace("{OW}", OBJECT_WITHIN)
        .replace("{O}", OBJECT)
        .replace("{NAME}", NAME)
        .replace("{AGE}", AGE)
        .replace("{TITLE}", TITLE)
        .replace("{FAMILY}", &alternatives(FAMILY))
        .replace("{PETS}", PETS)
        .replace("{FAVORITES}", &alternatives(FAVORITES));
    Rule::new(&re, predicate, kind, object_kind, confidence)
}
