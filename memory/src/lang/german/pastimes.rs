//! German pastimes taken up and given up: "Ich habe mit dem Klettern
//! angefangen", "Ich habe angefangen, Cello zu lernen", "Ich lerne seit
//! Januar Cello" (the time taken out: "Ich lerne Cello"), "Ich habe mit dem Cello aufgehört", "Ich habe das
//! Laufen aufgegeben". A pastime is the speaker's `likes` while it lasts:
//! taken up it holds, given up it ends.
//!
//! A pastime is an instrument, a sport, craft or language named, or a
//! verb made a noun ("das Klettern", "das Bouldern"); the nouns so formed
//! that name no pastime ("das Arbeiten", "das Packen") are
//! `NOT_PASTIMES`, and "mit dem Umzug angefangen" names none at all.

use std::sync::LazyLock;

use super::rule::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// Instruments one plays.
const INSTRUMENTS: &str = r"E-Gitarre|Gitarre|Klavier|Keyboard|Geige|Violine|Bratsche|Cello|Kontrabass|Bass|Schlagzeug|Ukulele|Saxophon|Saxofon|Querflöte|Flöte|Blockflöte|Klarinette|Trompete|Posaune|Harfe|Banjo|Mandoline|Mundharmonika|Akkordeon|Oboe";
/// Sports, crafts and languages one takes up.
const NAMED: &str = r"Yoga|Pilates|Tennis|Tischtennis|Golf|Schach|Fußball|Fussball|Basketball|Volleyball|Badminton|Handball|Rugby|Hockey|Squash|Karate|Judo|Taekwondo|Jiu-Jitsu|Kung Fu|Tai Chi|Crossfit|Parkour|Bogenschießen|Fotografie|Fotografieren|Töpfern|Kalligrafie|Origami|Meditation|Ballett|Salsa|Tango|Zumba|Spanisch|Französisch|Englisch|Italienisch|Japanisch|Koreanisch|Chinesisch|Portugiesisch|Russisch|Arabisch|Niederländisch|Griechisch|Latein";
/// Nouns formed from verbs that name no pastime.
const NOT_PASTIMES: &[&str] = &[
    "Arbeiten",
    "Packen",
    "Umziehen",
    "Aufräumen",
    "Putzen",
    "Lernen",
    "Essen",
    "Trinken",
    "Rauchen",
    "Leben",
    "Studieren",
    "Bewerben",
    "Sparen",
    "Planen",
    "Renovieren",
    "Garten",
    "Kuchen",
    "Morgen",
    "Norden",
    "Süden",
    "Osten",
    "Westen",
    "Wagen",
    "Kindern",
];
/// The pastime, with its article if said.
const PASTIME: &str = r"(?:(?i:das|dem|den|der|die) )?(?P<o>(?:{INSTRUMENTS}|{NAMED})\b|[A-ZÄÖÜ][a-zäöüß]+(?:en|rn|ln)\b)";

/// Tried before the rule table.
pub(super) static PASTIMES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::{Ended, Holds};
    use Predicate::Fixed;
    let pastime = PASTIME
        .replace("{INSTRUMENTS}", INSTRUMENTS)
        .replace("{NAMED}", NAMED);
    let said = |re: &str, kind, confidence| {
        rule(
            &re.replace("{PASTIME}", &pastime),
            Fixed("likes"),
            kind,
            None,
            confidence,
        )
        .rejecting(names_no_pastime)
    };
    vec![
        // Given up first: "mit dem Cello aufgehört" is no start.
        said(
            r"{S} (?i:habe|hat|haben){A}(?: [^,.;!?]+?)? (?i:mit) {PASTIME} (?i:aufgehört)",
            Ended,
            0.7,
        ),
        said(
            r"{S} (?i:habe|hat|haben){A}(?: [^,.;!?]+?)? {PASTIME} (?i:aufgegeben)",
            Ended,
            0.7,
        ),
        said(
            r"{S} (?i:spiele|spielt|spielen|mache|macht|machen){A} (?i:kein|keine|keinen|nicht mehr) {PASTIME} (?i:mehr)",
            Ended,
            0.7,
        ),
        // "Ich gehe zweimal die Woche bouldern": a habit is a pastime.
        said(
            r"{S} (?i:gehe|geht|gehen){A}(?: [^,.;!?]+?)? (?P<o>(?i:bouldern|klettern|schwimmen|joggen|laufen|wandern|tanzen|reiten|segeln|surfen|angeln|kegeln|bowlen|golfen|radeln|skaten|rudern|paddeln|tauchen|snowboarden|skifahren|Ski fahren|eislaufen|fischen))\b",
            Holds,
            0.65,
        ),
        said(
            r"{S} (?i:habe|hat|haben){A}(?: [^,.;!?]+?)? (?i:mit) {PASTIME} (?i:angefangen|begonnen)",
            Holds,
            0.65,
        ),
        said(
            r"{S} (?i:habe|hat|haben){A}(?: [^,.;!?]+?)? (?i:angefangen|begonnen),? {PASTIME} (?i:spielen zu lernen|spielen zu üben|zu lernen|zu spielen|zu üben|zu machen|zu betreiben)",
            Holds,
            0.65,
        ),
        said(
            r"{S} (?i:habe|hat|haben){A}(?: [^,.;!?]+?)? {PASTIME} (?i:für mich |für sich )?(?i:entdeckt)",
            Holds,
            0.65,
        ),
        said(
            r"{S} (?i:lerne|lernt|lernen|spiele|spielt|spielen|mache|macht|machen){A}(?: (?i:am Wochenende|am Abend|abends|morgens|sonntags|samstags|in meiner Freizeit|in der Freizeit|jeden Tag|jede Woche))?(?: (?i:gern|gerne|oft|viel|regelmäßig))? {PASTIME}(?:$|[,.;!?]| (?i:und|aber|mit|in|im|am|jeden|jede|zweimal|einmal|dreimal|gern|gerne|regelmäßig|seit)\b)",
            Holds,
            0.65,
        ),
    ]
});

/// Whether an object the pastime rules read names no pastime.
fn names_no_pastime(object: &str) -> bool {
    NOT_PASTIMES.contains(&object)
}
