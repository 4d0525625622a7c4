//! German time phrases: gestern, letzte Woche, vor zwei Jahren, seit drei
//! Jahren, am 3. März, im Mai 2023, seit März, nächsten Freitag, letztes
//! Jahr im März, 03.05.2023, read into [`TimeExpr`]s that `when` anchors.

use std::sync::LazyLock;

use jiff::civil::Weekday;
use regex::{Captures, Regex};

use crate::when::{self, SeasonOf, TimeExpr, TimePhrase, Toward, Unit};

const MONTHS: [&str; 12] = [
    "januar",
    "februar",
    "märz",
    "april",
    "mai",
    "juni",
    "juli",
    "august",
    "september",
    "oktober",
    "november",
    "dezember",
];

const NUMBER: &str = r"\d+|ein|eine|einem|einen|einer|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf|ein paar|paar|einigen|mehreren";
const MONTH: &str = r"jan(?:uar)?|jänner|feb(?:ruar)?|märz|mär|apr(?:il)?|mai|juni?|juli?|aug(?:ust)?|sep(?:t(?:ember)?)?|okt(?:ober)?|nov(?:ember)?|dez(?:ember)?";
const WEEKDAY: &str = r"montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag";
/// A unit, in the forms the phrases take ("Tagen", "Wochen", "Monat").
const UNIT: &str = r"tage?n?|wochen?|monate?n?|jahre?n?";

#[derive(Clone, Copy, Debug)]
enum Rule {
    Span,
    NumericDate,
    IsoDate,
    DayMonthYear,
    UntilMonthYear,
    UntilYear,
    SinceMonthYear,
    MonthYear,
    SinceYear,
    InYear,
    DayMonth,
    SeasonOfYear,
    RelativeSeason,
    Season,
    DaysAgo(i64),
    UnitsAgo,
    ForUnits,
    MonthOfRelativeYear,
    RelativeUnit,
    RelativeWeekday,
    RelativeMonth,
}

/// Every pattern, most specific first.
static PATTERNS: LazyLock<Vec<(Regex, Rule)>> = LazyLock::new(|| {
    let p = |re: &str, rule: Rule| {
        let re = re
            .replace("{N}", NUMBER)
            .replace("{M}", MONTH)
            .replace("{W}", WEEKDAY)
            .replace("{U}", UNIT);
        (
            Regex::new(&format!(r"(?i)\b(?:{re})\b"))
                .unwrap_or_else(|e| unreachable!("bad time pattern {re}: {e}")),
            rule,
        )
    };
    vec![
        // Stretches first: "von 2010 bis 2015" is one period, not a start.
        p(
            r"(?:von|zwischen) (?:(?P<fm>{M}) )?(?P<fy>\d{4}) (?:bis(?: zum| in den)?|und|-|–) (?:(?P<tm>{M}) )?(?P<ty>\d{4})",
            Rule::Span,
        ),
        p(
            r"(?:von|zwischen) (?P<fm>{M}) (?:bis(?: zum| in den)?|und|-|–) (?P<tm>{M}) (?P<ty>\d{4})",
            Rule::Span,
        ),
        p(
            r"(?P<fy>(?:19|20)\d{2})(?: ?[-–] ?| bis )(?P<ty>(?:19|20)\d{2})",
            Rule::Span,
        ),
        p(r"(?:am )?(\d{1,2})\.(\d{1,2})\.(\d{4})", Rule::NumericDate),
        p(r"(\d{4})-(\d{2})-(\d{2})", Rule::IsoDate),
        p(r"(?:am )?(\d{1,2})\.? ({M}) (\d{4})", Rule::DayMonthYear),
        p(r"bis (?:zum |in den )?({M}) (\d{4})", Rule::UntilMonthYear),
        p(r"bis (?:zum jahr(?:e)? )?(\d{4})", Rule::UntilYear),
        p(r"seit ({M}) (\d{4})", Rule::SinceMonthYear),
        p(r"(?:im )?({M}) (\d{4})", Rule::MonthYear),
        p(r"seit (?:dem jahr )?(\d{4})", Rule::SinceYear),
        p(r"(?:im jahr(?:e)? |in )(\d{4})", Rule::InYear),
        // A bare year ("2019 bin ich umgezogen") only where it looks like one.
        p(r"((?:19|20)\d{2})", Rule::InYear),
        p(
            r"(?:im )?(frühling|frühjahr|sommer|herbst|winter) (\d{4})",
            Rule::SeasonOfYear,
        ),
        p(
            r"(?:im |seit )?(letzte[nrsm]?|vergangene[nrsm]?|diese[nrsm]?|nächste[nrsm]?|kommende[nrsm]?) (frühling|frühjahr|sommer|herbst|winter)",
            Rule::RelativeSeason,
        ),
        p(r"im (frühling|frühjahr|sommer|herbst|winter)", Rule::Season),
        p(r"(?:am )?(\d{1,2})\.? ({M})", Rule::DayMonth),
        p(r"vorgestern", Rule::DaysAgo(2)),
        p(r"gestern(?: abend| morgen| nachmittag)?", Rule::DaysAgo(1)),
        p(
            r"heute(?: morgen| abend| nachmittag| früh)?",
            Rule::DaysAgo(0),
        ),
        p(r"übermorgen", Rule::DaysAgo(-2)),
        p(r"morgen", Rule::DaysAgo(-1)),
        p(r"vor ({N}) ({U})", Rule::UnitsAgo),
        p(r"(?:seit|schon) ({N}) ({U})", Rule::ForUnits),
        p(
            r"(letztes|dieses|nächstes) jahr im ({M})",
            Rule::MonthOfRelativeYear,
        ),
        p(
            // "seit letzter Woche": the state holds from then on.
            r"(?:seit )?(letzte[nrsm]?|vorige[nrsm]?|diese[nrsm]?|nächste[nrsm]?) (woche|wochenende|monat|jahr)",
            Rule::RelativeUnit,
        ),
        p(
            r"(letzte[nrs]?|vorige[nrs]?|diese[nrs]?|nächste[nrs]?|am|kommenden) ({W})",
            Rule::RelativeWeekday,
        ),
        p(
            r"(letzte[nrs]?|nächste[nrs]?|seit|im) ({M})",
            Rule::RelativeMonth,
        ),
    ]
});

