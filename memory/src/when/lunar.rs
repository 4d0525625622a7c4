//! The Chinese lunar calendar, for the festivals and lunar months a
//! Chinese sentence names ("中秋节", "腊月"): lunar dates to Gregorian ones,
//! by the lunar_lite crate's tables.

use jiff::civil::Date;

use super::YearOf;

/// The Gregorian date of a day of the lunar calendar, if it exists.
pub(super) fn lunar(year: i32, month: i8, day: i8) -> Option<Date> {
    let solar = lunar_lite::lunar_to_solar(lunar_lite::LunarDate {
        year,
        month: u8::try_from(month).ok()?,
        day: u8::try_from(day).ok()?,
        is_leap_month: false,
    })
    .ok()?;
    Date::new(
        i16::try_from(solar.year).ok()?,
        i8::try_from(solar.month).ok()?,
        i8::try_from(solar.day).ok()?,
    )
    .ok()
}

/// The days of the lunar month that starts on `start` (29 or 30), its
/// `month`th of the year, wherever a leap month falls.
pub(super) fn month_days(start: Date, month: i8) -> Option<i64> {
    let days =
        lunar_lite::lunar_month_days(lunar_year(start)?, u8::try_from(month).ok()?, false).ok()?;
    Some(i64::from(days))
}

/// The lunar year `date` (a lunar month's first day) belongs to.
fn lunar_year(date: Date) -> Option<i32> {
    let lunar = lunar_lite::solar_to_lunar(lunar_lite::SolarDate {
        year: i32::from(date.year()),
        month: u8::try_from(date.month()).ok()?,
        day: u8::try_from(date.day()).ok()?,
    })
    .ok()?;
    Some(lunar.year)
}

/// The date of a yearly day (`on` gives its date in a lunar year) that
/// `year` picks, near `day` (the message's date): the one falling in a
/// calendar year (a lunar year straddles two, but a festival falls once in
/// each), or the nearest before `day` (after it when the sentence looks
/// ahead; the day itself counts as either).
pub(super) fn recurring(
    year: YearOf,
    day: Date,
    future: bool,
    on: impl Fn(i32) -> Option<Date>,
) -> Option<Date> {
    let around = |g: i32| (g - 2..=g + 1).filter_map(&on);
    match year {
        YearOf::Calendar(g) => around(i32::from(g)).find(|d| d.year() == g),
        YearOf::Step(step) => {
            let g = day.year().checked_add(i16::try_from(step).ok()?)?;
            around(i32::from(g)).find(|d| d.year() == g)
        }
        YearOf::Tense if future => around(i32::from(day.year())).find(|d| *d >= day),
        YearOf::Tense => around(i32::from(day.year())).filter(|d| *d <= day).last(),
    }
}
