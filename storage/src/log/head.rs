//! The head record: an independent, synced statement of how much of the log
//! was acknowledged, so that a log which reads back shorter than that is
//! reported as damaged instead of opening as a shorter history.
//!
//! The log file holds two 64-byte slots just after its header (a log of
//! format 3 kept them in a file of their own, `head`, at offset 0). Each
//! write goes to the slot the
//! current record is not in (`seq % 2`), so a torn write leaves the other,
//! one commit older, intact; the valid slot with the higher `seq` wins.
//!
//! ```text
//! "CHRNHEAD" | seq u64 | generation u32 | chain u32 | frames u64 | end u64
//!            | last_tx i64 | reserved [u8; 12] | crc32 of bytes 0..60 u32
//! ```

use std::fs::File;
use std::os::unix::fs::FileExt;

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"CHRNHEAD";
pub(crate) const SLOT_LEN: usize = 64;

/// What the log held when a commit was acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Head {
    /// Increases with every write; picks the newer slot.
    pub seq: u64,
    /// The log file's generation (a purge rewrites the log as a new one).
    pub generation: u32,
    /// The chain value of the last acknowledged frame.
    pub chain: u32,
    /// Acknowledged frames.
    pub frames: u64,
    /// The byte just past the last acknowledged frame.
    pub end: u64,
    /// Its transaction time (0 before the first commit).
    pub last_tx: i64,
}

impl Head {
    fn encode(&self) -> [u8; SLOT_LEN] {
        let mut b = [0u8; SLOT_LEN];
        b[0..8].copy_from_slice(MAGIC);
        b[8..16].copy_from_slice(&self.seq.to_le_bytes());
        b[16..20].copy_from_slice(&self.generation.to_le_bytes());
        b[20..24].copy_from_slice(&self.chain.to_le_bytes());
        b[24..32].copy_from_slice(&self.frames.to_le_bytes());
        b[32..40].copy_from_slice(&self.end.to_le_bytes());
        b[40..48].copy_from_slice(&self.last_tx.to_le_bytes());
        let crc = crc32fast::hash(&b[..60]);
        b[60..64].copy_from_slice(&crc.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Option<Head> {
        if b.len() != SLOT_LEN || &b[0..8] != MAGIC {
            return None;
        }
        let crc = u32::from_le_bytes(b[60..64].try_into().ok()?);
        if crc32fast::hash(&b[..60]) != crc {
            return None;
        }
        let u64_at = |i: usize| b[i..i + 8].try_into().ok().map(u64::from_le_bytes);
        let u32_at = |i: usize| b[i..i + 4].try_into().ok().map(u32::from_le_bytes);
        Some(Head {
            seq: u64_at(8)?,
            generation: u32_at(16)?,
            chain: u32_at(20)?,
            frames: u64_at(24)?,
            end: u64_at(32)?,
            last_tx: u64_at(40)? as i64,
        })
    }

    /// Reads the newer valid slot of the pair at byte `at` of `file`.
    pub(crate) fn read(file: &File, at: u64) -> Result<Head> {
        let mut bytes = [0u8; 2 * SLOT_LEN];
        let len = file
            .metadata()
            .map_err(Error::io("reading the head record"))?
            .len();
        let n = (len.saturating_sub(at) as usize).min(bytes.len());
        file.read_exact_at(&mut bytes[..n], at)
            .map_err(Error::io("reading the head record"))?;
        let slots = [
            Head::decode(&bytes[..SLOT_LEN]),
            Head::decode(&bytes[SLOT_LEN..]),
        ];
        slots
            .into_iter()
            .flatten()
            .max_by_key(|h| h.seq)
            .ok_or_else(|| {
                Error::corrupt("the head record is unreadable: both of its slots are damaged")
            })
    }

    /// Writes this record into its slot of the pair at byte `at` of
    /// `file`; the caller syncs.
    pub(crate) fn write(&self, file: &File, at: u64) -> Result<()> {
        let slot = at + (self.seq % 2) * SLOT_LEN as u64;
        file.write_all_at(&self.encode(), slot)
            .map_err(Error::io("writing the head record"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(seq: u64) -> Head {
        Head {
            seq,
            generation: 2,
            chain: 0xDEAD_BEEF,
            frames: seq * 3,
            end: 16 + seq * 100,
            last_tx: 1_700_000_000_000_000 + seq as i64,
        }
    }

    #[test]
    fn the_newer_slot_wins_and_a_torn_one_falls_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.path().join("head"))
            .expect("open");
        for seq in 0..5 {
            head(seq).write(&file, 16).expect("write");
            assert_eq!(Head::read(&file, 16).expect("read"), head(seq));
        }
        // Tear the newer slot (seq 4 lives in slot 0): the older one answers.
        file.write_all_at(&[0xFF; 7], 16 + 20).expect("tear");
        assert_eq!(Head::read(&file, 16).expect("read"), head(3));
        file.write_all_at(&[0xFF; 7], 16 + SLOT_LEN as u64 + 20)
            .expect("tear");
        assert!(matches!(Head::read(&file, 16), Err(Error::Corrupt { .. })));
    }
}
