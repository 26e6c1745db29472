//! Per-job statistics of a run, kept in the fio-compatible shapes of
//! `ssdlab-metrics`.

use crate::workload::fio_job::IoSample;
use crate::workload::fio_log::{report_windows_ms, JobLogs};
use ssdlab_fio::JobSpec;
use ssdlab_metrics::{self as m, JobReport, PrioStats, Sampler, FIO_DEFAULT_AVG_TIME_NS};
use ssdlab_protocol::Ns;
use ssdlab_sched::IoClass;

pub struct JobStats {
    pub report: JobReport,
    /// Bandwidth/IOPS samplers per direction (read, write, trim), over the
    /// bandwidth window (`bwavgtime`).
    pub samplers: [Sampler; 3],
    /// IOPS samplers, when `iopsavgtime` gives IOPS a window of its own.
    iops_samplers: Option<[Sampler; 3]>,
    /// The job's fio log files, when the run writes them.
    pub logs: Option<JobLogs>,
}

impl JobStats {
    pub fn new(spec: &JobSpec) -> JobStats {
        let mut report = JobReport::new(spec.name.clone(), spec.group_id);
        report.job_options = spec.options.clone();
        report.latency_depth = spec.iodepth;
        report.latency_target_ns = spec.latency_target_ns;
        report.latency_window_ns = spec.latency_window_ns;
        report.latency_percentile = spec.latency_percentile;
        report.percentile_list = spec.percentile_list.clone();
        report.lat_percentiles = spec.lat_percentiles;
        report.ioprio = m::IoPrio {
            class: spec.prioclass.map_or(0, |c| c.as_u8()),
            level: spec.prio.unwrap_or(0),
            hint: 0,
        };
        // A window of 0 is fio's sample per I/O; the report keeps fio's
        // default window then (docs/fio.md, "Log files").
        let ns = |ms: u32| match ms {
            0 => FIO_DEFAULT_AVG_TIME_NS,
            ms => ms as u64 * 1_000_000,
        };
        let (bw, iops) = report_windows_ms(spec);
        let samplers = |ms: u32| std::array::from_fn(|_| Sampler::new(ns(ms)));
        JobStats {
            report,
            samplers: samplers(bw),
            iops_samplers: (ns(iops) != ns(bw)).then(|| samplers(iops)),
            logs: None,
        }
    }

    /// The job's measured period begins (end of its ramp time).
    pub fn begin(&mut self, ramp_end_ns: Ns) {
        for s in self
            .samplers
            .iter_mut()
            .chain(self.iops_samplers.iter_mut().flatten())
        {
            *s = Sampler::starting_at(s.window_ns, ramp_end_ns);
        }
        if let Some(logs) = &mut self.logs {
            logs.begin(ramp_end_ns);
        }
    }

    pub fn record(&mut self, s: &IoSample) {
        if s.is_sync_op {
            self.report.sync.record(s.lat_ns);
            return;
        }
        if let Some(logs) = &mut self.logs {
            logs.record(s);
        }
        let d = s.dir;
        self.report
            .dir_mut(d)
            .record_io(s.bytes as u64, s.slat_ns, s.clat_ns, s.lat_ns);
        self.samplers[d.index()].add_ios(s.done_ns, s.bytes as u64, 1);
        if let Some(iops) = &mut self.iops_samplers {
            iops[d.index()].add_ios(s.done_ns, s.bytes as u64, 1);
        }
        let ioprio = m::IoPrio {
            class: class_number(s.prio.class),
            level: s.prio.level,
            hint: 0,
        };
        let value = if self.report.lat_percentiles {
            s.lat_ns
        } else {
            s.clat_ns
        };
        match self
            .report
            .prios
            .iter_mut()
            .find(|p| p.ioprio == ioprio && p.dir == d)
        {
            Some(p) => p.hist.record(value),
            None => {
                let mut p = PrioStats {
                    ioprio,
                    dir: d,
                    ..Default::default()
                };
                p.hist.record(value);
                self.report.prios.push(p);
            }
        }
    }

    /// Closes the measured period: runtimes and bandwidth samples.
    pub fn finish(&mut self, ramp_end_ns: Ns, end_ns: Ns) {
        let runtime = end_ns.saturating_sub(ramp_end_ns);
        for d in ssdlab_protocol::Dir::ALL {
            let series = self.samplers[d.index()].finish(end_ns);
            let iops = (self.iops_samplers.as_ref()).map(|s| s[d.index()].finish(end_ns));
            let st = self.report.dir_mut(d);
            if st.total_ios > 0 {
                st.runtime_ns = runtime;
                st.fill_samples(&series);
                if let Some(iops) = iops {
                    st.iops_samples = iops.iops;
                    st.iops_folded = iops.folded_iops;
                }
            }
        }
        self.report.job_runtime_ms = (runtime / 1000).div_ceil(1000);
        if let Some(logs) = &mut self.logs {
            logs.close(end_ns);
        }
    }
}

fn class_number(c: IoClass) -> u8 {
    match c {
        IoClass::None => 0,
        IoClass::Rt => 1,
        IoClass::Be => 2,
        IoClass::Idle => 3,
    }
}
