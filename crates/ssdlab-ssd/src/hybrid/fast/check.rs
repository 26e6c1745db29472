//! FAST's invariant check and the integrity shadow's verification.

use super::{tag, Fast, Role};
use crate::ids::{BlockId, Ppn};
use ssdlab_protocol::Lpn;

impl Fast {
    /// Checks that the physical page `p` holds the version of `lpn` last
    /// written (always Ok without the shadow).
    pub(super) fn verify(&self, lpn: Lpn, p: Ppn) -> Result<(), String> {
        let Some(sh) = &self.shadow else {
            return Ok(());
        };
        let want = tag(lpn, sh.version[lpn.index()]);
        let got = sh.tag[p.index()];
        if got != want {
            return Err(format!(
                "lpn {lpn} at physical page {p} holds (lpn {}, version {}), expected version {}",
                got >> 32,
                got & 0xffff_ffff,
                want & 0xffff_ffff
            ));
        }
        Ok(())
    }

    /// Every invariant of the mapping; the first broken one is named.
    pub fn check(&self) -> Result<(), String> {
        self.check_forward_map()?;
        self.check_valid_counts()?;
        self.check_roles()?;
        self.check_pools()?;
        self.check_sw_log_prefix()
    }

    /// With the shadow: every slot the SW log has programmed holds its
    /// owner's page of that offset (a contiguous prefix of the LB).
    fn check_sw_log_prefix(&self) -> Result<(), String> {
        let (Some(sh), Some(sb)) = (&self.shadow, self.sw_log) else {
            return Ok(());
        };
        let Role::SwLog(owner) = self.role[sb.index()] else {
            return Ok(()); // check_pools reports it
        };
        for slot in 0..self.written[sb.index()] {
            let held = sh.tag[self.ppn(sb, slot).index()] >> 32;
            if held != self.lpn(owner, slot).0 as u64 {
                return Err(format!(
                    "SW log {sb} of LB {owner}: slot {slot} holds lpn {held}"
                ));
            }
        }
        Ok(())
    }

    /// Each mapped page: the reverse map agrees, the page lies below its
    /// superblock's write pointer, where its role allows, with its latest
    /// version.
    fn check_forward_map(&self) -> Result<(), String> {
        for (lpn, p) in self.loc.mapped() {
            if self.rev.get(p) != Some(lpn) {
                return Err(format!(
                    "loc[{lpn}] = {p} but rev[{p}] = {:?}",
                    self.rev.get(p)
                ));
            }
            let sb = self.superblock_of(p);
            let slot = self.slot_of(p);
            if slot >= self.written[sb.index()] {
                return Err(format!(
                    "lpn {lpn} at slot {slot} of superblock {sb}, beyond its write pointer {}",
                    self.written[sb.index()]
                ));
            }
            let (lbn, offset) = self.split(lpn);
            let placed = match self.role[sb.index()] {
                Role::Free => false,
                Role::Data(l) | Role::SwLog(l) => l == lbn && slot == offset,
                Role::RwLog => true,
            };
            if !placed {
                return Err(format!(
                    "lpn {lpn} (LB {lbn}, offset {offset}) at slot {slot} of superblock {sb} \
                     whose role is {:?}",
                    self.role[sb.index()]
                ));
            }
            self.verify(lpn, p)?;
        }
        Ok(())
    }

    /// The reverse map agrees with the forward map and the valid counts.
    fn check_valid_counts(&self) -> Result<(), String> {
        let mut counted = vec![0u32; self.valid.len()];
        for (p, lpn) in self.rev.mapped() {
            if self.loc.get(lpn) != Some(p) {
                return Err(format!(
                    "rev[{p}] = {lpn} but loc[{lpn}] = {:?}",
                    self.loc.get(lpn)
                ));
            }
            counted[self.superblock_of(p).index()] += 1;
        }
        if let Some(sb) = (0..counted.len()).find(|&b| counted[b] != self.valid[b]) {
            return Err(format!(
                "superblock {sb}: valid count {} but {} pages map to it",
                self.valid[sb], counted[sb]
            ));
        }
        Ok(())
    }

    /// Each superblock's write pointer fits its role; data blocks are full
    /// and are their LB's; the SW log holds a non-empty, not full prefix.
    fn check_roles(&self) -> Result<(), String> {
        for (b, &role) in self.role.iter().enumerate() {
            let sb = BlockId(b as u32);
            let w = self.written[b];
            let fits = match role {
                Role::Free => w == 0 && self.valid[b] == 0,
                Role::Data(l) => w == self.lb_pages && self.data_block[l as usize] == Some(sb),
                Role::SwLog(_) => self.sw_log == Some(sb) && w > 0 && w < self.lb_pages,
                Role::RwLog => self.rw_logs.contains(&sb) && w > 0,
            };
            if !fits {
                return Err(format!(
                    "superblock {sb}: role {role:?} with write pointer {w}, {} valid",
                    self.valid[b]
                ));
            }
        }
        for (lbn, &sb) in self.data_block.iter().enumerate() {
            if let Some(sb) = sb {
                if self.role[sb.index()] != Role::Data(lbn as u32) {
                    return Err(format!("LB {lbn}'s data block {sb} has another role"));
                }
            }
        }
        Ok(())
    }

    /// The free list, the SW log and the RW pool agree with the roles, and
    /// every superblock is counted once.
    fn check_pools(&self) -> Result<(), String> {
        let mut seen = vec![false; self.role.len()];
        for &sb in &self.free {
            if self.role[sb.index()] != Role::Free || std::mem::replace(&mut seen[sb.index()], true)
            {
                return Err(format!("free list entry {sb} is not a free superblock"));
            }
        }
        let free_roles = self.role.iter().filter(|&&r| r == Role::Free).count();
        if free_roles != self.free.len() {
            return Err(format!(
                "{free_roles} free superblocks but {} on the free list",
                self.free.len()
            ));
        }
        if let Some(sb) = self.sw_log {
            if !matches!(self.role[sb.index()], Role::SwLog(_)) {
                return Err(format!("SW log {sb} has another role"));
            }
        }
        if self.rw_logs.len() > self.geo.rw_log_blocks as usize {
            return Err(format!(
                "{} RW log blocks, more than {}",
                self.rw_logs.len(),
                self.geo.rw_log_blocks
            ));
        }
        for &sb in &self.rw_logs {
            if self.role[sb.index()] != Role::RwLog
                || std::mem::replace(&mut seen[sb.index()], true)
            {
                return Err(format!("RW log entry {sb} is not an RW log block"));
            }
        }
        let data = self.data_block.iter().flatten().count();
        let total = self.free.len() + data + self.sw_log.iter().count() + self.rw_logs.len();
        if total != self.role.len() {
            return Err(format!(
                "{} free + {data} data + SW + {} RW = {total} superblocks, not {}",
                self.free.len(),
                self.rw_logs.len(),
                self.role.len()
            ));
        }
        Ok(())
    }
}
