//! `ChunkedVec`: an append-only vector that grows in fixed chunks.
//!
//! Row columns and indexes grow for the life of a database; a plain `Vec`
//! doubles and so holds up to twice what it needs (and copies everything on
//! each doubling). Here the first chunk grows like a `Vec` up to `CHUNK`
//! elements, and every later chunk is allocated at exactly `CHUNK`, so the
//! slack is at most one chunk and appends never move existing elements.

/// Elements per full chunk (a power of two, so indexing is a shift and a mask).
const CHUNK_BITS: u32 = 16;
const CHUNK: usize = 1 << CHUNK_BITS;

#[derive(Debug, Clone)]
pub(crate) struct ChunkedVec<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for ChunkedVec<T> {
    fn default() -> Self {
        ChunkedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> ChunkedVec<T> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(value),
            _ => {
                let mut chunk = if self.chunks.is_empty() {
                    Vec::new()
                } else {
                    Vec::with_capacity(CHUNK)
                };
                chunk.push(value);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    #[inline]
    pub(crate) fn get(&self, index: usize) -> T {
        self.chunks[index >> CHUNK_BITS][index & (CHUNK - 1)]
    }

    #[inline]
    pub(crate) fn set(&mut self, index: usize, value: T) {
        self.chunks[index >> CHUNK_BITS][index & (CHUNK - 1)] = value;
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity()).sum::<usize>() * std::mem::size_of::<T>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_in_chunks_and_keeps_every_element() {
        let mut v = ChunkedVec::default();
        let n = CHUNK * 2 + 17;
        for i in 0..n {
            v.push(i as u32);
        }
        assert_eq!(v.len(), n);
        assert!((0..n).all(|i| v.get(i) == i as u32));
        v.set(CHUNK + 1, 7);
        assert_eq!(v.get(CHUNK + 1), 7);
        // Slack is bounded by one chunk.
        assert!(v.heap_bytes() <= (n + CHUNK) * 4 + 1024);
    }
}
