//! Passages and sentences written after the fact: those of a store made
//! before they existed, and a tenant's passages copied into the
//! multilingual space when it first needs it.

use std::collections::HashMap;

use chronolog_engine::Interval;

use super::{Consolidator, said};
use crate::consolidate::{passage, sentence};
use crate::error::Result;
use crate::schema::{Episode, Multilingual, Passage};

impl Consolidator {
    /// The episodes consolidation has already passed: those a relation
    /// added by a later version must be written for.
    fn consolidated_episodes(&self) -> Result<Vec<Episode>> {
        let cursor = self.cursor()? as i64;
        let (episodes, _) = self.episodes_after(0, 0)?;
        Ok(episodes.into_iter().filter(|e| e.seq <= cursor).collect())
    }

    /// Writes the passages of every episode consolidated before passages
    /// existed (a store made by an earlier version), in one commit.
    pub(crate) fn backfill_passages(&mut self) -> Result<()> {
        let mut previous: HashMap<(String, String), (String, String)> = HashMap::new();
        let mut passages = Vec::new();
        for episode in self.consolidated_episodes()? {
            let conversation = (episode.tenant.clone(), episode.session.clone());
            let before = previous.get(&conversation);
            let text = passage::text(
                before.map(|(r, t)| (r.as_str(), t.as_str())),
                &said(&episode),
            );
            previous.insert(conversation, (episode.role.clone(), episode.text.clone()));
            passages.push((episode, text));
        }
        self.conversations.clear();
        if passages.is_empty() {
            return Ok(());
        }
        let rel = self.rel;
        self.session.write(|txn| {
            for (episode, text) in &passages {
                passage::write(txn, &rel, &said(episode), text.clone(), false)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Writes the sentences of every episode consolidated before sentences
    /// existed (a store made by an earlier version), in one commit, each
    /// read in the language its message is.
    pub(crate) fn backfill_sentences(&mut self) -> Result<()> {
        let mut written = Vec::new();
        for episode in self.consolidated_episodes()? {
            let given = self.languages.given(&episode.id)?;
            let (lang, _) = self
                .languages
                .message_lang(&episode.tenant, given, &episode.text);
            written.push((episode, lang));
        }
        if written.is_empty() {
            return Ok(());
        }
        let rel = self.rel;
        self.session.write(|txn| {
            for (episode, lang) in &written {
                sentence::write(txn, &rel, &said(episode), lang.reader())?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Puts `tenant`'s passages in the multilingual space, once: from
    /// then on each of its passages is written there too. A tenant enters
    /// with its first message in another language than English, or its
    /// first question that needs the space (one in another language than
    /// its memory); a tenant that only ever speaks English never pays for
    /// a second model. Returns how many passages it copied (nothing is
    /// extracted again; the indexer embeds them).
    pub(crate) fn enter_multilingual(&mut self, tenant: &str) -> Result<usize> {
        if self.languages.is_multilingual(tenant) {
            return Ok(0);
        }
        let rows = self.multilingual_rows(tenant)?;
        let rel = self.rel.multilingual;
        self.session
            .write(|txn| write_multilingual(txn, rel, &rows))?;
        self.languages.enter_multilingual(tenant);
        Ok(rows.len())
    }

    /// The multilingual rows of `tenant`'s passages as they stand.
    pub(super) fn multilingual_rows(&self, tenant: &str) -> Result<Vec<(Multilingual, Interval)>> {
        let store = self.session.store().clone();
        let passages = store
            .snapshot()
            .scan(self.rel.passage)
            .collect()
            .map_err(chronolog_engine::Error::from)?;
        let mut rows = Vec::new();
        for row in passages.iter().filter(|row| row.tx.is_open()) {
            let p = Passage::from_values(&store, &row.values)?;
            if p.tenant == tenant {
                rows.push((
                    Multilingual {
                        id: p.id,
                        episode: p.episode,
                        tenant: p.tenant,
                        text: p.text,
                    },
                    row.valid,
                ));
            }
        }
        Ok(rows)
    }
}

/// Asserts `rows` of the multilingual space, each valid when its passage is.
pub(super) fn write_multilingual(
    txn: &mut chronolog_engine::WriteTxn<'_>,
    rel: chronolog_engine::RelationId,
    rows: &[(Multilingual, Interval)],
) -> chronolog_engine::Result<()> {
    for (row, valid) in rows {
        let values = row.to_values(txn)?;
        txn.assert(rel, values, *valid, None)?;
    }
    Ok(())
}
