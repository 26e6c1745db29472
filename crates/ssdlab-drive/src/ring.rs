//! The io_uring ring and the buffers it reads into and writes from: the one
//! place of the drive where the kernel touches our memory, and so the one
//! module with `unsafe` code.
//!
//! Why it is sound: the buffers are one heap block owned by the ring, made
//! once and never resized or freed while the ring lives; the kernel is told
//! of them once (`register_buffers`), and every read or write names a slot
//! inside them. A slot is handed to one command at a time (the drive's free
//! list), so no two requests in flight share memory, and `Drop` waits until
//! the kernel has finished every request before the block is freed.

#![allow(unsafe_code)]

use io_uring::{opcode, squeue, types, IoUring};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// The alignment O_DIRECT needs of a buffer (a page covers every logical
/// block size Linux supports).
pub const BUFFER_ALIGN: usize = 4096;

/// A submission ring with its registered file and buffers.
pub struct Ring {
    uring: IoUring,
    memory: Vec<u8>,
    /// Offset of slot 0 in `memory` (the first aligned byte).
    start: usize,
    slot_bytes: usize,
    slots: u16,
    /// Requests pushed and not yet reaped.
    in_flight: u32,
    /// Requests pushed since the last `enter`.
    unsubmitted: u32,
}

/// One finished request: its `user_data` and its result (bytes moved, or a
/// negative errno).
#[derive(Debug, Clone, Copy)]
pub struct Reaped {
    pub user_data: u64,
    pub result: i32,
}

impl Ring {
    /// A ring for `file` with `slots` buffers of `slot_bytes` each, filled
    /// with `fill` (what writes carry until a read lands in the slot).
    /// `poll`: completions are polled (IORING_SETUP_IOPOLL; the device
    /// must support polled I/O).
    pub fn new(
        file: &File,
        slots: u16,
        slot_bytes: usize,
        poll: bool,
        fill: &mut dyn FnMut(&mut [u8]),
    ) -> io::Result<Ring> {
        let entries = u32::from(slots).next_power_of_two().max(8);
        let mut builder = IoUring::builder();
        if poll {
            builder.setup_iopoll();
        }
        // One thread submits and reaps: completion work runs when it enters
        // the kernel rather than interrupting it (as fio sets up its rings).
        builder.setup_single_issuer().setup_coop_taskrun();
        let uring = match builder.build(entries) {
            Ok(u) => u,
            // Kernels before 6.0 know neither flag.
            Err(_) => {
                let mut plain = IoUring::builder();
                if poll {
                    plain.setup_iopoll();
                }
                plain.build(entries)?
            }
        };
        uring.submitter().register_files(&[file.as_raw_fd()])?;
        let total = slot_bytes * usize::from(slots);
        let mut memory = vec![0u8; total + BUFFER_ALIGN];
        let start = memory.as_ptr().align_offset(BUFFER_ALIGN);
        fill(&mut memory[start..start + total]);
        let mut ring = Ring {
            uring,
            memory,
            start,
            slot_bytes,
            slots,
            in_flight: 0,
            unsubmitted: 0,
        };
        ring.register_buffers()?;
        Ok(ring)
    }

    fn register_buffers(&mut self) -> io::Result<()> {
        let base = self.memory[self.start..].as_mut_ptr();
        let iovecs: Vec<libc::iovec> = (0..usize::from(self.slots))
            .map(|i| libc::iovec {
                // SAFETY: inside `memory`: start + slots × slot_bytes ≤ len.
                iov_base: unsafe { base.add(i * self.slot_bytes) }.cast(),
                iov_len: self.slot_bytes,
            })
            .collect();
        // SAFETY: the iovecs point into `memory`, which the ring owns, never
        // resizes, and frees only after `Drop` has reaped every request.
        unsafe { self.uring.submitter().register_buffers(&iovecs) }
    }

    /// Requests pushed and not yet reaped.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The bytes of slot `slot` (to stamp before a write, or check after a
    /// read has completed).
    pub fn slot_mut(&mut self, slot: u16) -> &mut [u8] {
        let at = self.start + usize::from(slot) * self.slot_bytes;
        &mut self.memory[at..at + self.slot_bytes]
    }

