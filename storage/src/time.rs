//! Points and intervals on the two time axes.
//!
//! One representation everywhere: UTC microseconds since the Unix epoch in an
//! `i64`. Valid time and transaction time share it, so a row's four bounds are
//! directly comparable and a query can say "as of the moment we learned this".
//! Intervals are half-open, `[from, to)`, and `Timestamp::MAX` stands for
//! "until further notice" (open-ended).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A point on either time axis: UTC microseconds since 1970-01-01T00:00:00Z.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The earliest representable point; "since forever" for a valid interval.
    pub const MIN: Timestamp = Timestamp(i64::MIN);
    /// "Until further notice": the open end of an interval.
    pub const MAX: Timestamp = Timestamp(i64::MAX);

    /// The wall clock now. Used for "now" on the valid axis and to seed
    /// transaction times.
    pub fn now() -> Timestamp {
        let micros = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as i64)
            .unwrap_or(0);
        Timestamp(micros)
    }

    /// Microseconds since the epoch.
    pub fn micros(self) -> i64 {
        self.0
    }

    /// The first instant of 9999-12-31, the date many systems write for
    /// "no end" (see [`Timestamp::as_valid_end`]).
    pub const NO_END_DATE: Timestamp = Timestamp(253_402_214_400_000_000);

    /// Parses an ISO-8601 date (`2021-03-01`, midnight UTC) or datetime
    /// (`2021-03-01T09:30:00Z`, `2021-03-01 09:30`, offsets allowed), or
    /// the open ends as this crate prints them (`inf`, `-inf`), so what was
    /// printed reads back. A date is the date written, 9999-12-31 too: a
    /// valid interval's end reads it as open ([`Timestamp::as_valid_end`]).
    pub fn parse(text: &str) -> Result<Timestamp> {
        let text = text.trim();
        match text {
            "inf" => return Ok(Timestamp::MAX),
            "-inf" => return Ok(Timestamp::MIN),
            _ => {}
        }
        let bad = || Error::BadTime {
            text: text.to_string(),
        };
        // jiff ends a little before 9999-12-31: a time in the year 9999
        // is read in 9998 (the same calendar) and moved a year on.
        if let Some(rest) = text.strip_prefix("9999-") {
            return Timestamp::parse(&format!("9998-{rest}"))
                .map(|t| Timestamp(t.0 + YEAR_9998_MICROS))
                .map_err(|_| bad());
        }
        // jiff reads offsets up to ±25:59, and a civil date-time with an
        // offset as if it had none; no place on Earth is past ±14:00.
        match utc_offset_minutes(text) {
            Some(minutes) if minutes.abs() > 14 * 60 => return Err(bad()),
            Some(_) => {
                let ts = text.parse::<jiff::Timestamp>().map_err(|_| bad())?;
                return Ok(Timestamp(ts.as_microsecond()));
            }
            None => {}
        }
        if let Ok(ts) = text.parse::<jiff::Timestamp>() {
            return Ok(Timestamp(ts.as_microsecond()));
        }
        if let Ok(dt) = text.parse::<jiff::civil::DateTime>() {
            let ts = jiff::tz::TimeZone::UTC
                .to_timestamp(dt)
                .map_err(|_| bad())?;
            return Ok(Timestamp(ts.as_microsecond()));
        }
        if let Ok(date) = text.parse::<jiff::civil::Date>() {
            let ts = jiff::tz::TimeZone::UTC
                .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
                .map_err(|_| bad())?;
            return Ok(Timestamp(ts.as_microsecond()));
        }
        Err(bad())
    }
}

impl Timestamp {
    /// This instant as the end of a valid interval: 9999-12-31 or later
    /// (the "no end" of slowly changing dimensions) is the open end, so a
    /// row written `.. 9999-12-31` holds until further notice. Only a valid
    /// end reads it so; a `time` value keeps the date it was given.
    pub fn as_valid_end(self) -> Timestamp {
        if self >= Timestamp::NO_END_DATE {
            Timestamp::MAX
        } else {
            self
        }
    }
}

/// Microseconds in the year 9998 (not a leap year, as 9999 is not).
const YEAR_9998_MICROS: i64 = 365 * 86_400_000_000;

