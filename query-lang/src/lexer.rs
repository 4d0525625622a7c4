//! The lexer: source text to tokens with spans, written with nom.
//!
//! Tokens are small and the grammar above them is a recursive-descent parser
//! (`parser.rs`), so that every syntax error can say exactly what was
//! expected and point at the token that was found instead.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while_m_n, take_while1};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{opt, recognize};
use nom::sequence::{pair, preceded};
use nom::{IResult, Parser};

use crate::error::{ParseError, ParseErrorKind};
use crate::span::Span;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name starting with a lowercase letter: a symbol, relation, keyword
    /// or `let`-bound name.
    Ident(String),
    /// A name starting with an uppercase letter or `_` (but not `_` alone).
    Var(String),
    /// `_`: a variable that matches anything and binds nothing.
    Wildcard,
    /// `$name`: a parameter bound by the caller.
    Param(String),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A double-quoted string, escapes resolved.
    Str(String),
    /// A symbol name in single quotes (`'Mia Wong'`): a name with capitals,
    /// spaces or punctuation, escapes resolved.
    QuotedName(String),
    /// An ISO date or datetime, as UTC microseconds.
    Time(i64),
    /// Punctuation and operators.
    Punct(&'static str),
    /// End of input.
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) | Tok::Var(s) => format!("`{s}`"),
            Tok::Wildcard => "`_`".into(),
            Tok::Param(s) => format!("`${s}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Float(x) => format!("`{x}`"),
            Tok::Str(_) => "a string".into(),
            Tok::QuotedName(s) => format!("`'{s}'`"),
            Tok::Time(_) => "a time".into(),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its bytes in the source.
    pub span: Span,
}

/// Longest punctuation first, so `:-` wins over `:`.
const PUNCT: [&str; 22] = [
    ":-", "?-", "!=", "<=", ">=", "..", "(", ")", "[", "]", ",", ".", ":", "=", "<", ">", "+", "-",
    "*", "/", "|", "?",
];

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `2021-03-01`, optionally followed by `T09:30`, seconds, fraction, zone.
fn time_literal(i: &str) -> IResult<&str, &str> {
    let date = (
        take_while_m_n(4, 4, |c: char| c.is_ascii_digit()),
        char('-'),
        take_while_m_n(2, 2, |c: char| c.is_ascii_digit()),
        char('-'),
        take_while_m_n(2, 2, |c: char| c.is_ascii_digit()),
    );
    let two = || take_while_m_n(2, 2, |c: char| c.is_ascii_digit());
    let clock = (
        one_of("T "),
        two(),
        char(':'),
        two(),
        opt((char(':'), two(), opt(preceded(char('.'), digit1)))),
        opt(alt((
            tag("Z"),
            recognize((one_of("+-"), two(), char(':'), two())),
        ))),
    );
    recognize(pair(date, opt(clock))).parse(i)
}

