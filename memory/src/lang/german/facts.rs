//! How a context writes a fact in German: a label for its predicate
//! ("Arbeitgeber: Moonshot"), and the words of its interval.

use super::words::FAVORITES;
use crate::lang::FactWords;

pub(super) const WORDS: FactWords = FactWords {
    now: "heute",
    past: "früher",
    from: "von",
    until: "bis",
    replaced: "ersetzt",
};

/// The label of each canonical predicate the rules make.
const LABELS: &[(&str, &str)] = &[
    ("works_at", "Arbeitgeber"),
    ("lives_in", "Wohnort"),
    ("job_title", "Beruf"),
    ("age", "Alter"),
    ("name", "Name"),
    ("from", "Herkunft"),
    ("relationship_status", "Beziehungsstatus"),
    ("likes", "mag"),
    ("dislikes", "mag nicht"),
    ("has_pet", "Haustier"),
    ("owns", "besitzt"),
    ("plans", "plant"),
    ("uses", "nutzt"),
    ("sister", "Schwester"),
    ("brother", "Bruder"),
    ("mom", "Mama"),
    ("mother", "Mutter"),
    ("dad", "Papa"),
    ("father", "Vater"),
    ("wife", "Ehefrau"),
    ("husband", "Ehemann"),
    ("partner", "Partner"),
    ("boyfriend", "fester Freund"),
    ("girlfriend", "feste Freundin"),
    ("son", "Sohn"),
    ("daughter", "Tochter"),
    ("best_friend", "beste Freundschaft"),
    ("friend", "Freundschaft"),
    ("cousin", "Cousin"),
    ("aunt", "Tante"),
    ("uncle", "Onkel"),
    ("grandma", "Oma"),
    ("grandmother", "Großmutter"),
    ("grandpa", "Opa"),
    ("grandfather", "Großvater"),
    ("boss", "Chef"),
    ("colleague", "Kollege"),
    ("roommate", "Mitbewohner"),
    ("fiancee", "Verlobte"),
    ("fiance", "Verlobter"),
    ("niece", "Nichte"),
    ("nephew", "Neffe"),
    ("went_to", "war in"),
    ("attended", "nahm teil an"),
    ("visited", "besuchte"),
    ("traveled_to", "reiste nach"),
    ("travelled_to", "reiste nach"),
    ("signed_up_for", "meldete sich an für"),
    ("volunteered_at", "engagierte sich bei"),
    ("took_part_in", "nahm teil an"),
    ("participated_in", "nahm teil an"),
    ("gave_a_talk_at", "hielt einen Vortrag bei"),
    ("ran", "lief"),
    ("started", "begann"),
    ("finished", "beendete"),
    ("painted", "malte"),
    ("adopted", "adoptierte"),
    ("graduated_from", "Abschluss an"),
    ("got_married", "heiratete"),
    ("got_engaged", "verlobte sich"),
    ("took", "belegte"),
    ("joined", "trat bei"),
];

/// `subject Arbeitgeber: object`; a predicate without a label (an
/// extractor's own) as its words.
pub(super) fn phrase(subject: &str, predicate: &str, object: &str) -> String {
    let label = |predicate: &str| {
        crate::lang::fact_label(predicate, LABELS, FAVORITES, |word| {
            format!("Lieblings{word}")
        })
    };
    // A relative known by relation, in this language's words.
    let subject = match crate::lang::relative_of(subject) {
        Some((owner, relation)) => format!("{} von {owner}", label(&relation)),
        None => subject.to_string(),
    };
    format!("{subject} {}: {object}", label(predicate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_predicates_have_german_labels_and_others_keep_their_words() {
        assert_eq!(
            phrase("user's mother", "lives_in", "Bremen"),
            "Mutter von user Wohnort: Bremen"
        );
        assert_eq!(
            phrase("user", "works_at", "Moonshot"),
            "user Arbeitgeber: Moonshot"
        );
        assert_eq!(
            phrase("user", "favorite_color", "Blau"),
            "user Lieblingsfarbe: Blau"
        );
        assert_eq!(phrase("user", "lives_in", "Köln"), "user Wohnort: Köln");
        assert_eq!(
            phrase("user", "is_employed_at", "SAP"),
            "user is employed at: SAP"
        );
    }

    #[test]
    fn every_family_and_event_predicate_has_a_label() {
        crate::lang::assert_labels_cover_the_rules(LABELS);
    }
}
