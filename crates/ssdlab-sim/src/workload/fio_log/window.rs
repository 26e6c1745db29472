//! fio's windowed logging (`log_avg_msec` = M > 0, HOWTO "log_avg_msec",
//! "Log File Formats"): one entry per direction and window instead of one
//! per I/O, with 0 as block size, offset and priority.
//!
//! fio reaches its entries two ways, kept apart here: a latency sample
//! joins its direction's window and closes it once M ms have passed
//! ([`Averager`]); bandwidth and IOPS are sampled every M ms by fio's
//! helper thread, each interval becoming one entry ([`IntervalCounter`]).

use super::line::LogEntry;

/// Nanoseconds per millisecond.
const NS_PER_MS: u64 = 1_000_000;

/// A latency log's open windows, one per direction.
#[derive(Debug, Clone)]
pub struct Averager {
    period_ms: u64,
    /// `log_max_value`: an entry holds the window's maximum, not its mean.
    max: bool,
    dirs: [Window; 3],
}

#[derive(Debug, Clone, Copy, Default)]
struct Window {
    samples: u64,
    sum: u128,
    max: u64,
    /// Where the window began: a multiple of the period (0 at first).
    start_ms: u64,
}

impl Averager {
    pub fn new(period_ms: u32, max: bool) -> Averager {
        Averager {
            period_ms: u64::from(period_ms.max(1)),
            max,
            dirs: [Window::default(); 3],
        }
    }

    /// A sample of `value` in direction `dir` at `time_ms`. The sample
    /// joins its window; a sample at least a period past the window's start
    /// closes it (an entry at the sample's time), and the next window
    /// starts at the period boundary before it, as fio aligns them.
    pub fn add(&mut self, time_ms: u64, dir: u8, value: u64) -> Option<LogEntry> {
        let w = &mut self.dirs[usize::from(dir)];
        w.samples += 1;
        w.sum += u128::from(value);
        w.max = w.max.max(value);
        // Before the window's start (a statistics restart moved the clock
        // back) the sample only joins it, as in fio.
        if time_ms < w.start_ms || time_ms - w.start_ms < self.period_ms {
            return None;
        }
        let entry = self.close(dir, time_ms);
        self.dirs[usize::from(dir)].start_ms = time_ms - time_ms % self.period_ms;
        entry
    }

    /// The entries of the windows still open at `time_ms` (the job's end),
    /// by direction.
    pub fn flush(&mut self, time_ms: u64) -> [Option<LogEntry>; 3] {
        [0, 1, 2].map(|d| self.close(d, time_ms))
    }

    /// The entry of direction `dir`'s window (None when it holds no
    /// sample), which starts empty again.
    fn close(&mut self, dir: u8, time_ms: u64) -> Option<LogEntry> {
        let w = &mut self.dirs[usize::from(dir)];
        if w.samples == 0 {
            return None;
        }
        let value = if self.max {
            w.max
        } else {
            // The mean rounded half up, as fio adds 0.5 and truncates.
            ((2 * w.sum + u128::from(w.samples)) / (2 * u128::from(w.samples))) as u64
        };
        *w = Window {
            start_ms: w.start_ms,
            ..Window::default()
        };
        Some(windowed(time_ms, dir, value))
    }
}

/// A bandwidth or IOPS log sampled every period from the job's start.
#[derive(Debug, Clone)]
pub struct IntervalCounter {
    period_ms: u64,
    /// 1024 for bandwidth (KiB/s from bytes), 1 for IOPS (from I/Os).
    divisor: u64,
    /// The interval being counted (0: the first period after the start).
    interval: u64,
    /// Bytes or I/Os per direction in it.
    amounts: [u64; 3],
}

impl IntervalCounter {
    /// Bandwidth in KiB/s when `per_kib` (amounts in bytes), else a rate
    /// of I/Os.
    pub fn new(period_ms: u32, per_kib: bool) -> IntervalCounter {
        IntervalCounter {
            period_ms: u64::from(period_ms.max(1)),
            divisor: if per_kib { 1024 } else { 1 },
            interval: 0,
            amounts: [0; 3],
        }
    }

    /// `amount` done in `dir`, `since_ns` after the start. The entries of
    /// the interval it ends, when it comes in a later one.
    pub fn add(&mut self, since_ns: u64, dir: u8, amount: u64) -> [Option<LogEntry>; 3] {
        let interval = since_ns / (self.period_ms * NS_PER_MS);
        let mut closed = [None; 3];
        if interval > self.interval {
            closed = self.entries();
            self.interval = interval;
        }
        self.amounts[usize::from(dir)] += amount;
        closed
    }

    /// The entries of the last interval when it ended by `end_ns` after
    /// the start; an interval still open then is not sampled (fio's helper
    /// samples only running jobs).
    pub fn flush(&mut self, end_ns: u64) -> [Option<LogEntry>; 3] {
        let ended = (self.interval + 1) * self.period_ms * NS_PER_MS <= end_ns;
        if ended {
            self.entries()
        } else {
            self.amounts = [0; 3];
            [None; 3]
        }
    }

