//! A vector whose freed entries are reused, for the jobs, parts and
//! commands in flight: memory follows the work in flight, not the
//! simulated time.

use std::ops::{Index, IndexMut};

#[derive(Debug, Clone)]
pub(super) struct Slots<T> {
    items: Vec<T>,
    free: Vec<usize>,
}

impl<T> Slots<T> {
    pub fn new() -> Self {
        Slots {
            items: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Stores `item` in a freed entry, or a new one; returns its index.
    pub fn insert(&mut self, item: T) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.items[i] = item;
                i
            }
            None => {
                self.items.push(item);
                self.items.len() - 1
            }
        }
    }

    /// Entries allocated so far, in use or free.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.items.len()
    }

    /// Entry `i` may be reused (its item stays readable until then).
    pub fn release(&mut self, i: usize) {
        self.free.push(i);
    }
}

impl<T> Index<usize> for Slots<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.items[i]
    }
}

impl<T> IndexMut<usize> for Slots<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.items[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_entry_is_reused_first() {
        let mut s = Slots::new();
        assert_eq!((s.insert('a'), s.insert('b')), (0, 1));
        s.release(0);
        assert_eq!(s[1], 'b');
        assert_eq!(s.insert('c'), 0);
        assert_eq!((s[0], s.insert('d')), ('c', 2));
    }
}
