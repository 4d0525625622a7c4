//! Errors of the language layer. Each carries the span it is about, so it
//! can be shown as `line:column` with a caret under the source (`render`).

use crate::span::{Span, render};

/// A syntax error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Where.
    pub span: Span,
}

/// The kinds of syntax error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The parser wanted one thing and found another.
    #[error("expected {0}, found {1}")]
    Expected(String, String),
    /// A character that starts no token.
    #[error("unexpected character `{0}`")]
    UnexpectedChar(char),
    /// A string literal without its closing quote.
    #[error("unclosed string literal")]
    UnclosedString,
    /// An escape that means nothing (`\q`) or no character (`\u{110000}`).
    #[error("unknown escape `{0}` (known: \\\" \\' \\\\ \\n \\r \\t \\0 \\u{{HEX}})")]
    BadEscape(String),
    /// A number that does not fit.
    #[error("`{0}` is not a valid number")]
    BadNumber(String),
    /// A date that does not exist (`2021-02-30`).
    #[error("`{0}` is not a valid date or datetime")]
    BadTime(String),
    /// A column type that does not exist.
    #[error(
        "unknown column type `{0}` (expected int, float, str, sym, bool, bytes, time or vec<N>)"
    )]
    UnknownType(String),
    /// Expressions or retrieval operators nested past the limit, which
    /// keeps every recursive pass (parsing, resolution, evaluation) within
    /// a small thread's stack.
    #[error("nested deeper than {0} levels")]
    TooDeep(u32),
}

impl ParseError {
    pub(crate) fn new(kind: ParseErrorKind, span: Span) -> ParseError {
        ParseError { kind, span }
    }

    /// The error drawn under its source line.
    pub fn render(&self, source: &str) -> String {
        render(source, self.span, &self.kind.to_string())
    }
}

/// A program that parses but cannot run: unknown names, wrong arities,
/// unsafe variables, negation through recursion, type errors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct CompileError {
    /// What is wrong, in words.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl CompileError {
    /// An error with a message at a span.
    pub fn new(message: impl Into<String>, span: Span) -> CompileError {
        CompileError {
            message: message.into(),
            span,
        }
    }

    /// The error drawn under its source line.
    pub fn render(&self, source: &str) -> String {
        render(source, self.span, &self.message)
    }
}
