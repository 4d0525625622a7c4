//! Chinese time phrases: 昨天, 上周三, 去年三月, 两年前, 3月5日, 2023年5月,
//! 下个月, 从2019年起, 工作了三年, read into [`TimeExpr`]s that `when`
//! anchors at the message's time. Numbers may be digits or Chinese
//! numerals (三, 十二, 两, 几). Days of the lunar calendar, which move
//! every year, are read too: the festivals (春节, 除夕, 元宵节, 端午,
//! 七夕, 中秋, 重阳, 腊八节), lunar dates and months (农历八月十五, 正月初一,
//! 腊月), with a year (2023年, 去年) or the nearest the tense allows, and
//! "前后"/"左右" (a week either side) or "春节期间" (the holiday week).

use std::sync::LazyLock;

use jiff::civil::Weekday;
use regex::{Captures, Regex};

use crate::when::{self, SeasonOf, TimeExpr, TimePhrase, Toward, Unit, YearOf};

/// A number: digits, or Chinese numerals up to 99.
const N: &str = r"\d{1,4}|[零一二两三四五六七八九十几]{1,3}";

/// A year before a yearly day: digits, or a year near the message's.
const YEAR: &str = r"(?:(\d{4})年|(前年|去年|今年|明年|后年))?(?:的)?";

/// What may follow a yearly day: a week either side, the holiday, or a
/// side of it (which no interval says, so nothing is read).
const AROUND: &str = r"(前后|左右|期间|之前|之后|以前|以后|前|后)?";

#[derive(Clone, Copy, Debug)]
enum Rule {
    Span,
    Festival,
    LunarDate,
    YearMonthDay,
    IsoDate,
    UntilYearMonth,
    UntilYear,
    SinceYearMonth,
    YearMonth,
    SinceYear,
    Year,
    MonthDay,
    DaysAgo(i64),
    UnitsAgo,
    ForUnits,
    Season,
    RelativeYear(i64),
    MonthOfRelativeYear,
    RelativeUnit,
    WeekdayOfWeek,
    SinceMonth,
    Month,
}

