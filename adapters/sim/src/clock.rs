//! Vector clocks kept relative to the host's (Lamport 1978; Fidge 1988; Mattern 1989).
//!
//! Every operation is issued by the host, after everything the host has waited for, so at the
//! moment an operation is enqueued its stream's clock is the host's clock joined with what the
//! stream learned beyond it: its own count and the entries of events it waited on since the host
//! last merged it. The host's clock is one dense vector (an entry per stream); a stream's and an
//! event's are the sparse [`Delta`] above it. A device-wide synchronisation merges the deltas of
//! the streams that worked since the last one and clears them, so the bookkeeping grows with the
//! operations and waits, not with streams times streams (a dense clock per stream and per event
//! cost memory and time in the square of the streams, and the synchronisations their cube).

use std::collections::BTreeMap;

/// Entries of a vector clock above the host's: stream to count. A join costs the entries of the
/// clock joined in (a stream that waits on thousands of events one by one pays for each event,
/// not again for everything it learned before).
#[derive(Debug, Clone, Default)]
pub(crate) struct Delta(BTreeMap<usize, u64>);

impl Delta {
    /// The entry of `stream` (0 when absent).
    pub(crate) fn get(&self, stream: usize) -> u64 {
        self.0.get(&stream).copied().unwrap_or(0)
    }

    /// Raises the entry of `stream` to at least `count`.
    pub(crate) fn raise(&mut self, stream: usize, count: u64) {
        let e = self.0.entry(stream).or_insert(0);
        *e = (*e).max(count);
    }

    /// Joins `other` into this one (the larger entry of each stream); the entries visited.
    pub(crate) fn join(&mut self, other: &Delta) -> u64 {
        for (&s, &c) in &other.0 {
            self.raise(s, c);
        }
        other.0.len() as u64
    }

    /// The entries, in stream order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.0.iter().map(|(&s, &c)| (s, c))
    }

    /// Entries held.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Drops every entry (they are below the host's now).
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}

/// The host's dense clock.
#[derive(Debug, Default)]
pub(crate) struct HostClock(Vec<u64>);

impl HostClock {
    /// The entry of `stream`.
    pub(crate) fn get(&self, stream: usize) -> u64 {
        self.0.get(stream).copied().unwrap_or(0)
    }

    /// Raises the entries of `d`; the entries visited.
    pub(crate) fn merge(&mut self, d: &Delta) -> u64 {
        for (s, c) in d.entries() {
            if self.0.len() <= s {
                self.0.resize(s + 1, 0);
            }
            self.0[s] = self.0[s].max(c);
        }
        d.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_keeps_the_larger_entry_of_each_stream_in_order() {
        let mut a = Delta::default();
        a.raise(5, 2);
        a.raise(1, 7);
        let mut b = Delta::default();
        b.raise(1, 3);
        b.raise(3, 4);
        b.raise(9, 1);
        a.join(&b);
        assert_eq!(a.entries().collect::<Vec<_>>(), [(1, 7), (3, 4), (5, 2), (9, 1)]);
        assert_eq!((a.get(3), a.get(4)), (4, 0));
        let mut h = HostClock::default();
        h.merge(&a);
        assert_eq!((h.get(1), h.get(9), h.get(100)), (7, 1, 0));
    }
}
