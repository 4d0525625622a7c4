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
#[error("{kind}")]
pub struct CompileError {
    /// What is wrong.
    pub kind: CompileErrorKind,
    /// Where.
    pub span: Span,
}

/// The kinds of compile error. Each variant's text is the message a user
/// reads under the caret; a program matches on the variant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CompileErrorKind {
    /// A relation that is neither stored nor derived by a rule.
    #[error("unknown relation `{0}`")]
    UnknownRelation(String),
    /// A retrieval operator over a relation that is not stored.
    #[error("unknown stored relation `{0}`")]
    UnknownStoredRelation(String),
    /// A rule whose head is a stored relation.
    #[error("`{0}` is a stored relation; a rule cannot derive into it")]
    DerivesIntoStored(String),
    /// An atom with the wrong number of arguments.
    #[error("`{relation}` has {columns} columns, got {arguments} arguments")]
    Arity {
        /// The relation.
        relation: String,
        /// Its columns.
        columns: usize,
        /// The atom's arguments.
        arguments: usize,
    },
    /// Two rules for one relation with different head arities.
    #[error("rules for `{relation}` disagree on arity ({first} and {other})")]
    RuleArities {
        /// The relation.
        relation: String,
        /// The first rule's arity.
        first: usize,
        /// The disagreeing rule's.
        other: usize,
    },
    /// A variable used before a positive atom binds it.
    #[error("variable `{0}` is unsafe: it is not bound by a positive atom before it is used")]
    UnsafeVariable(String),
    /// A negation, retrieval operator or atom that can never be evaluated
    /// with its inputs bound (`what`: `negation`, `retrieval operator`, `atom`).
    #[error("unsafe {0}")]
    Unsafe(&'static str),
    /// A head variable the body does not bind.
    #[error("variable `{0}` in the head is not bound by the body")]
    UnboundHeadVariable(String),
    /// `_` in a rule head.
    #[error("`_` cannot appear in a rule head")]
    WildcardInHead,
    /// `_` inside an expression.
    #[error("`_` cannot be used in an expression")]
    WildcardInExpression,
    /// A rule with an empty body.
    #[error("a rule needs at least one condition")]
    EmptyBody,
    /// Negation or aggregation inside a recursive cycle, with the cycle.
    #[error("negation or aggregation through recursion: {}", .0.join(" -> "))]
    NegationThroughRecursion(Vec<String>),
    /// `history` over anything but one stored atom.
    #[error("`history` takes exactly one atom of a stored relation")]
    HistoryNeedsOneAtom,
    /// `history` with `as_of` or `known_at`.
    #[error(
        "`history` lists every version on both time axes and takes no `as_of` or `known_at`; each version's valid_from, valid_to, tx_from and tx_to say when it held"
    )]
    HistoryTakesNoTimeAxes,
    /// `order by` a variable the query does not output.
    #[error("cannot order by `{0}`: it is not an output variable")]
    OrderByNotOutput(String),
    /// A ranked operator whose columns are not named.
    #[error("name the ranked columns, e.g. `as (Id, Score, Rank)`")]
    RankedColumnsUnnamed,
    /// A ranked operator named with the wrong number of columns.
    #[error("a ranked relation has three columns (id, score, rank); got {0} names")]
    RankedColumns(usize),
    /// A ranked operator's input of the wrong kind.
    #[error("expected {wanted}, got `{got}`")]
    RankedInput {
        /// What the operator takes.
        wanted: &'static str,
        /// What it was given.
        got: String,
    },
    /// `near` over a relation with nothing to compare with.
    #[error("`{0}` has no vector column and no `embed` column for `near`")]
    NothingToNear(String),
    /// A ranked operator's `column = value` names no column of its relation.
    #[error("`{rel}` has no column `{column}`")]
    UnknownColumn {
        /// The relation searched.
        rel: String,
        /// The name given.
        column: String,
    },
    /// `top` or `decayed` ranking by a column of the wrong type.
    #[error("`{rel}`'s column `{column}` is not {wanted}")]
    RankedColumnType {
        /// The relation read.
        rel: String,
        /// The column named.
        column: String,
        /// What the operator ranks by.
        wanted: &'static str,
    },
    /// A metric `near` does not know.
    #[error("unknown metric `{0}`: expected `cosine`, `dot` or `l2`")]
    UnknownMetric(String),
    /// `bm25` over a relation without `search` columns.
    #[error("`{0}` has no `search` column for `bm25`")]
    NoSearchColumn(String),
    /// `hops` over a relation that cannot link nodes.
    #[error("`{0}` cannot link nodes: it has fewer than two columns")]
    CannotLink(String),
    /// `hops` deeper than the limit.
    #[error("at most 64 hops")]
    TooManyHops,
    /// A negative or non-finite `rrf` weight.
    #[error("an rrf weight must be a finite number >= 0")]
    BadRrfWeight,
    /// A ranked operator's `k` out of bounds.
    #[error("k must be between 1 and {max}, got {got}")]
    KOutOfRange {
        /// The largest `k`.
        max: u64,
        /// What was written.
        got: u64,
    },
    /// Something other than a time where a time belongs.
    #[error("expected a time: a date, a `let` name or a `$parameter`")]
    ExpectedTime,
    /// A name where a time belongs that no `let` binds.
    #[error("`{0}` is not bound by `let`; expected a time")]
    UnboundTimeName(String),
    /// `let` of something that is not a constant.
    #[error("`let` takes a constant: a date, a number, a string or a name")]
    LetNotConstant,
    /// A fact where no batch of facts can take it (an internal path).
    #[error("a fact outside a batch")]
    FactOutsideBatch,
    /// `prepare`d text that is not exactly one query.
    #[error("expected exactly one query (`?- ...`)")]
    ExpectedOneQuery,
    /// A fact's value of the wrong type for its column.
    #[error("column `{relation}.{column}` holds {expected}, got {got}")]
    ColumnType {
        /// The relation.
        relation: String,
        /// The column.
        column: String,
        /// Its type, as written (`sym`, `int or null`).
        expected: String,
        /// What was given.
        got: String,
    },
    /// A value of the wrong type in a fact (a parameter, a coerced literal).
    #[error("this column holds {expected}, got {got}")]
    ValueType {
        /// The column's type.
        expected: String,
        /// What was given.
        got: String,
    },
    /// A parameter type facts cannot store.
    #[error("this parameter's type cannot be used in a fact")]
    ParamNotStorable,
    /// A variable in a fact.
    #[error("a fact cannot contain variables")]
    VariableInFact,
    /// An expression in a fact.
    #[error("a fact takes constants, not expressions")]
    ExpressionInFact,
    /// Parameters that are not what the API takes (JSON that does not
    /// parse, a value of no known form).
    #[error("{0}")]
    BadParameters(String),
    /// An error inside a rule defined by an earlier script, shown at the
    /// query that uses it.
    #[error("{0} (in a rule this query uses)")]
    InEarlierRule(Box<CompileErrorKind>),
}

impl CompileError {
    /// An error of `kind` at `span`.
    pub fn new(kind: CompileErrorKind, span: Span) -> CompileError {
        CompileError { kind, span }
    }

    /// The error drawn under its source line.
    pub fn render(&self, source: &str) -> String {
        render(source, self.span, &self.kind.to_string())
    }
}