/// Every pattern, most specific first.
static PATTERNS: LazyLock<Vec<(Regex, Rule)>> = LazyLock::new(|| {
    let p = |re: &str, rule: Rule| {
        let re = re.replace("{N}", N);
        (
            Regex::new(&re).unwrap_or_else(|e| unreachable!("bad time pattern {re}: {e}")),
            rule,
        )
    };
    vec![
        p(
            &format!(
                "{YEAR}(春节|过年|大年初一|除夕|大年三十|年三十|元宵节|端午节?|七夕节?|中元节|中秋节?|重阳节?|腊八节){AROUND}"
            ),
            Rule::Festival,
        ),
        p(
            &format!(
                "{YEAR}((?:农历|阴历)(?:正月|冬月|腊月|{{N}}月)|正月|冬月|腊月)(初[一二三四五六七八九十]|廿[一二三四五六七八九]|{{N}})?(?:日|号)?{AROUND}"
            ),
            Rule::LunarDate,
        ),
        // Stretches first: "2010年到2015年" is one period, not an end.
        p(
            r"(?:从|自)?(?P<fy>\d{4})年?(?:(?P<fm>{N})月(?:份)?)?(?:到|至|-|–|~)(?P<ty>\d{4})年(?:(?P<tm>{N})月(?:份)?)?",
            Rule::Span,
        ),
        p(
            r"(?:从|自)?(?P<fy>\d{4})年(?P<fm>{N})月(?:份)?(?:到|至|-|–|~)(?P<tm>{N})月(?:份)?",
            Rule::Span,
        ),
        p(
            r"(?:(\d{4})年|(前年|去年|今年|明年)|(这个|上个|下个))(?:的)?(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季)",
            Rule::Season,
        ),
        p(r"(\d{4})年({N})月({N})[日号]", Rule::YearMonthDay),
        p(r"(\d{4})-(\d{2})-(\d{2})", Rule::IsoDate),
        p(
            r"(?:直到|一直到|到)(\d{4})年({N})月(?:为止)?",
            Rule::UntilYearMonth,
        ),
        p(r"(?:直到|一直到|到)(\d{4})年(?:为止)?", Rule::UntilYear),
        p(
            r"(?:从|自)(\d{4})年({N})月(?:起|开始|以来)?",
            Rule::SinceYearMonth,
        ),
        p(r"(\d{4})年({N})月", Rule::YearMonth),
        p(
            r"(?:从|自)(\d{4})年(?:起|开始|以来)?|(\d{4})年(?:起|以来)",
            Rule::SinceYear,
        ),
        p(r"(\d{4})年", Rule::Year),
        p(r"({N})月({N})[日号]", Rule::MonthDay),
        p(r"大前天", Rule::DaysAgo(3)),
        p(r"前天", Rule::DaysAgo(2)),
        p(r"昨天|昨晚|昨日", Rule::DaysAgo(1)),
        p(r"今天|今晚|今早|今日|今天早上|今天下午", Rule::DaysAgo(0)),
        p(r"大后天", Rule::DaysAgo(-3)),
        p(r"后天", Rule::DaysAgo(-2)),
        p(r"明天|明日", Rule::DaysAgo(-1)),
        p(
            r"({N})(?:多)?(?:个)?(天|周|星期|礼拜|月|年)(?:以)?前",
            Rule::UnitsAgo,
        ),
        p(
            r"(?:了|过去|最近|这)({N})(?:多)?(?:个)?(天|周|星期|礼拜|月|年)",
            Rule::ForUnits,
        ),
        p(r"前年", Rule::RelativeYear(-2)),
        p(
            r"(去年|今年|明年)(?:的)?({N})月(?:份)?",
            Rule::MonthOfRelativeYear,
        ),
        p(r"去年", Rule::RelativeYear(-1)),
        p(r"今年", Rule::RelativeYear(0)),
        p(r"明年", Rule::RelativeYear(1)),
        p(
            r"(上|这|本|下)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])",
            Rule::WeekdayOfWeek,
        ),
        p(
            r"(上|这|本|下)(?:个)?(周末|周|星期|礼拜|月)",
            Rule::RelativeUnit,
        ),
        p(
            r"(?:从|自)({N})月(?:份)?(?:起|开始|以来)?",
            Rule::SinceMonth,
        ),
        p(r"({N})月(?:份)?", Rule::Month),
    ]
});

/// Every phrase of every pattern in `text`, by pattern, then left to right.
pub(super) fn phrases(text: &str) -> Vec<TimePhrase> {
    let mut found = when::phrases_by(text, &PATTERNS, |rule, caps, _| read(rule, caps));
    // "五月天" is a band, not May ("这个月天天加班" is every day of it).
    found.retain(|p| {
        let after = &text[p.end..];
        !(text[..p.end].ends_with('月') && after.starts_with('天') && !after.starts_with("天天"))
    });
    found
}

