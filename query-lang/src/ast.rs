//! The spanned syntax tree: what the parser produces, before names are
//! resolved. Every node keeps its span for error messages.

use crate::span::Span;

/// A whole script: statements run in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The statements, in source order.
    pub statements: Vec<Statement>,
    /// Each statement's whole text, from its first token to its `.`: what
    /// a REPL echoes and where a statement's runtime error points.
    pub spans: Vec<Span>,
}

/// One statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `:create works_at(person: sym key, company: sym).`
    Create(CreateRelation),
    /// `:relations.`: list every stored relation.
    Relations(Span),
    /// `:describe works_at.`: one relation's columns.
    Describe(Name),
    /// `works_at(alice, acme) valid 2021-03-01.`, `retract ...`, `correct ...`
    Fact(Fact),
    /// `let t1 = 2022-01-01.`
    Let(Let),
    /// `colleague(X, Y) :- works_at(X, C), works_at(Y, C), X != Y.`
    Rule(Rule),
    /// `?- works_at(alice, Y) as_of t1.`
    Query(Query),
}

/// A relation declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateRelation {
    /// Relation name.
    pub name: Name,
    /// Columns in order.
    pub columns: Vec<ColumnDecl>,
    /// The whole statement.
    pub span: Span,
}

/// `person: sym key`, `note: str?` (nullable).
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnDecl {
    /// Column name.
    pub name: Name,
    /// Its type.
    pub ty: TypeName,
    /// Part of the functional slot.
    pub key: bool,
    /// Accepts `null`.
    pub nullable: bool,
    /// `search` or `search(ANALYZER)`: the text is indexed for `bm25`,
    /// cut into words by that analyzer.
    pub search: Option<Analyzer>,
    /// `embed` or `embed(SPACE)`: the text is embedded for `near`, by
    /// the model of that space.
    pub embed: Option<Space>,
}

/// Which model embeds an `embed` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `embed` or `embed(default)`: the engine's embedder.
    Default,
    /// `embed(multilingual)`: one space for many languages.
    Multilingual,
}

/// How a `search` column's text is cut into words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Analyzer {
    /// `search` or `search(english)`: lower case, English stop words
    /// dropped, words stemmed.
    English,
    /// `search(simple)`: words as written, lower-cased.
    Simple,
    /// `search(german)`: lower case, German stop words dropped, words
    /// stemmed by Snowball's German stemmer.
    German,
    /// `search(chinese)`: words cut by a dictionary, particles dropped.
    Chinese,
    /// `search(multilingual)`: each text cut by the analyzer of the
    /// language it is written in.
    Multilingual,
}

/// A column type as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    /// `int`
    Int,
    /// `float`
    Float,
    /// `str`
    Str,
    /// `sym`
    Sym,
    /// `bool`
    Bool,
    /// `bytes`
    Bytes,
    /// `time`
    Time,
    /// `vec<N>`
    Vector(u32),
}

/// What a fact statement does to its relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactKind {
    /// True over the valid interval (default: from the transaction on).
    Assert,
    /// Stopped being true over the valid interval (default: from the
    /// transaction on).
    Retract,
    /// Was never true: withdrawn in transaction time.
    Correct,
}

/// A ground atom with what to do with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    /// Assert, retract or correct.
    pub kind: FactKind,
    /// The tuple.
    pub atom: Atom,
    /// When it holds; without a clause, from the committing transaction on.
    pub valid: Option<ValidClause>,
    /// The whole statement.
    pub span: Span,
}

/// A fact's `valid` clause.
#[derive(Clone, Debug, PartialEq)]
pub enum ValidClause {
    /// `valid always`: a timeless fact, true at every valid instant.
    Always(Span),
    /// `valid FROM` or `valid FROM .. TO`.
    Range(Expr, Option<Expr>),
}

/// `let name = value.`
#[derive(Clone, Debug, PartialEq)]
pub struct Let {
    /// The bound name.
    pub name: Name,
    /// Its value (a constant expression).
    pub value: Expr,
    /// The whole statement.
    pub span: Span,
}

/// `head :- body.`
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// The derived relation and its arguments (which may aggregate).
    pub head: Head,
    /// The conditions.
    pub body: Vec<Literal>,
    /// The whole rule.
    pub span: Span,
}

