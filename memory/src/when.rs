//! When something held or happened, from a time expression resolved
//! against the message's own event time (never the wall clock): "last May"
//! said in 2019 is May 2018, said in July 2023 it is May 2023. A period
//! ("last week", "in 2019") becomes an interval; a start ("since March",
//! "for three years") an open one.
//!
//! Languages read the words (`Language::time_phrases`) into
//! a [`TimeExpr`]; this file anchors one, the same for every language.

use chronolog_engine::Timestamp;
use jiff::ToSpan;
use jiff::civil::Date;

use crate::lang::Language;

mod expr;
mod lunar;
pub use expr::{SeasonOf, TimeExpr, Toward, Unit, YearOf};
use lunar::{lunar, recurring};

/// When a message says something held or happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct When {
    /// The start (inclusive).
    pub from: Timestamp,
    /// The end (exclusive); `None`: still holds ("since March").
    pub to: Option<Timestamp>,
    /// Both ends were said ("from 2010 to 2015"): what held, held over
    /// this period, where a period alone ("in March 2020") may be when
    /// it began.
    pub stretch: bool,
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

/// A time phrase a language found: its byte range, its meaning, and the
/// rank of the pattern that read it (lower is more specific).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimePhrase {
    /// Rank of the pattern that read it: phrases come ordered by rank,
    /// then left to right.
    pub rank: u16,
    /// Start of its byte range in the text.
    pub start: usize,
    /// End of its byte range.
    pub end: usize,
    /// What it means.
    pub expr: TimeExpr,
}

/// Every phrase `patterns` find in `text`, by pattern, then left to
/// right: the order [`find`] relies on. `read` turns a match into what it
/// means (`None`: no time, as a day 45 is not); it is given the text
/// before the match too, for a language that must look back ("Guten
/// Morgen" greets, it is not tomorrow).
pub(crate) fn phrases_by<R: Copy>(
    text: &str,
    patterns: &[(regex::Regex, R)],
    read: impl Fn(R, &regex::Captures<'_>, &str) -> Option<TimeExpr>,
) -> Vec<TimePhrase> {
    let mut out = Vec::new();
    for (rank, (re, rule)) in patterns.iter().enumerate() {
        for caps in re.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            if let Some(expr) = read(*rule, &caps, &text[..whole.start()]) {
                out.push(TimePhrase {
                    rank: u16::try_from(rank).unwrap_or(u16::MAX),
                    start: whole.start(),
                    end: whole.end(),
                    expr,
                });
            }
        }
    }
    out
}

/// The first time expression in `text`, read by `lang` and resolved
/// against `anchor` (the message's event time). `future` says the
/// sentence looks ahead ("I will", "going to"), which turns a bare weekday
/// or month forwards. The earliest phrase wins; of phrases starting at the
/// same place, the most specific pattern's.
pub(crate) fn find(
    lang: &dyn Language,
    text: &str,
    anchor: Timestamp,
    future: bool,
) -> Option<Found> {
    let day = date_of(anchor)?;
    let mut best: Option<Found> = None;
    // A pattern is done once one of its phrases resolved or one started
    // no earlier than the best so far.
    let mut done: Option<u16> = None;
    for phrase in lang.time_phrases(text) {
        if done == Some(phrase.rank) {
            continue;
        }
        if best.is_some_and(|b| b.start <= phrase.start) {
            done = Some(phrase.rank);
            continue;
        }
        if let Some(mut when) = resolve(phrase.expr, day, anchor, future) {
            // What a sentence says ahead starts no earlier than it is said:
            // "we're moving this summer" said on June 2nd, inside summer.
            if future && when.from < anchor && when.to.is_none_or(|to| to > anchor) {
                when.from = anchor;
            }
            best = Some(Found {
                start: phrase.start,
                end: phrase.end,
                when,
            });
            done = Some(phrase.rank);
        }
    }
    best
}

