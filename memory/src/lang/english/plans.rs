//! English plans called off: a move or a job that was to start and now
//! will not ("we're not moving after all", "the move fell through", "I
//! turned down the offer from Stripe"). Consolidation withdraws what was
//! to hold from after the message and lets what it would have ended hold
//! on (`ClaimKind::CalledOff`).

use std::sync::LazyLock;

use super::rules::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// The value a plan named, when said: a capitalised name.
const PLANNED: &str = r"(?P<o>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)";

/// Tried before every other rule: "not moving to Toronto" is no home.
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
            r"{S} (?i:am|'m|are|'re|is|'s) (?i:not|no longer) (?i:moving|relocating|going to move|going to relocate)(?: (?i:to) {P})?",
            "lives_in",
        ),
        off(
            r"{S} (?i:have |'ve |has |'s )?(?i:decided|chose|chosen) (?i:not to) (?i:move|relocate)(?: (?i:to) {P})?",
            "lives_in",
        ),
        off(
            r"(?i:the|our|my) (?i:move|relocation)(?: (?i:to) {P})? (?i:fell through|has fallen through|is off|was called off|got called off|has been called off|is cancell?ed|was cancell?ed|got cancell?ed|has been cancell?ed|won't happen|isn't happening|is not happening)",
            "lives_in",
        ),
        off(
            r"{S} (?i:am|'m|are|'re|is|'s) (?i:staying|going to stay) (?i:in|at) [^,.;!?]+? (?i:after all)",
            "lives_in",
        ),
        off(
            r"{S} (?i:am|'m|is|'s) (?i:not|no longer) (?i:joining|starting at|going to join|going to start at|taking the job at|taking the position at) {P}",
            "works_at",
        ),
        off(
            r"{S} (?i:turned down|declined|rejected|said no to) (?i:the|their|an|a) (?i:job )?(?i:offer|job|position)(?: (?i:from|at|with) {P})?",
            "works_at",
        ),
        off(
            r"(?i:the|their|my) (?i:job )?(?i:offer)(?: (?i:from|at|with) {P})? (?i:fell through|has fallen through|was withdrawn|was rescinded|got rescinded|has been rescinded|was pulled)",
            "works_at",
        ),
    ]
});