/// A rule head: `count_by(C, count(X))`.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    /// Relation name.
    pub name: Name,
    /// Arguments.
    pub args: Vec<HeadArg>,
    /// The head's span.
    pub span: Span,
}

/// One head argument.
#[derive(Clone, Debug, PartialEq)]
pub enum HeadArg {
    /// A plain term.
    Term(Expr),
    /// `count(X)`, `sum(X)`, ...
    Aggregate(Aggregate, Name, Span),
}

/// The aggregate functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// Number of distinct bindings.
    Count,
    /// Sum of numbers.
    Sum,
    /// Smallest value.
    Min,
    /// Largest value.
    Max,
    /// Arithmetic mean.
    Mean,
    /// All values, as a list.
    Collect,
}

impl Aggregate {
    /// The function called `name`.
    pub fn from_name(name: &str) -> Option<Aggregate> {
        Some(match name {
            "count" => Aggregate::Count,
            "sum" => Aggregate::Sum,
            "min" => Aggregate::Min,
            "max" => Aggregate::Max,
            "mean" => Aggregate::Mean,
            "collect" => Aggregate::Collect,
            _ => return None,
        })
    }
}

/// A body condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `rel(args)`
    Atom(Atom),
    /// `not rel(args)`
    Not(Atom, Span),
    /// `X < Y + 1`, `X = expr`
    Compare(Expr, CompareOp, Expr, Span),
    /// `rrf(near(...), bm25(...)) as (Id, Score, Rank)`: a retrieval
    /// operator's ranked rows, bound to up to three terms (`None`: the
    /// query's whole body, whose columns are then `Id, Score, Rank`).
    Ranked(Ranked, Option<Vec<Expr>>, Span),
}

/// A count written as a number or as a `$parameter` (a ranked operator's
/// `k`, a query's `limit`), so a caller prepares a query once and varies it.
#[derive(Clone, Debug, PartialEq)]
pub enum Count {
    /// `5`
    Fixed(u64),
    /// `$k`
    Param(Name),
}

/// A retrieval operator: yields `(id, score, rank)` rows, best first.
#[derive(Clone, Debug, PartialEq)]
pub enum Ranked {
    /// `near(rel, query, k [, metric] [, column = value]...)`: nearest vectors (the query is a
    /// vector, or text to embed).
    Near {
        /// The relation searched.
        rel: Name,
        /// A vector, or text.
        query: Expr,
        /// How many rows.
        k: Count,
        /// `cosine` (default), `dot` or `l2`.
        metric: Option<Name>,
        /// `column = value` restrictions: only rows holding these values
        /// are searched (filter first, so the search stays exact).
        filters: Vec<(Name, Expr)>,
        /// The whole call.
        span: Span,
    },
    /// `bm25(rel, text, k [, column = value]...)`: best BM25 matches over the `search` columns.
    Bm25 {
        /// The relation searched.
        rel: Name,
        /// The words.
        query: Expr,
        /// How many rows.
        k: Count,
        /// `column = value` restrictions, as for `near`.
        filters: Vec<(Name, Expr)>,
        /// The whole call.
        span: Span,
    },
    /// `top(rel, column, k [, column = value]...)`: the rows with the
    /// largest values of a number or time column (the latest messages by
    /// their sequence number), scored by that value.
    Top {
        /// The relation read.
        rel: Name,
        /// The column ranked by.
        column: Name,
        /// How many rows.
        k: Count,
        /// `column = value` restrictions, as for `near`.
        filters: Vec<(Name, Expr)>,
        /// The whole call.
        span: Span,
    },
    /// `decayed(rel, column, since, half_life, k [, column = value]...)`:
    /// the rows with the largest values of a number column halved every
    /// `half_life` days since their `since` time, measured at the query's
    /// `as_of` (salience that fades unless it is reinforced).
    Decayed {
        /// The relation read.
        rel: Name,
        /// The number that decays.
        column: Name,
        /// The time column it decays from.
        since: Name,
        /// Days for the value to halve.
        half_life: Expr,
        /// How many rows.
        k: Count,
        /// `column = value` restrictions, as for `near`.
        filters: Vec<(Name, Expr)>,
        /// The whole call.
        span: Span,
    },
    /// `hops(start, n [, [rel, ...]])`: nodes within `n` links of `start`.
    Hops {
        /// The node walked from.
        start: Expr,
        /// At most this many links.
        depth: u64,
        /// The relations that link nodes (empty: every relation whose first
        /// two columns are symbols).
        edges: Vec<Name>,
        /// The whole call.
        span: Span,
    },
    /// `rrf(A, 2.0 * B, ..., k = 60)`: reciprocal-rank fusion.
    Rrf {
        /// Weighted inputs.
        inputs: Vec<(f64, Ranked)>,
        /// The rank offset (60 when absent).
        k: Option<u64>,
        /// The whole call.
        span: Span,
    },
}