/// `expr` anchored at `day`, the date of `anchor`; `None` for a date that
/// does not exist or lies more than a century ahead.
pub fn resolve(expr: TimeExpr, day: Date, anchor: Timestamp, future: bool) -> Option<When> {
    match expr {
        TimeExpr::Day { year, month, day } => days(Date::new(year, month, day).ok()?, 1),
        TimeExpr::SinceMonth { year, month } => open(Date::new(year, month, 1).ok()?),
        TimeExpr::Month { year, month } => month_period(year, month),
        TimeExpr::SinceYear(y) => open(Date::new(year(y)?, 1, 1).ok()?),
        TimeExpr::Year(y) => {
            let y = year(y)?;
            period(Date::new(y, 1, 1).ok()?, Date::new(y + 1, 1, 1).ok()?)
        }
        TimeExpr::Span {
            from_year,
            from_month,
            to_year,
            to_month,
        } => {
            let from = Date::new(from_year, from_month.unwrap_or(1), 1).ok()?;
            let last = Date::new(to_year, to_month.unwrap_or(12), 1).ok()?;
            // A stretch said backwards ("from 2015 to 2010") is no time.
            (from <= last).then_some(())?;
            let mut stretch = period(from, last.checked_add(1.month()).ok()?)?;
            stretch.stretch = true;
            Some(stretch)
        }
        TimeExpr::UntilYear(y) => until(Date::new(year(y)?, 1, 1).ok()?),
        TimeExpr::UntilMonth { year, month } => until(Date::new(year, month, 1).ok()?),
        TimeExpr::DayOfMonth { month: m, day: d } => {
            let this_year = Date::new(day.year(), m, d).ok()?;
            let date = match (future, this_year > day) {
                (false, true) => Date::new(day.year() - 1, m, d).ok()?,
                (true, false) if this_year < day => Date::new(day.year() + 1, m, d).ok()?,
                _ => this_year,
            };
            days(date, 1)
        }
        TimeExpr::DaysAgo(n) => days(shift(day, n.checked_neg()?, Unit::Day)?, 1),
        TimeExpr::UnitsAgo(n, unit) => units_ago(n, unit, day),
        TimeExpr::ForUnits(n, unit) => {
            // "I've worked there for three years": it began that long ago.
            open(shift(day, n.checked_neg()?, unit)?)
        }
        TimeExpr::RelativeUnit(step, unit) => match unit {
            Unit::Day => days(shift(day, step, Unit::Day)?, 1),
            Unit::Week => days(shift(week_start(day), step, Unit::Week)?, 7),
            Unit::Weekend => {
                // The Saturday of the week `step` weeks away.
                let sat = shift(shift(week_start(day), step, Unit::Week)?, 5, Unit::Day)?;
                days(sat, 2)
            }
            Unit::Month => {
                let d = shift(day.first_of_month(), step, Unit::Month)?;
                month_period(d.year(), d.month())
            }
            Unit::Year => {
                let y = day.year().checked_add(i16::try_from(step).ok()?)?;
                period(Date::new(y, 1, 1).ok()?, Date::new(y + 1, 1, 1).ok()?)
            }
        },
        TimeExpr::Weekday(toward, target) => weekday(toward, target, day, future),
        TimeExpr::WeekdayOfWeek(step, target) => {
            let monday = shift(week_start(day), step, Unit::Week)?;
            let offset = i64::from(target.to_monday_zero_offset());
            days(shift(monday, offset, Unit::Day)?, 1)
        }
        TimeExpr::MonthOfYear(step, m) => {
            let y = day.year().checked_add(i16::try_from(step).ok()?)?;
            month_period(y, m)
        }
        TimeExpr::NamedMonth(toward, m) => named_month(toward, m, day, future),
        TimeExpr::Season { first_month, which } => season(first_month, which, day, future),
        TimeExpr::LunarDay {
            year,
            month,
            day: d,
            eve,
            before,
            after,
        } => {
            let on = |lunar_year: i32| {
                let date = lunar(
                    lunar_year + i32::from(eve),
                    if eve { 1 } else { month },
                    if eve { 1 } else { d },
                )?;
                if eve {
                    date.yesterday().ok()
                } else {
                    Some(date)
                }
            };
            let date = recurring(year, day, future, on)?;
            let from = shift(date, -i64::from(before), Unit::Day)?;
            period(from, shift(date, 1 + i64::from(after), Unit::Day)?)
        }
        TimeExpr::LunarMonth { year, month } => {
            let start = recurring(year, day, future, |y| lunar(y, month, 1))?;
            // The next month's first day, wherever a leap month falls: the
            // month has 29 or 30 days.
            period(
                start,
                shift(start, lunar::month_days(start, month)?, Unit::Day)?,
            )
        }
    }
    .filter(|w| w.from.micros() <= anchor.micros().saturating_add(100 * YEAR_MICROS))
}