fn read(rule: Rule, caps: &Captures<'_>) -> Option<TimeExpr> {
    let group = |i: usize| caps.get(i).map_or("", |m| m.as_str());
    let num = |i: usize| number(group(i));
    // "几月" asks which month; it names none.
    let exact = |i: usize| num(i).filter(|_| !group(i).contains('几'));
    let month = |i: usize| exact(i).filter(|m| (1..=12).contains(m)).map(|m| m as i8);
    let day = |i: usize| exact(i).filter(|d| (1..=31).contains(d)).map(|d| d as i8);
    let year = |i: usize| num(i).map(|y| y as i16);
    Some(match rule {
        Rule::Span => {
            let named = |name: &str| caps.name(name).map(|m| m.as_str());
            // A month that is not exact ("几月") makes no stretch.
            let month_of = |name: &str| -> Option<Option<i64>> {
                match named(name) {
                    None => Some(None),
                    Some(m) if m.contains('几') => None,
                    Some(m) => Some(Some(number(m)?)),
                }
            };
            let from_year = named("fy")?.parse().ok()?;
            let to_year = named("ty").map_or(Some(from_year), |y| y.parse().ok())?;
            when::span(from_year, month_of("fm")?, to_year, month_of("tm")?)?
        }
        Rule::Festival | Rule::LunarDate => return lunar(rule, caps),
        Rule::YearMonthDay | Rule::IsoDate => TimeExpr::Day {
            year: year(1)?,
            month: month(2)?,
            day: day(3)?,
        },
        Rule::UntilYearMonth => TimeExpr::UntilMonth {
            year: year(1)?,
            month: month(2)?,
        },
        Rule::UntilYear => TimeExpr::UntilYear(num(1)?),
        Rule::SinceYearMonth => TimeExpr::SinceMonth {
            year: year(1)?,
            month: month(2)?,
        },
        Rule::YearMonth => TimeExpr::Month {
            year: year(1)?,
            month: month(2)?,
        },
        Rule::SinceYear => TimeExpr::SinceYear(num(1).or_else(|| num(2))?),
        Rule::Year => TimeExpr::Year(num(1)?),
        Rule::MonthDay => TimeExpr::DayOfMonth {
            month: month(1)?,
            day: day(2)?,
        },
        Rule::Season => TimeExpr::Season {
            first_month: match group(4).chars().next()? {
                '春' => 3,
                '夏' => 6,
                '秋' => 9,
                _ => 12,
            },
            which: match (num(1), group(2), group(3)) {
                (Some(y), _, _) => SeasonOf::Year(i16::try_from(y).ok()?),
                (_, "前年", _) => SeasonOf::Step(-2),
                (_, "去年", _) => SeasonOf::Step(-1),
                (_, "明年", _) => SeasonOf::Step(1),
                (_, _, "上个") => SeasonOf::Last,
                (_, _, "下个") => SeasonOf::Next,
                _ => SeasonOf::Step(0),
            },
        },
        Rule::DaysAgo(n) => TimeExpr::DaysAgo(n),
        Rule::UnitsAgo => TimeExpr::UnitsAgo(num(1)?, unit(group(2))),
        Rule::ForUnits => TimeExpr::ForUnits(num(1)?, unit(group(2))),
        Rule::RelativeYear(step) => TimeExpr::RelativeUnit(step, Unit::Year),
        Rule::MonthOfRelativeYear => {
            let step = match group(1) {
                "去年" => -1,
                "明年" => 1,
                _ => 0,
            };
            TimeExpr::MonthOfYear(step, month(2)?)
        }
        Rule::RelativeUnit => TimeExpr::RelativeUnit(step(group(1)), unit(group(2))),
        Rule::WeekdayOfWeek => TimeExpr::WeekdayOfWeek(step(group(1)), weekday(group(2))?),
        Rule::SinceMonth => TimeExpr::NamedMonth(Toward::Since, month(1)?),
        Rule::Month => TimeExpr::NamedMonth(Toward::Tense, month(1)?),
    })
}

/// A festival or a lunar date or month: `caps` holds the year (digits or
/// a word), then the festival, or the month and the day.
fn lunar(rule: Rule, caps: &Captures<'_>) -> Option<TimeExpr> {
    let group = |i: usize| caps.get(i).map_or("", |m| m.as_str());
    let year = match (group(1), group(2)) {
        ("", "") => YearOf::Tense,
        ("", word) => YearOf::Step(match word {
            "前年" => -2,
            "去年" => -1,
            "明年" => 1,
            "后年" => 2,
            _ => 0,
        }),
        (digits, _) => YearOf::Calendar(digits.parse().ok()?),
    };
    let (month, day, eve, around) = match rule {
        Rule::Festival => {
            let (month, day, eve) = match group(3) {
                "除夕" | "大年三十" | "年三十" => (1, 1, true),
                "元宵节" => (1, 15, false),
                "端午" | "端午节" => (5, 5, false),
                "七夕" | "七夕节" => (7, 7, false),
                "中元节" => (7, 15, false),
                "中秋" | "中秋节" => (8, 15, false),
                "重阳" | "重阳节" => (9, 9, false),
                "腊八节" => (12, 8, false),
                _ => (1, 1, false),
            };
            (month, Some(day), eve, group(4))
        }
        _ => {
            let name = group(3).trim_start_matches(['农', '阴', '历']);
            let month = match name {
                "正月" => 1,
                "冬月" => 11,
                "腊月" => 12,
                other => number(other.strip_suffix('月')?)?,
            };
            let day = match group(4) {
                "" => None,
                d if d.starts_with('初') => Some(number(d.trim_start_matches('初'))?),
                d if d.starts_with('廿') => Some(20 + number(d.trim_start_matches('廿'))?),
                d => Some(number(d)?),
            };
            (month, day, false, group(5))
        }
    };
    let month = i8::try_from(month).ok().filter(|m| (1..=12).contains(m))?;
    let Some(day) = day else {
        return Some(TimeExpr::LunarMonth { year, month });
    };
    let day = i8::try_from(day).ok().filter(|d| (1..=30).contains(d))?;
    let (before, after) = match around {
        "" => (0, 0),
        "前后" | "左右" => (7, 7),
        // The Spring Festival's holiday: its eve to the sixth day.
        "期间" if (month, day, eve) == (1, 1, false) => (1, 5),
        "期间" => (0, 0),
        _ => return None,
    };
    Some(TimeExpr::LunarDay {
        year,
        month,
        day,
        eve,
        before,
        after,
    })
}

