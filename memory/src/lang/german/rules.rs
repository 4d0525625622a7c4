//! The German rule table: each rule one way people say a fact in German,
//! with the predicate it names, its kind and confidence. The word lists
//! the rules are built from live in `words.rs`.

use std::sync::LazyLock;

use super::rule::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// Every rule, tried in this order after the plans called off
/// ([`super::plans`]).
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
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
            r"{S} (?i:wurde|wurden|bin|ist|sind){A} (?i:entlassen|gefeuert|gekündigt worden|in Rente gegangen|in den Ruhestand gegangen)\b",
            Fixed("works_at"),
            Ended,
            None,
            0.6,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:gekündigt)\b",
            Fixed("works_at"),
            Ended,
            work,
            0.6,
        ),
        // A past job: over the period the sentence names ("bis 2020"),
        // or, with no period, one that has ended.
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:bei|für) {OW} (?i:gearbeitet)\b",
            Fixed("works_at"),
            Happened,
            work,
            0.7,
        ),
        rule(
            r"{S} (?i:arbeitete|arbeiteten){A} (?i:bei|für) {O}",
            Fixed("works_at"),
            Happened,
            work,
            0.7,
        ),
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} (?i:seit \S+ )?(?i:im homeoffice |remote |von zu hause aus |in teilzeit |in vollzeit |freiberuflich )?(?i:bei|für) {O}",
            Fixed("works_at"),
            Holds,
            work,
            0.8,
        ),
        // "Ich unterrichte an der Goethe-Schule": a school one teaches at.
        rule(
            r"{S} (?i:unterrichte|unterrichtet|unterrichten|lehre|lehrt){A} (?i:an der|an dem|am|an einer|an einem) {O}",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        // "Ich habe bei Zalando als Art Director angefangen".
        rule(
            r"{S} (?i:habe|hat|haben|bin|ist){A} (?i:bei) (?:der |dem )?(?P<o>[A-ZÄÖÜ][\wäöüß&'-]*(?: [A-ZÄÖÜ][\wäöüß&'-]*)*) als (?P<t>(?:[A-ZÄÖÜ][a-zäöüß]+ )?{TITLE}) (?i:angefangen|begonnen|eingestiegen)\b",
            Fixed("works_at"),
            Holds,
            work,
            0.8,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?:als (?P<t>{TITLE}) )?(?i:bei )(?:der |dem |einer |einem )?(?P<o>[A-ZÄÖÜ][^,.;!?()]*?) (?i:angefangen|begonnen)\b",
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
        // A job said by what one is where: "Ich bin Krankenpflegerin bei
        // der Charité" holds a title and a workplace (`t` makes the second
        // claim). A bare "in" names a town, not an employer.
        rule(
            r"{S} (?i:bin|ist){A} (?i:von beruf )?(?:eine? )?(?P<t>{TITLE}) (?:bei|im|in der|in einer|in einem|an der|an einer|am|für) {O}",
            Fixed("works_at"),
            Holds,
            work,
            0.7,
        ),
        // "Nächsten Montag fange ich bei einer Privatklinik an."
        rule(
            r"{S} (?i:fange|fängt|fangen){A} (?:bei|im|in der|in einer|in einem|an der|an einer) {OW} an\b",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        // "Ich habe eine Stelle als Laborleiter bei AstraZeneca bekommen".
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:eine|die|eine neue) (?i:Stelle|Stellung|Position|Job|Arbeit) als (?P<t>{TITLE}) (?i:bei|in) (?:der |dem |einer |einem )?(?P<o>[A-ZÄÖÜ][^,.;!?()]*?) (?i:bekommen|angenommen|gefunden|angetreten)\b",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} als (?P<t>{TITLE}) (?:bei|für) {O}",
            Fixed("works_at"),
            Holds,
            work,
            0.8,
        ),
        rule(
            r"{S} (?i:arbeite|arbeitet|arbeiten){A} als {O}",
            Fixed("job_title"),
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:bin|ist){A} (?i:von beruf )?(?P<o>{TITLE})\b",
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
            r"{S} (?i:wohne|wohnt|wohnen|lebe|lebt|leben){A} (?i:seit \S+ )?(?P<w>(?i:mit (?:meinem|meiner|meinen|unserem|unserer|unseren) [^,.;!?()]+? ))?in {O}",
            Fixed("lives_in"),
            Holds,
            place,
            0.8,
        ),
        // A past home: over the period the sentence names, or, with no
        // period, one that has ended ("Früher habe ich in Köln gewohnt").
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:früher |vorher |damals |lange )?in {OW} (?i:gewohnt|gelebt)\b",
            Fixed("lives_in"),
            Happened,
            place,
            0.7,
        ),
        rule(
            r"{S} (?i:wohnte|wohnten|lebte|lebten){A} (?i:früher |vorher |damals )?in {O}",
            Fixed("lives_in"),
            Happened,
            place,
            0.7,
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
            r"\b(?i:hallo|hi|hey)\W+(?:[A-Za-zäöüß]+\W+){0,2}?[Ii]ch bin {NAME}\b",
            Fixed("name"),
            Holds,
            None,
            0.8,
        ),
        rule(
            r"{S} (?i:bin|ist){A} (?P<o>\d{1,2})(?:[,.!]|$| und\b)",
            Fixed("age"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:bin|ist|sind){A} (?P<o>ledig|verheiratet|geschieden|verlobt|verwitwet)\b",
            Fixed("relationship_status"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?:mich|sich|uns) (?P<o>verlobt)\b",
            Fixed("relationship_status"),
            Holds,
            None,
            0.7,
        ),
        // "Ella ist sieben geworden": an age reached, in digits or words.
        rule(
            r"{S} (?i:bin|ist){A} {AGE}(?: (?i:jahre alt|jahre))? (?i:geworden)\b",
            Fixed("age"),
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:bin|ist){A} (?P<o>\d{1,3}) (?i:jahre alt|jahre)",
            Fixed("age"),
            Holds,
            None,
            0.8,
        ),
        // "Mein Bruder Jakob ist vierzig.": a bare age closes its clause.
        rule(
            r"{S} (?i:ist){A} {AGE}(?:[,.!;]|$| und\b)",
            Fixed("age"),
            Holds,
            None,
            0.7,
        ),
        // "Mein Freund Jonas und ich sind seit zwei Jahren zusammen":
        // "Freund" is a friend unless the two are together.
        rule(
            r"(?i:mein) (?i:Freund),? {NAME},? und ich (?i:sind|waren){A} (?:\S+ ){0,3}?(?i:zusammen)\b",
            Fixed("boyfriend"),
            Holds,
            Some("person"),
            0.8,
        ),
        rule(
            r"(?i:meine) (?i:Freundin),? {NAME},? und ich (?i:sind|waren){A} (?:\S+ ){0,3}?(?i:zusammen)\b",
            Fixed("girlfriend"),
            Holds,
            Some("person"),
            0.8,
        ),
        // "Clara ist meine Cousine": the name first.
        rule(
            r"{NAME} (?:ist|war) (?i:mein|meine) (?P<rel>{FAMILY})\b",
            Family,
            Holds,
            Some("person"),
            0.75,
        ),
        rule(
            r"(?i:mein|meine|meinem|meinen|meiner) (?P<rel>{FAMILY})(?: heißt| heisst|,)? {NAME}",
            Family,
            Holds,
            Some("person"),
            0.8,
        ),
        // Endings: a partner, a pet.
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:mich|sich|uns)(?: (?i:von) {NAME})? (?i:getrennt|scheiden lassen)",
            Fixed(crate::claim::ANY_PARTNER),
            Ended,
            None,
            0.7,
        ),
        rule(
            r"(?i:mein|meine|unser|unsere) (?:{PETS}),? {NAME},? (?i:ist|sind) (?i:gestorben|tot|verstorben|weggelaufen|eingeschläfert worden)",
            Fixed("has_pet"),
            Ended,
            Some("animal"),
            0.7,
        ),
        rule(
            r"(?i:mein|meine|unser|unsere) (?P<o>{PETS}) (?i:ist|sind) (?i:gestorben|tot|verstorben|weggelaufen|eingeschläfert worden)",
            Fixed("has_pet"),
            Ended,
            None,
            0.7,
        ),
        // Pets and possessions.
        rule(
            r"(?i:mein|meine|unser|unsere) (?:{PETS})(?: heißt| heisst|,)? {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        // "Wir haben eine Katze, sie heißt Mochi": the pet by its name.
        // "Ich habe einen Welpen namens Max".
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:einen|eine|ein|einen neuen|eine neue) (?:[a-zäöüß]+ )?(?:{PETS})(?:n|en)?\b[^.!?;]{0,40}? (?i:namens) {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S} (?i:habe|hat|haben){A} (?i:einen|eine|ein|einen neuen|eine neue) (?:{PETS})\b[^.!?;]*?,? (?:und )?(?:sie|er|es) (?:heißt|heisst) {NAME}",
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
        rule(
            r"{S} (?i:fahre|fährt|fahren){A} (?i:einen|eine|ein) (?i:neuen |neue |neues |alten |alte |altes )?{O}",
            Fixed("owns"),
            Holds,
            None,
            0.6,
        ),
        // Allergies.
        rule(
            r"{S} (?i:bin|ist|sind){A} (?i:stark |sehr |leicht )?(?i:allergisch) (?i:gegen|auf) {O}",
            Fixed("allergic_to"),
            Holds,
            None,
            0.75,
        ),
        // Plans: "Ich überlege, nach Wien zu ziehen", "Ich habe vor, ...
        // zu kündigen".
        rule(
            r"{S} (?i:plane|plant|planen|überlege|überlegt|überlegen|habe vor|hat vor|haben vor)(?: mir)?,? (?P<o>[^.;!?()]+? zu [a-zäöüß]+)\b",
            Fixed("plans"),
            Holds,
            None,
            0.5,
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
            r"{S} (?i:kann|können){A} {OW} (?i:nicht ausstehen|nicht leiden|nicht ab)\b",
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
        // "Sie heißt Clara": a name by a pronoun, which consolidation
        // gives a relative known only by relation; last, so that a pet
        // named so ("eine Katze, sie heißt Mochi") is the pet's.
        rule(
            r"(?P<s>\b(?:[Ss]ie|[Ee]r|[Ii]hr|[Ss]ein)) (?:heißt|heisst|Name ist) {NAME}",
            Fixed("name"),
            Holds,
            None,
            0.8,
        ),
    ]
});