/// A [`TimeExpr::Span`] from the numbers a language's pattern read: a
/// year with an optional month at either end; `None` where a number is
/// no year or month.
pub(crate) fn span(
    from_year: i64,
    from_month: Option<i64>,
    to_year: i64,
    to_month: Option<i64>,
) -> Option<TimeExpr> {
    let month = |m: Option<i64>| -> Option<Option<i8>> {
        match m {
            None => Some(None),
            Some(m) if (1..=12).contains(&m) => Some(Some(m as i8)),
            Some(_) => None,
        }
    };
    Some(TimeExpr::Span {
        from_year: year(from_year)?,
        from_month: month(from_month)?,
        to_year: year(to_year)?,
        to_month: month(to_month)?,
    })
}

/// "until 2020": up to that day, from a start not said (the earliest).
fn until(end: Date) -> Option<When> {
    Some(When {
        from: Timestamp::MIN,
        to: Some(open(end)?.from),
        stretch: false,
    })
}

/// "three weeks ago": the whole unit that many units before `day`.
fn units_ago(n: i64, unit: Unit, day: Date) -> Option<When> {
    match unit {
        Unit::Day => days(shift(day, n.checked_neg()?, Unit::Day)?, 1),
        Unit::Week | Unit::Weekend => {
            let start = week_start(shift(day, n.checked_neg()?, Unit::Week)?);
            days(start, 7)
        }
        Unit::Month => {
            let d = shift(day, n.checked_neg()?, Unit::Month)?;
            month_period(d.year(), d.month())
        }
        Unit::Year => {
            let y = day.year().checked_sub(i16::try_from(n).ok()?)?;
            period(Date::new(y, 1, 1).ok()?, Date::new(y + 1, 1, 1).ok()?)
        }
    }
}