fn step(word: &str) -> i64 {
    match word {
        "上" => -1,
        "下" => 1,
        _ => 0,
    }
}

fn unit(word: &str) -> Unit {
    match word {
        "天" => Unit::Day,
        "周" | "星期" | "礼拜" => Unit::Week,
        "周末" => Unit::Weekend,
        "月" => Unit::Month,
        _ => Unit::Year,
    }
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "一" => Weekday::Monday,
        "二" => Weekday::Tuesday,
        "三" => Weekday::Wednesday,
        "四" => Weekday::Thursday,
        "五" => Weekday::Friday,
        "六" => Weekday::Saturday,
        "日" | "天" => Weekday::Sunday,
        _ => return None,
    })
}

/// A number in digits or Chinese numerals (三, 十二, 二十五, 两; 几 is a
/// few, read as three, as English reads "a few").
pub(super) fn number(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    let digit = |c: char| -> Option<i64> {
        Some(match c {
            '零' => 0,
            '一' => 1,
            '二' | '两' => 2,
            '三' | '几' => 3,
            '四' => 4,
            '五' => 5,
            '六' => 6,
            '七' => 7,
            '八' => 8,
            '九' => 9,
            _ => return None,
        })
    };
    let chars: Vec<char> = text.chars().collect();
    match chars.as_slice() {
        [c] if *c == '十' => Some(10),
        [c] => digit(*c),
        ['十', u] => Some(10 + digit(*u)?),
        [t, '十'] => Some(10 * digit(*t)?),
        [t, '十', u] => Some(10 * digit(*t)? + digit(*u)?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use crate::when::{date_of, find};
    use chronolog_engine::Timestamp;

    /// `text` said at `said`, as `from .. to` dates (`..` for open).
    fn when(text: &str, said: &str) -> String {
        let at = Timestamp::parse(said).expect("time");
        let Some(found) = find(Lang::Chinese.reader(), text, at, false) else {
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
        for text in [
            "我2010年到2015年在IBM工作",
            "从2010年到2015年",
            "2010年至2015年",
            "2010-2015年",
        ] {
            assert_eq!(when(text, said), "2010-01-01 .. 2016-01-01", "{text}");
        }
        assert_eq!(
            when("2019年3月到2021年6月", said),
            "2019-03-01 .. 2021-07-01"
        );
        assert_eq!(when("2020年三月到六月", said), "2020-03-01 .. 2020-07-01");
        // An end alone is still an end.
        assert_eq!(when("到2015年", said), "? .. 2015-01-01");
    }

    #[test]
    fn a_season_is_its_three_months_chosen_by_when_it_was_said() {
        let march = "2025-03-20";
        assert_eq!(
            when("今年夏天我们要搬家", march),
            "2025-06-01 .. 2025-09-01"
        );
        assert_eq!(when("去年夏天", march), "2024-06-01 .. 2024-09-01");
        assert_eq!(when("2019年冬天", march), "2019-12-01 .. 2020-03-01");
        assert_eq!(when("上个冬天", march), "2024-12-01 .. 2025-03-01");
    }

    #[test]
    fn phrases_anchor_at_the_message() {
        // 2023-05-17 is a Wednesday.
        let said = "2023-05-17";
        assert_eq!(when("我昨天去了医院", said), "2023-05-16 .. 2023-05-17");
        assert_eq!(when("上周三我们见面了", said), "2023-05-10 .. 2023-05-11");
        assert_eq!(
            when("去年三月我搬到了北京", said),
            "2022-03-01 .. 2022-04-01"
        );
        assert_eq!(when("两年前我在腾讯工作", said), "2021-01-01 .. 2022-01-01");
        assert_eq!(when("3月5日是她的生日", said), "2023-03-05 .. 2023-03-06");
        assert_eq!(when("我最喜欢的乐队是五月天", said), "none");
        assert_eq!(when("这个月天天加班", said), "2023-05-01 .. 2023-06-01");
        assert_eq!(
            when("2023年5月我开始学吉他", said),
            "2023-05-01 .. 2023-06-01"
        );
        assert_eq!(when("下个月我要去上海", said), "2023-06-01 .. 2023-07-01");
        assert_eq!(when("我从2019年起住在深圳", said), "2019-01-01 .. ");
        assert_eq!(when("我在这里工作了三年", said), "2020-05-17 .. ");
        assert_eq!(when("三个月前", said), "2023-02-01 .. 2023-03-01");
        assert_eq!(when("十二月", said), "2022-12-01 .. 2023-01-01");
        assert_eq!(when("我喜欢喝茶", said), "none");
        assert_eq!(when("我几月搬家的", said), "none");
    }

    #[test]
    fn lunar_days_move_with_the_year() {
        // The Spring Festival fell on 2023-01-22 and 2024-02-10; the
        // Mid-Autumn Festival on 2023-09-29.
        assert_eq!(
            when("春节我回了老家", "2023-03-01"),
            "2023-01-22 .. 2023-01-23"
        );
        assert_eq!(
            when("春节我回了老家", "2024-03-01"),
            "2024-02-10 .. 2024-02-11"
        );
        // Said before this year's, in the past tense: last year's.
        assert_eq!(
            when("春节我回了老家", "2024-01-15"),
            "2023-01-22 .. 2023-01-23"
        );
        assert_eq!(
            when("去年春节前后我换了工作", "2024-05-01"),
            "2023-01-15 .. 2023-01-30"
        );
        assert_eq!(
            when("2023年中秋节我们在杭州", "2025-01-01"),
            "2023-09-29 .. 2023-09-30"
        );
        assert_eq!(
            when("今年中秋我们去了杭州", "2023-12-01"),
            "2023-09-29 .. 2023-09-30"
        );
        // The eve is the old year's last day, whatever its length.
        assert_eq!(
            when("除夕我们吃了饺子", "2024-03-01"),
            "2024-02-09 .. 2024-02-10"
        );
        assert_eq!(
            when("春节期间我在北京", "2024-03-01"),
            "2024-02-09 .. 2024-02-16"
        );
        assert_eq!(
            when("农历八月十五是她的生日", "2023-12-01"),
            "2023-09-29 .. 2023-09-30"
        );
        assert_eq!(
            when("正月十五我们看了花灯", "2023-03-01"),
            "2023-02-05 .. 2023-02-06"
        );
        assert_eq!(
            when("腊月二十三我到家了", "2024-03-01"),
            "2024-02-02 .. 2024-02-03"
        );
        assert_eq!(when("腊月我很忙", "2024-03-01"), "2024-01-11 .. 2024-02-10");
        // A side of a festival is no interval: nothing is read from it.
        assert_eq!(when("端午前我搬了家", "2024-08-01"), "none");
        // Food named after a festival is not a time.
        assert_eq!(when("我喜欢吃元宵", "2024-03-01"), "none");
    }

    #[test]
    fn chinese_numerals() {
        for (text, n) in [
            ("三", 3),
            ("十", 10),
            ("十二", 12),
            ("二十", 20),
            ("二十五", 25),
            ("两", 2),
            ("12", 12),
        ] {
            assert_eq!(number(text), Some(n), "{text}");
        }
        assert_eq!(number("百"), None);
    }
}
