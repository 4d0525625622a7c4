//! The README's main job: the demo runs on a fresh database, answers its
//! questions correctly, and gives the same answers when it reopens the
//! database from disk.

// The shell's own demo module (the binary has no library to import).
#[path = "../src/demo.rs"]
mod demo;

fn run(dir: &std::path::Path) -> String {
    let mut out = Vec::new();
    demo::run(dir, &mut out).expect("demo runs");
    String::from_utf8(out).expect("utf-8")
}

/// The answer printed under `question`, up to the next blank line.
fn answer<'a>(output: &'a str, question: &str) -> Vec<&'a str> {
    let start = output
        .find(&format!("\n{question}\n"))
        .unwrap_or_else(|| panic!("no `{question}` in:\n{output}"));
    output[start + question.len() + 2..]
        .lines()
        .take_while(|l| !l.is_empty())
        .map(str::trim)
        .collect()
}

#[test]
fn the_demo_answers_on_both_time_axes_and_again_after_reopening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = run(dir.path());
    assert!(first.contains("wrote the story"));
    let second = run(dir.path());
    assert!(second.contains("reopened: the story is already on disk"));
    for output in [&first, &second] {
        assert_eq!(
            answer(output, "?- works_at(alice, Y) as_of t1."),
            ["Y", "tencent"]
        );
        assert_eq!(answer(output, "?- works_at(alice, Y)."), ["Y", "moonshot"]);
        assert_eq!(
            answer(output, "?- lives_in(alice, C) as_of 2024-06-10."),
            ["C", "shenzhen"]
        );
        assert_eq!(
            answer(output, "?- reach(alice, Y), not blocked(Y)."),
            ["Y", "bob", "carol", "erin"]
        );
        assert_eq!(
            answer(output, "?- colleague(X, Y) as_of 2025-06-01."),
            ["X | Y", "bob | carol", "carol | bob"]
        );
        let history = answer(output, "?- history works_at(bob, Y).");
        assert_eq!(
            history.len(),
            5,
            "header + tencent open, tencent cut, openai withdrawn, tencent whole again: {history:?}"
        );
        assert!(
            history[3].starts_with("openai | 2026-01-01 | inf |")
                && !history[3].contains("| inf | 5"),
            "the rumour is withdrawn in tx time: {}",
            history[3]
        );
        assert!(
            history[4].starts_with("tencent | 2026-01-01 | inf |")
                && history[4].ends_with("| inf | 6 | 1 | null"),
            "the correction gives bob's tencent job back the time the rumour took: {}",
            history[4]
        );
        // Retrieval: alice's messages come first, and as of 2022 only the
        // messages already true then can be found.
        let now = output
            .lines()
            .find(|l| l.starts_with("?- rrf(") && !l.contains("as_of"))
            .expect("an rrf question");
        let fused = answer(output, now);
        assert_eq!(fused[0], "Id | Score | Rank | Text");
        assert!(
            fused[1].starts_with("m") && fused[1].contains("Alice"),
            "{fused:?}"
        );
        let then = output
            .lines()
            .find(|l| l.starts_with("?- rrf(") && l.contains("as_of 2022-01-01"))
            .expect("an as-of rrf question");
        let fused = answer(output, then);
        assert!(fused.len() > 1, "{fused:?}");
        // The messages said before 2022 (the story's dates).
        let said_by_2022 = ["m1 |", "m2 |", "m6 |", "m7 |", "m8 |"];
        assert!(
            fused[1..]
                .iter()
                .all(|r| said_by_2022.iter().any(|id| r.starts_with(id))),
            "only messages valid in 2022: {fused:?}"
        );
        let known = output
            .lines()
            .find(|l| l.contains("known_at"))
            .expect("a known_at question");
        assert_eq!(
            answer(output, known),
            ["Y", "tencent"],
            "before the move was known"
        );
    }
}
