//! What stops a long memory call early: a flag another thread sets (a C
//! host's `chronolog_memory_cancel`) and a deadline (its timeout). A
//! search checks it between its stages and hands it to every query it
//! runs; a consolidation checks it between messages, each of which is its
//! own transaction, so a stopped pass keeps what it finished and the next
//! one goes on from there.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use chronolog_engine::Limits;

use crate::error::{Error, Result};

/// When to stop; the default never stops.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    /// Stop once this is set.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
}

impl PartialEq for Stop {
    fn eq(&self, other: &Stop) -> bool {
        let same_flag = match (&self.cancel, &other.cancel) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_flag && self.deadline == other.deadline
    }
}

impl Stop {
    /// `Err` (the engine's `Cancelled`, or its time limit) once it is
    /// time to stop.
    pub fn check(&self) -> Result<()> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            return Err(Error::Engine(chronolog_engine::Error::Cancelled));
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Error::Engine(chronolog_engine::Error::LimitExceeded(
                "the time limit".into(),
            )));
        }
        Ok(())
    }

    /// The engine's limits for a query run on the way: the default ones,
    /// stopped by the same flag and deadline.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            cancel: self.cancel.clone(),
            deadline: self.deadline,
            ..Limits::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_fires_on_its_flag_or_its_deadline_and_never_by_default() {
        assert!(Stop::default().check().is_ok());
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Stop {
            cancel: Some(flag.clone()),
            deadline: None,
        };
        assert!(stop.check().is_ok());
        flag.store(true, Ordering::Relaxed);
        assert!(matches!(
            stop.check(),
            Err(Error::Engine(chronolog_engine::Error::Cancelled))
        ));
        let late = Stop {
            cancel: None,
            deadline: Some(Instant::now()),
        };
        assert!(matches!(
            late.check(),
            Err(Error::Engine(chronolog_engine::Error::LimitExceeded(_)))
        ));
    }
}
