//! Source positions and the caret diagrams errors are shown with.

use std::fmt;

/// A byte range `[start, end)` in the source text.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// `[start, end)`.
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column (in characters).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LineCol {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub col: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Where byte `offset` of `source` is, as line and column.
pub fn line_col(source: &str, offset: usize) -> LineCol {
    let offset = offset.min(source.len());
    let before = &source[..source.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    LineCol {
        line,
        col: before[line_start..].chars().count() + 1,
    }
}

/// Renders `message` at `span` the way the REPL shows errors:
///
/// ```text
/// error: expected `)`, found `.`
///  --> 1:17
///   |
/// 1 | ?- works_at(x, Y.
///   |                 ^
/// ```
pub fn render(source: &str, span: Span, message: &str) -> String {
    let at = line_col(source, span.start);
    let line_text = source.lines().nth(at.line - 1).unwrap_or("");
    let width = at.line.to_string().len();
    let caret_len = {
        let end = line_col(source, span.end.max(span.start));
        if end.line == at.line && end.col > at.col {
            end.col - at.col
        } else {
            1
        }
    };
    format!(
        "error: {message}\n{pad} --> {at}\n{pad} |\n{line} | {line_text}\n{pad} | {spaces}{carets}",
        pad = " ".repeat(width),
        line = at.line,
        spaces = " ".repeat(at.col - 1),
        carets = "^".repeat(caret_len),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_lines() {
        let src = "ab\ncdé f";
        assert_eq!(line_col(src, 0), LineCol { line: 1, col: 1 });
        assert_eq!(line_col(src, 3), LineCol { line: 2, col: 1 });
        assert_eq!(line_col(src, 7), LineCol { line: 2, col: 4 });
        assert_eq!(line_col(src, 100), LineCol { line: 2, col: 6 });
    }

    #[test]
    fn renders_a_caret_under_the_span() {
        let out = render("?- p(X.", Span::new(6, 7), "expected `)`, found `.`");
        assert_eq!(
            out,
            "error: expected `)`, found `.`\n  --> 1:7\n  |\n1 | ?- p(X.\n  |       ^"
        );
    }
}