/// Every phrase of every pattern in `text`, by pattern, then left to right.
pub(super) fn phrases(text: &str) -> Vec<TimePhrase> {
    when::phrases_by(text, &PATTERNS, |rule, caps, before| {
        // "Guten Morgen" greets; it is not tomorrow.
        if matches!(rule, Rule::DaysAgo(-1)) && before.to_lowercase().ends_with("guten ") {
            return None;
        }
        read(rule, caps)
    })
}

fn read(rule: Rule, caps: &Captures<'_>) -> Option<TimeExpr> {
    let group = |i: usize| caps.get(i).map_or("", |m| m.as_str());
    let num = |i: usize| -> Option<i64> { group(i).parse().ok() };
    let small = |i: usize| -> Option<i8> { num(i).and_then(|n| i8::try_from(n).ok()) };
    let year = |i: usize| -> Option<i16> { num(i).and_then(|n| i16::try_from(n).ok()) };
    let named = |name: &str| caps.name(name).map(|m| m.as_str());
    let month_of = |name: &str| -> Option<Option<i64>> {
        match named(name) {
            None => Some(None),
            Some(m) => Some(Some(i64::from(month(m)?))),
        }
    };
    Some(match rule {
        Rule::Span => {
            let to_year = named("ty")?.parse().ok()?;
            let from_year = named("fy").map_or(Some(to_year), |y| y.parse().ok())?;
            when::span(from_year, month_of("fm")?, to_year, month_of("tm")?)?
        }
        Rule::NumericDate => TimeExpr::Day {
            year: year(3)?,
            month: small(2)?,
            day: small(1)?,
        },
        Rule::IsoDate => TimeExpr::Day {
            year: year(1)?,
            month: small(2)?,
            day: small(3)?,
        },
        Rule::DayMonthYear => TimeExpr::Day {
            year: year(3)?,
            month: month(group(2))?,
            day: small(1)?,
        },
        Rule::UntilMonthYear => TimeExpr::UntilMonth {
            year: num(2)? as i16,
            month: month(group(1))?,
        },
        Rule::UntilYear => TimeExpr::UntilYear(num(1)?),
        Rule::SinceMonthYear => TimeExpr::SinceMonth {
            year: year(2)?,
            month: month(group(1))?,
        },
        Rule::MonthYear => TimeExpr::Month {
            year: year(2)?,
            month: month(group(1))?,
        },
        Rule::SinceYear => TimeExpr::SinceYear(num(1)?),
        Rule::InYear => TimeExpr::Year(num(1)?),
        Rule::DayMonth => TimeExpr::DayOfMonth {
            month: month(group(2))?,
            day: small(1)?,
        },
        Rule::SeasonOfYear => TimeExpr::Season {
            first_month: season(group(1))?,
            which: SeasonOf::Year(year(2)?),
        },
        Rule::RelativeSeason => TimeExpr::Season {
            first_month: season(group(2))?,
            which: match toward(group(1)) {
                Toward::Last => SeasonOf::Last,
                Toward::Next => SeasonOf::Next,
                _ => SeasonOf::Step(0),
            },
        },
        Rule::Season => TimeExpr::Season {
            first_month: season(group(1))?,
            which: SeasonOf::Tense,
        },
        Rule::DaysAgo(n) => TimeExpr::DaysAgo(n),
        Rule::UnitsAgo => TimeExpr::UnitsAgo(number(group(1))?, unit(group(2))),
        Rule::ForUnits => TimeExpr::ForUnits(number(group(1))?, unit(group(2))),
        Rule::MonthOfRelativeYear => TimeExpr::MonthOfYear(step(group(1)), month(group(2))?),
        Rule::RelativeUnit => TimeExpr::RelativeUnit(step(group(1)), unit(group(2))),
        Rule::RelativeWeekday => TimeExpr::Weekday(toward(group(1)), weekday(group(2))?),
        Rule::RelativeMonth => TimeExpr::NamedMonth(toward(group(1)), month(group(2))?),
    })
}

