//! The vocabulary every language reads its time phrases into: what a
//! phrase means before it is anchored at a message's time.

use jiff::civil::Weekday;

/// A unit of calendar time a phrase counts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A day.
    Day,
    /// A week, Monday to Sunday.
    Week,
    /// Saturday and Sunday (only after "last", "this", "next").
    Weekend,
    /// A calendar month.
    Month,
    /// A calendar year.
    Year,
}

/// Which way a named weekday or month lies from the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Toward {
    /// The most recent one before ("last Friday", "last May").
    Last,
    /// The first one after ("next Friday").
    Next,
    /// From its start on, still holding ("since March").
    Since,
    /// As the sentence's tense says: ahead when it looks ahead, back
    /// otherwise ("on Friday", "in March").
    Tense,
}

/// What a time phrase means before it is anchored at a message's time:
/// the vocabulary every language reads its phrases into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeExpr {
    /// One calendar day ("2023-05-07", "May 7, 2023").
    Day {
        /// Its year.
        year: i16,
        /// Its month, 1 to 12.
        month: i8,
        /// Its day of the month.
        day: i8,
    },
    /// One month of one year ("June 2021").
    Month {
        /// Its year.
        year: i16,
        /// Its month, 1 to 12.
        month: i8,
    },
    /// From the start of a month of a year on ("since March 2020").
    SinceMonth {
        /// Its year.
        year: i16,
        /// Its month, 1 to 12.
        month: i8,
    },
    /// One year ("in 2019").
    Year(i64),
    /// Up to the start of a year ("until 2020", "bis 2020", "直到2020年"):
    /// it held before then, since a time the phrase does not say.
    UntilYear(i64),
    /// Up to the start of a month of a year ("until March 2020").
    UntilMonth {
        /// Its year.
        year: i16,
        /// Its month, 1 to 12.
        month: i8,
    },
    /// A closed stretch of whole years or months ("from 2010 to 2015",
    /// "von März bis Juni 2020", "2019年3月到2020年6月"): from the start of
    /// its first year or month to the end of its last, both said.
    Span {
        /// The first year.
        from_year: i16,
        /// The first month, 1 to 12; `None`: the whole first year.
        from_month: Option<i8>,
        /// The last year.
        to_year: i16,
        /// The last month, 1 to 12; `None`: the whole last year.
        to_month: Option<i8>,
    },
    /// From the start of a year on ("since 2015").
    SinceYear(i64),
    /// A day of a month, its year the nearest one the tense allows
    /// ("on March 3rd").
    DayOfMonth {
        /// Its month, 1 to 12.
        month: i8,
        /// Its day of the month.
        day: i8,
    },
    /// The day `n` days before the message (negative: after; 0: today).
    DaysAgo(i64),
    /// The unit `n` units before the message ("three weeks ago").
    UnitsAgo(i64, Unit),
    /// From `n` units before the message on ("for three years").
    ForUnits(i64, Unit),
    /// The unit `step` units from the message's own ("last week": -1,
    /// "this month": 0, "next year": 1).
    RelativeUnit(i64, Unit),
    /// A weekday near the message.
    Weekday(Toward, Weekday),
    /// A month (1 to 12) near the message.
    NamedMonth(Toward, i8),
    /// A weekday of the week `step` weeks from the message's own ("上周三",
    /// Wednesday of last week, whatever day the message was said on).
    WeekdayOfWeek(i64, Weekday),
    /// A month (1 to 12) of the year `step` years from the message's own
    /// ("去年三月", "letztes Jahr im März").
    MonthOfYear(i64, i8),
    /// A day of the Chinese lunisolar calendar, which moves every year
    /// ("中秋节", "农历八月十五", "去年春节前后"), with `before` and
    /// `after` days either side of it ("前后": a week each way).
    LunarDay {
        /// Which year's.
        year: YearOf,
        /// Its lunar month, 1 to 12.
        month: i8,
        /// Its day of the lunar month, 1 to 30.
        day: i8,
        /// The day before it instead: the new year's eve (除夕), which
        /// is the last day of the old year, whether the 12th month has 29
        /// days or 30.
        eve: bool,
        /// Days before it the period starts.
        before: i8,
        /// Days after it the period ends.
        after: i8,
    },
    /// A season, three calendar months from `first_month` (meteorological,
    /// as the northern half of the world has them: spring from March,
    /// summer from June, autumn from September, winter from December into
    /// the next year).
    Season {
        /// The month it begins in: 3, 6, 9 or 12.
        first_month: i8,
        /// Which one.
        which: SeasonOf,
    },
    /// A lunar month ("腊月", "农历八月"), of a year.
    LunarMonth {
        /// Which year's.
        year: YearOf,
        /// Its lunar month, 1 to 12.
        month: i8,
    },
}

/// Which year a day or month that recurs yearly falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YearOf {
    /// The one in this calendar year ("2023年春节": the Spring Festival
    /// of January 2023).
    Calendar(i16),
    /// The one in the calendar year `step` years from the message's own
    /// ("去年中秋").
    Step(i64),
    /// The nearest one the tense allows: the last before the message, or
    /// the next after it when the sentence looks ahead.
    Tense,
}

/// Which season of its kind a phrase means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeasonOf {
    /// The one that begins in this year ("summer 2019", "2019年夏天").
    Year(i16),
    /// The one of the year `step` years from the message's own ("this
    /// summer": 0, "去年夏天": -1); January's winter is the one that began
    /// the December before.
    Step(i64),
    /// The last one over before the message ("last summer", "letzten
    /// Sommer").
    Last,
    /// The first one to begin after the message ("next summer").
    Next,
    /// The one the message is in, else the nearest the tense allows ("in
    /// the summer").
    Tense,
}