fn number(i: &str) -> IResult<&str, &str> {
    recognize((
        digit1,
        opt(pair(char('.'), digit1)),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(i)
}

/// Parses an ISO date or datetime into UTC microseconds. `9999-12-31` is
/// that date; a `valid` clause reads it as the open end.
pub fn parse_time(text: &str) -> Option<i64> {
    // jiff ends a little before 9999-12-31: a time in the year 9999 is
    // read in 9998 (the same calendar) and moved a year on.
    if let Some(rest) = text.strip_prefix("9999-") {
        return parse_time(&format!("9998-{rest}")).map(|us| us + 365 * 86_400_000_000);
    }
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(ts.as_microsecond());
    }
    if let Ok(dt) = text.parse::<jiff::civil::DateTime>() {
        return jiff::tz::TimeZone::UTC
            .to_timestamp(dt)
            .ok()
            .map(|t| t.as_microsecond());
    }
    let date = text.parse::<jiff::civil::Date>().ok()?;
    jiff::tz::TimeZone::UTC
        .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
        .ok()
        .map(|t| t.as_microsecond())
}

/// Splits `source` into tokens, ending with `Eof`. Comments run from `%` or
/// `//` to the end of the line.
pub fn lex(source: &str) -> Result<Vec<Token>, ParseError> {
    let mut tokens = Vec::new();
    let mut rest = source;
    let offset = |rest: &str| source.len() - rest.len();
    loop {
        rest = rest.trim_start();
        if rest.starts_with('%') || rest.starts_with("//") {
            rest = rest.find('\n').map_or("", |i| &rest[i..]);
            continue;
        }
        let start = offset(rest);
        let Some(first) = rest.chars().next() else {
            tokens.push(Token {
                tok: Tok::Eof,
                span: Span::new(start, start),
            });
            return Ok(tokens);
        };
        let (next, tok) = if first.is_ascii_digit() {
            if let Ok((next, text)) = time_literal(rest) {
                let Some(us) = parse_time(text) else {
                    return Err(ParseError::new(
                        ParseErrorKind::BadTime(text.to_string()),
                        Span::new(start, start + text.len()),
                    ));
                };
                (next, Tok::Time(us))
            } else {
                let (next, text) = number(rest).map_err(|_| {
                    ParseError::new(
                        ParseErrorKind::BadNumber(first.to_string()),
                        Span::new(start, start + 1),
                    )
                })?;
                let span = Span::new(start, start + text.len());
                let tok = if text.contains(['.', 'e', 'E']) {
                    Tok::Float(text.parse().map_err(|_| {
                        ParseError::new(ParseErrorKind::BadNumber(text.into()), span)
                    })?)
                } else {
                    Tok::Int(text.parse().map_err(|_| {
                        ParseError::new(ParseErrorKind::BadNumber(text.into()), span)
                    })?)
                };
                (next, tok)
            }
        } else if first == '"' || first == '\'' {
            let (next, text) = string(rest, first)
                .map_err(|(kind, at)| ParseError::new(kind, Span::new(start, start + at)))?;
            if first == '"' {
                (next, Tok::Str(text))
            } else {
                (next, Tok::QuotedName(text))
            }
        } else if first == '$' {
            let res: IResult<&str, &str> =
                preceded(char('$'), take_while1(is_ident_char)).parse(rest);
            match res {
                Ok((next, name)) => (next, Tok::Param(name.to_string())),
                Err(_) => {
                    return Err(ParseError::new(
                        ParseErrorKind::Expected("a parameter name after `$`".into(), "`$`".into()),
                        Span::new(start, start + 1),
                    ));
                }
            }
        } else if first.is_alphabetic() || first == '_' {
            let res: IResult<&str, &str> = take_while(is_ident_char).parse(rest);
            let (next, name) = res.map_err(|_| {
                ParseError::new(
                    ParseErrorKind::UnexpectedChar(first),
                    Span::new(start, start + 1),
                )
            })?;
            let tok = if name == "_" {
                Tok::Wildcard
            } else if first.is_uppercase() || first == '_' {
                Tok::Var(name.to_string())
            } else {
                Tok::Ident(name.to_string())
            };
            (next, tok)
        } else if let Some(p) = PUNCT.iter().find(|p| rest.starts_with(**p)) {
            (&rest[p.len()..], Tok::Punct(p))
        } else {
            return Err(ParseError::new(
                ParseErrorKind::UnexpectedChar(first),
                Span::new(start, start + first.len_utf8()),
            ));
        };
        tokens.push(Token {
            tok,
            span: Span::new(start, offset(next)),
        });
        rest = next;
    }
}

/// A string in `quote`s (double for text, single for a symbol name) with
/// `\"`, `\'`, `\\`, `\n`, `\r`, `\t`, `\0` and `\u{HEX}` escapes; any other escape is an error, never a silently
/// dropped backslash. On failure, the error and the byte length scanned
/// (for its span).
fn string(i: &str, quote: char) -> Result<(&str, String), (ParseErrorKind, usize)> {
    let mut out = String::new();
    let mut chars = i.char_indices().skip(1).peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((&i[at + 1..], out)),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 't')) => out.push('\t'),
                Some((_, '0')) => out.push('\0'),
                Some((_, '"')) => out.push('"'),
                Some((_, '\'')) => out.push('\''),
                Some((_, '\\')) => out.push('\\'),
                Some((u, 'u')) => {
                    let rest = &i[u + 1..];
                    let code = rest
                        .strip_prefix('{')
                        .and_then(|r| r.split_once('}'))
                        .filter(|(hex, _)| (1..=6).contains(&hex.len()))
                        .and_then(|(hex, _)| u32::from_str_radix(hex, 16).ok())
                        .and_then(char::from_u32);
                    let Some(ch) = code else {
                        let end = rest.find('}').map_or(u + 1, |e| u + 2 + e);
                        return Err((ParseErrorKind::BadEscape(i[at..end].to_string()), end));
                    };
                    out.push(ch);
                    // Skip `{HEX}`.
                    for (_, c) in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                    }
                }
                Some((e, other)) => {
                    let end = e + other.len_utf8();
                    return Err((ParseErrorKind::BadEscape(i[at..end].to_string()), end));
                }
                None => return Err((ParseErrorKind::UnclosedString, i.len())),
            },
            '\n' => return Err((ParseErrorKind::UnclosedString, at)),
            c => out.push(c),
        }
    }
    Err((ParseErrorKind::UnclosedString, i.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).expect("lex").into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_the_design_card() {
        assert_eq!(
            toks("?- works_at(x, Y) as_of t1. % comment"),
            vec![
                Tok::Punct("?-"),
                Tok::Ident("works_at".into()),
                Tok::Punct("("),
                Tok::Ident("x".into()),
                Tok::Punct(","),
                Tok::Var("Y".into()),
                Tok::Punct(")"),
                Tok::Ident("as_of".into()),
                Tok::Ident("t1".into()),
                Tok::Punct("."),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn lexes_literals() {
        assert_eq!(
            toks(r#"2021-03-01 2021-03-01T00:00:01Z 42 4.5 "a\"b" $p _ _X X1 :- != .."#),
            vec![
                Tok::Time(1_614_556_800_000_000),
                Tok::Time(1_614_556_801_000_000),
                Tok::Int(42),
                Tok::Float(4.5),
                Tok::Str("a\"b".into()),
                Tok::Param("p".into()),
                Tok::Wildcard,
                Tok::Var("_X".into()),
                Tok::Var("X1".into()),
                Tok::Punct(":-"),
                Tok::Punct("!="),
                Tok::Punct(".."),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn reports_bad_input_with_a_span() {
        let err = lex("p(\"abc").expect_err("unclosed");
        assert_eq!(err.span, Span::new(2, 6));
        let err = lex("p(2021-02-30).").expect_err("bad date");
        assert!(matches!(err.kind, ParseErrorKind::BadTime(_)));
        let err = lex("p(#)").expect_err("bad char");
        assert!(matches!(err.kind, ParseErrorKind::UnexpectedChar('#')));
    }

    #[test]
    fn escapes_are_resolved_or_refused_and_the_end_of_time_parses() {
        let one = |src: &str| lex(src).map(|t| t[0].tok.clone());
        assert_eq!(one(r#""x\u{41}y""#).expect("lex"), Tok::Str("xAy".into()));
        assert_eq!(
            one(r#""a\"b\\c\nd""#).expect("lex"),
            Tok::Str("a\"b\\c\nd".into())
        );
        assert_eq!(
            one(r#""\u{1F600}""#).expect("lex"),
            Tok::Str("\u{1F600}".into())
        );
        for bad in [r#""x\qy""#, r#""\u{110000}""#, r#""\u{}""#, r#""\u41""#] {
            let err = one(bad).expect_err(bad);
            assert!(
                matches!(err.kind, ParseErrorKind::BadEscape(_)),
                "{bad}: {err:?}"
            );
        }
        // The date written: only a `valid` end reads it as open.
        assert_eq!(parse_time("9999-12-31"), Some(253_402_214_400_000_000));
        assert_eq!(
            one("9999-12-31").expect("lex"),
            Tok::Time(253_402_214_400_000_000)
        );
    }
}
