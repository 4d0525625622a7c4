//! The acceptance conversations told and asked in Chinese: a job change
//! learned over time, a move, a corrected rumour, a question never
//! answered, two tenants (one named 张三), a conversation that switches
//! between English and Chinese. The same beliefs as their English twins.

use chronolog_memory::{Context, ItemKind, Memory, SearchOptions};

mod common;
use common::{believed, memory, ran, say, say_as};

fn ask(memory: &Memory, tenant: &str, question: &str) -> Context {
    memory
        .search(tenant, question, &SearchOptions::default())
        .expect("search")
}

fn fact_items(context: &Context) -> Vec<String> {
    context
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Fact)
        .map(|i| i.text.clone())
        .collect()
}

fn job_change(tenant: &str) -> Memory {
    let memory = memory();
    say(&memory, tenant, "2021-03-01", "我在腾讯工作，住在深圳。");
    say(&memory, tenant, "2021-05-01", "深圳的天气很潮湿。");
    say(
        &memory,
        tenant,
        "2024-06-01",
        "好消息：我刚加入了月之暗面！",
    );
    memory.consolidate_now().expect("consolidate");
    memory
}

#[test]
fn a_job_change_in_chinese_supersedes_the_old_job() {
    let memory = job_change("张三");
    assert_eq!(
        believed(&memory, "张三", "2022-01-01", "works_at"),
        ["腾讯"]
    );
    assert_eq!(
        believed(&memory, "张三", "2025-01-01", "works_at"),
        ["月之暗面"]
    );
    assert_eq!(
        believed(&memory, "张三", "2025-01-01", "lives_in"),
        ["深圳"]
    );
    // Invalidated, not deleted: the new job's version names the old.
    let history = memory.history("张三", "user").expect("history");
    assert!(
        history
            .iter()
            .any(|f| f.object == "月之暗面" && f.supersedes.as_deref() == Some("腾讯")),
        "{history:#?}"
    );

    let context = ask(&memory, "张三", "我在哪里工作？");
    assert!(!context.abstain, "{context:#?}");
    let facts = fact_items(&context);
    assert!(
        facts.iter().any(|f| f.contains("工作单位：月之暗面")),
        "{facts:?}"
    );
    // Paraphrases ask the same fact by its predicate.
    for question in ["我现在在哪家公司？", "我的雇主是谁？", "我在哪儿上班？"]
    {
        let context = ask(&memory, "张三", question);
        assert!(!context.abstain, "{question}: {context:#?}");
        let facts = fact_items(&context);
        assert!(
            facts.iter().any(|f| f.contains("工作单位：月之暗面")),
            "{question}: {facts:?}"
        );
    }
    // A question's own time reads the facts of then.
    let then = ask(&memory, "张三", "2022年我在哪里工作？");
    assert!(!then.abstain, "{then:#?}");
    let facts = fact_items(&then);
    assert!(
        facts.iter().any(|f| f.contains("工作单位：腾讯")),
        "{facts:?}"
    );
    assert!(!facts.iter().any(|f| f.contains("月之暗面")), "{facts:?}");
}

#[test]
fn a_question_never_answered_in_chinese_abstains_and_a_said_one_does_not() {
    let memory = job_change("u1");
    let never = ask(&memory, "u1", "我的猫叫什么名字？");
    assert!(never.abstain, "{never:#?}");
    assert!(never.items.is_empty());
    let said = ask(&memory, "u1", "深圳的天气怎么样？");
    assert!(!said.abstain, "{said:#?}");
    assert!(said.to_text().contains("潮湿"), "{}", said.to_text());
    // A word inside a clause is found by the word channels.
    let word = ask(&memory, "u1", "腾讯");
    assert!(!word.abstain, "{word:#?}");
}

#[test]
fn a_rumour_withdrawn_in_chinese_gives_the_old_job_back() {
    let memory = memory();
    say(&memory, "u1", "2021-03-01", "我在腾讯工作。");
    say(&memory, "u1", "2024-03-01", "我上周加入了OpenAI。");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "u1", "2024-03-02", "works_at"),
        ["OpenAI"]
    );
    say(
        &memory,
        "u1",
        "2024-04-01",
        "其实我没有加入OpenAI，那是谣言。",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u1", "2024-04-02", "works_at"), ["腾讯"]);
}

