//! Chinese pastimes taken up and given up: "我开始学大提琴", "我最近开始
//! 跑步", "我学起了吉他", "我不学大提琴了", "我放弃了跑步". A pastime is the
//! speaker's `likes` while it lasts: taken up it holds, given up it ends.
//! ("迷上了", "爱上了" are tastes, read by the rule table.)
//!
//! Chinese marks no verb as an activity, so a pastime is either named
//! (an instrument, a sport, a craft, a language: `NAMED`) or the object of
//! a verb one takes a pastime up with ("学", "练", "弹", "打"): "我开始工作
//! 了" names none.

use std::sync::LazyLock;

use super::rules::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// Pastimes said by name: instruments, sports, crafts, languages.
const NAMED: &str = r"大提琴|小提琴|钢琴|吉他|电吉他|尤克里里|架子鼓|萨克斯|长笛|古筝|二胡|琵琶|笛子|瑜伽|普拉提|网球|乒乓球|羽毛球|篮球|足球|排球|高尔夫|围棋|象棋|国际象棋|摄影|书法|陶艺|冥想|芭蕾|跑步|游泳|爬山|攀岩|抱石|徒步|骑车|骑行|滑雪|冲浪|钓鱼|画画|唱歌|跳舞|健身|露营|烘焙|编织|下棋|登山|潜水|马拉松|拳击|太极拳|太极|武术|日语|韩语|英语|法语|德语|西班牙语";
/// The verbs a pastime is taken up with: learning, practising, playing.
const TAKEN_WITH: &str = r"学习|练习|学|练|弹|拉|打|玩|踢|跳|吹";

/// Tried before the rule table: "不学大提琴了" is no dislike.
pub(super) static PASTIMES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::{Ended, Holds};
    use Predicate::Fixed;
    let said = |re: &str, kind, confidence| {
        rule(
            &re.replace("{NAMED}", NAMED).replace("{WITH}", TAKEN_WITH),
            Fixed("likes"),
            kind,
            None,
            confidence,
        )
    };
    vec![
        // Given up first.
        said(r"{S}{A}(?:不再|不)(?:{WITH})?(?P<o>{NAMED})了", Ended, 0.7),
        said(r"{S}{A}(?:不再|不)(?:{WITH}){OW}了", Ended, 0.7),
        said(r"{S}{A}放弃了?(?:{WITH})?(?P<o>{NAMED})", Ended, 0.7),
        // "吉他我不学了": the pastime said first.
        said(r"(?P<o>{NAMED}){S}{A}(?:不再|不)(?:{WITH})?了", Ended, 0.7),
        // "我每周去抱石两次": a habit is a pastime.
        said(
            r"{S}{A}(?:每周|每天|每个周末|每周末|周末|经常|常常|平时|通常)(?:都|会)?去(?P<o>{NAMED})",
            Holds,
            0.65,
        ),
        said(r"{S}{A}开始(?:{WITH})?(?P<o>{NAMED})", Holds, 0.65),
        // "我在乐队里弹吉他", "我最近在学德语", "我每周踢足球": a pastime one
        // plays or learns now, wherever.
        said(
            r"{S}{A}(?:每周|每天|周末|平时|经常|常常)*(?:在\p{Han}{1,6}?(?:里|上|中))?(?:正在|一直在|在|经常|常常)*(?:{WITH})(?P<o>{NAMED})",
            Holds,
            0.6,
        ),
        said(r"{S}{A}开始(?:{WITH}){O}", Holds, 0.65),
        said(r"{S}{A}(?:{WITH})起了?{O}", Holds, 0.65),
    ]
});
