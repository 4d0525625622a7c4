//! What consolidation remembers of a conversation between its messages:
//! how many it has read, the last one (a passage begins with it) and the
//! people named lately (what "he" and "she" refer to). It is a row of
//! `mem_conversation`, written in each episode's commit beside the
//! cursor, so that a pass after a restart, or a pass per message, writes
//! exactly what one uninterrupted pass writes.

use chronolog_engine::{Interval, RelationId, Store, Value, WriteTxn};

use crate::error::Result;
use crate::ids;
use crate::schema::{Conversation, Episode, Relations};

/// One conversation's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct State {
    /// Messages read so far.
    pub turn: u64,
    /// The last message read: its episode id, speaker and text.
    pub previous: Option<Said>,
    /// The people named lately, each with the turn it was last named in,
    /// oldest first.
    pub people: Vec<(u64, String)>,
}

/// A message as the next passage quotes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Said {
    pub episode: String,
    pub role: String,
    pub text: String,
}

impl State {
    /// The state of `tenant`'s conversation `session` as stored, or, for
    /// a conversation consolidated before states were stored, the last
    /// message consolidated before `seq` alone.
    pub(crate) fn load(
        store: &Store,
        rel: &Relations,
        tenant: &str,
        session: &str,
        seq: i64,
    ) -> Result<State> {
        let Some(id) = store.symbol(&ids::conversation(tenant, session)) else {
            return Ok(State {
                previous: last_before(store, rel.episode, tenant, session, seq)?,
                ..State::default()
            });
        };
        let rows = store
            .snapshot()
            .scan(rel.conversation)
            .eq(Conversation::ID, Value::Sym(id))
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let Some(row) = rows.first() else {
            return Ok(State::default());
        };
        let row = Conversation::from_values(store, &row.values)?;
        Ok(State {
            turn: u64::try_from(row.turn).unwrap_or(0),
            previous: said(store, rel.episode, &row.previous)?,
            people: row
                .people
                .lines()
                .filter_map(|line| {
                    let (turn, entity) = line.split_once(' ')?;
                    Some((turn.parse().ok()?, entity.to_string()))
                })
                .collect(),
        })
    }

    /// Writes the state (its last message must be set).
    pub(crate) fn write(
        &self,
        txn: &mut WriteTxn<'_>,
        rel: RelationId,
        tenant: &str,
        session: &str,
    ) -> chronolog_engine::Result<()> {
        let Some(previous) = &self.previous else {
            return Ok(());
        };
        let people: Vec<String> = self
            .people
            .iter()
            .map(|(turn, entity)| format!("{turn} {entity}"))
            .collect();
        let row = Conversation {
            id: ids::conversation(tenant, session),
            tenant: tenant.to_string(),
            turn: i64::try_from(self.turn).unwrap_or(i64::MAX),
            previous: previous.episode.clone(),
            people: people.join("\n"),
        };
        let values = row.to_values(txn)?;
        txn.assert(rel, values, Interval::ALWAYS, None)?;
        Ok(())
    }
}

/// The episode `id` as a passage quotes it; `None` when it is gone
/// (forgotten).
fn said(store: &Store, rel: RelationId, id: &str) -> Result<Option<Said>> {
    crate::view::first_keyed(store, rel, Episode::ID, id, |s| s.history())?
        .map(|row| {
            let episode = Episode::from_values(store, &row.values)?;
            Ok(Said {
                episode: episode.id,
                role: episode.role,
                text: episode.text,
            })
        })
        .transpose()
}

/// The message said last before `seq` in `tenant`'s session.
fn last_before(
    store: &Store,
    rel: RelationId,
    tenant: &str,
    session: &str,
    seq: i64,
) -> Result<Option<Said>> {
    let (Some(tenant), Some(session)) = (store.symbol(tenant), store.symbol(session)) else {
        return Ok(None);
    };
    let mut last: Option<(i64, Vec<Value>)> = None;
    store
        .snapshot()
        .scan(rel)
        .history()
        .eq(Episode::TENANT, Value::Sym(tenant))
        .eq(Episode::SESSION, Value::Sym(session))
        .for_each(|row| {
            if let Value::Int(s) = row.value(Episode::SEQ).to_owned()
                && s < seq
                && last.as_ref().is_none_or(|(l, _)| s > *l)
            {
                last = Some((s, row.values()));
            }
        })
        .map_err(chronolog_engine::Error::from)?;
    last.map(|(_, values)| {
        let episode = Episode::from_values(store, &values)?;
        Ok(Said {
            episode: episode.id,
            role: episode.role,
            text: episode.text,
        })
    })
    .transpose()
}
