//! Time words in a message, resolved against the message's own event time
//! (never the wall clock): "last May" said in 2019 is May 2018, said in
//! July 2023 it is May 2023. A period ("last week", "in 2019") becomes an
//! interval; a start ("since March", "for three years") an open one.

use std::sync::LazyLock;

use chronolog_engine::Timestamp;
use jiff::ToSpan;
use jiff::civil::{Date, Weekday};
use regex::Regex;

/// When a message says something held or happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct When {
    /// The start (inclusive).
    pub from: Timestamp,
    /// The end (exclusive); `None`: still holds ("since March").
    pub to: Option<Timestamp>,
}

/// A time expression found in a text: where it is and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// Its byte range in the text.
    pub start: usize,
    /// End of its byte range.
    pub end: usize,
    /// What it resolves to.
    pub when: When,
}

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
        p(r"(\d{4})-(\d{2})-(\d{2})", Rule::IsoDate),
        p(
            r"(?:on )?({M})\.? (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})",
            Rule::MonthDayYear,
        ),
        p(
            r"(?:on )?(?:the )?(\d{1,2})(?:st|nd|rd|th)? (?:of )?({M}),? (\d{4})",
            Rule::DayMonthYear,
        ),
        p(r"(?:since|from) ({M}) (\d{4})", Rule::SinceMonthYear),
        p(r"(?:in )?({M}),? (\d{4})", Rule::MonthYear),
        p(r"(?:since|from) (\d{4})", Rule::SinceYear),
        p(r"in (\d{4})", Rule::InYear),
        p(
            r"(?:on )?({M})\.? (\d{1,2})(?:st|nd|rd|th)?",
            Rule::MonthDay,
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
    IsoDate,
    MonthDayYear,
    DayMonthYear,
    SinceMonthYear,
    MonthYear,
    SinceYear,
    InYear,
    MonthDay,
    DaysAgo(i64),
    UnitsAgo,
    ForUnits,
    RelativeUnit,
    RelativeWeekday,
    RelativeMonth,
}

/// The first time expression in `text`, resolved against `anchor` (the
/// message's event time). `future` says the sentence looks ahead ("I will",
/// "going to"), which turns a bare weekday or month forwards.
pub fn find(text: &str, anchor: Timestamp, future: bool) -> Option<Found> {
    let day = date_of(anchor)?;
    let mut best: Option<Found> = None;
    for (re, rule) in PATTERNS.iter() {
        for caps in re.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            if best.is_some_and(|b| b.start <= whole.start()) {
                break;
            }
            let group = |i: usize| caps.get(i).map_or("", |m| m.as_str());
            if let Some(when) = resolve(*rule, &group, day, anchor, future) {
                best = Some(Found {
                    start: whole.start(),
                    end: whole.end(),
                    when,
                });
                break;
            }
        }
    }
    best
}

