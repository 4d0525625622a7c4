//! Chinese claims: regular expressions over each clause of a message, the
//! same relations the English rules read (work, home, names and family,
//! pets and possessions, tastes, plans and events, changes and
//! withdrawals), with the same canonical predicates, so a job change told
//! in Chinese supersedes as it does in English.
//!
//! Chinese drops a subject the clause before already gave ("我离开了腾讯，
//! 加入了月之暗面"): a clause without one takes the previous clause's.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::Chinese;
use super::pastimes::PASTIMES;
use super::plans::CALLED_OFF;
use super::rules::{Predicate, RULES, Rule};
use super::time::number;
use super::words::{EVENTS, FAMILY, FAVORITES, NOT_NAMES, PETS};
use crate::claim::{self, Claim, ClaimKind, EpisodeView, Subject};
use crate::when::{self, When};

/// The claims `episode` makes.
pub(super) fn claims(episode: &EpisodeView<'_>) -> Vec<Claim> {
    let mut claims = Vec::new();
    for sentence in episode
        .text
        .split(['。', '！', '？', '!', '?', '\n', '；', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let first = claims.len();
        let mut subject = "";
        for clause in clauses(sentence) {
            // A clause without its own subject takes the previous one's.
            let own = SUBJECT_AT.find(clause).map(|m| m.as_str());
            let clause = match own {
                Some(s) => {
                    subject = s;
                    clause.to_string()
                }
                None => format!("{subject}{clause}"),
            };
            // The time phrase is read, then taken out: it stands anywhere
            // in a Chinese clause ("我上周加入了X"), often between the
            // subject and its verb.
            let found = when::find(&Chinese, &clause, episode.at, looks_ahead(&clause));
            let clause = match found {
                Some(f) => format!("{}{}", &clause[..f.start], &clause[f.end..]),
                None => clause,
            };
            read_clause(&clause, sentence, found.map(|f| f.when), &mut claims);
        }
        // "我在阿里巴巴工作，不是腾讯": the value denied never held.
        let denied: Vec<String> = DENIED
            .captures_iter(sentence)
            .filter_map(|c| c.name("x").and_then(|m| clean(m.as_str(), "works_at")))
            .collect();
        let mut corrected = claim::corrections(&claims[first..], &denied);
        // "克拉拉是我表姐，不是我姐姐": the relation denied never held.
        let relations = claim::relations_denied(&DENIED_RELATION, sentence, FAMILY);
        corrected.extend(claim::relation_corrections(&claims[first..], &relations));
        claims.append(&mut corrected);
        if claims.len() == first {
            claims.extend(claim::misspoken_in(
                episode.text,
                sentence,
                &MISTAKE,
                &MISSPOKEN,
                |v| {
                    v.trim_end_matches(['啦', '了', '吧', '呀', '哦', '啊', '呢'])
                        .trim_matches(['“', '”', '"'])
                },
            ));
        }
    }
    // "我们养了一只猫。她叫咪咪": a pet's name.
    claim::pet_names_kept_off_people(&mut claims, PET_WORD.is_match(episode.text));
    claims
}

static PET_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(PETS).unwrap_or_else(|e| unreachable!("{e}")));

/// A message owning a mistake: what lets "是X，不是Y" correct a value.
static MISTAKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"我是说|我的意思是|说错了|打错了|写错了|搞错了|记错了|弄错了|更正|纠正|不好意思|抱歉|对不起|其实|应该是")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// "我是说艾米丽，不是艾玛", "是Spotify，不是Shopify", "不是艾玛，而是艾米丽":
/// the right value `x` and the wrong one `y`.
static MISSPOKEN: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?:^|[，,：:]\s*)(?:其实)?不是(?P<y>[^，,。！？；：:\s]{1,16}?)[，,]?(?:而是|是)(?P<x>[^，,。！？；\s]{1,16})",
        r"(?:^|[，,：:]\s*)(?:我是说|我的意思是|应该是|其实是|是)(?P<x>[^，,。！？；：:\s]{1,16}?)[，,]?(?:而)?不是(?P<y>[^，,。！？；\s]{1,16})",
    ]
    .iter()
    .map(|re| Regex::new(re).unwrap_or_else(|e| unreachable!("{e}")))
    .collect()
});

