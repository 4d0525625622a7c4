//! English time phrases: month and weekday names, number words, "ago",
//! "last", "since", read into [`TimeExpr`]s that `when` anchors.

use std::sync::LazyLock;

use jiff::civil::Weekday;
use regex::{Captures, Regex};

use crate::when::{self, SeasonOf, TimeExpr, TimePhrase, Toward, Unit};

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

const NUMBER: &str = r"\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple of|a couple|few|several";
const MONTH: &str = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";
const WEEKDAY: &str = r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs?(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?";

/// Every pattern, most specific first; the first that matches a span wins.
static PATTERNS: LazyLock<Vec<(Regex, Rule)>> = LazyLock::new(|| {
    let p = |re: &str, rule: Rule| {
        let re = re
            .replace("{N}", NUMBER)
            .replace("{M}", MONTH)
            .replace("{W}", WEEKDAY);
        (
            Regex::new(&format!(r"(?i)\b(?:{re})\b")).unwrap_or_else(|e| {
                // The patterns are constants: a bad one is a bug caught by
                // the unit tests, never input.
                unreachable!("bad time pattern {re}: {e}")
            }),
            rule,
        )
    };
    vec![
        // Stretches first: "from 2010 to 2015" is one period, not a start.
        p(
            r"(?:from|between) (?:(?P<fm>{M}),? )?(?P<fy>\d{4}) (?:to|until|till|through|and|-|–) (?:(?P<tm>{M}),? )?(?P<ty>\d{4})",
            Rule::Span,
        ),
        p(
            r"(?:from|between) (?P<fm>{M}) (?:to|until|till|through|and|-|–) (?P<tm>{M}),? (?P<ty>\d{4})",
            Rule::Span,
        ),
        // A bare stretch only where both look like years ("1500-2000
        // calories" is none).
        p(
            r"(?P<fy>(?:19|20)\d{2})(?: ?[-–] ?| to | through )(?P<ty>(?:19|20)\d{2})",
            Rule::Span,
        ),
        p(r"(\d{4})-(\d{2})-(\d{2})", Rule::IsoDate),
        p(
            r"(?:on )?({M})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})",
            Rule::MonthDayYear,
        ),
        p(
            r"(?:on )?(?:the )?(\d{1,2})(?:st|nd|rd|th)? (?:of )?({M}),? (\d{4})",
            Rule::DayMonthYear,
        ),
        p(
            r"(?:until|till|up until|up to) ({M}) (\d{4})",
            Rule::UntilMonthYear,
        ),
        p(r"(?:until|till|up until|up to) (\d{4})", Rule::UntilYear),
        p(r"(?:since|from) ({M}) (\d{4})", Rule::SinceMonthYear),
        p(r"(?:in )?({M}),? (\d{4})", Rule::MonthYear),
        p(r"(?:since|from) (\d{4})", Rule::SinceYear),
        p(r"in (\d{4})", Rule::InYear),
        p(
            r"(?:on )?({M})\.? (\d{1,2})(?:st|nd|rd|th)?",
            Rule::MonthDay,
        ),
        p(
            r"(?:(?:in|during|over) )?(?:the )?(spring|summer|fall|autumn|winter) (?:of )?(\d{4})",
            Rule::SeasonOfYear,
        ),
        p(
            r"(last|this|next|this coming|this past|past) (spring|summer|fall|autumn|winter)",
            Rule::RelativeSeason,
        ),
        p(
            r"(?:in|during|over) the (spring|summer|fall|autumn|winter)",
            Rule::Season,
        ),
        p(r"the day before yesterday", Rule::DaysAgo(2)),
        p(r"yesterday|last night", Rule::DaysAgo(1)),
        p(
            r"today|this morning|this afternoon|this evening|tonight|earlier today",
            Rule::DaysAgo(0),
        ),
        p(r"the day after tomorrow", Rule::DaysAgo(-2)),
        p(r"tomorrow", Rule::DaysAgo(-1)),
        p(r"({N}) (day|week|month|year)s? ago", Rule::UnitsAgo),
        p(
            r"(?:for|over) (?:the (?:last|past) )?({N}) (day|week|month|year)s?",
            Rule::ForUnits,
        ),
        p(
            r"(last|this|next) (week|weekend|month|year)",
            Rule::RelativeUnit,
        ),
        p(
            r"(last|this|next|this coming|on) ({W})",
            Rule::RelativeWeekday,
        ),
        p(r"(last|this|next|since|in) ({M})", Rule::RelativeMonth),
    ]
});

#[derive(Clone, Copy, Debug)]
enum Rule {
    Span,
    IsoDate,
    MonthDayYear,
    DayMonthYear,
    UntilMonthYear,
    UntilYear,
    SinceMonthYear,
    MonthYear,
    SinceYear,
    InYear,
    MonthDay,
    SeasonOfYear,
    RelativeSeason,
    Season,
    DaysAgo(i64),
    UnitsAgo,
    ForUnits,
    RelativeUnit,
    RelativeWeekday,
    RelativeMonth,
}

/// Every phrase of every pattern in `text`, by pattern, then left to
/// right; a match whose words do not make a time (a day 45) is left out.
pub(super) fn phrases(text: &str) -> Vec<TimePhrase> {
    when::phrases_by(text, &PATTERNS, |rule, caps, _| read(rule, caps))
}

fn read(rule: Rule, caps: &Captures<'_>) -> Option<TimeExpr> {
    let group = |i: usize| caps.get(i).map_or("", |m| m.as_str());
    let num = |i: usize| -> Option<i64> { group(i).parse().ok() };
    let named = |name: &str| caps.name(name).map(|m| m.as_str());
    Some(match rule {
        Rule::Span => {
            let to_year = named("ty")?.parse().ok()?;
            let from_year = named("fy").map_or(Some(to_year), |y| y.parse().ok())?;
            let month_of = |name: &str| -> Option<Option<i64>> {
                match named(name) {
                    None => Some(None),
                    Some(m) => Some(Some(i64::from(month(m)?))),
                }
            };
            when::span(from_year, month_of("fm")?, to_year, month_of("tm")?)?
        }
        Rule::IsoDate => TimeExpr::Day {
            year: num(1)? as i16,
            month: num(2)? as i8,
            day: num(3)? as i8,
        },
        Rule::MonthDayYear => TimeExpr::Day {
            year: num(3)? as i16,
            month: month(group(1))?,
            day: num(2)? as i8,
        },
        Rule::DayMonthYear => TimeExpr::Day {
            year: num(3)? as i16,
            month: month(group(2))?,
            day: num(1)? as i8,
        },
        Rule::UntilMonthYear => TimeExpr::UntilMonth {
            year: num(2)? as i16,
            month: month(group(1))?,
        },
        Rule::UntilYear => TimeExpr::UntilYear(num(1)?),
        Rule::SinceMonthYear => TimeExpr::SinceMonth {
            year: num(2)? as i16,
            month: month(group(1))?,
        },
        Rule::MonthYear => TimeExpr::Month {
            year: num(2)? as i16,
            month: month(group(1))?,
        },
        Rule::SinceYear => TimeExpr::SinceYear(num(1)?),
        Rule::InYear => TimeExpr::Year(num(1)?),
        Rule::MonthDay => TimeExpr::DayOfMonth {
            month: month(group(1))?,
            day: num(2)? as i8,
        },
        Rule::SeasonOfYear => TimeExpr::Season {
            first_month: season(group(1))?,
            which: SeasonOf::Year(i16::try_from(num(2)?).ok()?),
        },
        Rule::RelativeSeason => TimeExpr::Season {
            first_month: season(group(2))?,
            which: match group(1).to_ascii_lowercase().as_str() {
                "last" | "this past" | "past" => SeasonOf::Last,
                "next" | "this coming" => SeasonOf::Next,
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
        Rule::RelativeUnit => {
            let step = match group(1).to_ascii_lowercase().as_str() {
                "last" => -1,
                "next" => 1,
                _ => 0,
            };
            TimeExpr::RelativeUnit(step, unit(group(2)))
        }
        Rule::RelativeWeekday => TimeExpr::Weekday(toward(group(1)), weekday(group(2))?),
        Rule::RelativeMonth => TimeExpr::NamedMonth(toward(group(1)), month(group(2))?),
    })
}

/// The month a season begins in.
fn season(word: &str) -> Option<i8> {
    match word.to_ascii_lowercase().as_str() {
        "spring" => Some(3),
        "summer" => Some(6),
        "fall" | "autumn" => Some(9),
        "winter" => Some(12),
        _ => None,
    }
}

fn unit(word: &str) -> Unit {
    match word.to_ascii_lowercase().as_str() {
        "day" => Unit::Day,
        "week" => Unit::Week,
        "weekend" => Unit::Weekend,
        "month" => Unit::Month,
        _ => Unit::Year,
    }
}

fn toward(word: &str) -> Toward {
    match word.to_ascii_lowercase().as_str() {
        "last" => Toward::Last,
        "next" | "this coming" => Toward::Next,
        "since" => Toward::Since,
        _ => Toward::Tense,
    }
}

fn month(name: &str) -> Option<i8> {
    let lower = name.to_ascii_lowercase();
    let lower = lower.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|m| lower.len() >= 3 && m.starts_with(lower))
        .map(|i| i as i8 + 1)
}

fn weekday(name: &str) -> Option<Weekday> {
    let lower = name.to_ascii_lowercase();
    let i = WEEKDAYS
        .iter()
        .position(|w| lower.len() >= 3 && w.starts_with(lower.as_str()))?;
    Some(match i {
        0 => Weekday::Monday,
        1 => Weekday::Tuesday,
        2 => Weekday::Wednesday,
        3 => Weekday::Thursday,
        4 => Weekday::Friday,
        5 => Weekday::Saturday,
        _ => Weekday::Sunday,
    })
}

fn number(word: &str) -> Option<i64> {
    let word = word.to_ascii_lowercase();
    Some(match word.as_str() {
        "a" | "an" | "one" => 1,
        "two" | "a couple" | "a couple of" => 2,
        "three" | "a few" | "few" => 3,
        "several" => 4,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        digits => digits.parse().ok().filter(|n| (0..10_000).contains(n))?,
    })
}

#[cfg(test)]
mod tests {
    use crate::lang::Lang;
    use crate::when::{date_of, find};
    use chronolog_engine::Timestamp;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).expect("time")
    }

    /// `text` said at `said`, as `from .. to` dates (`..` for open).
    fn when(text: &str, said: &str) -> String {
        let Some(found) = find(Lang::English.reader(), text, at(said), false) else {
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
            when("I worked at IBM from 2010 to 2015", said),
            "2010-01-01 .. 2016-01-01"
        );
        assert_eq!(
            when("we lived there between 2015 and 2018", said),
            "2015-01-01 .. 2019-01-01"
        );
        assert_eq!(when("at IBM (2010-2015)", said), "2010-01-01 .. 2016-01-01");
        assert_eq!(
            when("from March 2019 until June 2021", said),
            "2019-03-01 .. 2021-07-01"
        );
        assert_eq!(
            when("from March to June 2020", said),
            "2020-03-01 .. 2020-07-01"
        );
        assert_eq!(when("I eat 1500-2000 calories", said), "none");
        // Backwards is no stretch; the start alone still reads.
        assert_eq!(when("from 2015 to 2010", said), "2015-01-01 .. ");
    }

    #[test]
    fn a_season_is_its_three_months_chosen_by_when_it_was_said() {
        // Said in March: this summer is ahead, last summer a year back.
        let march = "2025-03-20";
        assert_eq!(
            when("We're relocating this summer", march),
            "2025-06-01 .. 2025-09-01"
        );
        assert_eq!(
            when("I went to Spain last summer", march),
            "2024-06-01 .. 2024-09-01"
        );
        assert_eq!(
            when("I'll start next spring", march),
            "2026-03-01 .. 2026-06-01"
        );
        // Said in October, last summer is the one just over.
        assert_eq!(
            when("I went to Spain last summer", "2025-10-02"),
            "2025-06-01 .. 2025-09-01"
        );
        // A winter runs into the next year; January's is December's.
        assert_eq!(
            when("this winter has been cold", "2025-01-15"),
            "2024-12-01 .. 2025-03-01"
        );
        assert_eq!(
            when("last winter", "2025-01-15"),
            "2023-12-01 .. 2024-03-01"
        );
        assert_eq!(
            when("in the summer of 2019", march),
            "2019-06-01 .. 2019-09-01"
        );
        assert_eq!(
            when("during the fall", "2025-10-02"),
            "2025-09-01 .. 2025-12-01"
        );
    }

    #[test]
    fn last_may_depends_on_when_it_was_said() {
        assert_eq!(
            when("I ran a marathon last May", "2019-03-10"),
            "2018-05-01 .. 2018-06-01"
        );
        assert_eq!(
            when("I ran a marathon last May", "2023-07-02"),
            "2023-05-01 .. 2023-06-01"
        );
        // Said in May itself, "last May" is a year back.
        assert_eq!(when("last May", "2023-05-20"), "2022-05-01 .. 2022-06-01");
    }

    #[test]
    fn days_and_weeks_count_back_from_the_message() {
        assert_eq!(
            when("I went yesterday", "2019-01-01T10:00:00Z"),
            "2018-12-31 .. 2019-01-01"
        );
        assert_eq!(
            when("two weeks ago", "2023-05-17"),
            "2023-05-01 .. 2023-05-08"
        );
        assert_eq!(
            when("a few days ago", "2023-05-17"),
            "2023-05-14 .. 2023-05-15"
        );
        assert_eq!(
            when("3 months ago", "2023-05-17"),
            "2023-02-01 .. 2023-03-01"
        );
        assert_eq!(when("last week", "2023-05-17"), "2023-05-08 .. 2023-05-15");
        assert_eq!(
            when("last weekend", "2023-05-17"),
            "2023-05-13 .. 2023-05-15"
        );
        assert_eq!(when("tomorrow", "2023-05-17"), "2023-05-18 .. 2023-05-19");
    }

    #[test]
    fn weekdays_look_back_unless_the_sentence_looks_ahead() {
        // 2023-05-17 is a Wednesday.
        assert_eq!(
            when("last Friday", "2023-05-17"),
            "2023-05-12 .. 2023-05-13"
        );
        assert_eq!(
            when("next Friday", "2023-05-17"),
            "2023-05-19 .. 2023-05-20"
        );
        let ahead =
            find(Lang::English.reader(), "on Friday", at("2023-05-17"), true).expect("found");
        assert_eq!(
            date_of(ahead.when.from).map(|d| d.to_string()),
            Some("2023-05-19".into())
        );
    }

    #[test]
    fn years_months_and_starts() {
        assert_eq!(
            when("back in 2019 I", "2023-05-17"),
            "2019-01-01 .. 2020-01-01"
        );
        assert_eq!(when("since March", "2023-05-17"), "2023-03-01 .. ");
        assert_eq!(when("since 2015", "2023-05-17"), "2015-01-01 .. ");
        assert_eq!(when("for three years", "2023-05-17"), "2020-05-17 .. ");
        assert_eq!(
            when("in June 2021", "2023-05-17"),
            "2021-06-01 .. 2021-07-01"
        );
        assert_eq!(
            when("on May 7, 2023", "2023-05-17"),
            "2023-05-07 .. 2023-05-08"
        );
        assert_eq!(
            when("on 7 May 2023", "2023-05-17"),
            "2023-05-07 .. 2023-05-08"
        );
        assert_eq!(
            when("on March 3rd", "2023-05-17"),
            "2023-03-03 .. 2023-03-04"
        );
        assert_eq!(
            when("on December 3rd", "2023-05-17"),
            "2022-12-03 .. 2022-12-04"
        );
        assert_eq!(
            when("in December", "2023-05-17"),
            "2022-12-01 .. 2023-01-01"
        );
    }

    #[test]
    fn the_earliest_expression_wins_and_none_is_none() {
        assert_eq!(
            when("yesterday, not last week", "2023-05-17"),
            "2023-05-16 .. 2023-05-17"
        );
        assert_eq!(when("I like tea", "2023-05-17"), "none");
        // "may" the verb is not the month.
        assert_eq!(when("I may go", "2023-05-17"), "none");
    }
}
