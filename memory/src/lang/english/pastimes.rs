//! English pastimes taken up and given up: "I got into rock climbing",
//! "I picked up running", "I started learning the cello", "I quit the
//! cello", "I gave up running". A pastime is the speaker's `likes` while
//! it lasts: taken up it holds, given up it ends (one object's version,
//! not the speaker's every taste).
//!
//! What counts as a pastime is narrow on purpose, since "got into" and
//! "picked up" take anything ("got into Stanford", "picked up my
//! daughter"): an instrument, a sport or craft named, or an activity said
//! as a verb's "-ing" form that ends its clause or is followed by when,
//! where or with whom ("running in February"), never one that takes an
//! object ("started dating Tom"), and never the "-ing" words that name no
//! pastime (`NOT_PASTIMES`).

use std::sync::LazyLock;

use super::rules::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// Instruments one plays.
const INSTRUMENTS: &str = r"electric guitar|bass guitar|acoustic guitar|guitar|piano|keyboard|violin|viola|cello|double bass|drums|ukulele|saxophone|sax|flute|clarinet|trumpet|trombone|harp|banjo|mandolin|harmonica|accordion|oboe";
/// Sports, crafts and languages one takes up that are not said as "-ing"
/// words.
const NAMED: &str = r"yoga|pilates|tennis|table tennis|golf|chess|football|soccer|basketball|volleyball|badminton|baseball|rugby|cricket|hockey|squash|karate|judo|taekwondo|jiu-jitsu|jiu jitsu|kung fu|tai chi|crossfit|parkour|archery|photography|pottery|ceramics|calligraphy|origami|embroidery|crochet|meditation|poetry|ballet|salsa|tango|zumba|improv|karaoke|Spanish|French|German|Italian|Japanese|Korean|Mandarin|Chinese|Portuguese|Russian|Arabic|Dutch|Greek|Latin";
/// "-ing" words that name no pastime: work, errands, things, times of
/// day, habits one quits.
const NOT_PASTIMES: &[&str] = &[
    "working",
    "dating",
    "seeing",
    "thinking",
    "wondering",
    "looking",
    "trying",
    "getting",
    "going",
    "being",
    "having",
    "doing",
    "making",
    "taking",
    "feeling",
    "saving",
    "planning",
    "packing",
    "applying",
    "living",
    "moving",
    "studying",
    "paying",
    "using",
    "talking",
    "something",
    "anything",
    "nothing",
    "everything",
    "thing",
    "morning",
    "evening",
    "building",
    "wedding",
    "meeting",
    "ring",
    "spring",
    "string",
    "sibling",
    "ceiling",
    "smoking",
    "drinking",
    "vaping",
    "eating",
    "sleeping",
    "crying",
    "coughing",
    "bleeding",
];
/// The pastime: an instrument or named one, or an "-ing" word with at
/// most one word before it ("rock climbing"), then where the clause may
/// go on.
const PASTIME: &str =
    r"{ARTICLE}(?P<o>(?i:{INSTRUMENTS}|{NAMED})|(?:[a-z]+ )?[a-z]{2,}ing){GOES_ON}";
/// What one plays: an instrument or named pastime, never an "-ing" word
/// ("I play fetching" is nothing).
const PLAYED: &str = r"{ARTICLE}(?P<o>(?i:{INSTRUMENTS}|{NAMED})){GOES_ON}";
const ARTICLE: &str = r"(?:(?i:the|a|an) )?";
/// After the pastime: "lessons" or "classes" if said, then where the
/// clause may go on.
const GOES_ON: &str = r"(?: (?i:lessons|classes))?(?:$|[,.;!?]| [-–—]| (?i:in|last|this|since|during|over|after|when|again|lately|recently|and|because|with|at|on|twice|once|every|for|as|but|so|now|too|myself|yesterday|today|a few|a couple|about|around|back)\b)";

/// `PASTIME` or `PLAYED` with its parts filled in.
fn spelled(pattern: &str) -> String {
    pattern
        .replace("{ARTICLE}", ARTICLE)
        .replace("{INSTRUMENTS}", INSTRUMENTS)
        .replace("{NAMED}", NAMED)
        .replace("{GOES_ON}", GOES_ON)
}

/// Tried before the rule table: "I quit the cello" is no job left.
pub(super) static PASTIMES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::{Ended, Holds};
    use Predicate::Fixed;
    let pastime = spelled(PASTIME);
    let played = spelled(PLAYED);
    let said = |re: &str, kind, confidence| {
        rule(
            &re.replace("{PASTIME}", &pastime)
                .replace("{PLAYED}", &played),
            Fixed("likes"),
            kind,
            None,
            confidence,
        )
        .rejecting(names_no_pastime)
    };
    vec![
        // "I play the guitar in a band", "She plays tennis on Sundays": an
        // instrument or sport one plays is a pastime (never "play with").
        said(
            r"{S} (?i:usually |often |still |also |really |sometimes |mostly |regularly |even )?(?i:play|plays|have been playing|has been playing|am playing|is playing) {PLAYED}",
            Holds,
            0.6,
        ),
        // "I go bouldering twice a week": a habit is a pastime.
        said(
            r"{S} (?i:usually |often |still |also )?(?i:go|goes|have been going|has been going) (?P<o>[a-z]{2,}ing)(?:$|[,.;!?]| (?i:every|twice|once|three times|a few times|regularly|most|on|at|with|in)\b)",
            Holds,
            0.65,
        ),
        said(
            r"{S} (?i:just |finally |recently |also |even )?(?i:quit|gave up|have given up|has given up|stopped|have stopped|has stopped)(?: (?i:learning|playing|doing|practicing|practising|going to))? {PASTIME}",
            Ended,
            0.7,
        ),
        said(
            r"{S}(?:'ve|'s|'m| have| has| am| is)? (?i:just |finally |recently |also |even |really )?(?i:got into|got really into|am getting into|have been getting into|picked up|took up|have taken up|has taken up|started|began|have started|has started|got hooked on|fell in love with|am learning|is learning|have been learning|has been learning|started learning|began learning|learning|been learning|begun|taken up|picked up)(?: (?i:learning|playing|doing|practicing|practising|taking|going to|learning to play|learning how to play|to play|how to play))? {PASTIME}",
            Holds,
            0.65,
        ),
    ]
});

/// Whether an object the pastime rules read names no pastime ("I started
/// working", "I picked up something").
fn names_no_pastime(object: &str) -> bool {
    let head = object.rsplit(' ').next().unwrap_or(object);
    NOT_PASTIMES.contains(&head.to_ascii_lowercase().as_str())
}