/// Whether a clause speaks of the future: "要", "将", "打算", "准备"
/// before its verb ("我八月要搬到哥本哈根"), not inside a word that says
/// something else ("重要", "需要", "将军").
fn looks_ahead(clause: &str) -> bool {
    let mut rest = clause.to_string();
    for word in ["重要", "需要", "主要", "只要", "要求", "将军", "将近"] {
        rest = rest.replace(word, "");
    }
    ["要", "将", "打算", "准备", "计划"]
        .iter()
        .any(|w| rest.contains(w))
}

/// A value a sentence denies: "不是腾讯", "而不是在腾讯".
static DENIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"不是(?:在)?(?P<x>[^，。！？,.!?；;、\s]{1,12})")
        .unwrap_or_else(|e| unreachable!("{e}"))
});

/// A relation a sentence denies: "不是我姐姐", "不是我的姐姐".
static DENIED_RELATION: LazyLock<Regex> = LazyLock::new(|| {
    let family = FAMILY.iter().map(|(w, _)| *w).collect::<Vec<_>>().join("|");
    Regex::new(&format!(r"不是我的?(?P<r>{family})")).unwrap_or_else(|e| unreachable!("{e}"))
});

/// The clauses of a sentence, cut at commas, except before 叫 ("我养了一只
/// 猫，叫咪咪": the name is the cat's, not a clause of its own whose
/// subject would be the speaker's).
fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in sentence.char_indices() {
        if matches!(c, '，' | ',') {
            let rest = sentence[i + c.len_utf8()..].trim_start();
            if rest.starts_with('叫') || rest.starts_with("名叫") || rest.starts_with("它叫") {
                continue;
            }
            out.push(sentence[start..i].trim());
            start = i + c.len_utf8();
        }
    }
    out.push(sentence[start..].trim());
    out.retain(|c| !c.is_empty());
    out
}

static SUBJECT_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&super::rules::subject()).unwrap_or_else(|e| unreachable!("{e}")));

/// The claims of one clause; `sentence` is what a claim quotes.
fn read_clause(clause: &str, sentence: &str, valid: Option<When>, claims: &mut Vec<Claim>) {
    // Spans already read are not read again by a looser rule.
    let mut read = claim::ReadSpans::default();
    for rule in CALLED_OFF.iter().chain(PASTIMES.iter()).chain(RULES.iter()) {
        for caps in rule.re.captures_iter(clause) {
            let Some(whole) = caps.get(0) else { continue };
            // With whom (`w`) may be another rule's read ("我和老公马克"), as
            // may the relation a name is set beside ("我女儿小雨").
            let start = caps
                .name("w")
                .or_else(|| caps.name("s").filter(|s| is_name(s.as_str())))
                .map_or(whole.start(), |m| m.end());
            if read.overlaps(start, whole.end()) {
                continue;
            }
            let mut made = claims_of(rule, &caps, sentence, valid);
            if !rule.accepts(&made) {
                continue;
            }
            if let Some(first) = made.first() {
                read.read(&caps, start, &first.object);
                claims.append(&mut made);
            }
        }
    }
}

/// Whether a rule's subject is a name, not the speaker, a relative by
/// relation or a pronoun.
fn is_name(subject: &str) -> bool {
    !subject.starts_with('我') && !matches!(subject, "他们" | "他" | "她们" | "她")
}