fn resolve<'t>(
    rule: Rule,
    group: &dyn Fn(usize) -> &'t str,
    day: Date,
    anchor: Timestamp,
    future: bool,
) -> Option<When> {
    let num = |i: usize| -> Option<i64> { group(i).parse().ok() };
    match rule {
        Rule::IsoDate => days(
            Date::new(num(1)? as i16, num(2)? as i8, num(3)? as i8).ok()?,
            1,
        ),
        Rule::MonthDayYear => {
            let d = Date::new(num(3)? as i16, month(group(1))?, num(2)? as i8).ok()?;
            days(d, 1)
        }
        Rule::DayMonthYear => {
            let d = Date::new(num(3)? as i16, month(group(2))?, num(1)? as i8).ok()?;
            days(d, 1)
        }
        Rule::SinceMonthYear => {
            let d = Date::new(num(2)? as i16, month(group(1))?, 1).ok()?;
            open(d)
        }
        Rule::MonthYear => month_period(num(2)? as i16, month(group(1))?),
        Rule::SinceYear => open(Date::new(year(num(1)?)?, 1, 1).ok()?),
        Rule::InYear => {
            let y = year(num(1)?)?;
            period(Date::new(y, 1, 1).ok()?, Date::new(y + 1, 1, 1).ok()?)
        }
        Rule::MonthDay => {
            let m = month(group(1))?;
            let d = num(2)? as i8;
            let this_year = Date::new(day.year(), m, d).ok()?;
            let date = match (future, this_year > day) {
                (false, true) => Date::new(day.year() - 1, m, d).ok()?,
                (true, false) if this_year < day => Date::new(day.year() + 1, m, d).ok()?,
                _ => this_year,
            };
            days(date, 1)
        }
        Rule::DaysAgo(n) => days(day.checked_sub(n.days()).ok()?, 1),
        Rule::UnitsAgo => {
            let n = number(group(1))?;
            match group(2).to_ascii_lowercase().as_str() {
                "day" => days(day.checked_sub(n.days()).ok()?, 1),
                "week" => {
                    let start = week_start(day.checked_sub((7 * n).days()).ok()?);
                    days(start, 7)
                }
                "month" => {
                    let d = day.checked_sub(n.months()).ok()?;
                    month_period(d.year(), d.month())
                }
                _ => {
                    let y = day.year().checked_sub(i16::try_from(n).ok()?)?;
                    period(Date::new(y, 1, 1).ok()?, Date::new(y + 1, 1, 1).ok()?)
                }
            }
        }
        Rule::ForUnits => {
            // "I've worked there for three years": it began that long ago.
            let n = number(group(1))?;
            let start = match group(2).to_ascii_lowercase().as_str() {
                "day" => day.checked_sub(n.days()).ok()?,
                "week" => day.checked_sub((7 * n).days()).ok()?,
                "month" => day.checked_sub(n.months()).ok()?,
                _ => day.checked_sub(n.years()).ok()?,
            };
            open(start)
        }
        Rule::RelativeUnit => {
            let step: i64 = match group(1).to_ascii_lowercase().as_str() {
                "last" => -1,
                "next" => 1,
                _ => 0,
            };
            match group(2).to_ascii_lowercase().as_str() {
                "week" => days(week_start(day).checked_add((7 * step).days()).ok()?, 7),
                "weekend" => {
                    // The Saturday of the week `step` weeks away.
                    let sat = week_start(day).checked_add((7 * step + 5).days()).ok()?;
                    days(sat, 2)
                }
                "month" => {
                    let d = day.first_of_month().checked_add(step.months()).ok()?;
                    month_period(d.year(), d.month())
                }
                _ => {
                    let y = day.year() + step as i16;
                    period(Date::new(y, 1, 1).ok()?, Date::new(y + 1, 1, 1).ok()?)
                }
            }
        }
        Rule::RelativeWeekday => {
            let target = weekday(group(2))?;
            let which = group(1).to_ascii_lowercase();
            let forward = match which.as_str() {
                "next" | "this coming" => true,
                "last" => false,
                _ => future,
            };
            let mut d = day;
            loop {
                d = if forward {
                    d.tomorrow().ok()?
                } else {
                    d.yesterday().ok()?
                };
                if d.weekday() == target {
                    break;
                }
            }
            days(d, 1)
        }
        Rule::RelativeMonth => {
            let m = month(group(2))?;
            let which = group(1).to_ascii_lowercase();
            let this_year = Date::new(day.year(), m, 1).ok()?;
            let current = day.first_of_month();
            let start = match which.as_str() {
                // The most recent such month strictly before this one.
                "last" if this_year < current => this_year,
                "last" => Date::new(day.year() - 1, m, 1).ok()?,
                "next" if this_year > current => this_year,
                "next" => Date::new(day.year() + 1, m, 1).ok()?,
                _ if future && this_year < current => Date::new(day.year() + 1, m, 1).ok()?,
                _ if !future && this_year > current => Date::new(day.year() - 1, m, 1).ok()?,
                _ => this_year,
            };
            if which == "since" {
                open(start)
            } else {
                month_period(start.year(), start.month())
            }
        }
    }
    .filter(|w| w.from.micros() <= anchor.micros().saturating_add(100 * YEAR_MICROS))
}

const YEAR_MICROS: i64 = 366 * 24 * 3600 * 1_000_000;

/// The calendar date (UTC) of `t`.
pub fn date_of(t: Timestamp) -> Option<Date> {
    let ts = jiff::Timestamp::from_microsecond(t.micros()).ok()?;
    Some(jiff::tz::TimeZone::UTC.to_datetime(ts).date())
}

/// Midnight UTC at the start of `d`.
pub fn start_of(d: Date) -> Option<Timestamp> {
    let ts = jiff::tz::TimeZone::UTC
        .to_timestamp(d.to_datetime(jiff::civil::Time::midnight()))
        .ok()?;
    Some(Timestamp(ts.as_microsecond()))
}

fn days(d: Date, n: i64) -> Option<When> {
    period(d, d.checked_add(n.days()).ok()?)
}

fn period(from: Date, to: Date) -> Option<When> {
    Some(When {
        from: start_of(from)?,
        to: Some(start_of(to)?),
    })
}

fn open(from: Date) -> Option<When> {
    Some(When {
        from: start_of(from)?,
        to: None,
    })
}

fn month_period(y: i16, m: i8) -> Option<When> {
    let start = Date::new(y, m, 1).ok()?;
    period(start, start.checked_add(1.month()).ok()?)
}

fn week_start(d: Date) -> Date {
    let back = i64::from(d.weekday().to_monday_zero_offset());
    d.checked_sub(back.days()).unwrap_or(d)
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

fn year(n: i64) -> Option<i16> {
    (1000..=9998).contains(&n).then_some(n as i16)
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
    use super::*;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).expect("time")
    }

    /// `text` said at `said`, as `from .. to` dates (`..` for open).
    fn when(text: &str, said: &str) -> String {
        let Some(found) = find(text, at(said), false) else {
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
        let ahead = find("on Friday", at("2023-05-17"), true).expect("found");
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