impl Ranked {
    /// The call's span.
    pub fn span(&self) -> Span {
        match self {
            Ranked::Near { span, .. }
            | Ranked::Bm25 { span, .. }
            | Ranked::Top { span, .. }
            | Ranked::Decayed { span, .. }
            | Ranked::Hops { span, .. }
            | Ranked::Rrf { span, .. } => *span,
        }
    }

    /// The expressions it needs bound before it runs, in the order the
    /// engine consumes their values (nested `rrf` inputs depth first).
    pub fn inputs(&self) -> Vec<&Expr> {
        fn walk<'e>(r: &'e Ranked, out: &mut Vec<&'e Expr>) {
            match r {
                Ranked::Near { query, filters, .. } | Ranked::Bm25 { query, filters, .. } => {
                    out.push(query);
                    out.extend(filters.iter().map(|(_, value)| value));
                }
                Ranked::Top { filters, .. } => out.extend(filters.iter().map(|(_, v)| v)),
                Ranked::Decayed {
                    half_life, filters, ..
                } => {
                    out.push(half_life);
                    out.extend(filters.iter().map(|(_, value)| value));
                }
                Ranked::Hops { start, .. } => out.push(start),
                Ranked::Rrf { inputs, .. } => inputs.iter().for_each(|(_, i)| walk(i, out)),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// The operator names, which cannot name relations in a body.
    pub const NAMES: [&'static str; 6] = ["near", "bm25", "top", "decayed", "hops", "rrf"];
}

/// `rel(arg, ...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    /// Relation name.
    pub name: Name,
    /// Arguments.
    pub args: Vec<Expr>,
    /// The atom's span.
    pub span: Span,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// An expression: a term or arithmetic over terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `X`
    Var(Name),
    /// `_`
    Wildcard(Span),
    /// A lowercase name: a symbol, or the value of a `let`.
    Ident(Name),
    /// `$name`
    Param(Name),
    /// A literal.
    Const(Const, Span),
    /// `a + b`
    Binary(Box<Expr>, ArithOp, Box<Expr>, Span),
    /// `-a`
    Neg(Box<Expr>, Span),
}

impl Expr {
    /// The expression's span.
    pub fn span(&self) -> Span {
        match self {
            Expr::Var(n) | Expr::Ident(n) | Expr::Param(n) => n.span,
            Expr::Wildcard(s) | Expr::Const(_, s) | Expr::Binary(_, _, _, s) | Expr::Neg(_, s) => {
                *s
            }
        }
    }
}

/// A literal constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    /// `42`
    Int(i64),
    /// `4.5`
    Float(f64),
    /// `"text"`
    Str(String),
    /// `2021-03-01`, as UTC microseconds.
    Time(i64),
    /// `true` / `false`
    Bool(bool),
    /// `null`
    Null,
}

/// A query.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// `history` was given: every version of the one atom in the body.
    pub history: bool,
    /// The conditions.
    pub body: Vec<Literal>,
    /// `as_of T`: valid time.
    pub as_of: Option<Expr>,
    /// `known_at T`: transaction time.
    pub known_at: Option<Expr>,
    /// `order by X desc, Y`.
    pub order_by: Vec<(Name, bool)>,
    /// `limit N` or `limit $n`.
    pub limit: Option<Count>,
    /// The whole query.
    pub span: Span,
}

/// A name with its span.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    /// The text.
    pub text: String,
    /// Where it is.
    pub span: Span,
}