fn claims_of(rule: &Rule, caps: &Captures<'_>, sentence: &str, valid: Option<When>) -> Vec<Claim> {
    let subject = match caps.name("s").map(|m| m.as_str()) {
        None | Some("我" | "我们") => Subject::Speaker,
        // "我妈妈", "我的丈夫": the relative by relation.
        Some(relative) if relative.starts_with('我') => {
            let said = relative.trim_start_matches('我').trim_start_matches('的');
            Subject::Relative(lookup(FAMILY, said))
        }
        // "我女儿小雨满六岁了": the name set beside the relation.
        Some(name) if is_name(name) => {
            if NOT_NAMES.contains(&name) {
                return Vec::new();
            }
            Subject::Named(name.to_string())
        }
        Some(pronoun) => Subject::Pronoun(pronoun.to_string()),
    };
    let predicate = match &rule.predicate {
        Predicate::Fixed(p) => (*p).to_string(),
        Predicate::Family => lookup(FAMILY, caps.name("rel").map_or("", |m| m.as_str())),
        Predicate::Favorite => {
            let category = lookup(FAVORITES, caps.name("cat").map_or("", |m| m.as_str()));
            format!("favorite_{category}")
        }
        Predicate::Event => lookup(EVENTS, caps.name("v").map_or("", |m| m.as_str())),
    };
    // Words taken for a name are no name ("老师" after a relation), but a
    // trade may be one of them ("我是一名老师").
    let object = caps
        .name("o")
        .filter(|m| predicate == "job_title" || !NOT_NAMES.contains(&m.as_str()))
        .and_then(|m| clean(m.as_str(), &predicate));
    let claim = |object: String, kind: ClaimKind| Claim {
        subject: subject.clone(),
        predicate: predicate.clone(),
        object,
        object_kind: rule.object_kind,
        kind,
        valid,
        text: sentence.to_string(),
        confidence: rule.confidence,
    };
    let Some(object) = object else {
        // "我辞职了": ends whatever job there was ("我们分手了": whichever
        // partner).
        if matches!(rule.kind, ClaimKind::Ended | ClaimKind::CalledOff)
            && matches!(rule.predicate, Predicate::Fixed(_))
        {
            return vec![claim(String::new(), rule.kind)];
        }
        return Vec::new();
    };
    let mut out = vec![claim(object, rule.kind)];
    // "我是协和医院的护士": the title is a claim of its own.
    if let Some(title) = caps.name("t") {
        out.push(Claim {
            predicate: "job_title".into(),
            object_kind: None,
            ..claim(title.as_str().to_string(), rule.kind)
        });
    }
    // "我打算明年搬到杭州": the move ahead is a plan too, said as the
    // words after the plan's verb.
    if let (Some(whole), Some(plan), Some(o)) = (caps.get(0), caps.name("plan"), caps.name("o")) {
        let planned = &whole.as_str()[plan.end() - whole.start()..o.end() - whole.start()];
        out.push(Claim {
            predicate: "plans".into(),
            object_kind: None,
            ..claim(planned.to_string(), ClaimKind::Holds)
        });
    }
    // "从安卓换成了iPhone": the old one ended when the new began.
    if let Some(from) = caps
        .name("from")
        .and_then(|m| clean(m.as_str(), &predicate))
    {
        out.push(claim(from, ClaimKind::Ended));
    }
    out
}

fn lookup(pairs: &[(&str, &str)], word: &str) -> String {
    pairs
        .iter()
        .find(|(w, _)| *w == word)
        .map_or_else(String::new, |(_, p)| (*p).to_string())
}

/// Words that end an object: a new clause, a particle, an adverb of time.
const OBJECT_END: &[&str] = &[
    "已经",
    "的时候",
    "以后",
    "之后",
    "以前",
    "之前",
    "因为",
    "但是",
    "而且",
    "所以",
    "然后",
    "并且",
    "工作",
    "上班",
    "了",
    "呢",
    "吧",
    "啊",
    "呀",
    "啦",
    "哦",
    "嘛",
    "吗",
];

/// Measure words and articles that open an object ("一家公司").
const OBJECT_START: &[&str] = &[
    "了", "一家", "一所", "一个", "一只", "一条", "一辆", "一台", "一部", "一套", "一件", "一些",
    "一点",
];

/// Pronouns and demonstratives: the thing is not in the clause.
const VAGUE: &[&str] = &[
    "你", "你们", "他", "她", "它", "他们", "她们", "它们", "这", "那", "这个", "那个", "这里",
    "那里", "这儿", "那儿", "什么", "自己", "大家", "我", "我们",
];

