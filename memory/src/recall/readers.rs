//! The sessions searches read through, kept between searches: a session
//! waits for the background indexes only when the memory was written to
//! since it last did (read your own `add`), never on every search.
//!
//! A fresh engine session waits for the indexer at its first `near` or
//! `bm25`, which costs a round trip to the indexer thread even when
//! nothing is pending, and, while consolidation runs in the background,
//! waits for passages being embedded that the search did not ask for.
//! Pooled sessions skip that unless an `add` happened since they last
//! caught up. Consolidation passes end with the indexes caught up, so a
//! search after `consolidate_now` sees every fact and passage.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};

use chronolog_engine::{Engine, Session};
use parking_lot::Mutex;

use crate::error::Result;

/// Idle reader sessions, and a count of the memory's own writes.
#[derive(Default)]
pub(crate) struct Readers {
    idle: Mutex<Vec<Pooled>>,
    writes: AtomicU64,
}

struct Pooled {
    session: Session,
    /// The count of writes its indexes have caught up with.
    seen: u64,
}

impl Readers {
    /// Notes a write of the memory's own (an `add`): every reader catches
    /// up with the indexes before its next search.
    pub(crate) fn wrote(&self) {
        self.writes.fetch_add(1, Ordering::AcqRel);
    }

    /// A session to read with, caught up with every write noted before
    /// this call; it goes back to the pool when the lease drops.
    pub(crate) fn lease<'r>(&'r self, engine: &Engine) -> Result<Lease<'r>> {
        let writes = self.writes.load(Ordering::Acquire);
        let pooled = self.idle.lock().pop();
        let pooled = match pooled {
            Some(mut pooled) => {
                if pooled.seen < writes {
                    pooled.session.sync_indexes()?;
                    pooled.seen = writes;
                }
                pooled
            }
            // A new session waits for the indexes at its first search.
            None => Pooled {
                session: engine.session(),
                seen: writes,
            },
        };
        Ok(Lease {
            readers: self,
            pooled: Some(pooled),
        })
    }
}

/// A reader session on loan from [`Readers`].
pub(crate) struct Lease<'r> {
    readers: &'r Readers,
    pooled: Option<Pooled>,
}

impl Deref for Lease<'_> {
    type Target = Session;
    fn deref(&self) -> &Session {
        match &self.pooled {
            Some(p) => &p.session,
            None => unreachable!("a lease holds its session until it drops"),
        }
    }
}

impl DerefMut for Lease<'_> {
    fn deref_mut(&mut self) -> &mut Session {
        match &mut self.pooled {
            Some(p) => &mut p.session,
            None => unreachable!("a lease holds its session until it drops"),
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(pooled) = self.pooled.take() {
            self.readers.idle.lock().push(pooled);
        }
    }
}
