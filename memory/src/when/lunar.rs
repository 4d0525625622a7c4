//! The Chinese lunar calendar, for the festivals and lunar months a
//! Chinese sentence names ("中秋节", "腊月"): lunar dates to Gregorian ones,
//! by the lunar_lite crate's tables.

use jiff::civil::Date;

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
