//! The Chinese rule table: each rule one way people say a fact in
//! Chinese, with the predicate it names, its kind and confidence. The
//! word lists the rules are built from live in `words.rs`.

use std::sync::LazyLock;

use super::words::{
    APPOSED_NAME, EVENTS, FAMILY, FAVORITES, NAME_FOLLOWS, PETS, TITLE, doubled_names,
};
use crate::claim::ClaimKind;
use crate::lang::alternatives;

/// A rule whose predicate is this language's [`Predicate`].
pub(super) type Rule = crate::lang::Rule<Predicate>;

pub(super) enum Predicate {
    Fixed(&'static str),
    /// A family word, mapped to its canonical predicate.
    Family,
    /// `favorite_` and the category, mapped.
    Favorite,
    /// An event verb, mapped to its canonical predicate.
    Event,
}

/// Who: the speaker, a relative by relation ("我妈妈", "我的丈夫"), or
/// a pronoun to resolve.
const SUBJECT: &str = r"(?P<s>我们|我的?(?:{RELATIVES})|我|他们|他|她们|她)";

/// The family words whose "我..." means one person.
fn relatives() -> String {
    crate::lang::relative_words(FAMILY)
}

/// [`SUBJECT`] as a pattern, the relatives put in.
pub(super) fn subject() -> String {
    SUBJECT.replace("{RELATIVES}", &relatives())
}
/// An object running to the clause's end (cut later by `clean` in claims.rs).
const OBJECT: &str = r"(?P<o>[^，。！？,.!?；;、\s]+)";
/// An object ended by what the pattern says next (`在{OW}工作`).
const OBJECT_WITHIN: &str = r"(?P<o>[^，。！？,.!?；;、\s]{1,20}?)";
/// A name: two to four Han characters, or a capitalised Latin word.
const NAME: &str =
    r"(?P<o>\p{Han}{2,4}?|[A-Z][a-z]+)(?:$|[^\p{Han}]|她|他|是|在|也|和|跟|住|今|上|要|会|刚)";
const ADVERBS: &str = r"(?:现在|目前|一直|还|也|已经|刚刚|刚|最近|终于|真的|其实|开始了|开始)*";

/// A rule from its pattern, the placeholders (`{S}`, `{O}`, `{NAME}`,
/// the word lists) put in.
pub(super) fn rule(
    re: &str,
    predicate: Predicate,
    kind: ClaimKind,
    object_kind: Option<&'static str>,
    confidence: f64,
) -> Rule {
    let re = re
        .replace("{S}", &subject())
        .replace("{A}", ADVERBS)
        .replace("{OW}", OBJECT_WITHIN)
        .replace("{O}", OBJECT)
        .replace("{NAME}", NAME)
        .replace("{APPOSED_NAME}", &format!("{APPOSED_NAME}{NAME_FOLLOWS}"))
        .replace("{APPOSED_S}", &APPOSED_NAME.replace("(?P<o>", "(?P<s>"))
        .replace("{DOUBLED}", &doubled_names())
        .replace("{TITLE_T}", &TITLE.replace("(?P<o>", "(?P<t>"))
        .replace("{TITLE}", TITLE)
        .replace("{FAMILY}", &alternatives(FAMILY))
        .replace("{PETS}", PETS)
        .replace("{EVENTS}", &alternatives(EVENTS))
        .replace("{FAVORITES}", &alternatives(FAVORITES));
    Rule::new(&re, predicate, kind, object_kind, confidence)
}

/// Every rule, tried in this order after the plans called off
/// ([`super::plans`]).
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::*;
    use Predicate::*;
    let work = Some("organisation");
    let place = Some("place");
    vec![
        // Withdrawals first: "我没有加入X" must not read as work.
        rule(
            r"{S}{A}(?:根本)?(?:从来)?(?:没有|没|并没有|从没|从未)(?:真正)?(?:加入|入职|去)(?:过)?{O}",
            Fixed("works_at"),
            Withdrawn,
            None,
            0.8,
        ),
        rule(
            r"{S}{A}(?:根本)?(?:从来)?(?:没有|没|并没有|从没|从未)在{OW}(?:工作|上班)",
            Fixed("works_at"),
            Withdrawn,
            None,
            0.8,
        ),
        rule(
            r"{S}{A}(?:根本)?(?:从来)?(?:没有|没|并没有|从没|从未)(?:住在|住过|搬到|搬去)(?:过)?{O}",
            Fixed("lives_in"),
            Withdrawn,
            None,
            0.8,
        ),
        // Work.
        // "不再" and "已经不" say it held and stopped; a bare "不" only
        // that it does not hold ("我不在谷歌工作"), as English "I don't
        // work at Google" is a withdrawal, never a past job.
        rule(
            r"{S}{A}(?:已经不|不再)在{OW}(?:工作|上班)",
            Fixed("works_at"),
            Ended,
            work,
            0.8,
        ),
        rule(
            r"{S}{A}不在{OW}(?:工作|上班)",
            Fixed("works_at"),
            Withdrawn,
            None,
            0.8,
        ),
        rule(
            r"{S}{A}(?:从)?{OW}(?:离职|辞职)",
            Fixed("works_at"),
            Ended,
            work,
            0.6,
        ),
        rule(r"{S}{A}(?:辞职|离职)", Fixed("works_at"), Ended, work, 0.6),
        rule(
            r"{S}{A}(?:被解雇|被开除|被裁员|被炒鱿鱼|退休)",
            Fixed("works_at"),
            Ended,
            None,
            0.6,
        ),
        rule(
            r"{S}{A}(?:离开了|离开|辞去了)(?:在)?{O}",
            Fixed("works_at"),
            Ended,
            work,
            0.6,
        ),
        // "我在阿斯利康找到了一份实验室经理的工作".
        rule(
            r"{S}{A}在{OW}(?:找到了|找到|得到了|拿到了|接受了)(?:一份|份)?(?:新的?)?{TITLE_T}的(?:工作|职位|岗位)",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        rule(
            r"{S}{A}在{OW}(?:工作|上班|任职|实习|教书|任教)",
            Fixed("works_at"),
            Holds,
            work,
            0.8,
        ),
        // "我作为艺术总监加入了Zalando": the title said first.
        rule(
            r"{S}{A}(?:作为|以)(?:一名|一个|一位)?{TITLE_T}(?:的身份)?(?:加入了|加入|入职了|入职){O}",
            Fixed("works_at"),
            Holds,
            work,
            0.8,
        ),
        rule(
            r"{S}{A}(?:加入了|加入|入职了|入职|跳槽到了|跳槽到|跳槽去了|跳槽去)(?:了)?{O}",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        rule(
            r"我的?(?:新)?(?:公司|工作单位|雇主)是{O}",
            Fixed("works_at"),
            Holds,
            work,
            0.7,
        ),
        // A job said by what one is where: "我是协和医院的护士" holds a
        // workplace and a title (`t` makes the second claim).
        rule(
            r"{S}{A}是{OW}的(?:一名|一个|一位|个|名)?{TITLE_T}",
            Fixed("works_at"),
            Holds,
            work,
            0.7,
        ),
        rule(
            r"{S}{A}在{OW}(?:当|做|担任)(?:一名|一个|一位|个|名)?{TITLE_T}",
            Fixed("works_at"),
            Holds,
            work,
            0.75,
        ),
        // "下周一去一家私人诊所上班": where one will work.
        rule(
            r"{S}{A}(?:要|将要|将|会)?(?:去|到)(?:一家|一间|这家|那家)?{OW}(?:上班|工作|任职)",
            Fixed("works_at"),
            Holds,
            work,
            0.7,
        ),
        rule(
            r"{S}{A}(?:是|当了|当|做|担任)(?:一名|一个|一位|个|名)?{TITLE}",
            Fixed("job_title"),
            Holds,
            None,
            0.6,
        ),
        // Home.
        rule(
            r"{S}{A}(?:已经不|不再)住在{O}",
            Fixed("lives_in"),
            Ended,
            place,
            0.7,
        ),
        rule(r"{S}{A}不住在{O}", Fixed("lives_in"), Withdrawn, None, 0.7),
        rule(
            r"{S}{A}(?:搬离了|搬离|搬出了|搬出)(?:了)?{O}",
            Fixed("lives_in"),
            Ended,
            place,
            0.7,
        ),
        // A past home or job: over the period the clause names, or, with
        // no period, one that has ended ("我以前住在成都").
        rule(
            r"{S}{A}(?:以前|之前|曾经|过去|原来)(?:一直)?住在{O}",
            Fixed("lives_in"),
            Happened,
            place,
            0.7,
        ),
        rule(
            r"{S}{A}(?:以前|之前|曾经|过去|原来)(?:一直)?在{OW}(?:工作|上班|任职)",
            Fixed("works_at"),
            Happened,
            work,
            0.7,
        ),
        // "我和老公马克住在上海": a relative named where one is with them,
        // read before what the two do together.
        rule(
            r"我(?:和|跟)(?:我的?)?(?P<rel>{FAMILY}){NAME}",
            Family,
            Holds,
            Some("person"),
            0.75,
        ),
        // With whom one lives (`w`) is no part of where.
        rule(
            r"{S}(?P<w>(?:和|跟)\p{Han}{1,8}?)?{A}住在{O}",
            Fixed("lives_in"),
            Holds,
            place,
            0.8,
        ),
        rule(
            r"{S}{A}(?:要|将要|将|会|(?P<plan>打算|准备|计划))?(?:搬到了|搬到|搬去了|搬去|搬家到|搬回了|搬回)(?:了)?{O}",
            Fixed("lives_in"),
            Holds,
            place,
            0.8,
        ),
        rule(
            r"{S}{A}(?:是)(?P<o>\p{Han}{2,6}?)人",
            Fixed("from"),
            Holds,
            place,
            0.6,
        ),
        rule(r"{S}{A}来自{O}", Fixed("from"), Holds, place, 0.6),
        // Names, age, family.
        rule(r"我(?:的名字)?叫{NAME}", Fixed("name"), Holds, None, 0.9),
        rule(r"我的名字是{NAME}", Fixed("name"), Holds, None, 0.9),
        rule(
            r"{S}{A}(?:今年)?(?:满|已经)?(?P<o>\d{1,3}|[一二三四五六七八九十]{1,3})(?:周)?岁",
            Fixed("age"),
            Holds,
            None,
            0.8,
        ),
        // "克拉拉是我表姐": the name first, at the clause's start.
        rule(
            r"^(?P<o>[^这那谁哪他她我你它\s，。！？,.!?]\p{Han}{1,3}?|[A-Z][a-z]+)是我的?(?P<rel>{FAMILY})",
            Family,
            Holds,
            Some("person"),
            0.75,
        ),
        rule(
            r"我的?(?P<rel>{FAMILY})(?:叫|名叫|的名字是|的名字叫|是){NAME}",
            Family,
            Holds,
            Some("person"),
            0.8,
        ),
        // "我男朋友小李和我在一起两年了": the name set beside the relation.
        rule(
            r"我的?(?P<rel>{FAMILY}){APPOSED_NAME}",
            Family,
            Holds,
            Some("person"),
            0.7,
        ),
        // "我女儿小雨满六岁了": the age of the one named beside the relation
        // (after the relation, which it leaves to be read).
        rule(
            r"我的?(?:{FAMILY}){APPOSED_S}(?:今年)?(?:满|已经)?(?P<o>\d{1,3}|[一二三四五六七八九十]{1,3})(?:周)?岁",
            Fixed("age"),
            Holds,
            None,
            0.8,
        ),
        rule(
            r"{S}(?:(?:和|跟)\p{Han}{1,8}?)?{A}(?P<o>订婚|结婚)了",
            Fixed("relationship_status"),
            Holds,
            None,
            0.7,
        ),
        // Endings: a partner, a pet.
        rule(
            r"{S}(?:和|跟)(?P<o>\p{Han}{1,4}?|[A-Z][a-z]+){A}(?:分手|离婚|分开)",
            Fixed(crate::claim::ANY_PARTNER),
            Ended,
            None,
            0.7,
        ),
        rule(
            r"{S}{A}(?:分手|离婚|分开)了",
            Fixed(crate::claim::ANY_PARTNER),
            Ended,
            None,
            0.7,
        ),
        rule(
            r"我(?:们)?的?(?P<o>{PETS})(?:已经)?(?:去世|死|走|病死|跑丢|丢)了",
            Fixed("has_pet"),
            Ended,
            None,
            0.7,
        ),
        // Pets and possessions.
        rule(
            r"我(?:们)?的?(?:{PETS})(?:叫|名叫|的名字是|的名字叫){NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        // "我领养了一只叫豆豆的小狗": the name before the pet.
        rule(
            r"{S}{A}(?:从[^，。！？,.!?；;]{1,10}?)?(?:养了|养着|养|有|领养了|收养了)(?:一只|一条|一匹|一头|只|条)(?:叫|名叫)(?P<o>\p{Han}{1,4}?|[A-Z][a-z]+)的(?:{PETS})",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S}{A}(?:从[^，。！？,.!?；;]{1,10}?)?(?:养了|养着|养|有|领养了|收养了)(?:一只|一条|一匹|一头|只|条)\p{Han}{0,3}?(?:{PETS}|犬)[，,]?(?:它)?(?:叫|名叫){NAME}",
            Fixed("has_pet"),
            Holds,
            Some("animal"),
            0.8,
        ),
        rule(
            r"{S}{A}(?:从[^，。！？,.!?；;]{1,10}?)?(?:养了|养着|养|有|领养了|收养了)(?:一只|一条|一匹|一头|两只|三只|只|条)(?P<o>{PETS})",
            Fixed("has_pet"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S}{A}(?:买了|购买了|入手了)(?:一辆|一台|一部|一个|一套|一只|一件|辆|台|部|个|套|件)?{O}",
            Fixed("owns"),
            Holds,
            None,
            0.6,
        ),
        rule(
            r"{S}{A}(?:开|开着)(?:一辆|辆)(?:新的|旧的|二手的|二手)?{O}",
            Fixed("owns"),
            Holds,
            None,
            0.6,
        ),
        // Allergies: "我对花生过敏".
        rule(
            r"{S}{A}对{OW}(?:严重|有点|很|非常)?过敏",
            Fixed("allergic_to"),
            Holds,
            None,
            0.75,
        ),
        // Tastes: dislikes before likes.
        rule(
            r"{S}{A}(?:很|非常|特别)?(?:不喜欢|讨厌|不爱|受不了|不再喜欢|不太喜欢)(?:吃|喝|看|玩|听)?{O}",
            Fixed("dislikes"),
            Holds,
            None,
            0.7,
        ),
        rule(
            r"{S}{A}(?:很|非常|特别|还是)?(?:喜欢|热爱|爱上了|迷上了|爱)(?:吃|喝|看|玩|听)?{O}",
            Fixed("likes"),
            Holds,
            None,
            0.65,
        ),
        rule(
            r"我最喜欢的(?P<cat>{FAVORITES})是{O}",
            Favorite,
            Holds,
            None,
            0.75,
        ),
        rule(
            r"{S}{A}(?:从(?P<from>[^，。！？,.!?；;]+?))?(?:换成了|换成|改用了|改用|换到了)(?P<o>[^，。！？,.!?；;、\s]+)",
            Fixed("uses"),
            Holds,
            None,
            0.6,
        ),
        // Plans and events.
        rule(
            r"{S}{A}(?:打算|计划|准备)(?P<o>[^，。！？,.!?；;、\s]+)",
            Fixed("plans"),
            Holds,
            None,
            0.55,
        ),
        rule(r"{S}{A}(?P<v>{EVENTS}){O}", Event, Happened, None, 0.5),
        // "她叫李娜": a name by a pronoun, which consolidation gives a
        // relative known only by relation; last, so that a pet named so
        // ("一只猫，她叫咪咪") is the pet's.
        rule(
            r"(?P<s>她|他)(?:叫|名叫|的名字是|的名字叫){NAME}",
            Fixed("name"),
            Holds,
            None,
            0.8,
        ),
    ]
});
