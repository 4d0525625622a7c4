//! German plans called off: a move or a job that was to start and now
//! will not ("Wir ziehen doch nicht nach Hamburg", "der Umzug ist
//! geplatzt", "Ich habe das Angebot von SAP abgelehnt"). Consolidation
//! withdraws what was to hold from after the message and lets what it
//! would have ended hold on (`ClaimKind::CalledOff`).

use std::sync::LazyLock;

use super::rule::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// The value a plan named, when said: a capitalised name.
const PLANNED: &str = r"(?P<o>[A-ZÄÖÜ][\wäöüß'-]*(?: [A-ZÄÖÜ][\wäöüß'-]*)*)";

/// Tried before every other rule: "nicht nach Hamburg ziehen" is no home.
pub(super) static CALLED_OFF: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::CalledOff;
    use Predicate::Fixed;
    let off = |re: &str, predicate| {
        rule(
            &re.replace("{P}", PLANNED),
            Fixed(predicate),
            CalledOff,
            None,
            0.7,
        )
    };
    vec![
        off(
            r"{S} (?i:ziehe|ziehen|zieht){A} (?i:nicht|nicht mehr|doch nicht|jetzt doch nicht|also doch nicht)(?: (?i:nach|in die|in den|in das) {P})?(?: um| weg)?\b",
            "lives_in",
        ),
        off(
            r"{S} (?i:habe|haben|hat){A} (?i:uns|mich|sich) (?i:dagegen entschieden|entschieden, nicht|entschieden, doch nicht)(?: (?i:nach|in die|in den) {P})?(?: umzuziehen| wegzuziehen)?",
            "lives_in",
        ),
        off(
            r"(?i:der|unser|mein) (?i:Umzug)(?: (?i:nach) {P})? (?i:fällt ins Wasser|ist abgesagt|wurde abgesagt|ist geplatzt|findet nicht statt|fällt aus|ist vom Tisch|hat sich zerschlagen)",
            "lives_in",
        ),
        off(
            r"{S} (?i:bleibe|bleiben|bleibt){A} (?i:doch|also doch|jetzt doch|nun doch) (?i:in|hier in) [^,.;!?]+",
            "lives_in",
        ),
        off(
            r"{S} (?i:fange|fangen|fängt){A} (?i:doch nicht|nicht|nicht mehr) (?i:bei) {P} (?i:an)\b",
            "works_at",
        ),
        off(
            r"{S} (?i:habe|hat){A} (?i:das|ihr|sein|deren) (?i:Jobangebot|Angebot|Stellenangebot)(?: (?i:von|bei) {P})? (?i:abgelehnt|ausgeschlagen|nicht angenommen)",
            "works_at",
        ),
        off(
            r"(?i:das|mein) (?i:Jobangebot|Angebot|Stellenangebot)(?: (?i:von|bei) {P})? (?i:wurde zurückgezogen|ist geplatzt|hat sich zerschlagen|ist vom Tisch)",
            "works_at",
        ),
    ]
});