/// The UTC offset a date-time ends with (`+05:30`, `-0800`, `+14`), in
/// minutes; `None` when it ends with none (or with `Z`).
fn utc_offset_minutes(text: &str) -> Option<i32> {
    let (_, time) = text.split_once(['T', 't', ' '])?;
    let at = time.rfind(['+', '-'])?;
    let (sign, digits) = (&time[at..at + 1], &time[at + 1..]);
    let digits: String = digits.chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || digits.len() > 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits.get(..2.min(digits.len()))?.parse().ok()?;
    let minutes: i32 = digits
        .get(2..)
        .filter(|m| !m.is_empty())
        .map_or(Some(0), |m| m.parse().ok())?;
    let total = hours * 60 + minutes;
    Some(if sign == "-" { -total } else { total })
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Timestamp::MIN => f.write_str("-inf"),
            Timestamp::MAX => f.write_str("inf"),
            // Past jiff's end: shown from the same instant a year before.
            Timestamp(us) if us >= Timestamp::NO_END_DATE.0 => {
                let year_before = Timestamp(us - YEAR_9998_MICROS).to_string();
                match year_before.strip_prefix("9998-") {
                    Some(rest) => write!(f, "9999-{rest}"),
                    None => write!(f, "@{us}us"),
                }
            }
            Timestamp(us) => match jiff::Timestamp::from_microsecond(us) {
                Ok(ts) if us % 86_400_000_000 == 0 => {
                    write!(f, "{}", jiff::tz::TimeZone::UTC.to_datetime(ts).date())
                }
                Ok(ts) => write!(f, "{ts}"),
                Err(_) => write!(f, "@{us}us"),
            },
        }
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A half-open interval `[from, to)` on one time axis.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interval {
    /// First instant inside the interval.
    pub from: Timestamp,
    /// First instant after the interval; `Timestamp::MAX` when open-ended.
    pub to: Timestamp,
}

impl Interval {
    /// All of time: the default validity when a fact has no stated start.
    pub const ALWAYS: Interval = Interval {
        from: Timestamp::MIN,
        to: Timestamp::MAX,
    };

    /// `[from, to)`; rejects an empty or inverted interval so that no row can
    /// ever hold one.
    pub fn new(from: Timestamp, to: Timestamp) -> Result<Interval> {
        if from >= to {
            return Err(Error::EmptyInterval { from, to });
        }
        Ok(Interval { from, to })
    }

    /// `[from, ∞)`: true from this instant until further notice.
    pub fn starting(from: Timestamp) -> Interval {
        Interval {
            from,
            to: Timestamp::MAX,
        }
    }

    /// Whether `t` lies inside.
    #[inline]
    pub fn contains(&self, t: Timestamp) -> bool {
        self.from <= t && t < self.to
    }

    /// Whether the two intervals share at least one instant.
    #[inline]
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.from < other.to && other.from < self.to
    }

    /// Whether `other` lies entirely inside `self`.
    #[inline]
    pub fn covers(&self, other: &Interval) -> bool {
        self.from <= other.from && other.to <= self.to
    }

    /// Whether the interval is still open (`to` is infinite).
    pub fn is_open(&self) -> bool {
        self.to == Timestamp::MAX
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", self.from, self.to)
    }
}

impl fmt::Debug for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_year_9999_reads_and_prints_as_written_and_ends_validity_open() {
        let end = Timestamp::parse("9999-12-31").expect("the no-end date");
        assert_eq!(end, Timestamp::NO_END_DATE);
        assert_eq!(end.to_string(), "9999-12-31");
        let noon = Timestamp::parse("9999-12-31T12:00:00Z").expect("noon");
        assert_eq!(noon.0, end.0 + 43_200_000_000);
        assert_eq!(noon.to_string(), "9999-12-31T12:00:00Z");
        let june = Timestamp::parse("9999-06-01").expect("june");
        assert_eq!(june.to_string(), "9999-06-01");
        assert!(Timestamp::parse("9999-02-29").is_err());
        assert_eq!(end.as_valid_end(), Timestamp::MAX);
        assert_eq!(noon.as_valid_end(), Timestamp::MAX);
        assert_eq!(june.as_valid_end(), june);
        // What is printed for the open ends reads back.
        assert_eq!(Timestamp::parse("inf").ok(), Some(Timestamp::MAX));
        assert_eq!(Timestamp::parse("-inf").ok(), Some(Timestamp::MIN));
    }

    #[test]
    fn parses_dates_and_datetimes_as_utc_micros() {
        let d = Timestamp::parse("2021-03-01").expect("date");
        assert_eq!(d.0, 1_614_556_800_000_000);
        let dt = Timestamp::parse("2021-03-01T00:00:01Z").expect("datetime");
        assert_eq!(dt.0, d.0 + 1_000_000);
        let civil = Timestamp::parse("2021-03-01 00:00:01").expect("civil");
        assert_eq!(civil, dt);
        assert!(Timestamp::parse("yesterday").is_err());
        assert_eq!(d.to_string(), "2021-03-01");
        let india = Timestamp::parse("2021-03-01T05:30:01+05:30").expect("offset");
        assert_eq!(india, dt);
        assert_eq!(
            Timestamp::parse("2021-02-28T10:00:01-14:00")
                .expect("-14:00")
                .0,
            dt.0
        );
        for bad in [
            "2024-06-01T10:00:00+25:00",
            "2024-06-01T10:00:00-14:01",
            "2024-06-01 10:00+1500",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn intervals_are_half_open_and_never_empty() {
        let a = Timestamp(10);
        let b = Timestamp(20);
        let i = Interval::new(a, b).expect("valid");
        assert!(i.contains(a) && !i.contains(b));
        assert!(Interval::new(b, a).is_err());
        assert!(Interval::new(a, a).is_err());
        assert!(i.overlaps(&Interval::starting(Timestamp(19))));
        assert!(!i.overlaps(&Interval::starting(b)));
    }
}
