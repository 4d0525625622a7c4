//! `TimeIndex`: which rows have an event at or before time `t`, as a bitmap.
//!
//! The validity index is built from three of these (valid starts, valid ends,
//! transaction closes). Each stores only row ids (4 bytes per row); a row's
//! time is read from the relation's column for that axis, passed in as
//! `times`. Rows sit in a sorted run, ordered by `(time, row)`, with a
//! cumulative bitmap every `STRIDE` entries, plus a small unsorted tail of
//! recent out-of-order inserts:
//!
//! ```text
//!  sorted:  [r r r ... r | r r r ... r | r r ...]   ordered by (time, row)
//!  checkpoints:          ^cum[0]       ^cum[1]      cum[j] = rows of sorted[..(j+1)*STRIDE]
//!  tail:    [r r r]                                  unsorted, merged when it grows
//!
//!  upto(t) = cum[j-1] ∪ sorted[j*STRIDE .. pos(t)] ∪ {r in tail : time(r) <= t}
//! ```
//!
//! So `upto` never reads more than one stride and the tail. Appends in time
//! order (transaction closes always; valid times of facts learned as they
//! happen, mostly) go straight to the sorted run; a back-dated insert goes to
//! the tail, which is merged in once it exceeds an eighth of the run, so the
//! merge work is amortised to a constant per insert.

use roaring::RoaringBitmap;

use crate::chunked::ChunkedVec;

/// Where an index reads the time of an entry and the row it stands for.
/// Most indexes hold row ids (the entry *is* the row); the truncation index
/// holds truncation entries, each naming a row.
pub(crate) trait EventTimes {
    fn time(&self, id: u32) -> i64;
    fn row(&self, id: u32) -> u32 {
        id
    }
}

impl EventTimes for ChunkedVec<i64> {
    #[inline]
    fn time(&self, id: u32) -> i64 {
        self.get(id as usize)
    }
}

/// Entries between cumulative checkpoints.
const STRIDE: usize = 1 << 16;
/// The tail is merged when it exceeds `max(TAIL_MIN, sorted / 8)`.
const TAIL_MIN: usize = 4096;

#[derive(Debug, Default)]
pub(crate) struct TimeIndex {
    sorted: ChunkedVec<u32>,
    checkpoints: Vec<RoaringBitmap>,
    tail: Vec<u32>,
    stride: Stride,
}

/// The checkpoint stride; a field only so tests can shrink it.
#[derive(Debug, Clone, Copy)]
struct Stride(usize);

impl Default for Stride {
    fn default() -> Self {
        Stride(STRIDE)
    }
}

impl TimeIndex {
    #[cfg(test)]
    fn with_stride(stride: usize) -> TimeIndex {
        TimeIndex {
            stride: Stride(stride),
            ..TimeIndex::default()
        }
    }

    fn key(times: &impl EventTimes, id: u32) -> (i64, u32) {
        (times.time(id), id)
    }

    /// Records entry `row`, whose time is `times.time(row)`.
    pub(crate) fn insert(&mut self, row: u32, times: &impl EventTimes) {
        let in_order = self.tail.is_empty()
            && (self.sorted.len() == 0
                || Self::key(times, self.sorted.get(self.sorted.len() - 1))
                    <= Self::key(times, row));
        if in_order {
            self.sorted.push(row);
            let stride = self.stride.0;
            if self.sorted.len().is_multiple_of(stride) {
                let mut cum = self.checkpoints.last().cloned().unwrap_or_default();
                let start = self.sorted.len() - stride;
                cum.extend((start..self.sorted.len()).map(|i| times.row(self.sorted.get(i))));
                self.checkpoints.push(cum);
            }
            return;
        }
        self.tail.push(row);
        if self.tail.len() > TAIL_MIN.max(self.sorted.len() / 8) {
            self.merge(times);
        }
    }

