//! A message to remember, as `add` takes it.

use chronolog_engine::Timestamp;

use crate::error::{Error, Result};
use crate::lang::Lang;

/// The most text one message may hold: 256 KiB, about 60,000 tokens.
/// Consolidation reads a message whole, so a larger one (a document, a
/// tool's dump) is split into messages by its caller; it is refused at
/// `add`, before anything is written.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// One message to remember.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Who said it: `user`, `assistant`, or a name.
    pub role: String,
    /// What was said, kept exactly.
    pub text: String,
    /// When it was said (its event time); now when `None`.
    pub at: Option<Timestamp>,
    /// The conversation it belongs to; `default` when `None`.
    pub session: Option<String>,
    /// The language it is written in, when the caller knows it (a chat's
    /// locale, say); `None`: the tenant's pinned language, else detected
    /// from its words, which a short message may say too little for.
    pub lang: Option<Lang>,
}

impl Message {
    /// `role` said `text`, now, in the default session.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Message {
        Message {
            role: role.into(),
            text: text.into(),
            at: None,
            session: None,
            lang: None,
        }
    }

    /// Said at `at` rather than now.
    pub fn at(mut self, at: Timestamp) -> Message {
        self.at = Some(at);
        self
    }

    /// Written in `lang`: read in it, not detected.
    pub fn lang(mut self, lang: Lang) -> Message {
        self.lang = Some(lang);
        self
    }

    /// In conversation `session`.
    pub fn session(mut self, session: impl Into<String>) -> Message {
        self.session = Some(session.into());
        self
    }

    /// Refuses a message the memory cannot keep, naming the field at fault.
    pub(crate) fn check(&self) -> Result<()> {
        let m = self;
        let bad = |field, reason: String| Err(Error::BadMessage { field, reason });
        if m.role.trim().is_empty() {
            return bad("role", "empty: say who said it".into());
        }
        if m.role.trim().len() > chronolog_engine::MAX_SYMBOL_LEN {
            return bad(
                "role",
                format!(
                    "{} bytes; at most {}",
                    m.role.trim().len(),
                    chronolog_engine::MAX_SYMBOL_LEN
                ),
            );
        }
        if m.text.trim().is_empty() {
            return bad("text", "empty: nothing was said".into());
        }
        if m.text.len() > MAX_MESSAGE_BYTES {
            return bad(
                "text",
                format!(
                    "{} bytes; at most {MAX_MESSAGE_BYTES}: split it into messages",
                    m.text.len()
                ),
            );
        }
        if let Some(s) = &m.session
            && (s.trim().is_empty() || s.len() > 256)
        {
            return bad("session", format!("{s:?}: use 1 to 256 bytes"));
        }
        // The open ends and the "no end" date are no time anyone said a thing.
        if let Some(at) = m.at
            && (at == Timestamp::MIN || at >= Timestamp::NO_END_DATE)
        {
            return bad(
                "at",
                format!("{at} is not a time a message was said at (it must be before 9999-12-31)"),
            );
        }
        Ok(())
    }
}
