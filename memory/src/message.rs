//! A message to remember, as `add` takes it.

use chronolog_engine::Timestamp;

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
}

impl Message {
    /// `role` said `text`, now, in the default session.
    pub fn new(role: impl Into<String>, text: impl Into<String>) -> Message {
        Message {
            role: role.into(),
            text: text.into(),
            at: None,
            session: None,
        }
    }

    /// Said at `at` rather than now.
    pub fn at(mut self, at: Timestamp) -> Message {
        self.at = Some(at);
        self
    }

    /// In conversation `session`.
    pub fn session(mut self, session: impl Into<String>) -> Message {
        self.session = Some(session.into());
        self
    }
}
