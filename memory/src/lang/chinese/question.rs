//! How a Chinese question reads: whether it speaks in the first person
//! (我), asks when (什么时候, 多久), about the past (以前, 曾经) or for
//! several things (哪些), and how it ties its time to the tenant's
//! timeline ("我搬到北京之前").

use std::sync::LazyLock;

use regex::Regex;

use super::{STOP, words};
use crate::lang::{QuestionWords, TimelineAnchor};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("{e}"))
}

static WHEN_WORDS: LazyLock<Regex> =
    LazyLock::new(|| re(r"什么时候|多久|多长时间|哪一年|哪年|几月|哪个月|哪天|哪一天|何时|几号"));
static PAST_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"以前|之前|过去|曾经|原来|从前|当初|一开始|不再|还在|仍然|依然|仍旧|还\p{Han}{1,4}吗")
});
static LIST_WORDS: LazyLock<Regex> = LazyLock::new(|| re(r"哪些|都有什么|有哪几"));
/// "几次", "多少个", "一共": a count is of several things, each said in
/// its own message.
static COUNT_WORDS: LazyLock<Regex> =
    LazyLock::new(|| re(r"几[个次场本位家]|多少[个次场本位家]|一共|总共|总计"));
/// "我搬到北京之前", "我在腾讯工作的时候": a fact's object, then the
/// word placing the question against it.
static ANCHOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:搬到|住在|在|去|加入|离开)(?P<x>\p{Han}{2,8}?)(?:工作|上班)?(?P<dir>之前|以前|之后|以后|的时候|时)",
    )
});
static PARTS: LazyLock<Regex> = LazyLock::new(|| re(r"[？?]|，?还有|，?另外|，?以及"));

/// What `question`'s words say.
pub(super) fn read(question: &str) -> QuestionWords {
    let anchor = ANCHOR.captures(question).and_then(|caps| {
        let (x, dir) = (caps.name("x")?, caps.name("dir")?);
        Some(TimelineAnchor {
            before: matches!(dir.as_str(), "之前" | "以前"),
            word: dir.as_str().to_string(),
            object: x.as_str().to_string(),
        })
    });
    // Chinese has no capitals to tell a name: every word of two
    // characters or more that is no stop word may be one the tenant
    // knows, and none is taken for an unknown name.
    let lower_words = words(question)
        .into_iter()
        .filter(|w| w.chars().count() >= 2 && !STOP.contains(&w.as_str()))
        .collect();
    // "你能", "请你" ask; any other "你" or "您", and "我们", refers to
    // what the one asked, or both, said.
    let requests = ["你能", "你可以", "您能", "您可以", "请你", "请您"]
        .iter()
        .map(|r| question.matches(r).count())
        .sum::<usize>();
    let second = question.matches(['你', '您']).count();
    let about_listener =
        question.contains("我们") || question.contains("咱们") || second > requests;
    QuestionWords {
        first_person: question.contains('我'),
        about_listener,
        names: Vec::new(),
        lower_words,
        asks_when: WHEN_WORDS.is_match(question),
        asks_past: PAST_WORDS.is_match(question) && anchor.is_none(),
        asks_list: LIST_WORDS.is_match(question) || COUNT_WORDS.is_match(question),
        anchor,
        relatives: relatives(question),
    }
}

/// "我妈妈", "我的丈夫": the relatives a question names by relation, as
/// family predicates.
fn relatives(question: &str) -> Vec<String> {
    static RELATIVE: LazyLock<Regex> = LazyLock::new(|| {
        let said = crate::lang::relative_words(super::words::FAMILY);
        Regex::new(&format!(r"我的?(?P<r>{said})")).unwrap_or_else(|e| unreachable!("{e}"))
    });
    crate::lang::relatives_found(&RELATIVE, question, super::words::FAMILY)
}

/// The parts of a question that asks several things ("我在哪里工作？住在
/// 哪里？", "我在哪里工作，还有我住在哪里").
pub(super) fn parts(question: &str) -> Vec<String> {
    let mut out: Vec<String> = PARTS
        .split(question)
        .map(|p| p.trim_matches(['，', ',', ' ']).to_string())
        .filter(|p| p.chars().count() >= 2)
        .collect();
    if out.is_empty() {
        out.push(question.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relatives_named_by_relation() {
        assert_eq!(read("我妈妈住在哪里？").relatives, ["mother"]);
        assert_eq!(read("我的丈夫在哪里工作？").relatives, ["husband"]);
        assert!(read("我同事住在哪里？").relatives.is_empty());
    }

    #[test]
    fn a_question_about_what_the_one_asked_said_is_told_from_a_request() {
        for about_listener in [
            "你上次推荐的餐厅叫什么？",
            "我们上次聊了什么？",
            "您说过鸡蛋要煮多久？",
        ] {
            assert!(read(about_listener).about_listener, "{about_listener}");
        }
        for request in [
            "你能推荐一些我上班路上可以做的事吗？",
            "请你提醒我把车停在哪里了。",
            "我在哪里工作？",
        ] {
            assert!(!read(request).about_listener, "{request}");
        }
    }

    #[test]
    fn cues_anchors_and_parts() {
        let q = read("我搬到北京之前在哪里工作？");
        assert!(q.first_person);
        let anchor = q.anchor.expect("anchor");
        assert!(anchor.before);
        assert_eq!(anchor.object, "北京");
        assert!(!q.asks_past);
        assert!(read("我什么时候加入月之暗面的？").asks_when);
        assert!(read("我以前住在哪里？").asks_past);
        // "Still" asks whether something held then holds now.
        assert!(read("我还弹大提琴吗？").asks_past);
        assert!(read("我还在腾讯工作吗？").asks_past);
        assert!(!read("我还有什么爱好？").asks_past);
        assert!(read("我喜欢哪些食物？").asks_list);
        assert!(read("我今年参加了几场婚礼？").asks_list);
        assert!(read("我一共在书上花了多少钱？").asks_list);
        assert!(!read("我每年挣多少钱？").asks_list);
        assert!(
            read("我的姐姐叫什么名字？")
                .lower_words
                .contains(&"姐姐".to_string())
        );
        assert_eq!(
            parts("我在哪里工作？住在哪里？"),
            ["我在哪里工作", "住在哪里"]
        );
        assert_eq!(parts("我在哪里工作？"), ["我在哪里工作"]);
    }
}
