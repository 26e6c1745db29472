//! The SATA link: one half-duplex wire. A transfer takes the earliest free
//! stretch of the link long enough for it, at or after its data is ready
//! (first fit, in the order transfers are booked). A read whose data waits
//! behind a merge therefore does not hold up the write data of commands
//! queued after it, as NCQ lets the drive order its data phases.

use ssdlab_protocol::Ns;

#[derive(Debug, Default)]
pub(super) struct Link {
    /// Booked stretches, sorted and disjoint.
    booked: Vec<(Ns, Ns)>,
}

impl Link {
    /// Books `ns` of link time at or after `ready`, where no stretch
    /// booked earlier may start before `now`. Returns (start, end).
    pub fn book(&mut self, now: Ns, ready: Ns, ns: Ns) -> (Ns, Ns) {
        let past = self.booked.partition_point(|&(_, end)| end <= now);
        self.booked.drain(..past);
        if ns == 0 {
            return (ready, ready);
        }
        let mut at = ready;
        let mut pos = self.booked.len();
        for (i, &(start, end)) in self.booked.iter().enumerate() {
            if at + ns <= start {
                pos = i;
                break;
            }
            at = at.max(end);
        }
        self.booked.insert(pos, (at, at + ns));
        (at, at + ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_after_the_data_is_ready() {
        let mut l = Link::default();
        assert_eq!(l.book(0, 100, 50), (100, 150));
        assert_eq!(l.book(0, 0, 50), (0, 50));
        // No 60 ns gap before 150.
        assert_eq!(l.book(0, 0, 60), (150, 210));
        assert_eq!(l.book(0, 40, 10), (50, 60));
        // Stretches over by `now` are forgotten.
        assert_eq!(l.book(300, 300, 10), (300, 310));
        assert_eq!(l.booked, vec![(300, 310)]);
    }
}