    /// Counting starts again from a new start (fio's statistics reset):
    /// the open interval is dropped.
    pub fn restart(&mut self) {
        self.interval = 0;
        self.amounts = [0; 3];
    }

    /// One entry per direction that moved data in the interval, at its
    /// end, with fio's rate: `amount·1000/ms`, in KiB for bandwidth.
    fn entries(&mut self) -> [Option<LogEntry>; 3] {
        let time_ms = (self.interval + 1) * self.period_ms;
        let amounts = std::mem::take(&mut self.amounts);
        [0u8, 1, 2].map(|d| {
            let amount = amounts[usize::from(d)];
            let rate = u128::from(amount) * 1000 / u128::from(self.period_ms);
            (amount > 0).then(|| windowed(time_ms, d, (rate / u128::from(self.divisor)) as u64))
        })
    }
}

/// A windowed entry: no block size, offset or priority (fio writes 0).
fn windowed(time_ms: u64, dir: u8, value: u64) -> LogEntry {
    LogEntry {
        time_ms,
        value,
        dir,
        bs: 0,
        offset: 0,
        ioprio: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times_values(entries: &[LogEntry]) -> Vec<(u64, u64, u8)> {
        entries
            .iter()
            .map(|e| (e.time_ms, e.value, e.dir))
            .collect()
    }

    #[test]
    fn latency_windows_close_at_the_first_sample_a_period_on() {
        let mut a = Averager::new(100, false);
        let mut out = Vec::new();
        for (t, v) in [
            (10, 100),
            (50, 201),
            (99, 300),
            (130, 1000),
            (190, 7),
            (260, 8),
        ] {
            out.extend(a.add(t, 0, v));
        }
        // 10..99 stays open; the sample at 130 closes it with itself in it
        // (mean of 100, 201, 300, 1000 = 400.25 → 400); the next window
        // starts at 100, so 190 stays in it and 260 closes it.
        assert_eq!(times_values(&out), vec![(130, 400, 0), (260, 8, 0)]);
        out.clear();
        // Each direction has its own window: the first write, at 270, is
        // a period past 0 and closes its window at once.
        out.extend(a.add(270, 1, 5));
        out.extend(a.add(275, 0, 4));
        out.extend(a.add(276, 1, 6));
        out.extend(a.flush(280).into_iter().flatten());
        // The end writes each direction's open window, read first.
        assert_eq!(
            times_values(&out),
            vec![(270, 5, 1), (280, 4, 0), (280, 6, 1)]
        );
        assert!(a.flush(300).iter().all(Option::is_none));
    }

    #[test]
    fn means_round_half_up_and_max_takes_the_largest() {
        let mut a = Averager::new(10, false);
        a.add(1, 2, 1);
        let e = a.add(10, 2, 2).unwrap();
        assert_eq!((e.value, e.dir, e.bs, e.offset, e.ioprio), (2, 2, 0, 0, 0));
        let mut m = Averager::new(10, true);
        m.add(1, 1, 9);
        assert_eq!(m.add(12, 1, 3).unwrap().value, 9);
    }

    #[test]
    fn intervals_give_one_entry_per_direction_with_data_at_their_end() {
        let mut c = IntervalCounter::new(100, true);
        let ms = |m: u64| m * NS_PER_MS;
        let mut out = Vec::new();
        out.extend(c.add(ms(5), 0, 4096).into_iter().flatten());
        out.extend(c.add(ms(60), 1, 8192).into_iter().flatten());
        out.extend(c.add(ms(99), 0, 4096).into_iter().flatten());
        // Nothing in 100..200: no entry for it; 250 closes the first.
        out.extend(c.add(ms(250), 0, 1024).into_iter().flatten());
        // 8192 B in 100 ms: 80 KiB/s; 8192 B written: 80 KiB/s.
        assert_eq!(times_values(&out), vec![(100, 80, 0), (100, 80, 1)]);
        // The interval 200..300 is sampled only if the job ran through it.
        assert!(c.clone().flush(ms(299)).iter().all(Option::is_none));
        let last: Vec<LogEntry> = c.flush(ms(300)).into_iter().flatten().collect();
        assert_eq!(times_values(&last), vec![(300, 10, 0)]);
    }

    #[test]
    fn iops_intervals_count_ios_per_second() {
        let mut c = IntervalCounter::new(250, false);
        for i in 0..3 {
            c.add(i * NS_PER_MS, 1, 1);
        }
        let e: Vec<LogEntry> = c.flush(250 * NS_PER_MS).into_iter().flatten().collect();
        assert_eq!(times_values(&e), vec![(250, 12, 1)]);
        c.add(10, 0, 1);
        c.restart();
        assert!(c.flush(u64::MAX / 2).iter().all(Option::is_none));
    }
}