/// The month a season begins in.
fn season(word: &str) -> Option<i8> {
    match word.to_lowercase().as_str() {
        "frühling" | "frühjahr" => Some(3),
        "sommer" => Some(6),
        "herbst" => Some(9),
        "winter" => Some(12),
        _ => None,
    }
}

fn step(word: &str) -> i64 {
    let w = word.to_lowercase();
    if w.starts_with("letzt") || w.starts_with("vorig") {
        -1
    } else if w.starts_with("nächst") {
        1
    } else {
        0
    }
}

fn toward(word: &str) -> Toward {
    let w = word.to_lowercase();
    if w.starts_with("letzt") || w.starts_with("vorig") {
        Toward::Last
    } else if w.starts_with("nächst") || w == "kommenden" {
        Toward::Next
    } else if w == "seit" {
        Toward::Since
    } else {
        Toward::Tense
    }
}

fn unit(word: &str) -> Unit {
    let w = word.to_lowercase();
    if w.starts_with("tag") {
        Unit::Day
    } else if w == "wochenende" {
        Unit::Weekend
    } else if w.starts_with("woche") {
        Unit::Week
    } else if w.starts_with("monat") {
        Unit::Month
    } else {
        Unit::Year
    }
}

fn month(name: &str) -> Option<i8> {
    let lower = name.to_lowercase();
    if lower == "jänner" {
        return Some(1);
    }
    MONTHS
        .iter()
        .position(|m| lower.chars().count() >= 3 && m.starts_with(lower.as_str()))
        .map(|i| i as i8 + 1)
}

fn weekday(name: &str) -> Option<Weekday> {
    Some(match name.to_lowercase().as_str() {
        "montag" => Weekday::Monday,
        "dienstag" => Weekday::Tuesday,
        "mittwoch" => Weekday::Wednesday,
        "donnerstag" => Weekday::Thursday,
        "freitag" => Weekday::Friday,
        "samstag" | "sonnabend" => Weekday::Saturday,
        "sonntag" => Weekday::Sunday,
        _ => return None,
    })
}

fn number(word: &str) -> Option<i64> {
    Some(match word.to_lowercase().as_str() {
        "ein" | "eine" | "einem" | "einen" | "einer" => 1,
        "zwei" | "ein paar" | "paar" => 2,
        "drei" | "einigen" | "mehreren" => 3,
        "vier" => 4,
        "fünf" => 5,
        "sechs" => 6,
        "sieben" => 7,
        "acht" => 8,
        "neun" => 9,
        "zehn" => 10,
        "elf" => 11,
        "zwölf" => 12,
        digits => digits.parse().ok().filter(|n| (0..10_000).contains(n))?,
    })
}

