//! The write path, System 1: messages appended in one transaction and the
//! worker woken, no model on the way; and a tenant's pinned language.

use chronolog_engine::{Interval, Timestamp};

use super::{Memory, check_tenant};
use crate::error::{Error, Result};
use crate::ids;
use crate::lang::Lang;
use crate::message::Message;
use crate::schema;
use crate::tenant_lang::{Chosen, write_said_in};

impl Memory {
    /// Appends one message of `tenant` and returns its episode id. No model
    /// runs and nothing waits for consolidation; the episode is durable (as
    /// the store's durability says) and searchable by words and by queries
    /// when this returns.
    pub fn add(&self, tenant: &str, message: Message) -> Result<String> {
        let mut ids = self.add_batch(tenant, std::slice::from_ref(&message))?;
        ids.pop()
            .ok_or_else(|| Error::Worker("no id came back".into()))
    }

    /// Appends a whole conversation in one transaction: all of it or, on
    /// any bad message, none of it.
    pub fn add_batch(&self, tenant: &str, messages: &[Message]) -> Result<Vec<String>> {
        check_tenant(tenant)?;
        for m in messages {
            m.check()?;
        }
        if messages.is_empty() {
            return Ok(Vec::new());
        }
        let now = Timestamp::now();
        let rel = self.shared.episode;
        let said_in = self.shared.said_in;
        let mut writer = self.shared.writer.lock();
        let first = writer.next_seq;
        let ids: Vec<String> = (0..messages.len() as u64)
            .map(|i| ids::episode(tenant, first + i))
            .collect();
        writer.session.write(|txn| {
            txn.symbol(tenant)?;
            for (i, (m, id)) in messages.iter().zip(&ids).enumerate() {
                let row = schema::Episode {
                    id: id.clone(),
                    tenant: tenant.to_string(),
                    session: m.session.as_deref().unwrap_or("default").to_string(),
                    role: m.role.trim().to_string(),
                    seq: (first + i as u64) as i64,
                    at: m.at.unwrap_or(now),
                    text: m.text.clone(),
                };
                let values = row.to_values(txn)?;
                txn.assert(rel, values, Interval::starting(row.at), None)?;
                if let Some(lang) = m.lang {
                    let said = crate::consolidate::passage::Said {
                        episode: &row.id,
                        tenant,
                        role: &row.role,
                        at: row.at,
                        text: &row.text,
                    };
                    write_said_in(txn, said_in, &said, lang, Chosen::Given)?;
                }
            }
            Ok(())
        })?;
        writer.next_seq += messages.len() as u64;
        let last = writer.next_seq - 1;
        drop(writer);
        // The caller's next search reads what it just said.
        self.shared.caches.readers.wrote();
        if let Some((tx, _)) = &self.worker {
            // A worker that has stopped is seen by `consolidate_now`; `add`
            // itself has done its job.
            let _ = tx.send(last);
        }
        Ok(ids)
    }

    /// Pins the language `tenant`'s messages and questions are read in,
    /// for a user whose language is known (short messages say too little
    /// for detection: "Was ist mein Job?" reads as English); `None`
    /// unpins, and detection reads them again. A message `add` is given
    /// with its own language and a search that names one keep theirs. The
    /// pin holds for messages consolidated from now on: pin before the
    /// first message, since what is consolidated is not read again.
    pub fn pin_language(&self, tenant: &str, lang: Option<Lang>) -> Result<()> {
        check_tenant(tenant)?;
        let rel = self.shared.language_pin;
        let mut writer = self.shared.writer.lock();
        let current = self.shared.languages.pinned(tenant);
        if current == lang {
            return Ok(());
        }
        writer.session.write(|txn| {
            let row = |code: Lang| schema::LanguagePin {
                tenant: tenant.to_string(),
                lang: code.code().to_string(),
            };
            match (lang, current) {
                (Some(lang), _) => {
                    let values = row(lang).to_values(txn)?;
                    txn.assert_from_commit(rel, values, None)?;
                }
                (None, Some(current)) => {
                    let values = row(current).to_values(txn)?;
                    txn.retract_from_commit(rel, values)?;
                }
                (None, None) => {}
            }
            Ok(())
        })?;
        self.shared.languages.set_pin(tenant, lang);
        drop(writer);
        self.shared.caches.readers.wrote();
        Ok(())
    }

    /// The language `tenant` is pinned to, if any ([`Memory::pin_language`]).
    pub fn pinned_language(&self, tenant: &str) -> Result<Option<Lang>> {
        check_tenant(tenant)?;
        Ok(self.shared.languages.pinned(tenant))
    }
}
