//! The commit log's bytes: a file header, then one checksummed frame per
//! transaction, each frame's checksum chained to the one before it.
//!
//! ```text
//! header  "CHRONLOG" | format u32 LE | generation u32 LE          16 bytes
//! head    two head-record slots (see `head.rs`)                   128 bytes
//! frame   len u32 LE | tx i64 LE | chain u32 LE | payload[len]    16 + len bytes
//! chain = crc32(previous chain LE | len LE | tx LE | payload)
//! ```
//!
//! The chain starts from a seed derived from the generation, so a frame is
//! only accepted in its place in its own file: a frame spliced in from
//! another file or another generation, reordered, or followed by damage
//! fails the check, and the scan stops at the first frame that fails.

use std::io::Read;

use crate::error::{Error, Result};

/// The file header's magic bytes.
pub(crate) const MAGIC: &[u8; 8] = b"CHRONLOG";
/// The header's length; the head record's slots start here.
pub(crate) const HEADER_LEN: u64 = 16;
/// A frame's fixed part before its payload.
pub(crate) const FRAME_HEADER_LEN: usize = 16;
/// A single transaction's encoded size limit: far above any real commit,
/// and low enough that a damaged length cannot ask for absurd memory.
pub(crate) const MAX_FRAME_PAYLOAD: usize = 1 << 30;

/// The chain value that the first frame of a generation continues.
pub(crate) fn seed(generation: u32) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(MAGIC);
    hasher.update(&generation.to_le_bytes());
    hasher.finalize()
}

/// The file header for `generation` of a log in `format`.
pub(crate) fn header(format: u32, generation: u32) -> [u8; HEADER_LEN as usize] {
    let mut bytes = [0u8; HEADER_LEN as usize];
    bytes[..8].copy_from_slice(MAGIC);
    bytes[8..12].copy_from_slice(&format.to_le_bytes());
    bytes[12..16].copy_from_slice(&generation.to_le_bytes());
    bytes
}

/// Reads a file header; returns its format and generation. The caller
/// decides which formats it reads.
pub(crate) fn read_header(mut file: impl Read) -> Result<(u32, u32)> {
    let mut bytes = [0u8; HEADER_LEN as usize];
    file.read_exact(&mut bytes)
        .map_err(|_| Error::corrupt("the log file is shorter than its header"))?;
    if &bytes[..8] != MAGIC {
        return Err(Error::corrupt("the log file does not start with CHRONLOG"));
    }
    let format = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    let generation = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
    Ok((format, generation))
}

fn chain_of(prev: u32, len: u32, tx: i64, payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&prev.to_le_bytes());
    hasher.update(&len.to_le_bytes());
    hasher.update(&tx.to_le_bytes());
    hasher.update(payload);
    hasher.finalize()
}

/// Encodes one frame continuing `prev`; returns its bytes and its chain.
pub(crate) fn encode(prev: u32, tx: i64, payload: &[u8]) -> Result<(Vec<u8>, u32)> {
    if payload.len() > MAX_FRAME_PAYLOAD {
        return Err(Error::LimitReached {
            what: format!(
                "one transaction encodes to {} bytes; the limit is {MAX_FRAME_PAYLOAD}",
                payload.len()
            ),
        });
    }
    let len = payload.len() as u32;
    let chain = chain_of(prev, len, tx, payload);
    let mut bytes = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
    bytes.extend_from_slice(&len.to_le_bytes());
    bytes.extend_from_slice(&tx.to_le_bytes());
    bytes.extend_from_slice(&chain.to_le_bytes());
    bytes.extend_from_slice(payload);
    Ok((bytes, chain))
}

/// Where a scan of the frames stopped, and what it had read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScanEnd {
    /// Frames that checked.
    pub frames: u64,
    /// The byte just past the last frame that checked.
    pub end: u64,
    /// The chain value of the last frame that checked (the seed if none).
    pub chain: u32,
    /// The tx of the last frame that checked (0 if none).
    pub last_tx: i64,
    /// Why the scan stopped before the end of the file, if it did.
    pub stopped: Option<&'static str>,
}