/// "on Friday", "last Tuesday": the nearest such weekday before `day`, or
/// after it when the sentence looks ahead.
fn weekday(toward: Toward, target: jiff::civil::Weekday, day: Date, future: bool) -> Option<When> {
    let forward = match toward {
        Toward::Next => true,
        Toward::Last => false,
        Toward::Since | Toward::Tense => future,
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

/// "in May", "last March", "since June": the month nearest `day` on the
/// side the phrase (or the sentence's tense) points to.
fn named_month(toward: Toward, m: i8, day: Date, future: bool) -> Option<When> {
    let this_year = Date::new(day.year(), m, 1).ok()?;
    let current = day.first_of_month();
    let start = match toward {
        // The most recent such month strictly before this one.
        Toward::Last if this_year < current => this_year,
        Toward::Last => Date::new(day.year() - 1, m, 1).ok()?,
        Toward::Next if this_year > current => this_year,
        Toward::Next => Date::new(day.year() + 1, m, 1).ok()?,
        _ if future && this_year < current => Date::new(day.year() + 1, m, 1).ok()?,
        _ if !future && this_year > current => Date::new(day.year() - 1, m, 1).ok()?,
        _ => this_year,
    };
    if toward == Toward::Since {
        open(start)
    } else {
        month_period(start.year(), start.month())
    }
}

/// "last summer", "this winter": the season's three months, chosen as
/// [`SeasonOf`] says from where `day` falls.
fn season(first: i8, which: SeasonOf, day: Date, future: bool) -> Option<When> {
    let of = |y: i16| -> Option<(Date, Date)> {
        let start = Date::new(y, first, 1).ok()?;
        Some((start, start.checked_add(3.months()).ok()?))
    };
    let own_year = if first == 12 && day.month() <= 2 {
        day.year() - 1
    } else {
        day.year()
    };
    let last = || {
        (0..=2)
            .filter_map(|k| of(day.year() - k))
            .find(|(_, end)| *end <= day)
    };
    let next = || {
        (-1..=1)
            .filter_map(|k| of(day.year() + k))
            .find(|(start, _)| *start > day)
    };
    let (from, to) = match which {
        SeasonOf::Year(y) => of(y)?,
        SeasonOf::Step(n) => of(own_year.checked_add(i16::try_from(n).ok()?)?)?,
        SeasonOf::Last => last()?,
        SeasonOf::Next => next()?,
        SeasonOf::Tense => match of(own_year)? {
            (start, end) if start <= day && day < end => (start, end),
            _ if future => next()?,
            _ => last()?,
        },
    };
    period(from, to)
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

/// `d` moved `n` units (back when negative); `None` past the calendar's
/// ends, however large `n` is.
fn shift(d: Date, n: i64, unit: Unit) -> Option<Date> {
    let span = jiff::Span::new();
    let span = match unit {
        Unit::Day => span.try_days(n),
        Unit::Week | Unit::Weekend => span.try_weeks(n),
        Unit::Month => span.try_months(n),
        Unit::Year => span.try_years(n),
    };
    d.checked_add(span.ok()?).ok()
}

fn days(d: Date, n: i64) -> Option<When> {
    period(d, shift(d, n, Unit::Day)?)
}

fn period(from: Date, to: Date) -> Option<When> {
    Some(When {
        from: start_of(from)?,
        to: Some(start_of(to)?),
        stretch: false,
    })
}

fn open(from: Date) -> Option<When> {
    Some(When {
        from: start_of(from)?,
        to: None,
        stretch: false,
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

fn year(n: i64) -> Option<i16> {
    (1000..=9998).contains(&n).then_some(n as i16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::Weekday;

    fn on(text: &str) -> (Date, Timestamp) {
        let t = Timestamp::parse(text).expect("time");
        (date_of(t).expect("date"), t)
    }

    fn show(w: Option<When>) -> String {
        let Some(w) = w else { return "none".into() };
        let show = |t: Timestamp| date_of(t).map_or("?".into(), |d| d.to_string());
        format!("{} .. {}", show(w.from), w.to.map_or(String::new(), show))
    }

    #[test]
    fn expressions_anchor_at_the_message_not_the_clock() {
        let (day, at) = on("2023-05-17");
        let r = |e| show(resolve(e, day, at, false));
        assert_eq!(
            r(TimeExpr::NamedMonth(Toward::Last, 5)),
            "2022-05-01 .. 2022-06-01"
        );
        assert_eq!(r(TimeExpr::NamedMonth(Toward::Since, 3)), "2023-03-01 .. ");
        assert_eq!(
            r(TimeExpr::UnitsAgo(2, Unit::Year)),
            "2021-01-01 .. 2022-01-01"
        );
        assert_eq!(r(TimeExpr::ForUnits(3, Unit::Year)), "2020-05-17 .. ");
        assert_eq!(
            r(TimeExpr::RelativeUnit(-1, Unit::Week)),
            "2023-05-08 .. 2023-05-15"
        );
        assert_eq!(
            r(TimeExpr::RelativeUnit(1, Unit::Day)),
            "2023-05-18 .. 2023-05-19"
        );
        assert_eq!(
            r(TimeExpr::Weekday(Toward::Last, Weekday::Friday)),
            "2023-05-12 .. 2023-05-13"
        );
        assert_eq!(
            show(resolve(
                TimeExpr::Weekday(Toward::Tense, Weekday::Friday),
                day,
                at,
                true
            )),
            "2023-05-19 .. 2023-05-20"
        );
        // 2023-05-17 is a Wednesday: Monday of last week is the 8th.
        assert_eq!(
            r(TimeExpr::WeekdayOfWeek(-1, Weekday::Friday)),
            "2023-05-12 .. 2023-05-13"
        );
        assert_eq!(r(TimeExpr::MonthOfYear(-1, 3)), "2022-03-01 .. 2022-04-01");
        // Dates that do not exist, and years out of range, are nothing.
        assert_eq!(
            r(TimeExpr::Day {
                year: 2023,
                month: 2,
                day: 30
            }),
            "none"
        );
        assert_eq!(r(TimeExpr::Year(99_999)), "none");
        assert_eq!(r(TimeExpr::UnitsAgo(i64::MAX, Unit::Day)), "none");
    }
}
