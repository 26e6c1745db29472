//! The file system under the Postmark workload, as far as the block layer
//! sees one (an ext3-like layout, simplified): a circular journal at the
//! start of the device, an inode table per directory, and a data area split
//! into one block group per directory. Each Postmark process works in its
//! own directory, so its files live in its own group; a file's pages are
//! allocated next-fit inside the group, contiguous where the free space
//! allows.

/// Inodes per inode-table page (ext3's 128-byte inodes in 4 KiB).
const INODES_PER_PAGE: u32 = 32;

/// Where things live, in device pages.
#[derive(Debug, Clone)]
pub struct Layout {
    pub journal_first: u32,
    pub journal_pages: u32,
    pub inode_first: u32,
    /// Inode-table pages per group.
    pub inode_pages_per_group: u32,
    pub data_first: u32,
    pub group_pages: u32,
}

impl Layout {
    /// Lays out `groups` groups for `inodes_per_group` files each on a
    /// device of `pages` pages with a journal of `journal_pages`. None when
    /// the device is too small to give each group some data pages.
    pub fn new(
        pages: u32,
        groups: u32,
        inodes_per_group: u32,
        journal_pages: u32,
    ) -> Option<Layout> {
        let inode_pages_per_group = inodes_per_group.div_ceil(INODES_PER_PAGE).max(1);
        let inode_first = journal_pages;
        let data_first = inode_first.checked_add(inode_pages_per_group.checked_mul(groups)?)?;
        let group_pages = pages.checked_sub(data_first)? / groups.max(1);
        (group_pages >= 16).then_some(Layout {
            journal_first: 0,
            journal_pages,
            inode_first,
            inode_pages_per_group,
            data_first,
            group_pages,
        })
    }

    /// The inode-table page holding inode `ino` of `group`.
    pub fn inode_page(&self, group: u32, ino: u32) -> u32 {
        let within = (ino / INODES_PER_PAGE) % self.inode_pages_per_group;
        self.inode_first + group * self.inode_pages_per_group + within
    }
}

/// The journal: metadata commits are written one after the other,
/// wrapping at the end of the journal area.
#[derive(Debug, Clone)]
pub struct Journal {
    first: u32,
    pages: u32,
    head: u32,
}

impl Journal {
    pub fn new(layout: &Layout) -> Journal {
        Journal {
            first: layout.journal_first,
            pages: layout.journal_pages,
            head: 0,
        }
    }

    /// The pages of the next commit of `pages` pages (one contiguous run:
    /// a commit that would cross the end starts again at the beginning).
    pub fn commit(&mut self, pages: u32) -> (u32, u32) {
        let pages = pages.min(self.pages);
        if self.head + pages > self.pages {
            self.head = 0;
        }
        let at = self.first + self.head;
        self.head += pages;
        (at, pages)
    }
}

/// One block group's data pages: which are in use, and where the next-fit
/// search goes on.
#[derive(Debug, Clone)]
pub struct Group {
    first: u32,
    used: Vec<bool>,
    cursor: u32,
    free: u32,
}

impl Group {
    pub fn new(first: u32, pages: u32) -> Group {
        Group {
            first,
            used: vec![false; pages as usize],
            cursor: 0,
            free: pages,
        }
    }

    #[cfg(test)]
    pub fn free_pages(&self) -> u32 {
        self.free
    }

    /// Takes page `lpn` if it is free (to extend a file in place).
    pub fn take(&mut self, lpn: u32) -> bool {
        let Some(i) = lpn.checked_sub(self.first) else {
            return false;
        };
        match self.used.get_mut(i as usize) {
            Some(u) if !*u => {
                *u = true;
                self.free -= 1;
                true
            }
            _ => false,
        }
    }

    /// Allocates up to `want` pages next-fit: the first free page from the
    /// cursor and the free pages right after it. Returns (first, count), or
    /// None when the group is full.
    pub fn allocate(&mut self, want: u32) -> Option<(u32, u32)> {
        if self.free == 0 || want == 0 {
            return None;
        }
        let n = self.used.len() as u32;
        let start = (0..n)
            .map(|k| (self.cursor + k) % n)
            .find(|&i| !self.used[i as usize])?;
        let mut count = 0;
        while count < want && start + count < n && !self.used[(start + count) as usize] {
            self.used[(start + count) as usize] = true;
            count += 1;
        }
        self.free -= count;
        self.cursor = (start + count) % n;
        Some((self.first + start, count))
    }

    pub fn release(&mut self, lpn: u32) {
        let i = (lpn - self.first) as usize;
        if std::mem::replace(&mut self.used[i], false) {
            self.free += 1;
        }
    }
}

/// A file: its size and its pages in file order.
#[derive(Debug, Clone, Default)]
pub struct File {
    pub ino: u32,
    pub bytes: u64,
    pub pages: Vec<u32>,
}

impl File {
    /// Grows the file's page list to cover `bytes`, taking pages from
    /// `group` (in place after the last page where free). False when the
    /// group ran out of space (the file keeps what it got).
    pub fn grow(&mut self, bytes: u64, page_bytes: u64, group: &mut Group) -> bool {
        let need = bytes.div_ceil(page_bytes) as usize;
        while self.pages.len() < need {
            if let Some(&last) = self.pages.last() {
                if group.take(last + 1) {
                    self.pages.push(last + 1);
                    continue;
                }
            }
            let want = (need - self.pages.len()) as u32;
            let Some((first, count)) = group.allocate(want) else {
                return false;
            };
            self.pages.extend(first..first + count);
        }
        self.bytes = bytes;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_places_journal_inodes_and_groups() {
        let l = Layout::new(10_000, 5, 100, 256).unwrap();
        assert_eq!(l.inode_first, 256);
        assert_eq!(l.inode_pages_per_group, 4);
        assert_eq!(l.data_first, 276);
        assert_eq!(l.group_pages, (10_000 - 276) / 5);
        assert_eq!(l.inode_page(1, 33), 256 + 4 + 1);
        assert!(Layout::new(300, 5, 100, 256).is_none());
    }

    #[test]
    fn journal_wraps_whole_commits() {
        let l = Layout::new(10_000, 1, 32, 5).unwrap();
        let mut j = Journal::new(&l);
        assert_eq!(j.commit(2), (0, 2));
        assert_eq!(j.commit(2), (2, 2));
        assert_eq!(j.commit(2), (0, 2));
    }

    #[test]
    fn files_grow_in_place_and_release_their_pages() {
        let mut g = Group::new(1000, 20);
        let mut a = File::default();
        assert!(a.grow(3 * 4096, 4096, &mut g));
        assert_eq!(a.pages, vec![1000, 1001, 1002]);
        let mut b = File::default();
        assert!(b.grow(4096, 4096, &mut g));
        assert_eq!(b.pages, vec![1003]);
        // a cannot grow in place (1003 is b's): it continues after b.
        assert!(a.grow(4 * 4096 + 1, 4096, &mut g));
        assert_eq!(a.pages, vec![1000, 1001, 1002, 1004, 1005]);
        for &p in &a.pages {
            g.release(p);
        }
        assert_eq!(g.free_pages(), 19);
        let mut big = File::default();
        assert!(!big.grow(40 * 4096, 4096, &mut g), "the group is too small");
    }
}
