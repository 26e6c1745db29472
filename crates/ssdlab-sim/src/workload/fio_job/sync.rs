//! A job's fsyncs (`fsync=`, `fdatasync=`, `end_fsync`): when one is due,
//! the job waits for its outstanding I/O, issues it (an empty flush; the
//! page cache writes back first when there is one) and issues nothing else
//! until it returns, as fio's synchronous sync does.

use super::{FioJob, JobAction, JobState};
use crate::host::Bio;
use ssdlab_fio::generator::IoDir;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;

/// Where the job is with its fsyncs (`fsync=`, `fdatasync=`, `end_fsync`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SyncPlan {
    /// Writes between two syncs; 0 = none.
    pub(super) every: u32,
    pub(super) writes_since: u32,
    /// A sync is due once the outstanding I/O has completed (fio quiesces).
    pub(super) due: bool,
    /// A sync is outstanding: the job issues nothing until it ends.
    pub(super) in_flight: bool,
    /// `end_fsync`: still to do once the job stops issuing.
    pub(super) at_end: bool,
    /// The end fsync waits for the outstanding I/O.
    pub(super) end_due: bool,
    pub(super) wrote: bool,
}

impl FioJob {
    /// Whether the job's syncs hold it from issuing I/O now (issuing a
    /// due sync when nothing is outstanding, or ending the job when its
    /// issuing is finished).
    pub(super) fn sync_holds(&mut self, now: Ns, out: &mut Vec<JobAction>) -> bool {
        if self.syncs.in_flight {
            return true;
        }
        if self.finished_issuing(now) {
            // fio leaves its loop before a periodic fsync still due;
            // end_fsync comes after it.
            if std::mem::take(&mut self.syncs.at_end) && self.syncs.wrote {
                self.syncs.end_due = true;
            }
            if !self.syncs.end_due {
                self.state = JobState::Draining;
                self.maybe_done(now);
                return true;
            }
            if self.inflight == 0 && !self.blocked {
                self.syncs.end_due = false;
                self.issue_sync(now, out);
            }
            return true;
        }
        if self.syncs.due {
            if self.inflight == 0 && !self.blocked {
                self.issue_sync(now, out);
            }
            return true;
        }
        false
    }

    /// An fsync: an empty flush as the job hands it over (the page cache,
    /// when the job is buffered, writes back dirty pages before the flush).
    pub(super) fn issue_sync(&mut self, now: Ns, out: &mut Vec<JobAction>) {
        self.syncs.due = false;
        self.syncs.in_flight = true;
        self.inflight += 1;
        self.next_bio += 1;
        let id = (self.index as u64) << 40 | self.next_bio;
        let bio = Bio {
            id,
            job: self.index,
            dir: Dir::Write,
            sector: 0,
            bytes: 0,
            prio: self.prio_for(IoDir::Write, id),
            sync: true,
            flush: true,
            fua: false,
            issue_ns: now,
            submit_ns: 0,
        };
        self.submit(bio, now, out);
    }

    /// Counts a write towards the next fsync.
    pub(super) fn note_write(&mut self) {
        self.syncs.wrote = true;
        if self.syncs.every > 0 {
            self.syncs.writes_since += 1;
            if self.syncs.writes_since >= self.syncs.every {
                self.syncs.writes_since = 0;
                self.syncs.due = true;
            }
        }
    }
}
