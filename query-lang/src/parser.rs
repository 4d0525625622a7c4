//! Recursive-descent parser over the lexer's tokens, producing the spanned
//! AST. On the first error it stops and reports what it expected and what it
//! found, with the found token's span.
//!
//! ```text
//! program   = statement*
//! statement = ":create" name "(" column ("," column)* ")" "."?
//!           | "let" name "=" expr "."
//!           | "?-" ["history"] body modifier* "."
//!           | ("retract" | "correct") atom [valid] "."
//!           | head [":-" body] [valid] "."
//! valid     = "valid" ("always" | expr [".." expr])
//! column    = name ":" type ["?"] ("key" | "search" ["(" ("english" | "simple") ")"] | "embed" ["(" ("default" | "multilingual") ")"])*
//! body      = literal ("," literal)*
//! literal   = "not" atom | ranked ["as" "(" expr ("," expr)* ")"] | atom | expr cmp expr
//! ranked    = ("near" | "bm25") "(" name "," expr "," (int | $param) ["," name]
//!             {"," name "=" expr} ")"
//!           | "top" "(" name "," name "," (int | $param) {"," name "=" expr} ")"
//!           | "decayed" "(" name "," name "," name "," expr "," (int | $param)
//!             {"," name "=" expr} ")"
//!           | "hops" "(" expr "," int ["," "[" name ("," name)* "]"] ")"
//!           | "rrf" "(" [number "*"] ranked ("," [number "*"] ranked)* ["," "k" "=" int] ")"
//! modifier  = "as_of" expr | "known_at" expr | "limit" (int | $param) | "order" "by" var ["asc"|"desc"] ("," ...)*
//! expr      = mul (("+" | "-") mul)* ;  mul = unary (("*" | "/") unary)*
//! unary     = "-" unary | primary ;  primary = var | "_" | name | $param | literal | "(" expr ")"
//! ```

use crate::ast::*;
use crate::error::{ParseError, ParseErrorKind};
use crate::lexer::{Tok, Token, lex};
use crate::span::Span;

/// Parses a whole script: every statement, or the first syntax error.
pub fn parse(source: &str) -> Result<Program, ParseError> {
    let mut program = Program {
        statements: Vec::new(),
        spans: Vec::new(),
    };
    for (span, statement) in parse_each(source)? {
        program.statements.push(statement?);
        program.spans.push(span);
    }
    Ok(program)
}

/// One statement from [`parse_each`]: the span of its text, and the
/// statement or why it does not parse.
pub type ParsedStatement = (Span, Result<Statement, ParseError>);

/// Parses statement by statement, each with its whole text's span. After
/// a syntax error it goes on from the next `.`, so a shell can run the
/// statements around a broken one and report each error in place. Only an
/// error of the lexer (an unterminated string, say) fails the whole text.
pub fn parse_each(source: &str) -> Result<Vec<ParsedStatement>, ParseError> {
    let tokens = lex(source)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        nesting: 0,
    };
    let mut statements = Vec::new();
    while !parser.at_eof() {
        parser.nesting = 0;
        let start = parser.peek().span;
        let statement = parser.statement();
        if statement.is_err() {
            while !parser.at_eof() && !parser.is_punct(".") {
                parser.bump();
            }
            parser.bump();
        }
        let end = parser.tokens[parser.pos.saturating_sub(1)].span;
        statements.push((start.to(end), statement));
    }
    Ok(statements)
}