#[test]
fn a_move_in_chinese_is_read_with_its_time() {
    let memory = memory();
    say(&memory, "u1", "2023-05-17", "我住在上海。");
    say(&memory, "u1", "2024-05-17", "去年三月我搬到了北京。");
    memory.consolidate_now().expect("consolidate");
    // Said in 2024, 去年三月 is March 2023: Shanghai ends there.
    assert_eq!(believed(&memory, "u1", "2023-04-01", "lives_in"), ["北京"]);
    let context = ask(&memory, "u1", "我搬到北京之前住在哪里？");
    assert!(!context.abstain, "{context:#?}");
}

#[test]
fn a_move_at_a_lunar_festival_is_read_with_its_date_and_asked_by_one() {
    let memory = memory();
    say(&memory, "u1", "2022-06-01", "我住在上海。");
    // Said in 2024, 去年春节 is the Spring Festival of 2023 (January 22).
    say(&memory, "u1", "2024-05-17", "去年春节前后我搬到了北京。");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u1", "2023-01-10", "lives_in"), ["上海"]);
    assert_eq!(believed(&memory, "u1", "2023-01-20", "lives_in"), ["北京"]);
    // A question asked as of a festival: the Mid-Autumn Festival of 2022
    // (September 10) was in Shanghai.
    let context = ask(&memory, "u1", "2022年中秋节的时候我住在哪里？");
    assert!(
        context
            .as_of_because
            .as_deref()
            .is_some_and(|b| b.contains("中秋")),
        "{context:#?}"
    );
    let facts = fact_items(&context);
    assert!(
        facts.first().is_some_and(|f| f.contains("上海")),
        "{facts:#?}"
    );
}

#[test]
fn tenants_in_chinese_never_see_each_other_and_a_conversation_may_switch_languages() {
    let memory = memory();
    say(&memory, "张三", "2023-01-01", "我在腾讯工作。");
    say(&memory, "李四", "2023-01-01", "我在阿里巴巴工作。");
    say(
        &memory,
        "李四",
        "2023-02-01",
        "I moved to Hangzhou last week.",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "张三", "2024-01-01", "works_at"),
        ["腾讯"]
    );
    assert_eq!(
        believed(&memory, "李四", "2024-01-01", "works_at"),
        ["阿里巴巴"]
    );
    assert_eq!(
        believed(&memory, "李四", "2024-01-01", "lives_in"),
        ["Hangzhou"]
    );
    let context = ask(&memory, "张三", "我在哪里工作？");
    assert!(
        !context.to_text().contains("阿里巴巴"),
        "{}",
        context.to_text()
    );
    // Each message was read in its own language: the English one by the
    // English rules, found by an English question.
    let english = ask(&memory, "李四", "Where did I move to?");
    assert!(!english.abstain, "{english:#?}");
}

#[test]
fn a_correction_in_chinese_withdraws_the_value_it_denies() {
    let memory = memory();
    say(&memory, "u1", "2024-01-01", "我在腾讯工作。");
    say(
        &memory,
        "u1",
        "2024-02-01",
        "不对，其实我在阿里巴巴工作，不是腾讯。",
    );
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "u1", "2024-03-01", "works_at"),
        ["阿里巴巴"]
    );
    assert!(believed(&memory, "u1", "2024-01-15", "works_at").is_empty());
}

#[test]
fn what_a_chinese_question_asks_by_its_predicate_leads() {
    let memory = memory();
    say(&memory, "u1", "2022-01-10", "我叫王伟，今年三十岁。");
    say(&memory, "u1", "2022-01-10", "我住在上海，在字节跳动上班。");
    say(&memory, "u1", "2023-03-01", "我上个月搬到了杭州。");
    say(&memory, "u1", "2023-03-02", "我喜欢爬山，不喜欢跑步。");
    memory.consolidate_now().expect("consolidate");
    for (question, expected) in [
        ("我住在哪里？", "居住地：杭州"),
        ("我多大了？", "年龄：30"),
        ("我在哪里上班？", "工作单位：字节跳动"),
    ] {
        let context = ask(&memory, "u1", question);
        let facts = fact_items(&context);
        assert!(
            facts.first().is_some_and(|f| f.contains(expected)),
            "{question}: {facts:?}"
        );
    }
}

