//! Chinese (Mandarin, simplified and traditional characters alike): words
//! are the engine's (`chronolog_engine::words`, jieba's dictionary), so
//! the gate compares exactly the words `bm25` indexed; there is no stem
//! and no case; 我/我们 are the first person, 你/您 the second.

mod claims;
mod facts;
mod pastimes;
mod plans;
mod question;
mod rules;
mod time;
mod words;

use std::sync::LazyLock;

use regex::Regex;

use super::{FactWords, Language, Person, QuestionWords, TimePhrase};
use crate::claim::{Claim, EpisodeView};

/// The Chinese reader.
pub(super) struct Chinese;

/// Words that carry no topic of their own: particles, pronouns, question
/// words, the commonest verbs and adverbs.
const STOP: &[&str] = &[
    "的",
    "了",
    "是",
    "在",
    "我",
    "你",
    "您",
    "他",
    "她",
    "它",
    "我们",
    "你们",
    "他们",
    "她们",
    "吗",
    "呢",
    "吧",
    "啊",
    "呀",
    "和",
    "与",
    "也",
    "都",
    "就",
    "还",
    // "Still": the question asks whether it holds now, not about it.
    "还是",
    "还在",
    "仍然",
    "依然",
    "又",
    "很",
    "什么",
    "哪里",
    "哪儿",
    "哪",
    "谁",
    "怎么",
    "怎样",
    "为什么",
    "几",
    "多少",
    "这",
    "那",
    "这个",
    "那个",
    "一个",
    "有",
    "没有",
    "个",
    "么",
    "请",
    "告诉",
    "记得",
    "知道",
    "现在",
    "以前",
    "之前",
    "过",
    "着",
    "把",
    "被",
    "给",
    "对",
    "从",
    "到",
    "为",
    "上",
    "下",
    "里",
    "中",
    "啦",
    "嗯",
    "哦",
    "名字",
    "叫",
    "什么样",
    "哪个",
    "哪些",
    "哪家",
    "哪儿",
    "时候",
    "什么时候",
    "多久",
    "会",
    "要",
    "想",
    "能",
    "可以",
    "吗",
    "得",
    "地",
    "去",
    "做",
    "说",
    "让",
    "自己",
    "东西",
    "事",
    "事情",
    "一下",
];

/// The words of `text`, lower-cased, as the engine cuts them.
fn words(text: &str) -> Vec<String> {
    chronolog_engine::words(text)
        .into_iter()
        .map(|(_, w)| w.to_lowercase())
        .collect()
}

impl Language for Chinese {
    fn claims(&self, episode: &EpisodeView<'_>) -> Vec<Claim> {
        claims::claims(episode)
    }