/// How deep expressions and retrieval operators may nest (parentheses,
/// unary minus, operator trees, `rrf` inside `rrf`): every pass over them
/// recurses, and the bound keeps each within a small thread's stack, as
/// serde_json's recursion limit does.
pub const MAX_NESTING: u32 = 128;

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Recursion levels entered now (see [`MAX_NESTING`]).
    nesting: u32,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Token {
        // `lex` always ends with Eof, and `bump` never passes it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        &self.tokens[(self.pos + ahead).min(self.tokens.len() - 1)].tok
    }

    fn at_eof(&self) -> bool {
        self.peek().tok == Tok::Eof
    }

    fn bump(&mut self) -> Token {
        let token = self.peek().clone();
        if token.tok != Tok::Eof {
            self.pos += 1;
        }
        token
    }

    fn error<T>(&self, expected: &str) -> PResult<T> {
        let found = self.peek();
        Err(ParseError::new(
            ParseErrorKind::Expected(expected.to_string(), found.tok.describe()),
            found.span,
        ))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek().tok, Tok::Punct(q) if q == p)
    }

    fn is_keyword(&self, k: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(s) if s == k)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_keyword(&mut self, k: &str) -> bool {
        if self.is_keyword(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> PResult<Span> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            self.error(&format!("`{p}`"))
        }
    }

    fn name(&mut self, what: &str) -> PResult<Name> {
        match &self.peek().tok {
            Tok::Ident(s) => {
                let text = s.clone();
                let span = self.bump().span;
                Ok(Name { text, span })
            }
            _ => self.error(what),
        }
    }

    fn statement(&mut self) -> PResult<Statement> {
        let start = self.peek().span;
        if self.is_punct(":") {
            if matches!(self.peek_at(1), Tok::Ident(k) if k == "relations") {
                self.bump();
                let end = self.bump().span;
                let end = if self.is_punct(".") {
                    self.bump().span
                } else {
                    end
                };
                return Ok(Statement::Relations(start.to(end)));
            }
            if matches!(self.peek_at(1), Tok::Ident(k) if k == "describe") {
                self.bump();
                self.bump();
                let name = self.name("a relation name")?;
                if self.is_punct(".") {
                    self.bump();
                }
                return Ok(Statement::Describe(name));
            }
            return self.create().map(Statement::Create);
        }
        if self.is_punct("?-") {
            return self.query().map(Statement::Query);
        }
        if self.is_keyword("let")
            && matches!(self.peek_at(1), Tok::Ident(_))
            && matches!(self.peek_at(2), Tok::Punct("="))
        {
            self.bump();
            let name = self.name("a name")?;
            self.expect_punct("=")?;
            let value = self.expr()?;
            let end = self.expect_punct(".")?;
            return Ok(Statement::Let(Let {
                name,
                value,
                span: start.to(end),
            }));
        }
        for (keyword, kind) in [
            ("retract", FactKind::Retract),
            ("correct", FactKind::Correct),
        ] {
            if self.is_keyword(keyword)
                && matches!(self.peek_at(1), Tok::Ident(_))
                && matches!(self.peek_at(2), Tok::Punct("("))
            {
                self.bump();
                let atom = self.atom()?;
                let valid_at = self.peek().span;
                let valid = self.valid_clause()?;
                if kind == FactKind::Correct && valid.is_some() {
                    // SQL:2011's FOR PORTION OF is not supported: a
                    // correction withdraws the fact from every valid time.
                    return Err(ParseError::new(
                        ParseErrorKind::Expected(
                            "`.`: `correct` withdraws the whole fact (to end it at a time, `retract ... valid T`)".into(),
                            "`valid`".into(),
                        ),
                        valid_at,
                    ));
                }
                let end = self.expect_punct(".")?;
                return Ok(Statement::Fact(Fact {
                    kind,
                    atom,
                    valid,
                    span: start.to(end),
                }));
            }
        }
        if matches!(self.peek().tok, Tok::Ident(_)) {
            let head = self.head()?;
            if self.eat_punct(":-") {
                let body = self.body()?;
                let end = self.expect_punct(".")?;
                return Ok(Statement::Rule(Rule {
                    head,
                    body,
                    span: start.to(end),
                }));
            }
            let valid = self.valid_clause()?;
            let end = if valid.is_some() {
                self.expect_punct(".")?
            } else if self.is_punct(".") {
                self.bump().span
            } else {
                return self.error("`.`, `:-` or `valid`");
            };
            let atom = head_to_atom(head)?;
            return Ok(Statement::Fact(Fact {
                kind: FactKind::Assert,
                atom,
                valid,
                span: start.to(end),
            }));
        }
        self.error("a statement (a fact, a rule, `?-`, `let` or `:create`)")
    }

    fn create(&mut self) -> PResult<CreateRelation> {
        let start = self.expect_punct(":")?;
        if !self.eat_keyword("create") {
            return self.error("`create`, `relations` or `describe` after `:`");
        }
        let name = self.name("a relation name")?;
        self.expect_punct("(")?;
        let mut columns = Vec::new();
        loop {
            let col = self.name("a column name")?;
            self.expect_punct(":")?;
            let ty = self.type_name()?;
            let nullable = self.eat_punct("?");
            let (mut key, mut search, mut embed) = (false, None, None);
            loop {
                if self.eat_keyword("key") {
                    key = true;
                } else if self.eat_keyword("search") {
                    search = Some(Analyzer::English);
                    if self.eat_punct("(") {
                        search = Some(if self.eat_keyword("english") {
                            Analyzer::English
                        } else if self.eat_keyword("simple") {
                            Analyzer::Simple
                        } else if self.eat_keyword("german") {
                            Analyzer::German
                        } else if self.eat_keyword("chinese") {
                            Analyzer::Chinese
                        } else if self.eat_keyword("multilingual") {
                            Analyzer::Multilingual
                        } else {
                            return self.error(
                                "an analyzer: `english`, `german`, `chinese`, `multilingual` or `simple`",
                            );
                        });
                        self.expect_punct(")")?;
                    }
                } else if self.eat_keyword("embed") {
                    embed = Some(Space::Default);
                    if self.eat_punct("(") {
                        embed = Some(if self.eat_keyword("default") {
                            Space::Default
                        } else if self.eat_keyword("multilingual") {
                            Space::Multilingual
                        } else {
                            return self.error("an embedding space: `default` or `multilingual`");
                        });
                        self.expect_punct(")")?;
                    }
                } else {
                    break;
                }
            }
            columns.push(ColumnDecl {
                name: col,
                ty,
                key,
                nullable,
                search,
                embed,
            });
            if !self.eat_punct(",") {
                break;
            }
        }
        let mut end = self.expect_punct(")")?;
        if self.is_punct(".") {
            end = self.bump().span;
        }
        Ok(CreateRelation {
            name,
            columns,
            span: start.to(end),
        })
    }

    fn type_name(&mut self) -> PResult<TypeName> {
        let name = self.name("a column type")?;
        Ok(match name.text.as_str() {
            "int" => TypeName::Int,
            "float" => TypeName::Float,
            "str" => TypeName::Str,
            "sym" => TypeName::Sym,
            "bool" => TypeName::Bool,
            "bytes" => TypeName::Bytes,
            "time" => TypeName::Time,
            "vec" => {
                self.expect_punct("<")?;
                let dim = match self.peek().tok {
                    Tok::Int(n) if n > 0 && n <= 65_536 => n as u32,
                    _ => return self.error("a vector dimension between 1 and 65536"),
                };
                self.bump();
                self.expect_punct(">")?;
                TypeName::Vector(dim)
            }
            other => {
                return Err(ParseError::new(
                    ParseErrorKind::UnknownType(other.to_string()),
                    name.span,
                ));
            }
        })
    }

    fn valid_clause(&mut self) -> PResult<Option<ValidClause>> {
        if !self.eat_keyword("valid") {
            return Ok(None);
        }
        if self.is_keyword("always") {
            return Ok(Some(ValidClause::Always(self.bump().span)));
        }
        let from = self.expr()?;
        let to = if self.eat_punct("..") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok(Some(ValidClause::Range(from, to)))
    }

    fn query(&mut self) -> PResult<Query> {
        let start = self.expect_punct("?-")?;
        let history = self.eat_keyword("history");
        let body = self.body()?;
        let mut query = Query {
            history,
            body,
            as_of: None,
            known_at: None,
            order_by: Vec::new(),
            limit: None,
            span: start,
        };
        loop {
            // A modifier given twice is an error, not "the last wins".
            let (at, keyword) = (self.peek().span, self.peek().tok.clone());
            let twice = |what: &str| {
                Err(ParseError::new(
                    ParseErrorKind::Expected(
                        format!("`{what}` at most once"),
                        format!("a second `{what}`"),
                    ),
                    at,
                ))
            };
            let repeated = match &keyword {
                Tok::Ident(k) if k == "as_of" => query.as_of.is_some(),
                Tok::Ident(k) if k == "known_at" => query.known_at.is_some(),
                Tok::Ident(k) if k == "limit" => query.limit.is_some(),
                Tok::Ident(k) if k == "order" => !query.order_by.is_empty(),
                _ => false,
            };
            if repeated {
                let Tok::Ident(k) = keyword else { break };
                return twice(if k == "order" { "order by" } else { &k });
            }
            if self.eat_keyword("as_of") {
                query.as_of = Some(self.expr()?);
            } else if self.eat_keyword("known_at") {
                query.known_at = Some(self.expr()?);
            } else if self.eat_keyword("limit") {
                query.limit =
                    Some(self.count_or_param("a row count or a `$parameter` after `limit`")?);
            } else if self.eat_keyword("order") {
                if !self.eat_keyword("by") {
                    return self.error("`by` after `order`");
                }
                loop {
                    let var = match &self.peek().tok {
                        Tok::Var(v) => Name {
                            text: v.clone(),
                            span: self.peek().span,
                        },
                        _ => return self.error("a variable to order by"),
                    };
                    self.bump();
                    let descending = if self.eat_keyword("desc") {
                        true
                    } else {
                        self.eat_keyword("asc");
                        false
                    };
                    query.order_by.push((var, descending));
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        if !self.is_punct(".") {
            return self.error("`.`, `,`, `as_of`, `known_at`, `order by` or `limit`");
        }
        query.span = start.to(self.bump().span);
        Ok(query)
    }

    fn body(&mut self) -> PResult<Vec<Literal>> {
        let mut body = vec![self.literal()?];
        while self.eat_punct(",") {
            body.push(self.literal()?);
        }
        Ok(body)
    }

    fn literal(&mut self) -> PResult<Literal> {
        let start = self.peek().span;
        if self.is_keyword("not") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.bump();
            let atom = self.atom()?;
            let span = start.to(atom.span);
            return Ok(Literal::Not(atom, span));
        }
        if self.at_ranked() {
            let ranked = self.ranked()?;
            let mut span = ranked.span();
            let binds = if self.eat_keyword("as") {
                self.expect_punct("(")?;
                let mut binds = vec![self.expr()?];
                while self.eat_punct(",") {
                    binds.push(self.expr()?);
                }
                span = span.to(self.expect_punct(")")?);
                Some(binds)
            } else {
                None
            };
            return Ok(Literal::Ranked(ranked, binds, span));
        }
        if matches!(self.peek().tok, Tok::Ident(_)) && matches!(self.peek_at(1), Tok::Punct("(")) {
            return self.atom().map(Literal::Atom);
        }
        let lhs = self.expr()?;
        let op = match self.peek().tok {
            Tok::Punct("=") => CompareOp::Eq,
            Tok::Punct("!=") => CompareOp::Ne,
            Tok::Punct("<") => CompareOp::Lt,
            Tok::Punct("<=") => CompareOp::Le,
            Tok::Punct(">") => CompareOp::Gt,
            Tok::Punct(">=") => CompareOp::Ge,
            _ => {
                return self
                    .error("an atom, `not`, or a comparison (`=`, `!=`, `<`, `<=`, `>`, `>=`)");
            }
        };
        self.bump();
        let rhs = self.expr()?;
        let span = lhs.span().to(rhs.span());
        Ok(Literal::Compare(lhs, op, rhs, span))
    }

    fn at_ranked(&self) -> bool {
        matches!(&self.peek().tok, Tok::Ident(f) if Ranked::NAMES.contains(&f.as_str()))
            && matches!(self.peek_at(1), Tok::Punct("("))
    }

    fn count(&mut self, what: &str) -> PResult<u64> {
        match self.peek().tok {
            Tok::Int(n) if n >= 0 => {
                self.bump();
                Ok(n as u64)
            }
            _ => self.error(what),
        }
    }

    /// A count or a `$parameter` standing for one.
    fn count_or_param(&mut self, what: &str) -> PResult<Count> {
        if let Tok::Param(name) = &self.peek().tok {
            let name = Name {
                text: name.clone(),
                span: self.peek().span,
            };
            self.bump();
            return Ok(Count::Param(name));
        }
        self.count(what).map(Count::Fixed)
    }

    /// `, column = value` restrictions up to a ranked call's `)`.
    fn ranked_filters(&mut self) -> PResult<Vec<(Name, Expr)>> {
        let mut filters = Vec::new();
        while self.eat_punct(",") {
            if !(matches!(self.peek().tok, Tok::Ident(_))
                && matches!(self.peek_at(1), Tok::Punct("=")))
            {
                return self.error("`column = value`");
            }
            let column = self.name("a column name")?;
            self.bump();
            filters.push((column, self.expr()?));
        }
        Ok(filters)
    }

    /// `near(...)`, `bm25(...)`, `top(...)`, `decayed(...)`, `hops(...)`
    /// or `rrf(...)`.
    fn ranked(&mut self) -> PResult<Ranked> {
        let op = self.name("`near`, `bm25`, `top`, `decayed`, `hops` or `rrf`")?;
        self.expect_punct("(")?;
        let ranked = match op.text.as_str() {
            "near" | "bm25" => {
                let rel = self.name("a relation name")?;
                self.expect_punct(",")?;
                let query = self.expr()?;
                self.expect_punct(",")?;
                let k = self.count_or_param("a row count or a `$parameter`")?;
                let mut metric = None;
                let mut filters = Vec::new();
                while self.eat_punct(",") {
                    if matches!(self.peek().tok, Tok::Ident(_))
                        && matches!(self.peek_at(1), Tok::Punct("="))
                    {
                        let column = self.name("a column name")?;
                        self.bump();
                        filters.push((column, self.expr()?));
                    } else if op.text == "near" && metric.is_none() && filters.is_empty() {
                        metric = Some(
                            self.name("a metric: `cosine`, `dot` or `l2`, or `column = value`")?,
                        );
                    } else {
                        return self.error("`column = value`");
                    }
                }
                let span = op.span.to(self.expect_punct(")")?);
                if op.text == "near" {
                    Ranked::Near {
                        rel,
                        query,
                        k,
                        metric,
                        filters,
                        span,
                    }
                } else {
                    Ranked::Bm25 {
                        rel,
                        query,
                        k,
                        filters,
                        span,
                    }
                }
            }
            "top" => {
                let rel = self.name("a relation name")?;
                self.expect_punct(",")?;
                let column = self.name("the column to rank by")?;
                self.expect_punct(",")?;
                let k = self.count_or_param("a row count or a `$parameter`")?;
                let filters = self.ranked_filters()?;
                let span = op.span.to(self.expect_punct(")")?);
                Ranked::Top {
                    rel,
                    column,
                    k,
                    filters,
                    span,
                }
            }
            "decayed" => {
                let rel = self.name("a relation name")?;
                self.expect_punct(",")?;
                let column = self.name("the column that decays")?;
                self.expect_punct(",")?;
                let since = self.name("the time column it decays from")?;
                self.expect_punct(",")?;
                let half_life = self.expr()?;
                self.expect_punct(",")?;
                let k = self.count_or_param("a row count or a `$parameter`")?;
                let filters = self.ranked_filters()?;
                let span = op.span.to(self.expect_punct(")")?);
                Ranked::Decayed {
                    rel,
                    column,
                    since,
                    half_life,
                    k,
                    filters,
                    span,
                }
            }
            "hops" => {
                let start = self.expr()?;
                self.expect_punct(",")?;
                let depth = self.count("a number of hops")?;
                let mut edges = Vec::new();
                if self.eat_punct(",") {
                    self.expect_punct("[")?;
                    edges.push(self.name("a relation name")?);
                    while self.eat_punct(",") {
                        edges.push(self.name("a relation name")?);
                    }
                    self.expect_punct("]")?;
                }
                let span = op.span.to(self.expect_punct(")")?);
                Ranked::Hops {
                    start,
                    depth,
                    edges,
                    span,
                }
            }
            _ => {
                let mut inputs = Vec::new();
                let mut k = None;
                loop {
                    if self.is_keyword("k") && matches!(self.peek_at(1), Tok::Punct("=")) {
                        self.bump();
                        self.bump();
                        k = Some(self.count("the rank offset `k`")?);
                        break;
                    }
                    let weight = match self.peek().tok {
                        Tok::Int(n) if matches!(self.peek_at(1), Tok::Punct("*")) => Some(n as f64),
                        Tok::Float(x) if matches!(self.peek_at(1), Tok::Punct("*")) => Some(x),
                        _ => None,
                    };
                    if weight.is_some() {
                        self.bump();
                        self.bump();
                    }
                    if !self.at_ranked() {
                        return self.error(
                            "a retrieval operator: `near`, `bm25`, `top`, `decayed`, `hops` or `rrf`",
                        );
                    }
                    self.enter()?;
                    inputs.push((weight.unwrap_or(1.0), self.ranked()?));
                    self.nesting -= 1;
                    if !self.eat_punct(",") {
                        break;
                    }
                }
                let span = op.span.to(self.expect_punct(")")?);
                Ranked::Rrf { inputs, k, span }
            }
        };
        Ok(ranked)
    }

    fn atom(&mut self) -> PResult<Atom> {
        let name = self.name("a relation name")?;
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            args.push(self.expr()?);
            while self.eat_punct(",") {
                args.push(self.expr()?);
            }
        }
        let end = self.expect_punct(")")?;
        Ok(Atom {
            span: name.span.to(end),
            name,
            args,
        })
    }

    fn head(&mut self) -> PResult<Head> {
        let name = self.name("a relation name")?;
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            loop {
                args.push(self.head_arg()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        let end = self.expect_punct(")")?;
        Ok(Head {
            span: name.span.to(end),
            name,
            args,
        })
    }

    fn head_arg(&mut self) -> PResult<HeadArg> {
        if let Tok::Ident(f) = &self.peek().tok
            && let (Some(agg), Tok::Punct("(")) = (Aggregate::from_name(f), self.peek_at(1))
        {
            let start = self.bump().span;
            self.bump();
            let var = match &self.peek().tok {
                Tok::Var(v) => Name {
                    text: v.clone(),
                    span: self.peek().span,
                },
                _ => return self.error("a variable to aggregate"),
            };
            self.bump();
            let end = self.expect_punct(")")?;
            return Ok(HeadArg::Aggregate(agg, var, start.to(end)));
        }
        self.expr().map(HeadArg::Term)
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.sum().map(|(e, _)| e)
    }

    /// Enters one level of recursion (a parenthesis, a unary minus, a
    /// nested retrieval operator), refusing past [`MAX_NESTING`].
    fn enter(&mut self) -> PResult<()> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(ParseError::new(
                ParseErrorKind::TooDeep(MAX_NESTING),
                self.peek().span,
            ));
        }
        Ok(())
    }

    /// The depth of a new operator node over operands of depth `depth`.
    fn deeper(depth: u32, span: Span) -> PResult<u32> {
        if depth >= MAX_NESTING {
            return Err(ParseError::new(ParseErrorKind::TooDeep(MAX_NESTING), span));
        }
        Ok(depth + 1)
    }

    /// An expression with the depth of its tree: a long chain `1+1+...`
    /// makes a deep tree without a single parenthesis.
    fn sum(&mut self) -> PResult<(Expr, u32)> {
        let (mut lhs, mut depth) = self.product()?;
        loop {
            let op = match self.peek().tok {
                Tok::Punct("+") => ArithOp::Add,
                Tok::Punct("-") => ArithOp::Sub,
                _ => return Ok((lhs, depth)),
            };
            let at = self.bump().span;
            let (rhs, rhs_depth) = self.product()?;
            depth = Self::deeper(depth.max(rhs_depth), at)?;
            let span = lhs.span().to(rhs.span());
            lhs = Expr::Binary(Box::new(lhs), op, Box::new(rhs), span);
        }
    }

    fn product(&mut self) -> PResult<(Expr, u32)> {
        let (mut lhs, mut depth) = self.unary()?;
        loop {
            let op = match self.peek().tok {
                Tok::Punct("*") => ArithOp::Mul,
                Tok::Punct("/") => ArithOp::Div,
                _ => return Ok((lhs, depth)),
            };
            let at = self.bump().span;
            let (rhs, rhs_depth) = self.unary()?;
            depth = Self::deeper(depth.max(rhs_depth), at)?;
            let span = lhs.span().to(rhs.span());
            lhs = Expr::Binary(Box::new(lhs), op, Box::new(rhs), span);
        }
    }

    fn unary(&mut self) -> PResult<(Expr, u32)> {
        if self.is_punct("-") {
            self.enter()?;
            let start = self.bump().span;
            let (inner, depth) = self.unary()?;
            self.nesting -= 1;
            let span = start.to(inner.span());
            return Ok(match inner {
                Expr::Const(Const::Int(i), _) if i != i64::MIN => {
                    (Expr::Const(Const::Int(-i), span), depth)
                }
                Expr::Const(Const::Float(x), _) => (Expr::Const(Const::Float(-x), span), depth),
                other => (
                    Expr::Neg(Box::new(other), span),
                    Self::deeper(depth, start)?,
                ),
            });
        }
        self.primary()
    }

    fn primary(&mut self) -> PResult<(Expr, u32)> {
        let token = self.peek().clone();
        let span = token.span;
        let expr = match token.tok {
            Tok::Var(v) => Expr::Var(Name { text: v, span }),
            Tok::Wildcard => Expr::Wildcard(span),
            Tok::Param(p) => Expr::Param(Name { text: p, span }),
            Tok::Int(i) => Expr::Const(Const::Int(i), span),
            Tok::Float(x) => Expr::Const(Const::Float(x), span),
            Tok::Str(s) => Expr::Const(Const::Str(s), span),
            Tok::Time(t) => Expr::Const(Const::Time(t), span),
            Tok::Ident(s) if s == "true" => Expr::Const(Const::Bool(true), span),
            Tok::Ident(s) if s == "false" => Expr::Const(Const::Bool(false), span),
            Tok::Ident(s) if s == "null" => Expr::Const(Const::Null, span),
            Tok::Ident(s) | Tok::QuotedName(s) => Expr::Ident(Name { text: s, span }),
            Tok::Punct("(") => {
                self.enter()?;
                self.bump();
                let inner = self.sum()?;
                self.expect_punct(")")?;
                self.nesting -= 1;
                return Ok(inner);
            }
            _ => return self.error("a term (a variable, a name, a number, a string or a date)"),
        };
        self.bump();
        Ok((expr, 0))
    }
}

