//! Cutting typed or scripted text into what the shell runs: shell commands
//! (`:timing on`: one line each) and language text (statements, which end
//! with a `.` and may span lines).

/// The shell's own commands. `:create` and `:describe` are not here: they
/// are language statements and end with a `.` like any other.
pub const COMMANDS: &[&str] = &[
    "help",
    "relations",
    "schema",
    "load",
    "explain",
    "timing",
    "format",
    "maxrows",
    "history",
    "import",
    "remember",
    "consolidate",
    "recall",
    "forget",
    "quit",
    "exit",
];

/// One piece of input, with its byte offset in the text it came from (so
/// that errors count lines and columns from there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry<'a> {
    /// `:name rest of the line`
    Command {
        /// The command's name, without the colon.
        name: &'a str,
        /// Everything after the name, trimmed.
        arg: &'a str,
    },
    /// Language text: one or more whole statements.
    Statements {
        /// The text.
        text: &'a str,
        /// Where it starts in the source.
        offset: usize,
    },
}

/// The command on this line, if the line is one.
pub fn command(line: &str) -> Option<Entry<'_>> {
    let rest = line.trim().strip_prefix(':')?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let name = &rest[..end];
    COMMANDS.contains(&name).then(|| Entry::Command {
        name,
        arg: rest[end..].trim(),
    })
}

/// Whether `text` is ready to run: empty, a command line, or statements
/// whose last significant character (outside strings and comments) is the
/// `.` that ends a statement. The interactive shell keeps reading lines
/// until this holds.
pub fn is_complete(text: &str) -> bool {
    let one_line = !text.trim().contains('\n');
    if text.trim().is_empty() || one_line && (command(text).is_some() || unknown_command(text)) {
        return true;
    }
    last_significant(text) == Some('.')
}

/// `:bogus` on a line of its own: complete, so that the language's error
/// about it shows at once instead of the shell waiting for a `.`.
fn unknown_command(line: &str) -> bool {
    line.trim().strip_prefix(':').is_some_and(|rest| {
        !["create", "describe", "relations"]
            .iter()
            .any(|statement| rest.starts_with(statement))
    })
}

/// Whether `text` holds nothing but whitespace and comments.
pub fn is_blank(text: &str) -> bool {
    last_significant(text).is_none()
}

/// The last character that is not whitespace or part of a comment; an
/// unterminated string counts as a letter (the statement is not over).
fn last_significant(text: &str) -> Option<char> {
    let mut tail = Tail::default();
    tail.feed(text);
    tail.last
}

/// What `last_significant` knows about text read so far, kept between
/// pieces so that a script is scanned once, not once per line (a 70,000-
/// line script was quadratic).
#[derive(Default)]
struct Tail {
    last: Option<char>,
    /// Inside a string literal (which may span lines).
    in_string: bool,
    /// Just after a backslash inside a string.
    escaped: bool,
}

impl Tail {
    fn feed(&mut self, text: &str) {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if self.in_string {
                match c {
                    _ if self.escaped => self.escaped = false,
                    '\\' => self.escaped = true,
                    '"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => {
                    self.last = Some('"');
                    self.in_string = true;
                }
                '%' => skip_line(&mut chars),
                '/' if chars.peek() == Some(&'/') => skip_line(&mut chars),
                c if c.is_whitespace() => {}
                c => self.last = Some(c),
            }
        }
    }
}

fn skip_line(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if c == '\n' {
            break;
        }
    }
}

/// Cuts a script into entries: each command line on its own, and each run
/// of language lines between commands as one entry (so consecutive facts
/// stay one transaction, as the language defines). A line that starts with
/// `:` in the middle of an unfinished statement belongs to the statement.
pub fn split(source: &str) -> Vec<Entry<'_>> {
    let mut entries = Vec::new();
    let mut pending: Option<usize> = None;
    // The pending text's tail, fed one line at a time.
    let mut tail = Tail::default();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        // Pending text is never a lone command line (that is an entry of
        // its own), so it is complete exactly when it ends with a `.`.
        let in_statement = pending.is_some() && tail.last.is_some() && tail.last != Some('.');
        match command(line) {
            Some(entry) if !in_statement => {
                if let Some(start) = pending.take() {
                    push_statements(&mut entries, source, start, offset);
                }
                entries.push(entry);
            }
            // Its own entry, so that the language's error about it shows
            // and the lines after it are not swallowed waiting for a `.`.
            None if !in_statement && unknown_command(line) => {
                if let Some(start) = pending.take() {
                    push_statements(&mut entries, source, start, offset);
                }
                push_statements(&mut entries, source, offset, offset + line.len());
            }
            _ => {
                if pending.is_none() {
                    pending = Some(offset);
                    tail = Tail::default();
                }
                tail.feed(line);
            }
        }
        offset += line.len();
    }
    if let Some(start) = pending {
        push_statements(&mut entries, source, start, offset);
    }
    entries
}

fn push_statements<'a>(entries: &mut Vec<Entry<'a>>, source: &'a str, start: usize, end: usize) {
    let text = &source[start..end];
    if !is_blank(text) {
        entries.push(Entry::Statements {
            text,
            offset: start,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_end_with_a_dot_outside_strings_and_comments() {
        assert!(is_complete("?- p(X)."));
        assert!(is_complete("?- p(X).  % trailing comment"));
        assert!(!is_complete("?- p(X),"));
        assert!(!is_complete("p(\"a.\""));
        assert!(!is_complete("p(X) :- q(X) % done."));
        assert!(is_complete("p(\"say \\\"hi.\\\"\")."));
        assert!(is_complete(""));
        assert!(is_complete(":timing on"));
        assert!(!is_complete(":create p(a: sym"));
        assert!(is_complete(":bogus"));
    }

    #[test]
    fn commands_are_known_names_only() {
        assert_eq!(
            command("  :format json "),
            Some(Entry::Command {
                name: "format",
                arg: "json"
            })
        );
        assert_eq!(command(":create p(a: sym)."), None);
        assert_eq!(command("?- p(X)."), None);
    }

    #[test]
    fn a_script_splits_at_commands_and_keeps_statement_runs_whole() {
        let script =
            "p(a).\np(b).\n:timing on\n?- p(X),\n:not a command\n q(X).\n:quit\n:bogus\n?- p(X).\n";
        let entries = split(script);
        assert_eq!(entries.len(), 6);
        assert_eq!(
            entries[0],
            Entry::Statements {
                text: "p(a).\np(b).\n",
                offset: 0
            }
        );
        assert!(matches!(entries[1], Entry::Command { name: "timing", .. }));
        let Entry::Statements { text, offset } = entries[2] else {
            panic!("{entries:?}")
        };
        assert_eq!(text, "?- p(X),\n:not a command\n q(X).\n");
        assert_eq!(&script[offset..offset + 2], "?-");
        assert!(matches!(entries[3], Entry::Command { name: "quit", .. }));
        assert!(matches!(
            entries[4],
            Entry::Statements {
                text: ":bogus\n",
                ..
            }
        ));
        assert!(matches!(
            entries[5],
            Entry::Statements {
                text: "?- p(X).\n",
                ..
            }
        ));
    }

    #[test]
    fn comments_alone_are_not_an_entry() {
        assert!(split("% just a note\n\n").is_empty());
        assert!(matches!(
            split("% a note\n:help\n")[..],
            [Entry::Command { name: "help", .. }]
        ));
    }
}
