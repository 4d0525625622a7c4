//! How a context writes a fact in Chinese: a label for its predicate
//! ("工作单位：月之暗面"), and the words of its interval.

use super::words::FAVORITES;
use crate::lang::FactWords;

pub(super) const WORDS: FactWords = FactWords {
    now: "至今",
    past: "过去",
    from: "从",
    until: "到",
    replaced: "取代",
};

/// The label of each canonical predicate the rules make.
const LABELS: &[(&str, &str)] = &[
    ("works_at", "工作单位"),
    ("lives_in", "居住地"),
    ("job_title", "职位"),
    ("age", "年龄"),
    ("name", "名字"),
    ("from", "来自"),
    ("relationship_status", "感情状况"),
    ("likes", "喜欢"),
    ("dislikes", "不喜欢"),
    ("has_pet", "宠物"),
    ("owns", "拥有"),
    ("plans", "计划"),
    ("uses", "使用"),
    ("sister", "姐妹"),
    ("brother", "兄弟"),
    ("mom", "妈妈"),
    ("mother", "母亲"),
    ("dad", "爸爸"),
    ("father", "父亲"),
    ("wife", "妻子"),
    ("husband", "丈夫"),
    ("partner", "伴侣"),
    ("boyfriend", "男朋友"),
    ("girlfriend", "女朋友"),
    ("son", "儿子"),
    ("daughter", "女儿"),
    ("best_friend", "最好的朋友"),
    ("friend", "朋友"),
    ("cousin", "表亲"),
    ("aunt", "阿姨"),
    ("uncle", "叔叔"),
    ("grandma", "奶奶"),
    ("grandmother", "祖母"),
    ("grandpa", "爷爷"),
    ("grandfather", "祖父"),
    ("boss", "老板"),
    ("colleague", "同事"),
    ("roommate", "室友"),
    ("fiancee", "未婚妻"),
    ("fiance", "未婚夫"),
    ("niece", "侄女"),
    ("nephew", "侄子"),
    ("went_to", "去了"),
    ("attended", "参加了"),
    ("visited", "参观了"),
    ("traveled_to", "去旅行"),
    ("travelled_to", "去旅行"),
    ("signed_up_for", "报名参加了"),
    ("volunteered_at", "做志愿者"),
    ("took_part_in", "参与了"),
    ("participated_in", "参与了"),
    ("gave_a_talk_at", "演讲于"),
    ("ran", "跑了"),
    ("started", "开始了"),
    ("finished", "完成了"),
    ("painted", "画了"),
    ("adopted", "领养了"),
    ("graduated_from", "毕业于"),
    ("got_married", "结婚"),
    ("got_engaged", "订婚"),
    ("took", "上了"),
    ("joined", "加入了"),
];

/// `subject 工作单位：object`; a predicate without a label (an
/// extractor's own) as its words.
pub(super) fn phrase(subject: &str, predicate: &str, object: &str) -> String {
    let label = |predicate: &str| {
        crate::lang::fact_label(predicate, LABELS, FAVORITES, |word| {
            format!("最喜欢的{word}")
        })
    };
    // A relative known by relation, in this language's words.
    let subject = match crate::lang::relative_of(subject) {
        Some((owner, relation)) => format!("{owner}的{}", label(&relation)),
        None => subject.to_string(),
    };
    format!("{subject} {}：{object}", label(predicate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_predicates_have_chinese_labels_and_others_keep_their_words() {
        assert_eq!(
            phrase("user's mother", "lives_in", "广州"),
            "user的母亲 居住地：广州"
        );
        assert_eq!(phrase("user", "works_at", "腾讯"), "user 工作单位：腾讯");
        assert_eq!(
            phrase("user", "favorite_color", "蓝色"),
            "user 最喜欢的颜色：蓝色"
        );
        assert_eq!(phrase("user", "sister", "小美"), "user 姐妹：小美");
        assert_eq!(
            phrase("user", "is_employed_at", "腾讯"),
            "user is employed at：腾讯"
        );
    }

    #[test]
    fn every_family_and_event_predicate_has_a_label() {
        crate::lang::assert_labels_cover_the_rules(LABELS);
    }
}
