//! On-demand readahead for one open file, after Linux's mm/readahead.c:
//! a sequential miss reads an initial window sized from the request; the
//! window's second part is read ahead, and reaching its first page (the
//! `PG_readahead` marker) reads the next, larger window asynchronously.
//! A random miss reads only what was asked.

/// Pages to read: `pages` from `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub first: u32,
    pub pages: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Readahead {
    /// Largest window (read_ahead_kb in pages); 0 turns readahead off.
    max_pages: u32,
    start: u32,
    size: u32,
    /// The page whose read starts the next window.
    marker: Option<u32>,
    /// The page after the previous read.
    next_page: Option<u32>,
}

impl Readahead {
    pub fn new(max_pages: u32) -> Readahead {
        Readahead {
            max_pages,
            ..Readahead::default()
        }
    }

    /// A read of `count` pages from `first`; `missing` says whether any of
    /// them needs the device. Returns the window to read (the caller skips
    /// pages already cached or being read), or None for only what is asked.
    pub fn on_read(
        &mut self,
        first: u32,
        count: u32,
        missing: bool,
        device_pages: u32,
    ) -> Option<Window> {
        let count = count.max(1);
        let sequential = first == 0
            || self
                .next_page
                .is_some_and(|n| first == n || first.saturating_add(1) == n);
        self.next_page = Some(first.saturating_add(count));
        if self.max_pages == 0 {
            return None;
        }
        let marker_hit = self.marker.is_some_and(|m| m >= first && m - first < count);
        let (start, size, async_size) = if missing {
            if self.size > 0 && first == self.start.saturating_add(self.size) {
                // The last window was used up without its marker: ramp up.
                let size = self.next_size(self.size);
                (first, size, size)
            } else if sequential {
                let size = self.init_size(count).max(count);
                (first, size, if size > count { size - count } else { size })
            } else {
                return None;
            }
        } else if marker_hit {
            let size = self.next_size(self.size);
            (self.start.saturating_add(self.size), size, size)
        } else {
            return None;
        };
        if start >= device_pages {
            self.marker = None;
            return None;
        }
        let size = size.min(device_pages - start);
        let async_size = async_size.min(size);
        self.start = start;
        self.size = size;
        self.marker = (async_size > 0).then(|| start + size - async_size);
        Some(Window {
            first: start,
            pages: size,
        })
    }

    /// get_init_ra_size: four times a small request, twice a medium one.
    fn init_size(&self, request: u32) -> u32 {
        let max = self.max_pages;
        let r = request.checked_next_power_of_two().unwrap_or(max);
        let size = if r <= max / 32 {
            4 * r
        } else if r <= max / 4 {
            2 * r
        } else {
            max
        };
        size.min(max)
    }

    /// get_next_ra_size: quadruple while small, then double, up to the max.
    fn next_size(&self, current: u32) -> u32 {
        let max = self.max_pages;
        let size = if current < max / 16 {
            4 * current
        } else if current <= max / 2 {
            2 * current
        } else {
            max
        };
        size.clamp(1, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV: u32 = 1 << 20;

    #[test]
    fn sequential_windows_ramp_up_to_the_max_through_their_markers() {
        let mut ra = Readahead::new(32);
        // First read at page 0: initial window 4 pages, marker at page 1.
        assert_eq!(
            ra.on_read(0, 1, true, DEV),
            Some(Window { first: 0, pages: 4 })
        );
        assert_eq!(
            ra.on_read(1, 1, false, DEV),
            Some(Window { first: 4, pages: 8 })
        );
        // Pages 2 and 3 are cached and not the marker (page 4 is).
        assert_eq!(ra.on_read(2, 1, false, DEV), None);
        assert_eq!(ra.on_read(3, 1, false, DEV), None);
        assert_eq!(
            ra.on_read(4, 1, false, DEV),
            Some(Window {
                first: 12,
                pages: 16
            })
        );
        assert_eq!(
            ra.on_read(12, 1, false, DEV),
            Some(Window {
                first: 28,
                pages: 32
            })
        );
        assert_eq!(
            ra.on_read(28, 1, false, DEV),
            Some(Window {
                first: 60,
                pages: 32
            })
        );
    }

    #[test]
    fn random_misses_read_only_what_is_asked_and_zero_turns_it_off() {
        let mut ra = Readahead::new(32);
        assert_eq!(ra.on_read(500, 1, true, DEV), None);
        assert_eq!(ra.on_read(9000, 2, true, DEV), None);
        let mut off = Readahead::new(0);
        assert_eq!(off.on_read(0, 1, true, DEV), None);
    }

    #[test]
    fn windows_stop_at_the_device_end_and_cover_a_large_request() {
        let mut ra = Readahead::new(32);
        assert_eq!(
            ra.on_read(0, 64, true, DEV),
            Some(Window {
                first: 0,
                pages: 64
            })
        );
        let mut ra = Readahead::new(32);
        assert_eq!(
            ra.on_read(0, 1, true, 2),
            Some(Window { first: 0, pages: 2 })
        );
        assert_eq!(ra.on_read(1, 1, false, 2), None);
    }
}