#[cfg(test)]
mod tests {
    use crate::lang::Lang;
    use crate::when::{date_of, find};
    use chronolog_engine::Timestamp;

    fn when(text: &str, said: &str) -> String {
        let at = Timestamp::parse(said).expect("time");
        let Some(found) = find(Lang::German.reader(), text, at, false) else {
            return "none".into();
        };
        let show = |t: Timestamp| date_of(t).map_or("?".into(), |d| d.to_string());
        format!(
            "{} .. {}",
            show(found.when.from),
            found.when.to.map_or(String::new(), show)
        )
    }

    #[test]
    fn a_stretch_is_one_period_from_its_first_year_or_month_to_the_end_of_its_last() {
        let said = "2024-06-01";
        assert_eq!(
            when("Ich war von 2010 bis 2015 bei IBM", said),
            "2010-01-01 .. 2016-01-01"
        );
        assert_eq!(
            when("zwischen 2015 und 2018 wohnten wir dort", said),
            "2015-01-01 .. 2019-01-01"
        );
        assert_eq!(
            when("von März 2019 bis Juni 2021", said),
            "2019-03-01 .. 2021-07-01"
        );
        assert_eq!(
            when("von März bis Juni 2020", said),
            "2020-03-01 .. 2020-07-01"
        );
        assert_eq!(
            when("bei IBM (2010-2015)", said),
            "2010-01-01 .. 2016-01-01"
        );
    }

    #[test]
    fn a_season_is_its_three_months_chosen_by_when_it_was_said() {
        let march = "2025-03-20";
        assert_eq!(
            when("diesen Sommer ziehen wir um", march),
            "2025-06-01 .. 2025-09-01"
        );
        assert_eq!(when("letzten Sommer", march), "2024-06-01 .. 2024-09-01");
        assert_eq!(
            when("seit letztem Sommer", march),
            "2024-06-01 .. 2024-09-01"
        );
        assert_eq!(
            when("im nächsten Frühjahr", march),
            "2026-03-01 .. 2026-06-01"
        );
        assert_eq!(when("im Winter 2019", march), "2019-12-01 .. 2020-03-01");
    }

    #[test]
    fn phrases_anchor_at_the_message() {
        // 2023-05-17 is a Wednesday.
        let said = "2023-05-17";
        assert_eq!(
            when("Ich war gestern im Kino", said),
            "2023-05-16 .. 2023-05-17"
        );
        assert_eq!(when("letzte Woche", said), "2023-05-08 .. 2023-05-15");
        assert_eq!(when("seit letzter Woche", said), "2023-05-08 .. 2023-05-15");
        assert_eq!(when("seit letztem Monat", said), "2023-04-01 .. 2023-05-01");
        assert_eq!(when("vor zwei Jahren", said), "2021-01-01 .. 2022-01-01");
        assert_eq!(when("seit drei Jahren", said), "2020-05-17 .. ");
        assert_eq!(when("am 3. März", said), "2023-03-03 .. 2023-03-04");
        assert_eq!(when("am 3. März 2022", said), "2022-03-03 .. 2022-03-04");
        assert_eq!(when("im Mai 2023", said), "2023-05-01 .. 2023-06-01");
        assert_eq!(when("seit März", said), "2023-03-01 .. ");
        assert_eq!(when("letzten Freitag", said), "2023-05-12 .. 2023-05-13");
        assert_eq!(
            when("letztes Jahr im März", said),
            "2022-03-01 .. 2022-04-01"
        );
        assert_eq!(when("am 03.05.2023", said), "2023-05-03 .. 2023-05-04");
        assert_eq!(when("vor drei Monaten", said), "2023-02-01 .. 2023-03-01");
        assert_eq!(when("Ich mag Tee", said), "none");
        assert_eq!(when("Guten Morgen!", said), "none");
        assert_eq!(when("Das kostet 1500 Euro", said), "none");
        assert_eq!(
            when("2019 bin ich umgezogen", said),
            "2019-01-01 .. 2020-01-01"
        );
    }
}
