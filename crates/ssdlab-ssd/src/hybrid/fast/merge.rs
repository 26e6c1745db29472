//! FAST's merges: switch and partial merges of the SW log, full merges of
//! the LBs of an RW victim, and the erases that follow them.

use super::{Fast, FlashOp, Role};
use crate::ids::{BlockId, Ppn};
use ssdlab_protocol::Lpn;

impl Fast {
    /// Merges the SW log, if there is one: a switch merge when it is full,
    /// else a partial merge.
    pub(super) fn merge_sw_log(&mut self, ops: &mut Vec<FlashOp>) {
        let Some(sb) = self.sw_log.take() else {
            return;
        };
        let Role::SwLog(lbn) = self.role[sb.index()] else {
            unreachable!("the SW log {sb} has the SW role");
        };
        if self.written[sb.index()] == self.lb_pages {
            self.counters.switch_merges += 1;
        } else {
            self.counters.partial_merges += 1;
            self.complete_sw_log(sb, lbn, ops);
        }
        self.become_data(sb, lbn, ops);
        self.release_empty_rw_logs(ops);
    }

    /// A full SW log is switched at once.
    pub(super) fn switch_if_full(&mut self, ops: &mut Vec<FlashOp>) {
        if self
            .sw_log
            .is_some_and(|sb| self.written[sb.index()] == self.lb_pages)
        {
            self.merge_sw_log(ops);
        }
    }

    /// Copies the latest copy of each offset the SW log lacks into its slot.
    fn complete_sw_log(&mut self, sb: BlockId, lbn: u32, ops: &mut Vec<FlashOp>) {
        for offset in self.written[sb.index()]..self.lb_pages {
            let lpn = self.lpn(lbn, offset);
            if let Some(from) = self.loc.get(lpn) {
                self.copy(lpn, from, self.ppn(sb, offset), ops);
            }
        }
        self.written[sb.index()] = self.lb_pages;
    }

    /// `sb` becomes the data block of `lbn`; the old one, empty by now, is
    /// erased.
    pub(super) fn become_data(&mut self, sb: BlockId, lbn: u32, ops: &mut Vec<FlashOp>) {
        self.role[sb.index()] = Role::Data(lbn);
        if let Some(old) = self.data_block[lbn as usize].replace(sb) {
            self.release(old, ops);
        }
    }

    /// The newest RW log block with a free slot; allocates one, or merges
    /// and reuses the oldest, when there is none.
    pub(super) fn rw_log_with_room(&mut self, ops: &mut Vec<FlashOp>) -> BlockId {
        if let Some(&sb) = self.rw_logs.back() {
            if self.written[sb.index()] < self.lb_pages {
                return sb;
            }
        }
        let sb = if self.rw_logs.len() < self.geo.rw_log_blocks as usize {
            self.take_free()
        } else {
            let victim = self.rw_logs.pop_front().expect("a full RW pool");
            self.merge_victim(victim, ops);
            self.erase(victim, ops);
            victim
        };
        self.role[sb.index()] = Role::RwLog;
        self.rw_logs.push_back(sb);
        sb
    }

    /// Full-merges every LB with a valid page in `victim` (in the order of
    /// their first valid page in it), leaving it empty.
    fn merge_victim(&mut self, victim: BlockId, ops: &mut Vec<FlashOp>) {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut lbns: Vec<u32> = Vec::new();
        for slot in 0..self.written[victim.index()] {
            if let Some(lpn) = self.rev.get(self.ppn(victim, slot)) {
                let lbn = self.split(lpn).0;
                if seen.insert(lbn) {
                    lbns.push(lbn);
                }
            }
        }
        for lbn in lbns {
            self.full_merge(lbn, ops);
        }
        assert_eq!(self.valid[victim.index()], 0, "victim {victim} merged");
        self.release_empty_rw_logs(ops);
    }

    /// A new superblock gets the latest copy of each offset of `lbn` in
    /// ascending slot order and becomes its data block; the old data block
    /// and the LB's SW log are erased.
    fn full_merge(&mut self, lbn: u32, ops: &mut Vec<FlashOp>) {
        self.counters.full_merges += 1;
        let sb = self.take_free();
        for offset in 0..self.lb_pages {
            let lpn = self.lpn(lbn, offset);
            if let Some(from) = self.loc.get(lpn) {
                self.copy(lpn, from, self.ppn(sb, offset), ops);
            }
        }
        self.written[sb.index()] = self.lb_pages;
        self.become_data(sb, lbn, ops);
        self.drop_sw_log_of(lbn, ops);
    }

    /// Erases the SW log if `lbn` owns it (its pages are elsewhere by now).
    pub(super) fn drop_sw_log_of(&mut self, lbn: u32, ops: &mut Vec<FlashOp>) {
        if let Some(sb) = self.sw_log {
            if self.role[sb.index()] == Role::SwLog(lbn) {
                self.sw_log = None;
                self.release(sb, ops);
            }
        }
    }

    /// Erases and frees the RW log blocks left without a valid page.
    pub(super) fn release_empty_rw_logs(&mut self, ops: &mut Vec<FlashOp>) {
        if self.rw_logs.iter().all(|sb| self.valid[sb.index()] > 0) {
            return;
        }
        let logs = std::mem::take(&mut self.rw_logs);
        for sb in logs {
            if self.valid[sb.index()] > 0 {
                self.rw_logs.push_back(sb);
            } else {
                self.release(sb, ops);
            }
        }
    }

    /// Moves the latest copy of `lpn` from `from` to the free page `to`.
    fn copy(&mut self, lpn: Lpn, from: Ppn, to: Ppn, ops: &mut Vec<FlashOp>) {
        self.invalidate(lpn);
        self.place(lpn, to);
        if let Some(sh) = &mut self.shadow {
            sh.tag[to.index()] = sh.tag[from.index()];
        }
        self.counters.merge_copies += 1;
        ops.push(FlashOp::Copy {
            from: self.addr(from),
            to: self.addr(to),
        });
    }

    /// Erases `sb` and returns it to the free pool.
    fn release(&mut self, sb: BlockId, ops: &mut Vec<FlashOp>) {
        self.erase(sb, ops);
        self.free.push_back(sb);
    }

    /// Erases `sb` (one erase per unit); it must hold no valid page.
    fn erase(&mut self, sb: BlockId, ops: &mut Vec<FlashOp>) {
        assert_eq!(self.valid[sb.index()], 0, "erasing superblock {sb}");
        self.counters.erases += 1;
        self.written[sb.index()] = 0;
        self.role[sb.index()] = Role::Free;
        if let Some(sh) = &mut self.shadow {
            let first = sb.index() * self.lb_pages as usize;
            sh.tag[first..first + self.lb_pages as usize].fill(0);
        }
        ops.extend((0..self.geo.units).map(|unit| FlashOp::Erase { unit, block: sb.0 }));
    }
}
