//! `TimeIndex`: which rows have an event at or before time `t`, as a bitmap.
//!
//! The validity index is built from three of these (valid starts, valid ends,
//! transaction closes). Entries are kept sorted in segments of bounded size;
//! each segment also holds the cumulative bitmap of every row in the segments
//! before it. `upto(t)` is therefore one bitmap clone plus at most one
//! segment's entries, never a walk over all rows:
//!
//! ```text
//!  time ──▶   seg 0: [t0..t1]     seg 1: (t1..t2]       seg 2: (t2..+inf]
//!  below:     {}                  rows(seg0)            rows(seg0 ∪ seg1)
//!  upto(t) for t in seg 1  =  seg1.below  ∪  {rows of seg 1 with time <= t}
//! ```
//!
//! Appends in time order (the common case: transaction times, and valid times
//! of facts learned as they happen) touch only the last segment; a back-dated
//! entry also inserts its row into the `below` set of every later segment.

use roaring::RoaringBitmap;

/// Entries per segment before it is split in two.
const SPLIT_LEN: usize = 32 * 1024;

/// Rows keyed by one time per row (a row may appear at most once).
#[derive(Debug)]
pub(crate) struct TimeIndex {
    segments: Vec<Segment>,
    split_len: usize,
}

#[derive(Debug)]
struct Segment {
    /// Inclusive upper bound of this segment's times; `i64::MAX` for the last.
    max_time: i64,
    /// `(time, row)`, sorted.
    entries: Vec<(i64, u32)>,
    /// Every row of every earlier segment.
    below: RoaringBitmap,
}

impl Default for TimeIndex {
    fn default() -> Self {
        TimeIndex {
            segments: vec![Segment {
                max_time: i64::MAX,
                entries: Vec::new(),
                below: RoaringBitmap::new(),
            }],
            split_len: SPLIT_LEN,
        }
    }
}

impl TimeIndex {
    #[cfg(test)]
    fn with_split_len(split_len: usize) -> TimeIndex {
        TimeIndex {
            split_len,
            ..TimeIndex::default()
        }
    }

    fn segment_of(&self, time: i64) -> usize {
        // The last segment's bound is i64::MAX, so this is always in range.
        self.segments.partition_point(|s| s.max_time < time)
    }

    /// Records that `row` has its event at `time`.
    pub(crate) fn insert(&mut self, time: i64, row: u32) {
        let s = self.segment_of(time);
        let entries = &mut self.segments[s].entries;
        if entries.last().is_none_or(|&last| last <= (time, row)) {
            entries.push((time, row));
        } else {
            let at = entries.partition_point(|&e| e < (time, row));
            entries.insert(at, (time, row));
        }
        for later in &mut self.segments[s + 1..] {
            later.below.insert(row);
        }
        if self.segments[s].entries.len() > self.split_len {
            self.split(s);
        }
    }

    /// Splits segment `s` near its middle, at a change of time so that equal
    /// times stay in one segment.
    fn split(&mut self, s: usize) {
        let seg = &self.segments[s];
        let mid = seg.entries.len() / 2;
        let pivot = seg.entries[mid].0;
        let mut at = seg.entries.partition_point(|e| e.0 <= pivot);
        if at == seg.entries.len() {
            at = seg.entries.partition_point(|e| e.0 < pivot);
        }
        if at == 0 {
            return; // one time value fills the segment; nothing to split on
        }
        let right_entries = self.segments[s].entries.split_off(at);
        let seg = &mut self.segments[s];
        let left_max = seg.entries[at - 1].0;
        let mut right_below = seg.below.clone();
        right_below.extend(seg.entries.iter().map(|e| e.1));
        let right = Segment {
            max_time: seg.max_time,
            entries: right_entries,
            below: right_below,
        };
        seg.max_time = left_max;
        self.segments.insert(s + 1, right);
    }

    /// Rows whose time is `<= time`.
    pub(crate) fn upto(&self, time: i64) -> RoaringBitmap {
        let seg = &self.segments[self.segment_of(time)];
        let mut rows = seg.below.clone();
        let end = seg.entries.partition_point(|e| e.0 <= time);
        rows.extend(seg.entries[..end].iter().map(|e| e.1));
        rows
    }

    /// The smallest recorded time strictly after `time`, if any.
    pub(crate) fn first_after(&self, time: i64) -> Option<i64> {
        let s = self.segment_of(time);
        self.segments[s..].iter().find_map(|seg| {
            let at = seg.entries.partition_point(|e| e.0 <= time);
            seg.entries.get(at).map(|e| e.0)
        })
    }

    /// Heap bytes, for memory accounting.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.segments
            .iter()
            .map(|s| s.entries.capacity() * 16 + s.below.serialized_size())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn upto_matches_a_linear_scan(
            events in prop::collection::vec(-50i64..50, 0..3000),
            probes in prop::collection::vec(-60i64..60, 1..20),
        ) {
            // A tiny split length forces many splits and back-dated inserts.
            let mut index = TimeIndex::with_split_len(16);
            for (row, &t) in events.iter().enumerate() {
                index.insert(t, row as u32);
            }
            for &p in &probes {
                let expected: RoaringBitmap = events
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| **t <= p)
                    .map(|(row, _)| row as u32)
                    .collect();
                prop_assert_eq!(index.upto(p), expected);
                let next = events.iter().copied().filter(|&t| t > p).min();
                prop_assert_eq!(index.first_after(p), next);
            }
        }
    }

    #[test]
    fn splits_keep_answers_exact() {
        let mut index = TimeIndex::default();
        let n = 200_000u32;
        // Interleave in-order and back-dated times to force splits and
        // insertions into earlier segments.
        for row in 0..n {
            let t = if row % 7 == 0 {
                (row / 3) as i64
            } else {
                row as i64
            };
            index.insert(t, row);
        }
        assert!(index.segments.len() > 2, "expected splits");
        for probe in [0i64, 5_000, 66_666, 100_000, 199_999, 1_000_000] {
            let got = index.upto(probe);
            let expected = (0..n)
                .filter(|&row| {
                    let t = if row % 7 == 0 {
                        (row / 3) as i64
                    } else {
                        row as i64
                    };
                    t <= probe
                })
                .count() as u64;
            assert_eq!(got.len(), expected, "probe {probe}");
        }
    }
}
