//! A search as a caller outside Rust sends it: the C ABI's
//! `options_json`, the MCP `recall` tool's arguments, Python's keyword
//! arguments. One type, read and checked here, so the three bindings take
//! the same options under the same names with the same errors, and each
//! leaves out what the memory's [`Tuning`] decides.

use chronolog_engine::Timestamp;
use serde_json::Value as Json;

use crate::error::{Error, Result};
use crate::lang::Lang;
use crate::recall::SearchOptions;
use crate::tuning::Tuning;

/// The options of one search; `None` everywhere is the memory's defaults.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchRequest {
    /// Answer as things stood at this valid time (default: the time the
    /// question names, else now).
    pub as_of: Option<Timestamp>,
    /// Answer as the memory knew it at this transaction time.
    pub known_at: Option<Timestamp>,
    /// The most tokens the context may take.
    pub budget: Option<u64>,
    /// How many of the first candidate messages the reranker reorders.
    pub rerank: Option<u64>,
    /// The question's language as an ISO 639-1 code (`en`, `zh`, `de`),
    /// pinned rather than detected.
    pub lang: Option<String>,
}

/// The options a request may hold, for error messages.
const KNOWN: &str = "as_of, known_at (ISO 8601 times), budget (tokens), rerank (messages), \
                     lang (en, zh or de)";

impl SearchRequest {
    /// A request from JSON text: an object with any of the options, or
    /// `null` for none.
    pub fn from_json(text: &str) -> Result<SearchRequest> {
        let value: Json = serde_json::from_str(text)
            .map_err(|e| Error::BadRequest(format!("the options are not JSON: {e}")))?;
        SearchRequest::from_value(&value)
    }

    /// A request from a JSON value (see [`SearchRequest::from_json`]): an
    /// unknown option or one of the wrong type is an error naming it.
    pub fn from_value(value: &Json) -> Result<SearchRequest> {
        let object = match value {
            Json::Null => return Ok(SearchRequest::default()),
            Json::Object(object) => object,
            _ => {
                return Err(Error::BadRequest(
                    "the options must be a JSON object".into(),
                ));
            }
        };
        let mut request = SearchRequest::default();
        for (key, value) in object {
            let text = || match value {
                Json::String(s) => Ok(Some(s.as_str())),
                Json::Null => Ok(None),
                other => Err(Error::BadRequest(format!(
                    "`{key}` must be text, not {other}"
                ))),
            };
            let count = || match value {
                Json::Null => Ok(None),
                Json::Number(n) => n.as_u64().map(Some).ok_or_else(|| {
                    Error::BadRequest(format!("`{key}` must be a whole number, not {n}"))
                }),
                other => Err(Error::BadRequest(format!(
                    "`{key}` must be a whole number, not {other}"
                ))),
            };
            match key.as_str() {
                "as_of" => request.as_of = text()?.map(|t| time(key, t)).transpose()?,
                "known_at" => request.known_at = text()?.map(|t| time(key, t)).transpose()?,
                "budget" => request.budget = count()?,
                "rerank" => request.rerank = count()?,
                "lang" => request.lang = text()?.map(str::to_string),
                _ => {
                    return Err(Error::BadRequest(format!(
                        "unknown option `{key}`; the options are {KNOWN}"
                    )));
                }
            }
        }
        Ok(request)
    }

    /// The search options this request asks for, the rest from `tuning`.
    pub fn options(&self, tuning: &Tuning) -> Result<SearchOptions> {
        let defaults = SearchOptions::with_tuning(tuning);
        let size = |name: &str, n: Option<u64>, default: usize| -> Result<usize> {
            n.map_or(Ok(default), |n| {
                usize::try_from(n)
                    .map_err(|_| Error::BadRequest(format!("`{name}` is too large: {n}")))
            })
        };
        let lang = match &self.lang {
            None => None,
            Some(code) => Some(Lang::from_code(code).ok_or_else(|| {
                Error::BadRequest(format!(
                    "`lang` {code:?} is not a language served: en, zh or de"
                ))
            })?),
        };
        Ok(SearchOptions {
            as_of: self.as_of,
            known_at: self.known_at,
            budget: size("budget", self.budget, defaults.budget)?,
            rerank_depth: size("rerank", self.rerank, defaults.rerank_depth)?,
            lang,
            ..defaults
        })
    }
}

/// An ISO 8601 time given as option `name`.
pub fn time(name: &str, text: &str) -> Result<Timestamp> {
    Timestamp::parse(text).map_err(|e| Error::BadRequest(format!("`{name}`: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_read_and_the_rest_come_from_the_tuning() {
        let tuning = Tuning::default();
        let request = SearchRequest::from_json(
            r#"{"as_of": "2022-01-01", "known_at": null, "budget": 300, "rerank": 0, "lang": "DE"}"#,
        )
        .expect("request");
        let options = request.options(&tuning).expect("options");
        assert_eq!(
            options.as_of,
            Some(Timestamp::parse("2022-01-01").expect("t"))
        );
        assert_eq!(
            (options.known_at, options.budget, options.rerank_depth),
            (None, 300, 0)
        );
        assert_eq!(options.lang, Some(Lang::German));
        assert_eq!(options.k, SearchOptions::with_tuning(&tuning).k);
        let none = SearchRequest::from_json("null").expect("null");
        assert_eq!(
            none.options(&tuning).expect("defaults"),
            SearchOptions::with_tuning(&tuning)
        );
    }

    #[test]
    fn a_bad_option_is_refused_by_name() {
        for (text, says) in [
            (r#"{"budget": "lots"}"#, "`budget` must be a whole number"),
            (r#"{"budget": -1}"#, "`budget` must be a whole number"),
            (r#"{"as_of": "someday"}"#, "`as_of`"),
            (r#"{"as_of": 2022}"#, "`as_of` must be text"),
            (r#"{"colour": 1}"#, "unknown option `colour`"),
            ("[1]", "must be a JSON object"),
            ("{", "not JSON"),
        ] {
            let err = SearchRequest::from_json(text).expect_err(text).to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
        let klingon = SearchRequest {
            lang: Some("tlh".into()),
            ..SearchRequest::default()
        };
        let err = klingon.options(&Tuning::default()).expect_err("lang");
        assert!(err.to_string().contains("not a language served"), "{err}");
    }
}
