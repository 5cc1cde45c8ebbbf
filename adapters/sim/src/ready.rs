//! The streams whose next operation can run, as a set of stream indices that answers "the k-th
//! smallest" in O(log n): a Fenwick tree of 0/1 counts (Fenwick 1994, "A new data structure for
//! cumulative frequency tables", with the binary-search descent for the k-th element). The
//! scheduler draws `k` from its seeded generator and runs the k-th ready stream in index order,
//! without scanning every stream at each step.

#[derive(Debug, Default)]
pub(crate) struct ReadySet {
    /// Fenwick tree over `member` (1-based inside).
    tree: Vec<u32>,
    member: Vec<bool>,
    len: usize,
}

impl ReadySet {
    /// Streams in the set.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Makes room for stream indices below `n` (doubling, rebuilt from the members).
    pub(crate) fn grow(&mut self, n: usize) {
        if n <= self.member.len() {
            return;
        }
        let cap = n.next_power_of_two().max(16);
        self.member.resize(cap, false);
        self.tree = vec![0; cap + 1];
        for i in 0..cap {
            if self.member[i] {
                self.add(i, 1);
            }
        }
    }

    fn add(&mut self, i: usize, d: i32) {
        let mut j = i + 1;
        while j < self.tree.len() {
            self.tree[j] = self.tree[j].wrapping_add_signed(d);
            j += j & j.wrapping_neg();
        }
    }

    /// Puts `s` in (`true`) or out of the set.
    pub(crate) fn set(&mut self, s: usize, ready: bool) {
        self.grow(s + 1);
        if self.member[s] != ready {
            self.member[s] = ready;
            self.add(s, if ready { 1 } else { -1 });
            if ready {
                self.len += 1;
            } else {
                self.len -= 1;
            }
        }
    }

    /// The `k`-th smallest member (0-based); `None` when `k >= len`.
    pub(crate) fn kth(&self, k: usize) -> Option<usize> {
        if k >= self.len {
            return None;
        }
        let n = self.tree.len() - 1;
        let (mut pos, mut left) = (0usize, k as u32 + 1);
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] < left {
                pos = next;
                left -= self.tree[next];
            }
            step >>= 1;
        }
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kth_is_the_kth_member_in_index_order() {
        let mut r = ReadySet::default();
        for s in [3, 40, 7, 100, 0] {
            r.set(s, true);
        }
        r.set(7, false);
        r.set(3, true);
        let members: Vec<usize> = (0..r.len()).filter_map(|k| r.kth(k)).collect();
        assert_eq!(members, [0, 3, 40, 100]);
        assert_eq!(r.kth(4), None);
    }
}