    fn emphasised(&self, text: &str) -> bool {
        static EMPHASIS: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"记住|记得|别忘了|不要忘记|不要忘了|重要|请注意")
                .unwrap_or_else(|e| unreachable!("{e}"))
        });
        EMPHASIS.is_match(text)
    }

    fn mentions<'t>(&self, text: &'t str) -> Vec<&'t str> {
        // No capitals: every word of two characters or more, and every
        // Latin word, may be a name the tenant knows.
        chronolog_engine::words(text)
            .into_iter()
            .map(|(_, w)| w)
            .filter(|w| w.chars().count() >= 2 && !STOP.contains(w))
            .collect()
    }

    fn time_phrases(&self, text: &str) -> Vec<TimePhrase> {
        time::phrases(text)
    }

    fn read_question(&self, question: &str) -> QuestionWords {
        question::read(question)
    }

    fn question_parts(&self, question: &str) -> Vec<String> {
        question::parts(question)
    }

    fn sentences<'t>(&self, text: &'t str) -> Vec<&'t str> {
        text.split_inclusive(['。', '！', '？', '!', '?', '；', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    }

    fn words(&self, text: &str) -> Vec<String> {
        words(text)
    }

    fn stem(&self, word: &str) -> String {
        word.to_string()
    }

    fn is_stop_word(&self, word: &str) -> bool {
        STOP.contains(&word)
    }

    fn topic_words(&self, question: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in words(&asked_as(question)) {
            if !STOP.contains(&w.as_str()) && !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }

    fn same_word(&self, topic: &str, word: &str) -> bool {
        // The dictionary cuts a phrase differently by what is around it
        // ("我的猫叫什么" has 猫叫, "我养了一只猫" has 猫): one word inside
        // the other is the same topic.
        !word.is_empty() && (topic.contains(word) || word.contains(topic))
    }

    fn fact_phrase(&self, subject: &str, predicate: &str, object: &str) -> String {
        facts::phrase(subject, predicate, object)
    }

    fn fact_words(&self) -> &'static FactWords {
        &facts::WORDS
    }

    fn asks_predicate(&self, word: &str) -> bool {
        LEXICON.iter().any(|(entry, _)| {
            word == *entry
                || (entry.chars().count() >= 2 && (entry.contains(word) || word.contains(entry)))
        })
    }

    fn predicates_asked(&self, question: &str) -> Vec<&'static str> {
        let question = asked_as(question);
        let question = question.as_str();
        // A one-character entry (住, 家, 岁) must be the word itself: inside
        // a longer word it is often something else (记住, 大家).
        let mut out: Vec<&'static str> = Vec::new();
        // An entry of two characters or more anywhere in the question
        // counts, however the dictionary cut it ("多大" in "我多大了").
        for (entry, predicates) in LEXICON {
            if entry.chars().count() >= 2 && question.contains(entry) {
                for p in *predicates {
                    if !out.contains(p) {
                        out.push(p);
                    }
                }
            }
        }
        for word in words(question) {
            for (entry, predicates) in LEXICON {
                let hit = word == *entry || (entry.chars().count() >= 2 && word.contains(entry));
                for p in predicates.iter().filter(|_| hit) {
                    if !out.contains(p) {
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    fn person(&self, word: &str) -> Option<Person> {
        match word {
            "我" | "我们" | "咱们" | "我的" => Some(Person::First),
            "你" | "您" | "你们" | "你的" => Some(Person::Second),
            _ => None,
        }
    }
}

/// `question` with its phrases that ask a predicate as one word says it:
/// "业余时间" is 业余, which asks for pastimes, and "我还是老师吗？" asks
/// the job (工作), whichever it is now.
fn asked_as(question: &str) -> String {
    let question = IDLE_TIME.replace_all(question, "$idle");
    IS_A_TRADE
        .replace_all(&question, "${ask}工作${end}")
        .into_owned()
}

/// "我还是老师吗？", "小李是护士吗？", "我还在当老师吗？": whether one
/// is of a trade.
static IS_A_TRADE: LazyLock<Regex> = LazyLock::new(|| {
    let trade = format!(
        r"(?P<ask>(?:是|当|做)(?:一名|一个|一位)?){}(?P<end>吗|么)",
        words::TITLE.replace("(?P<o>", "(?:")
    );
    Regex::new(&trade).unwrap_or_else(|e| unreachable!("{e}"))
});

/// "业余时间", "空闲时间": the time is said by the word before it, which
/// asks for pastimes; "时间" is no topic of its own there.
static IDLE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?P<idle>业余|空闲|闲暇|空余|休闲)时间").unwrap_or_else(|e| unreachable!("{e}"))
});

/// The words that ask about a canonical predicate.
const LEXICON: &[(&str, &[&str])] = &[
    ("工作", &["works_at", "job_title"]),
    // "我老婆是做什么的": what one does for a living.
    ("做什么的", &["works_at", "job_title"]),
    ("上班", &["works_at"]),
    ("公司", &["works_at"]),
    ("单位", &["works_at"]),
    ("雇主", &["works_at"]),
    ("就职", &["works_at"]),
    ("职业", &["job_title"]),
    ("职位", &["job_title"]),
    ("住", &["lives_in"]),
    ("住在", &["lives_in"]),
    ("家", &["lives_in"]),
    ("城市", &["lives_in"]),
    ("老家", &["from"]),
    ("出生", &["from"]),
    ("年龄", &["age"]),
    ("多大", &["age"]),
    ("岁", &["age"]),
    ("几岁", &["age"]),
    ("多少岁", &["age"]),
    ("宠物", &["has_pet"]),
    ("狗", &["has_pet"]),
    ("猫", &["has_pet"]),
    // "我的猫叫什么": the dictionary cuts "猫叫" (a cat's cry).
    ("的猫", &["has_pet"]),
    ("的狗", &["has_pet"]),
    ("爱好", &["likes"]),
    ("兴趣", &["likes"]),
    ("运动", &["likes"]),
    ("乐器", &["likes"]),
    ("业余", &["likes"]),
    ("空闲", &["likes"]),
    ("闲暇", &["likes"]),
    ("空余", &["likes"]),
    ("休闲", &["likes"]),
    ("弹", &["likes"]),
    ("喜欢", &["likes"]),
    ("讨厌", &["dislikes"]),
    ("结婚", &["relationship_status", "wife", "husband"]),
    ("姐姐", &["sister"]),
    ("妹妹", &["sister"]),
    ("哥哥", &["brother"]),
    ("弟弟", &["brother"]),
    ("妻子", &["wife"]),
    ("老婆", &["wife"]),
    ("丈夫", &["husband"]),
    ("老公", &["husband"]),
    ("男朋友", &["boyfriend"]),
    ("女朋友", &["girlfriend"]),
    ("儿子", &["son"]),
    ("妈妈", &["mother", "mom"]),
    ("母亲", &["mother", "mom"]),
    ("爸爸", &["father", "dad"]),
    ("父亲", &["father", "dad"]),
    // 指几位亲属的词问每一位。
    ("兄弟姐妹", &["brother", "sister"]),
    ("父母", &["mother", "father", "mom", "dad"]),
    ("孩子", &["son", "daughter"]),
    ("子女", &["son", "daughter"]),
    ("女儿", &["daughter"]),
    ("老板", &["boss"]),
    ("过敏", &["allergic_to"]),
    ("打算", &["plans"]),
    ("计划", &["plans"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_topics_and_persons() {
        assert_eq!(Chinese.topic_words("我在哪里工作？"), ["工作"]);
        assert!(Chinese.same_word("猫叫", "猫"));
        assert!(!Chinese.same_word("工作", "猫"));
        assert_eq!(Chinese.person("我"), Some(Person::First));
        assert_eq!(Chinese.person("您"), Some(Person::Second));
        assert_eq!(
            Chinese.sentences("我在腾讯工作。你呢？"),
            ["我在腾讯工作。", "你呢？"]
        );
        assert!(Chinese.emphasised("请记住我对花生过敏"));
        assert_eq!(Chinese.predicates_asked("我多大了？"), ["age"]);
        assert_eq!(Chinese.predicates_asked("我住在哪里？"), ["lives_in"]);
    }
}