/// The object as said, cut where its clause ends; for a job or a home
/// only what follows the last 的 ("深圳的腾讯" is 腾讯). `None` when
/// nothing is left, it is vague, or too long to be one thing.
fn clean(raw: &str, predicate: &str) -> Option<String> {
    let mut text = raw.trim();
    for opener in OBJECT_START {
        if let Some(rest) = text.strip_prefix(opener) {
            text = rest;
            break;
        }
    }
    let end = OBJECT_END
        .iter()
        .filter_map(|w| text.find(w))
        .filter(|&i| i > 0)
        .min()
        .unwrap_or(text.len());
    let mut text = &text[..end];
    if matches!(predicate, "works_at" | "lives_in")
        && let Some((_, after)) = text.rsplit_once('的')
    {
        text = after;
    }
    let text = text.trim_end_matches(['的', '了']).trim();
    let chars = text.chars().count();
    if chars == 0
        || chars > 12
        || VAGUE.contains(&text)
        || text.starts_with(['了', '你', '我', '他', '她', '它', '这', '那'])
    {
        return None;
    }
    // "我是中国人" says where one is from; "我是一个好人" does not.
    if predicate == "from" && text.contains(['一', '个', '很', '好', '坏']) {
        return None;
    }
    // "还是做产品经理": the verb a title is done with is no part of it.
    let text = if predicate == "job_title" {
        text.trim_start_matches(['做', '当'])
    } else {
        text
    };
    // An age said in numerals is written in digits.
    if predicate == "age" {
        return number(text).map(|n| n.to_string());
    }
    Some(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use chronolog_engine::Timestamp;

    fn claims(text: &str) -> Vec<String> {
        let at = Timestamp::parse("2023-05-17").expect("time");
        let episode = EpisodeView {
            id: "e1",
            role: "user",
            text,
            at,
            lang: Lang::Chinese,
        };
        super::claims(&episode)
            .into_iter()
            .map(|c| {
                let who = match c.subject {
                    Subject::Speaker => "我".to_string(),
                    Subject::Named(n) => n,
                    Subject::Pronoun(p) => p,
                    Subject::Relative(r) => format!("@{r}"),
                };
                let when = c
                    .valid
                    .and_then(|w| when::date_of(w.from))
                    .map_or(String::new(), |d| format!(" @{d}"));
                format!("{:?} {who} {} {}{when}", c.kind, c.predicate, c.object)
            })
            .collect()
    }

    #[test]
    fn pastimes_taken_up_and_given_up() {
        assert_eq!(claims("我开始学大提琴了"), ["Holds 我 likes 大提琴"]);
        assert_eq!(claims("我最近开始跑步"), ["Holds 我 likes 跑步"]);
        assert_eq!(
            claims("我去年开始练瑜伽"),
            ["Holds 我 likes 瑜伽 @2022-01-01"]
        );
        assert_eq!(claims("我学起了吉他"), ["Holds 我 likes 吉他"]);
        assert_eq!(claims("我迷上了攀岩"), ["Holds 我 likes 攀岩"]);
        assert_eq!(claims("我每周去抱石两次"), ["Holds 我 likes 抱石"]);
        assert_eq!(
            claims("我作为艺术总监加入了Zalando"),
            ["Holds 我 works_at Zalando", "Holds 我 job_title 艺术总监"]
        );
        // A pastime one plays or learns now, wherever.
        assert_eq!(claims("我周末在乐队里弹吉他"), ["Holds 我 likes 吉他"]);
        assert_eq!(claims("我最近在学德语"), ["Holds 我 likes 德语"]);
        assert!(claims("我不弹钢琴").is_empty());
        assert!(claims("我想学钢琴").is_empty());
        assert_eq!(claims("我不学大提琴了"), ["Ended 我 likes 大提琴"]);
        assert_eq!(claims("我已经不跑步了"), ["Ended 我 likes 跑步"]);
        assert_eq!(claims("我放弃了游泳"), ["Ended 我 likes 游泳"]);
        assert_eq!(claims("吉他我不学了，太难了"), ["Ended 我 likes 吉他"]);
        // What names no pastime.
        assert!(claims("我开始工作了").is_empty());
        assert!(claims("我放弃了这份工作").is_empty());
    }

    #[test]
    fn a_plan_called_off_names_its_slot() {
        assert_eq!(claims("我们不搬去杭州了"), ["CalledOff 我 lives_in 杭州"]);
        assert_eq!(claims("搬家的事泡汤了"), ["CalledOff 我 lives_in "]);
        assert_eq!(claims("我们还是留在上海"), ["CalledOff 我 lives_in "]);
        assert_eq!(
            claims("我还是不去阿里巴巴上班了"),
            ["CalledOff 我 works_at 阿里巴巴"]
        );
        assert_eq!(
            claims("我拒绝了阿里巴巴的offer"),
            ["CalledOff 我 works_at 阿里巴巴"]
        );
    }

    #[test]
    fn a_value_said_by_mistake_is_named_for_consolidation_to_find() {
        let pair = |right: &str, wrong: &str| {
            vec![
                format!("Withdrawn 我 _misspoken {wrong}"),
                format!("Holds 我 _misspoken {right}"),
            ]
        };
        assert_eq!(
            claims("不好意思，我是说小雪，不是小雨。"),
            pair("小雪", "小雨")
        );
        assert_eq!(
            claims("说错了，不是腾讯，是阿里巴巴。"),
            pair("阿里巴巴", "腾讯")
        );
        assert_eq!(claims("抱歉，是小雪不是小雨啦"), pair("小雪", "小雨"));
        assert!(claims("我们在巴黎见面，不是伦敦。").is_empty());
    }

    #[test]
    fn work_home_and_changes() {
        assert_eq!(claims("我在腾讯工作。"), ["Holds 我 works_at 腾讯"]);
        assert_eq!(
            claims("我刚加入了月之暗面！"),
            ["Holds 我 works_at 月之暗面"]
        );
        assert_eq!(
            claims("我离开了腾讯，加入了月之暗面"),
            ["Ended 我 works_at 腾讯", "Holds 我 works_at 月之暗面"]
        );
        assert_eq!(claims("我在深圳的腾讯工作"), ["Holds 我 works_at 腾讯"]);
        assert_eq!(
            claims("去年三月我搬到了北京"),
            ["Holds 我 lives_in 北京 @2022-03-01"]
        );
        assert_eq!(claims("我住在上海"), ["Holds 我 lives_in 上海"]);
        assert_eq!(
            claims("其实我没有加入字节跳动，那是谣言"),
            ["Withdrawn 我 works_at 字节跳动"]
        );
        assert_eq!(claims("我是一名药剂师"), ["Holds 我 job_title 药剂师"]);
        assert_eq!(
            claims("其实我在阿里巴巴工作，不是腾讯。"),
            ["Holds 我 works_at 阿里巴巴", "Withdrawn 我 works_at 腾讯"]
        );
        assert_eq!(claims("我辞职了"), ["Ended 我 works_at "]);
        // A job said by what one is where.
        assert_eq!(
            claims("我是协和医院的护士。"),
            ["Holds 我 works_at 协和医院", "Holds 我 job_title 护士"]
        );
        assert_eq!(
            claims("她在腾讯当程序员"),
            ["Holds 她 works_at 腾讯", "Holds 她 job_title 程序员"]
        );
        assert_eq!(
            claims("我从医院辞职了，下周一去一家私人诊所上班。"),
            [
                "Ended 我 works_at 医院",
                "Holds 我 works_at 私人诊所 @2023-05-22"
            ]
        );
        // A relation corrected is withdrawn for that person.
        assert_eq!(
            claims("不好意思，克拉拉是我表姐，不是我姐姐。"),
            ["Holds 我 cousin 克拉拉", "Withdrawn 我 sister 克拉拉"]
        );
        assert!(claims("这是我姐姐。").is_empty());
        // A move ahead, and an engagement.
        assert_eq!(
            claims("我八月要搬到哥本哈根。"),
            ["Holds 我 lives_in 哥本哈根 @2023-08-01"]
        );
        // "要" ahead of a verb, not inside a word.
        assert!(looks_ahead("我八月要搬到哥本哈根"));
        assert!(!looks_ahead("三月搬家对我很重要"));
        assert!(!looks_ahead("我需要一台新电脑"));
        assert_eq!(
            claims("我和男朋友埃里克订婚了"),
            ["Holds 我 relationship_status 订婚"]
        );
        assert_eq!(
            claims("我们上周订婚了！"),
            ["Holds 我 relationship_status 订婚 @2023-05-08"]
        );
        // A time between the subject and its verb is read and stepped over.
        assert_eq!(
            claims("我上周加入了OpenAI。"),
            ["Holds 我 works_at OpenAI @2023-05-08"]
        );
        // Someone else's job is not the speaker's: it is hers.
        assert_eq!(claims("我妈妈在腾讯工作"), ["Holds @mother works_at 腾讯"]);
    }

    #[test]
    fn people_pets_and_tastes() {
        assert_eq!(claims("我的姐姐叫李娜"), ["Holds 我 sister 李娜"]);
        assert_eq!(claims("我妹妹叫王芳。"), ["Holds 我 sister 王芳"]);
        assert_eq!(claims("我养了一只猫"), ["Holds 我 has_pet 猫"]);
        assert_eq!(claims("我的狗叫旺财"), ["Holds 我 has_pet 旺财"]);
        // The name after a comma is the cat's, not the speaker's.
        assert_eq!(claims("我养了一只猫，叫咪咪。"), ["Holds 我 has_pet 咪咪"]);
        assert_eq!(
            claims("我的姐姐叫李娜，她是一名医生。"),
            ["Holds 我 sister 李娜", "Holds 她 job_title 医生"]
        );
        assert_eq!(claims("我喜欢吃火锅"), ["Holds 我 likes 火锅"]);
        assert_eq!(claims("我不喜欢香菜"), ["Holds 我 dislikes 香菜"]);
        assert_eq!(
            claims("我最喜欢的颜色是绿色"),
            ["Holds 我 favorite_color 绿色"]
        );
        assert_eq!(claims("我今年三十岁"), ["Holds 我 age 30 @2023-01-01"]);
        assert_eq!(claims("我是中国人"), ["Holds 我 from 中国"]);
        assert!(claims("我是一个好人").is_empty());
        assert!(claims("我的朋友很多").is_empty());
        assert_eq!(claims("我爱你"), Vec::<String>::new());
        assert_eq!(claims("今天天气很好"), Vec::<String>::new());
    }

    #[test]
    fn what_is_said_in_passing() {
        assert_eq!(
            claims("我领养了一只叫豆豆的小狗。"),
            ["Holds 我 has_pet 豆豆"]
        );
        assert_eq!(
            claims("我们从救助站领养了一只猫，叫豆豆。"),
            ["Holds 我 has_pet 豆豆"]
        );
        assert_eq!(claims("我还是做产品经理"), ["Holds 我 job_title 产品经理"]);
        // A trade a name-like word says is a trade.
        assert_eq!(claims("我是一名老师。"), ["Holds 我 job_title 老师"]);
        assert_eq!(
            claims("我儿子昨天满六岁了"),
            ["Holds @son age 6 @2023-05-16"]
        );
        // The age of the one named beside the relation, the relation read too.
        assert_eq!(
            claims("我女儿小雨昨天满六岁了"),
            [
                "Holds 我 daughter 小雨 @2023-05-16",
                "Holds 小雨 age 6 @2023-05-16"
            ]
        );
        // A familiar name that doubles a character.
        assert_eq!(
            claims("我女儿乐乐今年五岁了"),
            [
                "Holds 我 daughter 乐乐 @2023-01-01",
                "Holds 乐乐 age 5 @2023-01-01"
            ]
        );
        assert_eq!(claims("我们的狗叫旺财。"), ["Holds 我 has_pet 旺财"]);
        assert_eq!(claims("我在北京四中教书。"), ["Holds 我 works_at 北京四中"]);
        assert_eq!(
            claims("我打算明年搬到杭州。"),
            [
                "Holds 我 lives_in 杭州 @2024-01-01",
                "Holds 我 plans 搬到杭州 @2024-01-01"
            ]
        );
        // A name beside the relation, with no "叫": a familiar form or a
        // surname first; a word there is no name.
        assert_eq!(
            claims("我男朋友小李和我在一起两年了。"),
            ["Holds 我 boyfriend 小李"]
        );
        assert_eq!(claims("我同事王芳是医生。"), ["Holds 我 colleague 王芳"]);
        assert!(claims("我哥哥马上要结婚了。").is_empty());
        // A relative by relation, not a name.
        assert_eq!(claims("我妹妹很喜欢猫。"), ["Holds @sister likes 猫"]);
        // A name transliterated from another language.
        assert_eq!(claims("我女儿艾玛上幼儿园了。"), ["Holds 我 daughter 艾玛"]);
        assert_eq!(claims("我哥哥杰克住在伦敦。")[0], "Holds 我 brother 杰克");
        assert!(claims("我妈妈希望我早点回家。").is_empty());
        assert!(claims("我姐姐特别喜欢").is_empty());
        // "老师" is no name: the sister is a teacher.
        assert_eq!(claims("我妹妹是老师。"), ["Holds @sister job_title 老师"]);
        assert_eq!(
            claims("我和老婆小雅住在苏州。"),
            ["Holds 我 wife 小雅", "Holds 我 lives_in 苏州"]
        );
        assert_eq!(
            claims("我以前住在重庆，现在住在厦门。"),
            ["Happened 我 lives_in 重庆", "Holds 我 lives_in 厦门"]
        );
        assert_eq!(claims("我以前在华为工作。"), ["Happened 我 works_at 华为"]);
        assert_eq!(
            claims("我开始在京东当产品经理。"),
            ["Holds 我 works_at 京东", "Holds 我 job_title 产品经理"]
        );
        assert_eq!(claims("我开一辆二手的比亚迪。"), ["Holds 我 owns 比亚迪"]);
        assert_eq!(claims("我对芒果过敏。"), ["Holds 我 allergic_to 芒果"]);
        // "No longer" ends what held; a bare "not" says it never did.
        assert_eq!(claims("我已经不在华为工作了。"), ["Ended 我 works_at 华为"]);
        assert_eq!(claims("我不在谷歌工作。"), ["Withdrawn 我 works_at 谷歌"]);
        assert_eq!(claims("我不住在东京。"), ["Withdrawn 我 lives_in 东京"]);
        assert_eq!(
            claims("我最喜欢的球队是湖人。"),
            ["Holds 我 favorite_team 湖人"]
        );
    }
}
