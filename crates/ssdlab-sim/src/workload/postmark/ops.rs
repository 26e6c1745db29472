//! Postmark's operations turned into the steps a process takes at block
//! level. Each operation changes the file system when it starts (pages are
//! allocated or freed then) and leaves a list of steps: CPU time, a
//! synchronous journal commit, buffered reads and writes, dropped pages.

use super::config::PostmarkConfig;
use super::fs::{File, Group, Journal, Layout};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use ssdlab_protocol::Ns;
use std::collections::VecDeque;

/// Postmark's four operations (one transaction is a read or an append
/// followed by a create or a delete).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Create,
    Delete,
    Read,
    Append,
}

impl OpKind {
    pub const ALL: [OpKind; 4] = [OpKind::Create, OpKind::Delete, OpKind::Read, OpKind::Append];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Create => "create",
            OpKind::Delete => "delete",
            OpKind::Read => "read",
            OpKind::Append => "append",
        }
    }
}

/// One step of an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// CPU time on the process's own CPU.
    Cpu(Ns),
    /// A synchronous metadata write (a journal commit) the process waits for.
    SyncWrite { first: u32, pages: u32 },
    /// Buffered reads of these pages: the missing ones come from the device.
    Read(Vec<u32>),
    /// Buffered writes of these pages. `partial` is a first page only partly
    /// overwritten: it must be read first if it is not cached.
    Write {
        pages: Vec<u32>,
        partial: Option<u32>,
    },
    /// Pages dropped from the cache (the file was deleted).
    Drop(Vec<u32>),
}

/// One process's directory: its files, block group and RNG.
pub struct Directory {
    pub group_index: u32,
    pub group: Group,
    pub files: Vec<File>,
    pub next_ino: u32,
    pub rng: ChaCha8Rng,
}

/// What an operation touched, for the throughput figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpBytes {
    pub read: u64,
    pub written: u64,
}

/// Builds operations' steps against the shared layout and journal.
pub struct OpBuilder<'a> {
    pub cfg: &'a PostmarkConfig,
    pub layout: &'a Layout,
    pub journal: &'a mut Journal,
    pub page_bytes: u64,
}

impl OpBuilder<'_> {
    fn syscall(&self, bytes: u64) -> Step {
        Step::Cpu(self.cfg.syscall_ns + bytes.div_ceil(1024) * self.cfg.copy_ns_per_kib)
    }

    fn journal_commit(&mut self) -> Step {
        let pages = (self.cfg.journal_commit_bytes as u64).div_ceil(self.page_bytes) as u32;
        let (first, pages) = self.journal.commit(pages);
        if self.cfg.sync_metadata {
            Step::SyncWrite { first, pages }
        } else {
            Step::Write {
                pages: (first..first + pages).collect(),
                partial: None,
            }
        }
    }

    /// The metadata half of a create or a delete: the system call, the
    /// journal commit, and inode `ino`'s table page dirtied.
    fn metadata_update(&mut self, group: u32, ino: u32, steps: &mut VecDeque<Step>) {
        steps.push_back(self.syscall(0));
        steps.push_back(self.journal_commit());
        let inode = self.layout.inode_page(group, ino);
        steps.push_back(Step::Write {
            pages: vec![inode],
            partial: Some(inode),
        });
    }

    fn size(&self, rng: &mut ChaCha8Rng) -> u64 {
        rng.gen_range(self.cfg.size_min..=self.cfg.size_max)
    }

    /// A new file of a random size: the create's journal commit, its inode
    /// page and its data dirtied in the cache. None when the group is full.
    pub fn create(&mut self, dir: &mut Directory, steps: &mut VecDeque<Step>) -> Option<OpBytes> {
        let bytes = self.size(&mut dir.rng);
        let mut file = File {
            ino: dir.next_ino,
            ..File::default()
        };
        if !file.grow(bytes, self.page_bytes, &mut dir.group) {
            for &p in &file.pages {
                dir.group.release(p);
            }
            return None;
        }
        dir.next_ino += 1;
        self.metadata_update(dir.group_index, file.ino, steps);
        steps.push_back(self.syscall(bytes));
        steps.push_back(Step::Write {
            pages: file.pages.clone(),
            partial: None,
        });
        dir.files.push(file);
        Some(OpBytes {
            read: 0,
            written: bytes,
        })
    }

    /// Deletes a random file (or file `index`): journal commit, inode page
    /// dirtied, its pages dropped and freed.
    pub fn delete(
        &mut self,
        dir: &mut Directory,
        index: Option<usize>,
        steps: &mut VecDeque<Step>,
    ) -> Option<OpBytes> {
        if dir.files.is_empty() {
            return None;
        }
        let i = index.unwrap_or_else(|| dir.rng.gen_range(0..dir.files.len()));
        let file = dir.files.swap_remove(i);
        for &p in &file.pages {
            dir.group.release(p);
        }
        self.metadata_update(dir.group_index, file.ino, steps);
        steps.push_back(Step::Drop(file.pages));
        Some(OpBytes::default())
    }

    /// Reads a random file whole.
    pub fn read(&mut self, dir: &mut Directory, steps: &mut VecDeque<Step>) -> Option<OpBytes> {
        if dir.files.is_empty() {
            return None;
        }
        let i = dir.rng.gen_range(0..dir.files.len());
        let file = &dir.files[i];
        steps.push_back(self.syscall(0));
        steps.push_back(Step::Read(file.pages.clone()));
        steps.push_back(self.syscall(file.bytes));
        Some(OpBytes {
            read: file.bytes,
            written: 0,
        })
    }

    /// Appends a random amount (the size range) to a random file; a last
    /// page that is partly written must be in the cache first.
    pub fn append(&mut self, dir: &mut Directory, steps: &mut VecDeque<Step>) -> Option<OpBytes> {
        if dir.files.is_empty() {
            return None;
        }
        let add = self.size(&mut dir.rng);
        let i = dir.rng.gen_range(0..dir.files.len());
        let file = &mut dir.files[i];
        let old_bytes = file.bytes;
        let first_page = (old_bytes / self.page_bytes) as usize;
        if !file.grow(old_bytes + add, self.page_bytes, &mut dir.group) {
            // The group is full: the append writes what fitted.
            file.bytes = file.bytes.max(file.pages.len() as u64 * self.page_bytes);
        }
        let written = file.bytes - old_bytes;
        let partial = (!old_bytes.is_multiple_of(self.page_bytes))
            .then(|| file.pages.get(first_page).copied())
            .flatten();
        let pages = file.pages.get(first_page..).unwrap_or_default().to_vec();
        let inode = self.layout.inode_page(dir.group_index, file.ino);
        steps.push_back(self.syscall(written));
        if !pages.is_empty() {
            steps.push_back(Step::Write { pages, partial });
        }
        steps.push_back(Step::Write {
            pages: vec![inode],
            partial: Some(inode),
        });
        Some(OpBytes { read: 0, written })
    }
}