    /// Queues a read (`write` false) or write of `len` bytes at `offset`
    /// through slot `slot`; it goes to the kernel at the next `enter`.
    ///
    /// # Panics
    /// If `slot` or `len` lies outside the buffers (a logic error).
    pub fn push(&mut self, write: bool, slot: u16, offset: u64, len: u32, user_data: u64) {
        assert!(slot < self.slots && len as usize <= self.slot_bytes);
        let at = self.start + usize::from(slot) * self.slot_bytes;
        let buf = self.memory[at..].as_mut_ptr();
        let fd = types::Fixed(0);
        let entry = if write {
            opcode::WriteFixed::new(fd, buf, len, slot)
                .offset(offset)
                .build()
        } else {
            opcode::ReadFixed::new(fd, buf, len, slot)
                .offset(offset)
                .build()
        };
        self.push_entry(entry.user_data(user_data));
    }

    /// Queues a trim of `len` bytes at `offset` (a hole punched in a file,
    /// a discard on a block device).
    pub fn push_trim(&mut self, offset: u64, len: u32, user_data: u64) {
        let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
        let entry = opcode::Fallocate::new(types::Fixed(0), u64::from(len))
            .offset(offset)
            .mode(mode)
            .build();
        self.push_entry(entry.user_data(user_data));
    }

    /// Queues an fsync of the target (a FLUSH: a file's dirty data and its
    /// device's cache).
    pub fn push_fsync(&mut self, user_data: u64) {
        let entry = opcode::Fsync::new(types::Fixed(0)).build();
        self.push_entry(entry.user_data(user_data));
    }

    /// Whether finished requests wait to be reaped.
    pub fn has_completions(&mut self) -> bool {
        !self.uring.completion().is_empty()
    }

    fn push_entry(&mut self, entry: squeue::Entry) {
        loop {
            // SAFETY: the entry names a registered slot that no other request
            // in flight uses (see the module comment).
            if unsafe { self.uring.submission().push(&entry) }.is_ok() {
                break;
            }
            // The submission queue is full: hand it to the kernel first.
            self.enter(0, None).ok();
        }
        self.in_flight += 1;
        self.unsubmitted += 1;
    }

    /// Hands the queued requests to the kernel and waits for `want`
    /// completions, at most `timeout_ns` (None: no limit). A timeout or a
    /// signal is not an error: it returns with fewer completions.
    pub fn enter(&mut self, want: usize, timeout_ns: Option<u64>) -> io::Result<()> {
        let result = match timeout_ns {
            Some(ns) => {
                let ts = types::Timespec::new()
                    .sec(ns / 1_000_000_000)
                    .nsec((ns % 1_000_000_000) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                self.uring.submitter().submit_with_args(want, &args)
            }
            None => self.uring.submitter().submit_and_wait(want),
        };
        match result {
            Ok(_) => {
                self.unsubmitted = 0;
                Ok(())
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR)) => {
                self.unsubmitted = 0;
                Ok(())
            }
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Requests pushed since the last `enter`.
    pub fn unsubmitted(&self) -> u32 {
        self.unsubmitted
    }

    /// Moves the finished requests to the end of `out`.
    pub fn reap(&mut self, out: &mut Vec<Reaped>) {
        let before = out.len();
        out.extend(self.uring.completion().map(|c| Reaped {
            user_data: c.user_data(),
            result: c.result(),
        }));
        self.in_flight -= (out.len() - before) as u32;
    }
}

impl Drop for Ring {
    /// Waits for every request in flight: the kernel must be done with the
    /// buffers before they are freed.
    fn drop(&mut self) {
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            if self.enter(1, None).is_err() {
                // The kernel may still write into the buffers: leak them
                // rather than free memory it holds.
                std::mem::forget(std::mem::take(&mut self.memory));
                break;
            }
            self.reap(&mut sink);
            sink.clear();
        }
    }
}