#[test]
fn endings_in_chinese_end_what_they_name_and_until_bounds_a_job() {
    let memory = memory();
    say(&memory, "u1", "2022-01-01", "我的狗叫旺财。");
    say(&memory, "u1", "2022-03-01", "我在腾讯工作。");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u1", "2023-01-01", "has_pet"), ["旺财"]);
    say(&memory, "u1", "2024-05-10", "我的狗去世了。");
    say(&memory, "u1", "2024-05-12", "我被裁员了。");
    memory.consolidate_now().expect("consolidate");
    assert!(believed(&memory, "u1", "2024-06-01", "has_pet").is_empty());
    assert!(believed(&memory, "u1", "2024-06-01", "works_at").is_empty());
    assert_eq!(believed(&memory, "u1", "2024-05-11", "works_at"), ["腾讯"]);

    say(&memory, "u2", "2024-06-15", "我在IBM工作到2020年。");
    memory.consolidate_now().expect("consolidate");
    assert_eq!(believed(&memory, "u2", "2019-06-01", "works_at"), ["IBM"]);
    assert!(believed(&memory, "u2", "2021-01-01", "works_at").is_empty());
}

#[test]
fn a_budget_holds_in_chinese_and_a_larger_one_holds_more() {
    let memory = job_change("u9");
    for i in 1..=12 {
        say(
            &memory,
            "u9",
            "2024-07-01",
            &format!("这周我在月之暗面做了规划器的第{i}部分。"),
        );
    }
    memory.consolidate_now().expect("consolidate");
    let context = common::check_budgets(&memory, "u9", "我在哪里工作？", &[0, 15, 60, 200, 2_000]);
    assert!(!context.abstain, "{context:#?}");
    assert!(
        fact_items(&context)
            .first()
            .is_some_and(|f| f.contains("月之暗面")),
        "{context:#?}"
    );
}

#[test]
fn a_question_in_the_first_person_in_chinese_searches_the_users_own_words() {
    let memory = memory();
    let said = |role: &str, text: &str| say_as(&memory, "zh", role, "2023-05-20", text);
    let user = said("user", "上周我因为鼻窦问题去看了帕特尔医生。");
    said("assistant", "鼻窦问题？耳鼻喉科医生治疗鼻窦问题。");
    said("user", "谢谢！我今天还要给番茄浇水。");
    memory.consolidate_now().expect("consolidate");

    let context = ask(&memory, "zh", "我因为鼻窦问题看了哪位医生？");
    assert!(ran(&context, "user_words"), "{:?}", context.channels);
    assert_eq!(context.ranked_episodes.first(), Some(&user), "{context:#?}");
    let about_doctors = ask(&memory, "zh", "哪位医生治疗鼻窦问题？");
    assert!(
        !ran(&about_doctors, "user_words"),
        "{:?}",
        about_doctors.channels
    );
}

/// A life told the everyday way: a job said by what one is where, a job
/// quit and the next one started, a relation corrected; asked by its
/// paraphrases.
#[test]
fn a_job_said_by_what_one_is_where_is_asked_by_its_paraphrases_in_chinese() {
    let memory = memory();
    let dates = ["2024-01-10", "2024-02-03", "2024-05-20", "2024-06-01"];
    for (date, text) in dates.iter().zip([
        "我是利兹协和医院的护士。",
        "我姐姐克拉拉刚生了双胞胎！",
        "我从医院辞职了，下周一去一家私人诊所上班。",
        "不好意思，克拉拉是我表姐，不是我姐姐。",
    ]) {
        say(&memory, "zh", date, text);
    }
    memory.consolidate_now().expect("consolidate");
    assert_eq!(
        believed(&memory, "zh", "2025-01-01", "works_at"),
        ["私人诊所"]
    );
    assert_eq!(believed(&memory, "zh", "2025-01-01", "job_title"), ["护士"]);
    assert_eq!(believed(&memory, "zh", "2025-01-01", "cousin"), ["克拉拉"]);
    assert!(believed(&memory, "zh", "2025-01-01", "sister").is_empty());
    for question in ["我在哪里上班？", "我的职业是什么？"] {
        let context = ask(&memory, "zh", question);
        assert!(!context.abstain, "{question}: {context:#?}");
    }
    let work = ask(&memory, "zh", "我在哪里上班？");
    assert!(fact_items(&work)[0].contains("私人诊所"), "{work:#?}");
}
