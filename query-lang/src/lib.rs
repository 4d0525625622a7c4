//! Chronolog's Datalog: text to a resolved, stratified program. This crate
//! knows nothing of how data is stored; `chronolog-engine` runs its output.
//!
//! Pipeline, one typed form per stage: `lex` (tokens with spans) -> `parse`
//! (`ast::Program`) -> `resolve` ([`Resolved`]) -> `stratify` ([`Strata`])
//! -> `lower` (a logical [`plan::Plan`]); `compile_query` runs the last three.

pub mod ast;
mod compile;
mod error;
mod lexer;
mod parser;
pub mod plan;
mod scc;
mod span;

pub use compile::{
    Catalog, ColumnInfo, Component, Lets, MAX_RANKED_K, OUTPUT, Read, ReadRel, Resolved, Strata,
    compile_query, constant, lower, resolve, stratify,
};
pub use error::{CompileError, CompileErrorKind, ParseError, ParseErrorKind};
pub use lexer::parse_time;
pub use parser::{MAX_NESTING, ParsedStatement, parse, parse_each};
pub use span::{LineCol, Span, line_col, render};
