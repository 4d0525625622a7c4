//! How a context writes messages: grouped under the minute they were said,
//! each line `id speaker: what`. A tag on every line (`[2023-05-08 13:56
//! Caroline e3]`) took a third of a conversational message's tokens;
//! messages of one sitting share their minute, so the time is written once
//! per group. Public so that the evaluation's baselines (the full history,
//! plain BM25, the latest turns) render and count messages exactly as
//! contexts do.

use std::collections::HashSet;

use chronolog_engine::Timestamp;

use super::context::count_tokens;

/// One message's line, without its time (the group's header line holds
/// it): `e3 Caroline: I moved to Berlin.`
pub fn message_line(id: &str, role: &str, text: &str) -> String {
    format!("{id} {role}: {text}\n")
}

/// The line above the messages said at `at`'s minute: `[2023-05-08 13:56]`.
pub fn time_line(at: Timestamp) -> String {
    format!("[{}]\n", short_time(at))
}

/// Messages as a context shows them, in the order given (callers sort by
/// time): a time line whenever the minute changes, then each message's
/// line.
pub fn render_messages<'a>(messages: impl IntoIterator<Item = (Timestamp, &'a str)>) -> String {
    let mut out = String::new();
    let mut minute: Option<String> = None;
    for (at, line) in messages {
        let this = short_time(at);
        if minute.as_deref() != Some(this.as_str()) {
            out.push_str(&time_line(at));
            minute = Some(this);
        }
        out.push_str(line);
    }
    out
}

/// Tokens spent on messages chosen one by one, in any order, for a
/// context rendered with [`render_messages`] once they are sorted by time:
/// each message's line, and each distinct minute's time line once.
#[derive(Debug, Default)]
pub struct MessageBudget {
    minutes: HashSet<String>,
    used: usize,
}

impl MessageBudget {
    /// Nothing spent yet.
    pub fn new() -> MessageBudget {
        MessageBudget::default()
    }

    /// The tokens adding a message said at `at` with `line_tokens` would
    /// cost: its line, and its minute's time line if no message chosen
    /// before shares that minute.
    pub fn cost(&self, at: Timestamp, line_tokens: usize) -> usize {
        self.cost_with(at, line_tokens, count_tokens)
    }

    /// [`MessageBudget::cost`], the time line counted by `count` (a
    /// context's fill asks each minute's count of its cache; the tokenizer
    /// costs more than the rest of a fill).
    pub(crate) fn cost_with(
        &self,
        at: Timestamp,
        line_tokens: usize,
        count: impl FnOnce(&str) -> usize,
    ) -> usize {
        if self.minutes.contains(&short_time(at)) {
            line_tokens
        } else {
            line_tokens + count(&time_line(at))
        }
    }

    /// Counts a chosen message.
    pub fn take(&mut self, at: Timestamp, line_tokens: usize) {
        let cost = self.cost(at, line_tokens);
        self.take_at_cost(at, cost);
    }

    /// Counts a chosen message whose cost [`MessageBudget::cost_with`]
    /// just gave.
    pub(crate) fn take_at_cost(&mut self, at: Timestamp, cost: usize) {
        self.used += cost;
        self.minutes.insert(short_time(at));
    }

    /// Tokens spent so far.
    pub fn used(&self) -> usize {
        self.used
    }
}

/// An instant as a context shows it: a date, or a date and the minute
/// (UTC), which tokenizes in half the tokens of the ISO form
/// (`2023-05-08 13:56` against `2023-05-08T13:56:00Z`).
pub(crate) fn short_time(at: Timestamp) -> String {
    let full = at.to_string();
    match full.split_once('T') {
        Some((date, time)) => match time.get(..5) {
            Some(minute) => format!("{date} {minute}"),
            None => full.clone(),
        },
        None => full,
    }
}

/// An id as a context shows it: without its tenant, which every id of a
/// context shares (the JSON and `Item::id` keep it whole).
pub(crate) fn short_id<'a>(id: &'a str, tenant_prefix: &str) -> &'a str {
    id.strip_prefix(tenant_prefix).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Timestamp = Timestamp(1_683_504_000_000_000); // 2023-05-08

    fn at(h: i64, m: i64, s: i64) -> Timestamp {
        Timestamp(DAY.micros() + (h * 3600 + m * 60 + s) * 1_000_000)
    }

    #[test]
    fn a_context_shows_times_to_the_minute_and_ids_without_their_tenant() {
        assert_eq!(short_time(DAY), "2023-05-08");
        assert_eq!(short_time(at(13, 56, 7)), "2023-05-08 13:56");
        assert_eq!(short_time(Timestamp::MAX), "inf");
        assert_eq!(short_id("conv-26/e3", "conv-26/"), "e3");
        assert_eq!(short_id("other/e3", "conv-26/"), "other/e3");
        // Half the tokens of the ISO form.
        assert!(
            count_tokens(&short_time(at(13, 56, 7))) < count_tokens(&at(13, 56, 7).to_string())
        );
    }

    #[test]
    fn messages_of_one_minute_share_one_time_line() {
        let a = message_line("e1", "Caroline", "I went to a support group.");
        let b = message_line("e2", "Melanie", "That's brave!");
        let c = message_line("e9", "Caroline", "I moved.");
        let text = render_messages([
            (at(13, 56, 0), a.as_str()),
            (at(13, 56, 40), b.as_str()),
            (at(14, 2, 0), c.as_str()),
        ]);
        assert_eq!(
            text,
            "[2023-05-08 13:56]\ne1 Caroline: I went to a support group.\n\
             e2 Melanie: That's brave!\n[2023-05-08 14:02]\ne9 Caroline: I moved.\n"
        );
    }

    #[test]
    fn the_budget_counts_what_the_rendering_spends() {
        // Chosen out of time order, as a search chooses by score.
        let lines = [
            (
                at(14, 2, 0),
                message_line("e9", "Caroline", "I moved to Berlin last May."),
            ),
            (
                at(13, 56, 0),
                message_line("e1", "Caroline", "I went to a support group."),
            ),
            (
                at(13, 56, 30),
                message_line("e2", "Melanie", "That's brave of you!"),
            ),
        ];
        let mut budget = MessageBudget::new();
        for (when, line) in &lines {
            budget.take(*when, count_tokens(line));
        }
        let mut sorted: Vec<_> = lines.iter().map(|(w, l)| (*w, l.as_str())).collect();
        sorted.sort_by_key(|(w, _)| *w);
        assert_eq!(budget.used(), count_tokens(&render_messages(sorted)));
    }
}