/// A head without a body is a fact: no aggregates allowed.
fn head_to_atom(head: Head) -> PResult<Atom> {
    let mut args = Vec::with_capacity(head.args.len());
    for arg in head.args {
        match arg {
            HeadArg::Term(e) => args.push(e),
            HeadArg::Aggregate(_, _, span) => {
                return Err(ParseError::new(
                    ParseErrorKind::Expected(
                        "a value (aggregates belong in rule heads)".into(),
                        "an aggregate".into(),
                    ),
                    span,
                ));
            }
        }
    }
    Ok(Atom {
        name: head.name,
        args,
        span: head.span,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_each_goes_on_after_a_broken_statement() {
        let src = "p(a).\n?- p(a X).\n?- p(Y).";
        let parsed = parse_each(src).expect("lexes");
        assert_eq!(parsed.len(), 3);
        assert!(parsed[0].1.is_ok() && parsed[1].1.is_err() && parsed[2].1.is_ok());
        let texts: Vec<&str> = parsed.iter().map(|(s, _)| &src[s.start..s.end]).collect();
        assert_eq!(texts, ["p(a).", "?- p(a X).", "?- p(Y)."]);
        // `parse` is all or nothing.
        assert!(parse(src).is_err());
        assert_eq!(parse("p(a). p(b).").map(|p| p.spans.len()), Ok(2));
    }

    #[test]
    fn parses_the_design_card() {
        let src = r#"
            :create works_at(person: sym key, company: sym).
            works_at(alice, tencent) valid 2021-03-01.
            let t1 = 2022-01-01.
            ?- works_at(x, Y) as_of t1.
            ?- works_at(alice, Y) as_of t1 known_at 2021-01-01.
            ?- history works_at(alice, Y).
            colleague(X, Y) :- works_at(X, C), works_at(Y, C), X != Y.
            reach(X, Y) :- reach(X, Z), knows(Z, Y).
            ?- reach(alice, Y), not blocked(Y).
            per_company(C, count(X)) :- works_at(X, C).
            retract works_at(alice, tencent) valid 2023-01-01.
            correct works_at(alice, tencent).
            ?- works_at(X, C) order by X desc limit 10.
        "#;
        let program = parse(src).expect("parse");
        assert_eq!(program.statements.len(), 13);
        let Statement::Query(q) = &program.statements[3] else {
            panic!("query")
        };
        assert!(matches!(&q.as_of, Some(Expr::Ident(n)) if n.text == "t1"));
    }

    #[test]
    fn errors_say_what_was_expected_and_where() {
        let src = "?- works_at(x, Y.";
        let err = parse(src).expect_err("missing paren");
        assert_eq!(err.to_string(), "expected `)`, found `.`");
        assert_eq!(err.span, Span::new(16, 17));
        let err = parse("p(X) :- q(X)").expect_err("no dot");
        assert_eq!(err.to_string(), "expected `.`, found end of input");
        let err = parse(":create r(a: string).").expect_err("bad type");
        assert!(err.to_string().starts_with("unknown column type `string`"));
    }

    #[test]
    fn nesting_past_the_limit_is_an_error_not_a_stack_overflow() {
        let deep = |n: usize, open: &str, close: &str| {
            format!("?- X = {}1{}.", open.repeat(n), close.repeat(n))
        };
        assert!(parse(&deep(100, "(", ")")).is_ok());
        for (open, close) in [("(", ")"), ("-(", ")"), ("- ", "")] {
            let err = parse(&deep(100_000, open, close)).expect_err("too deep");
            assert_eq!(err.kind, ParseErrorKind::TooDeep(MAX_NESTING), "{open}");
        }
        let chain = format!("?- X = 1{}.", " + 1".repeat(100_000));
        let err = parse(&chain).expect_err("too deep");
        assert_eq!(err.kind, ParseErrorKind::TooDeep(MAX_NESTING));
        assert!(parse(&format!("?- X = 1{}.", " + 1".repeat(100))).is_ok());
        let rrf = format!(
            "?- {}bm25(doc, \"x\", 3){}.",
            "rrf(".repeat(10_000),
            ")".repeat(10_000)
        );
        let err = parse(&rrf).expect_err("too deep");
        assert_eq!(err.kind, ParseErrorKind::TooDeep(MAX_NESTING));
    }
}