    /// Merges the tail into the sorted run and rebuilds the checkpoints from
    /// the first position that changed.
    fn merge(&mut self, times: &impl EventTimes) {
        // Read each tail entry's time once, then sort without touching `times`.
        let mut tail: Vec<(i64, u32)> =
            self.tail.drain(..).map(|id| Self::key(times, id)).collect();
        tail.sort_unstable();
        let first_changed = self.position_of(tail[0], times);
        let mut merged = ChunkedVec::default();
        for i in 0..first_changed {
            merged.push(self.sorted.get(i));
        }
        let (mut i, mut j) = (first_changed, 0);
        let n = self.sorted.len();
        let mut next_sorted = (i < n).then(|| Self::key(times, self.sorted.get(i)));
        while let Some(&t) = tail.get(j) {
            match next_sorted {
                Some(s) if s <= t => {
                    merged.push(s.1);
                    i += 1;
                    next_sorted = (i < n).then(|| Self::key(times, self.sorted.get(i)));
                }
                _ => {
                    merged.push(t.1);
                    j += 1;
                }
            }
        }
        for k in i..n {
            merged.push(self.sorted.get(k));
        }
        self.sorted = merged;
        let stride = self.stride.0;
        let keep = first_changed / stride;
        self.checkpoints.truncate(keep);
        let mut cum = self.checkpoints.last().cloned().unwrap_or_default();
        let mut at = keep * stride;
        while at + stride <= self.sorted.len() {
            cum.extend((at..at + stride).map(|k| times.row(self.sorted.get(k))));
            self.checkpoints.push(cum.clone());
            at += stride;
        }
    }

    /// Index of the first sorted entry whose key is `>= key`.
    fn position_of(&self, key: (i64, u32), times: &impl EventTimes) -> usize {
        self.partition(|row| Self::key(times, row) < key)
    }

    /// Number of leading sorted entries for which `before` holds.
    fn partition(&self, before: impl Fn(u32) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.sorted.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if before(self.sorted.get(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Rows of the entries whose time is `<= time`.
    pub(crate) fn upto(&self, time: i64, times: &impl EventTimes) -> RoaringBitmap {
        let pos = self.partition(|id| times.time(id) <= time);
        let j = pos / self.stride.0;
        let mut rows = if j > 0 {
            self.checkpoints[j - 1].clone()
        } else {
            RoaringBitmap::new()
        };
        rows.extend((j * self.stride.0..pos).map(|k| times.row(self.sorted.get(k))));
        rows.extend(
            self.tail
                .iter()
                .filter(|&&id| times.time(id) <= time)
                .map(|&id| times.row(id)),
        );
        rows
    }

    /// The smallest recorded time strictly after `time`, if any.
    pub(crate) fn first_after(&self, time: i64, times: &impl EventTimes) -> Option<i64> {
        let pos = self.partition(|id| times.time(id) <= time);
        let in_sorted = (pos < self.sorted.len()).then(|| times.time(self.sorted.get(pos)));
        let in_tail = self
            .tail
            .iter()
            .map(|&id| times.time(id))
            .filter(|&t| t > time)
            .min();
        in_sorted.into_iter().chain(in_tail).min()
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.sorted.heap_bytes()
            + self.tail.capacity() * 4
            + self
                .checkpoints
                .iter()
                .map(|c| c.serialized_size() + 32)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn build(events: &[i64], stride: usize) -> (TimeIndex, ChunkedVec<i64>) {
        let mut times = ChunkedVec::default();
        let mut index = TimeIndex::with_stride(stride);
        for (row, &t) in events.iter().enumerate() {
            times.push(t);
            index.insert(row as u32, &times);
        }
        (index, times)
    }

    proptest! {
        #[test]
        fn upto_matches_a_linear_scan(
            events in prop::collection::vec(-50i64..50, 0..12_000),
            probes in prop::collection::vec(-60i64..60, 1..20),
            stride in 1usize..300,
        ) {
            let (index, times) = build(&events, stride);
            for &p in &probes {
                let expected: RoaringBitmap = events
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| **t <= p)
                    .map(|(row, _)| row as u32)
                    .collect();
                prop_assert_eq!(index.upto(p, &times), expected);
                let next = events.iter().copied().filter(|&t| t > p).min();
                prop_assert_eq!(index.first_after(p, &times), next);
            }
        }
    }

    #[test]
    fn mostly_ordered_inserts_stay_exact_through_merges() {
        let n = 300_000u32;
        let time_of = |row: u32| {
            if row.is_multiple_of(7) {
                (row / 3) as i64
            } else {
                row as i64
            }
        };
        let events: Vec<i64> = (0..n).map(time_of).collect();
        let (index, times) = build(&events, STRIDE);
        assert!(!index.checkpoints.is_empty());
        for probe in [0i64, 5_000, 66_666, 100_000, 199_999, 299_999, 1_000_000] {
            let expected = events.iter().filter(|&&t| t <= probe).count() as u64;
            assert_eq!(index.upto(probe, &times).len(), expected, "probe {probe}");
        }
    }
}
