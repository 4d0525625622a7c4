//! The English rule table: each rule one way people say a fact about
//! themselves or others, as a regular expression over a sentence with the
//! predicate, kind and confidence of what it finds. Tuned on the dev
//! conversations only (never per question).

use std::sync::LazyLock;

use super::lexicon::{PETS, PROFESSIONS, QUALIFIER, TITLE, WORKPLACES};
use crate::claim::{self, ClaimKind};

/// A rule whose predicate is this language's [`Predicate`].
pub(super) type Rule = crate::lang::Rule<Predicate>;

/// Where a rule's predicate comes from.
pub(super) enum Predicate {
    /// Always this one.
    Fixed(&'static str),
    /// The predicate is a named group's text, lower-cased (`my sister`).
    FromGroup(&'static str),
    /// `favorite_` and the group's text.
    Favorite,
    /// The verb group maps to the predicate (`went to` -> `went_to`).
    Verb,
    /// A withdrawn claim: the verb group says which slot.
    WithdrawnVerb,
}

/// Who: the speaker, a pronoun, a relative by relation ("my sister"), a name.
const SUBJECT: &str = r"(?P<s>\bI\b|\b[Ww]e\b|\b[Hh]e\b|\b[Ss]he\b|\b(?:[Mm]y|[Oo]ur) (?:{RELATIVES})\b|\b[A-Z][a-z]+\b)";
const OBJECT: &str = r"(?P<o>[^,.;!?()]+)";
const NAME: &str = r"(?P<o>[A-Z][a-z]+(?: [A-Z][a-z]+)?)";
/// An age said in words, one to ninety-nine.
const SPELLED_AGE: &str = r"(?P<o>(?i:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))";
/// Canonical predicates as English says them ("best_friend" is "best
/// friend"), one alternative each, in the vocabulary's order.
fn said(predicates: &[&str]) -> String {
    predicates
        .iter()
        .map(|p| p.replace('_', " "))
        .collect::<Vec<_>>()
        .join("|")
}

/// A rule from its pattern, the placeholders (`{S}`, `{O}`, `{NAME}`,
/// the word lists) put in.
pub(super) fn rule(
    re: &str,
    predicate: Predicate,
    kind: ClaimKind,
    object_kind: Option<&'static str>,
    confidence: f64,
) -> Rule {
    let relatives: Vec<&str> = claim::FAMILY
        .iter()
        .copied()
        .filter(|r| claim::known_by_relation(r))
        .collect();
    let re = re
        .replace("{S}", SUBJECT)
        .replace("{RELATIVES}", &said(&relatives))
        .replace("{O}", OBJECT)
        .replace("{NAME}", NAME)
        .replace("{SPELLED_AGE}", SPELLED_AGE)
        .replace("{TITLE}", TITLE)
        .replace("{QUALIFIER}", QUALIFIER)
        .replace("{PROFESSIONS}", PROFESSIONS)
        .replace("{WORKPLACES}", WORKPLACES)
        .replace("{FAMILY}", &said(claim::FAMILY))
        .replace("{PETS}", PETS)
        .replace("{EVENTS}", &said(claim::EVENTS));
    Rule::new(&re, predicate, kind, object_kind, confidence)
}

/// Every rule, tried in this order: a span one rule read is not read
/// again by a later, looser one. Plans called off come first
/// ([`super::plans`]).
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::*;
    use Predicate::*;
    vec![
        // Withdrawals first: "I never worked at X" must not read as work.
        rule(
            r"{S} (?i:never|didn't|did not|don't|do not|doesn't|does not) (?i:actually |really )?(?P<v>(?i:join(?:ed)?|work(?:ed)?|live(?:d)?|move(?:d)?)) (?:(?i:at|for|in|to) )?{O}",
            WithdrawnVerb,
            Withdrawn,
            None,
            0.8,
        ),
        // Work.
        rule(
            r"{S} (?i:no longer|don't|do not|doesn't|does not) (?i:work) (?i:at|for) {O}",
            Fixed("works_at"),
            Ended,
            Some("organisation"),
            0.8,
        ),
        rule(
            r"{S} (?i:got |was |were |have been |'ve been )(?i:fired|laid off|let go|made redundant)\b",
            Fixed("works_at"),
            Ended,
            None,
            0.6,
        ),
        rule(
            r"{S} (?i:retired|quit)(?: (?i:my|his|her|the) (?:[a-z-]+ )?(?:job|work)| (?:my |his |her )?job)?(?:[.!,;]|$| (?i:last|this|yesterday|today|in|on|after|because|and))",
            Fixed("works_at"),
            Ended,
            None,
            0.6,
        ),
        rule(
            r"{S} (?i:quit|left|resigned from) (?i:my job at |my job with |the job at |working at |working for |my position at )?{O}",
            Fixed("works_at"),
            Ended,
            Some("organisation"),
            0.6,
        ),
        rule(
            r"{S} (?i:now |currently |still )?(?i:work|works|am working|'m working|is working|started working|have been working|'ve been working|has been working|have worked|'ve worked|has worked|teach|teaches|am teaching|'m teaching|have been teaching|'ve been teaching|teach [a-z]+|teaches [a-z]+|am teaching [a-z]+) (?i:remotely |full-time |full time |part-time |part time |freelance )?(?i:at|for) {O}",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.8,
        ),
        // "I started at Zalando as an art director": the title too.
        rule(
            r"{S} (?i:just |recently )?(?i:joined|started at|started working at|am starting at|will start at) (?P<o>[A-Z][\w&'-]*(?: [A-Z][\w&'-]*)*) as (?i:an?|the) (?P<t>(?:[a-z-]+ )?{TITLE})\b",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.8,
        ),
        rule(
            r"{S} (?i:just |recently )?(?i:joined|started a new job at|started a job at|started at|got a job at|got a job with|got hired at|got hired by|was hired by|am employed at|am employed by|'m employed at|is employed at|accepted an offer from|took a job at|am starting at|'m starting at|will start at|'ll start at|am starting a new job at|'m starting a new job at)\s(?P<o>[A-Z][^,.;!?()]*|(?i:an?|the) (?:[a-z-]+ ){0,3}(?:{WORKPLACES})\b[^,.;!?()]*)",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.75,
        ),
        // A past job: over the period the sentence names ("two years ago
        // I worked at IBM"), or, with no period, one that has ended.
        rule(
            r"{S} (?i:worked|was working|used to work|previously worked|had worked) (?i:at|for) {O}",
            Fixed("works_at"),
            Happened,
            Some("organisation"),
            0.7,
        ),
        rule(
            r"(?i:my (?:new )?(?:job|employer|company) is (?:at |with )?){O}",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.7,
        ),
        // A job said by what one is where: "I'm a nurse at Leeds General
        // Infirmary" holds a title and a workplace (`t` makes the second
        // claim); the place is a name, or a kind of workplace ("a private
        // clinic"), not "a sucker for sweets" or "a regular at the cafe"
        // (`NOT_JOBS`).
        rule(
            r"{S} (?i:am|'m|is|was|are|'re|have been|'ve been|has been) (?i:now |currently |still )?(?i:an?|the) (?P<t>{TITLE}) (?i:at|for|with) (?P<o>(?:[A-Z][^,.;!?()]*|(?i:an?|the) (?:[a-z-]+ ){0,3}(?:{WORKPLACES})\b[^,.;!?()]*))",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.7,
        ),
        // A job begun, said with its title: "I started a new job as a
        // software engineer at Shopify".
        rule(
            r"{S} (?i:just |recently |finally )?(?i:started|got|took|landed|accepted|am starting|will start|have started) (?i:a |my |the |an )?(?i:new )?(?i:job|position|role) as (?i:an?|the) (?P<t>(?:[a-z-]+ )?{TITLE}) (?i:at|with|for) (?P<o>(?:[A-Z][^,.;!?()]*|(?i:an?|the) (?:[a-z-]+ ){0,3}(?:{WORKPLACES})\b[^,.;!?()]*))",
            Fixed("works_at"),
            Holds,
            Some("organisation"),
            0.7,
        ),
        rule(
            r"{S} (?i:work|works|am working|'m working|is working) as (?i:an?|the) {O}",
            Fixed("job_title"),
            Holds,
            None,
            0.75,
        ),
        // What one is by trade, said alone ("She is a dentist"): only a
        // word that names a trade, for the forms of `TITLE` name
        // dreamers and worriers as well.
        rule(
            r"{S} (?:am|is) (?i:now |currently )?(?:an?) (?P<o>(?:(?:{QUALIFIER}) )?(?:{PROFESSIONS}))(?:[,.!;]|$| and\b| by (?:trade|profession)\b| (?:in|near|now|too|here|there|who)\b)",
            Fixed("job_title"),
            Holds,
            None,
            0.65,
        ),
        rule(
            r"{S} (?i:became|got promoted to|was promoted to|am now|'m now) (?i:an?|the) (?P<o>{TITLE})\b",
            Fixed("job_title"),
            Holds,
            None,
            0.6,
        ),
        // Home.
        rule(
            r"{S} (?i:no longer live|don't live|do not live|moved out of|moved away from)(?i: in)? {O}",
            Fixed("lives_in"),
            Ended,
            Some("place"),
            0.7,
        ),
        rule(
            r"{S} (?i:now |currently |still )?(?i:live|lives|am living|'m living|is living|have been living|'ve been living|have lived|'ve lived|has lived|reside|resides|am based|'m based|is based) in {O}",
            Fixed("lives_in"),
            Holds,
            Some("place"),
            0.8,
        ),
        // A move ahead, said with its time: "I'm moving to Copenhagen in
        // August" holds from then. Without a time it is only a plan.
        rule(
            r"{S} (?:am|are|is) (?:moving|relocating) (?i:back )?to (?P<o>[A-Z][^,.;!?()]*?) (?:in|on|next|this|at the end of|by|after) ",
            Fixed("lives_in"),
            Holds,
            Some("place"),
            0.7,
        ),
        rule(
            r"{S} (?i:lived|was living|used to live|previously lived|had lived) in {O}",
            Fixed("lives_in"),
            Happened,
            Some("place"),
            0.7,
        ),
        rule(
            r"{S} (?i:just |recently |finally )?(?i:moved|relocated|have moved|'ve moved|has moved) (?i:back )?to {O}",
            Fixed("lives_in"),
            Holds,
            Some("place"),
            0.8,
        ),
        rule(
            r"{S} (?i:am|'m|is|are|come|comes|was born|grew up) (?i:originally )?(?i:from|in) (?P<o>[A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)?)",
            Fixed("from"),
            Holds,
            Some("place"),
            0.6,
        ),
        // Endings: a partner, a pet.
        rule(
            r"{S} (?i:broke up|split up|separated|got divorced|divorced|are no longer together|'re no longer together)(?: (?i:with|from) {NAME})?",
            Fixed(claim::ANY_PARTNER),
            Ended,
            None,
            0.7,
        ),
        rule(
            r"(?i:my) (?i:{PETS}),? {NAME},? (?i:has |had )?(?i:passed away|died|was put down|had to be put down|ran away|went missing)",
            Fixed("has_pet"),
            Ended,
            Some("animal"),
            0.7,
        ),
        rule(
            r"(?i:my|our) (?P<o>(?i:{PETS})) (?i:has |had )?(?i:passed away|died|was put down|had to be put down|ran away|went missing)",
            Fixed("has_pet"),
            Ended,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:lost|had to put down|no longer have|don't have|do not have) (?i:my|our|an?) (?P<o>(?i:{PETS}))",
            Fixed("has_pet"),
            Ended,
            None,
            0.6,
        ),
        // Names, identity, family.
        rule(
            r"(?i:my name is|call me|my name's) {NAME}",
            Fixed("name"),
            Holds,
            None,
            0.9,
        ),
        // An introduction: "Hi, I'm Maya", "I'm Maya, 29, a nurse at X"
        // (its parts made clauses by `claims::appositions`).
        rule(
            r"\b(?i:hi|hey|hello|intro|introduce myself)\W+(?:[A-Za-z]+\W+){0,2}?I am {NAME}\b",
            Fixed("name"),
            Holds,
            None,
            0.8,
        ),
        rule(r"\bI am {NAME};", Fixed("name"), Holds, None, 0.8),
        rule(
            r"{S} (?i:am|'m|is|just turned|turned) (?P<o>\d{1,3}) (?i:years old|now|this year)",
            Fixed("age"),
            Holds,
            None,
            0.8,
        ),
        // "Ella turned seven yesterday": an age said in words.
        rule(
            r"{S} (?i:just )?turned {SPELLED_AGE}\b",
            Fixed("age"),
            Holds,
            None,
            0.75,
        ),
        // "I'm 29.", "I'm Maya, 29, ...": a bare age closes its clause.
        rule(
            r"{S} (?:am|is|just turned|turned) (?P<o>\d{1,2})(?:[,.!;]|$| and\b)",
            Fixed("age"),
            Holds,
            None,
            0.7,
        ),
        // "My brother Jack is forty.": the same, in words.
        rule(
            r"{S} (?:is|just turned) {SPELLED_AGE}(?:[,.!;]|$| and\b)",
            Fixed("age"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:just |finally |recently )?got (?P<o>engaged|married|divorced)\b",
            Fixed("relationship_status"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"(?:I'm|I am|[Ww]e're|[Ww]e are) (?i:now )?(?P<o>single|married|divorced|engaged|separated|widowed)\b",
            Fixed("relationship_status"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"(?i:my) (?P<rel>(?i:{FAMILY}))(?:'s name is|,| is named| named| is called| called|) {NAME}",
            FromGroup("rel"),
            Holds,
            Some("person"),
            0.8,
        ),
        // "Clara is my cousin": the name first.
        rule(
            r"{NAME} (?:is|was) (?i:my|our) (?P<rel>(?i:{FAMILY}))\b",
            FromGroup("rel"),
            Holds,
            Some("person"),
            0.75,
        ),
        // Pets and possessions.
        rule(
            r"(?i:my|our) (?P<rel>(?i:{PETS}))(?:'s name is|,| is named| named| is called| called|) {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        // "We got a cat last week, her name is Mochi": the pet by its name.
        // "I adopted a puppy named Max".
        rule(
            r"{S} (?i:have|has|got|adopted|'ve got|rescued) (?i:an?|another|a new) (?:[a-z-]+ ){0,2}(?i:{PETS})(?:,? (?i:an?|the) [a-z-]+(?: [a-z-]+)?)? (?i:named|called) {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S} (?i:have|has|got|adopted|'ve got|rescued) (?i:an?|another|a new) (?i:{PETS})\b[^.!?;]*?,? (?:and )?(?i:her|his|its) name is {NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S} (?i:have|has|got|adopted|'ve got|rescued) (?i:an?|two|three|another|a new) (?P<o>(?i:{PETS}))(?:s)?\b",
            Fixed("has_pet"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:just |recently )?(?i:bought|purchased|own|owns|got myself|drive|drives) (?i:an?|a new|my first|my own|an old|a used) {O}",
            Fixed("owns"),
            Holds,
            None,
            0.6,
        ),
        // Allergies: what to keep off one's plate, said as a state.
        rule(
            r"{S} (?:am|is|are) (?i:very |severely |really |mildly |quite |also )?(?i:allergic) to {O}",
            Fixed("allergic_to"),
            Holds,
            None,
            0.75,
        ),
        rule(
            r"(?i:my|his|her) (?:[a-z]+ )?(?i:allerg(?:y|ies)) (?i:is|are) {O}",
            Fixed("allergic_to"),
            Holds,
            None,
            0.7,
        ),
        // Tastes: dislikes before likes ("don't like" contains "like").
        rule(
            r"{S} (?i:really |absolutely |just |also )?(?i:hate|hates|dislike|dislikes|can't stand|cannot stand|don't like|do not like|doesn't like|don't enjoy|no longer like|no longer enjoy|am not a fan of|'m not a fan of|stopped liking|am not into|'m not into|'m no longer into|am no longer into) {O}",
            Fixed("dislikes"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S} (?i:really |absolutely |also |just |still )?(?i:love|loves|like|likes|enjoy|enjoys|adore|adores|am into|'m into|am a big fan of|'m a big fan of|am a fan of|'m a fan of|am passionate about|'m passionate about|am obsessed with|'m obsessed with) {O}",
            Fixed("likes"),
            Holds,
            None,
            0.65,
        ),
        rule(
            r"(?i:my) (?i:favou?rite) (?P<cat>[a-z]+(?: [a-z]+)?) (?i:is|are|has to be) {O}",
            Favorite,
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S} (?i:switched|changed) (?i:from (?P<from>[^,.;!?]+?) )?to {O}",
            Fixed("uses"),
            Holds,
            None,
            0.6,
        ),
        // Plans and events: the verb names the predicate.
        rule(
            r"{S} (?i:am|'m|is|are|'re) (?i:going|planning|hoping|about|excited) to (?P<o>[a-z][^,.;!?]+)",
            Fixed("plans"),
            Holds,
            None,
            0.55,
        ),
        // A plan still weighed: "I'm thinking about moving to Portland".
        rule(
            r"{S} (?i:am|'m|is|are|'re) (?i:thinking about|thinking of|considering) (?P<o>[a-z]+ing\b[^,.;!?]*)",
            Fixed("plans"),
            Holds,
            None,
            0.5,
        ),
        rule(
            r"{S} (?i:just |recently |finally |also )?(?P<v>{EVENTS})\s{O}",
            Verb,
            Happened,
            None,
            0.5,
        ),
        // "Her name is Clara": a name by a pronoun, which consolidation
        // gives a relative known only by relation, or no one; last, so that a pet
        // named so ("a cat, her name is Mochi") is the pet's.
        rule(
            r"(?P<s>\b(?:[Hh]er|[Hh]is)) name(?:'s| is) {NAME}",
            Fixed("name"),
            Holds,
            None,
            0.8,
        ),
        rule(
            r"(?P<s>\b(?:[Ss]he|[Hh]e)) (?:is|'s) called {NAME}",
            Fixed("name"),
            Holds,
            None,
            0.8,
        ),
    ]
});
