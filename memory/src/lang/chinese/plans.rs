//! Chinese plans called off: a move or a job that was to start and now
//! will not ("我们不搬去杭州了", "搬家的事泡汤了", "我拒绝了阿里巴巴的offer").
//! Consolidation withdraws what was to hold from after the message and
//! lets what it would have ended hold on (`ClaimKind::CalledOff`).

use std::sync::LazyLock;

use super::rules::{Predicate, Rule, rule};
use crate::claim::ClaimKind;

/// Tried before every other rule: "不搬去杭州了" is no home.
pub(super) static CALLED_OFF: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    use ClaimKind::CalledOff;
    use Predicate::Fixed;
    let off = |re: &str, predicate| rule(re, Fixed(predicate), CalledOff, None, 0.7);
    vec![
        // A job first: "不去X上班了" is no home.
        off(
            r"{S}{A}(?:还是|决定)?不去(?P<o>[^，。！？,.!?；;、\s]{1,20}?)(?:上班|工作|入职)了",
            "works_at",
        ),
        off(
            r"{S}{A}(?:还是|决定|最后)?(?:不搬到|不搬去|不去)(?P<o>[^，。！？,.!?；;、\s]{1,20}?)了",
            "lives_in",
        ),
        off(
            r"{S}{A}(?:还是|决定|最后|最终)?(?:不搬了|不搬家了|不打算搬了|不准备搬了|不搬走了)",
            "lives_in",
        ),
        off(
            r"(?:搬家|搬迁)(?:的事|的计划)?(?:取消了|泡汤了|黄了|告吹了|不成了|吹了)",
            "lives_in",
        ),
        off(
            r"{S}{A}还是(?:决定)?(?:留在|待在|呆在)[^，。！？,.!?；;、\s]+",
            "lives_in",
        ),
        off(
            r"{S}{A}(?:拒绝了|推掉了|婉拒了|没接受)(?:(?P<o>[^，。！？,.!?；;、\s]{1,20}?)的)?(?:offer|Offer|工作邀请|工作机会|录用通知|职位)",
            "works_at",
        ),
        off(
            r"(?P<o>[^，。！？,.!?；;、\s]{1,20}?)的(?:offer|Offer|录用通知)(?:黄了|没了|被撤回了|取消了|泡汤了)",
            "works_at",
        ),
    ]
});