/// Reads frames from `file`, positioned at byte `start` where the first
/// frame begins, handing each one that checks to `frame` (its index, tx,
/// chain value and payload) in order, until the end of the file or the
/// first frame that does not check. `file_len` bounds a frame's claimed
/// length before anything is allocated for it.
pub(crate) fn scan(
    mut file: impl Read,
    start: u64,
    file_len: u64,
    generation: u32,
    mut frame: impl FnMut(u64, i64, u32, &[u8]) -> Result<()>,
) -> Result<ScanEnd> {
    let mut at = ScanEnd {
        frames: 0,
        end: start,
        chain: seed(generation),
        last_tx: 0,
        stopped: None,
    };
    let mut payload = Vec::new();
    loop {
        if at.end == file_len {
            return Ok(at);
        }
        let mut head = [0u8; FRAME_HEADER_LEN];
        if at.end + FRAME_HEADER_LEN as u64 > file_len || file.read_exact(&mut head).is_err() {
            at.stopped = Some("a frame header is cut short");
            return Ok(at);
        }
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let tx = i64::from_le_bytes([
            head[4], head[5], head[6], head[7], head[8], head[9], head[10], head[11],
        ]);
        let chain = u32::from_le_bytes([head[12], head[13], head[14], head[15]]);
        let frame_end = at.end + FRAME_HEADER_LEN as u64 + u64::from(len);
        if len as usize > MAX_FRAME_PAYLOAD || frame_end > file_len {
            at.stopped = Some("a frame claims more bytes than the file holds");
            return Ok(at);
        }
        payload.resize(len as usize, 0);
        if file.read_exact(&mut payload).is_err() {
            at.stopped = Some("a frame is cut short");
            return Ok(at);
        }
        if chain_of(at.chain, len, tx, &payload) != chain {
            at.stopped = Some("a frame's checksum does not match");
            return Ok(at);
        }
        if tx <= at.last_tx {
            at.stopped = Some("a frame's transaction time does not increase");
            return Ok(at);
        }
        frame(at.frames, tx, chain, &payload)?;
        at.frames += 1;
        at.end = frame_end;
        at.chain = chain;
        at.last_tx = tx;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(payloads: &[&[u8]]) -> Vec<u8> {
        let mut bytes = header(3, 7).to_vec();
        let mut chain = seed(7);
        for (i, p) in payloads.iter().enumerate() {
            let (frame, next) = encode(chain, 10 + i as i64, p).expect("encode");
            bytes.extend_from_slice(&frame);
            chain = next;
        }
        bytes
    }

    fn scan_all(bytes: &[u8]) -> (ScanEnd, Vec<Vec<u8>>) {
        let mut reader = bytes;
        let (format, generation) = read_header(&mut reader).expect("header");
        assert_eq!(format, 3);
        let mut seen = Vec::new();
        let end = scan(
            reader,
            HEADER_LEN,
            bytes.len() as u64,
            generation,
            |_, _, _, p| {
                seen.push(p.to_vec());
                Ok(())
            },
        )
        .expect("scan");
        (end, seen)
    }

    #[test]
    fn frames_read_back_in_order() {
        let bytes = log_of(&[b"one", b"", b"three"]);
        let (end, seen) = scan_all(&bytes);
        assert_eq!(seen, vec![b"one".to_vec(), Vec::new(), b"three".to_vec()]);
        assert_eq!(end.frames, 3);
        assert_eq!(end.end, bytes.len() as u64);
        assert_eq!(end.last_tx, 12);
        assert_eq!(end.stopped, None);
    }

    #[test]
    fn any_flipped_bit_stops_the_scan_at_or_before_its_frame() {
        let bytes = log_of(&[b"alpha", b"beta", b"gamma"]);
        let frame_starts = [16u64, 16 + 16 + 5, 16 + 16 + 5 + 16 + 4];
        for at in HEADER_LEN as usize..bytes.len() {
            for bit in 0..8 {
                let mut damaged = bytes.clone();
                damaged[at] ^= 1 << bit;
                let (end, seen) = scan_all(&damaged);
                let damaged_frame = frame_starts.iter().filter(|&&s| s <= at as u64).count() - 1;
                assert!(
                    seen.len() <= damaged_frame,
                    "byte {at} bit {bit}: read {} frames past damage in frame {damaged_frame}",
                    seen.len()
                );
                assert!(end.stopped.is_some());
            }
        }
    }

    #[test]
    fn a_frame_from_another_generation_does_not_check() {
        let mut bytes = header(3, 8).to_vec();
        let (frame, _) = encode(seed(7), 10, b"x").expect("encode");
        bytes.extend_from_slice(&frame);
        let (end, seen) = scan_all(&bytes);
        assert!(seen.is_empty());
        assert_eq!(end.stopped, Some("a frame's checksum does not match"));
    }

    #[test]
    fn an_absurd_length_allocates_nothing() {
        let mut bytes = log_of(&[b"ok"]);
        bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        bytes.extend_from_slice(&[0u8; 12]);
        let (end, seen) = scan_all(&bytes);
        assert_eq!(seen.len(), 1);
        assert_eq!(
            end.stopped,
            Some("a frame claims more bytes than the file holds")
        );
    }
}
