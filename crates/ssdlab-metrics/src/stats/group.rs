//! fio's per-group run statistics (`group_run_stats`) and the summing of a
//! group's job reports for `group_reporting`.

use serde::{Deserialize, Serialize};

use super::{IoPrio, JobReport, PrioStats};
use crate::hist::FioHistogram;
use ssdlab_protocol::Dir;

/// fio's `group_run_stats` for one group, per direction (index by
/// [`Dir::index`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRunStats {
    pub groupid: u32,
    pub min_run: [u64; 3],
    pub max_run: [u64; 3],
    pub min_bw: [u64; 3],
    pub max_bw: [u64; 3],
    pub iobytes: [u64; 3],
    /// Aggregate bandwidth, bytes/s.
    pub agg: [u64; 3],
}

impl GroupRunStats {
    /// Group statistics over the reports of one group, as fio's
    /// `__show_run_stats` computes them.
    pub fn compute(groupid: u32, jobs: &[JobReport]) -> GroupRunStats {
        let mut rs = GroupRunStats {
            groupid,
            min_bw: [u64::MAX; 3],
            ..Default::default()
        };
        for job in jobs.iter().filter(|j| j.groupid == groupid) {
            for d in Dir::ALL {
                let ds = job.dir(d);
                let rt = ds.runtime_ms();
                let i = d.index();
                if rt == 0 {
                    continue;
                }
                if rt < rs.min_run[i] || rs.min_run[i] == 0 {
                    rs.min_run[i] = rt;
                }
                rs.max_run[i] = rs.max_run[i].max(rt);
                let bw = ds.bw_bytes();
                rs.min_bw[i] = rs.min_bw[i].min(bw);
                rs.max_bw[i] = rs.max_bw[i].max(bw);
                rs.iobytes[i] += ds.io_bytes;
            }
        }
        for i in 0..3 {
            if rs.max_run[i] > 0 {
                rs.agg[i] = (rs.iobytes[i] as u128 * 1000 / rs.max_run[i] as u128) as u64;
            }
        }
        rs
    }

    /// All groups of a report, ascending by group id.
    pub fn all(jobs: &[JobReport]) -> Vec<GroupRunStats> {
        let mut ids: Vec<u32> = jobs.iter().map(|j| j.groupid).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(|g| Self::compute(g, jobs)).collect()
    }

    /// fio's `bw_agg` / `per=`: a job's mean bandwidth (KiB/s, truncated
    /// to an integer as fio does) in percent of the group aggregate.
    pub fn bw_percent(&self, d: Dir, mean_kib: f64) -> f64 {
        let agg = self.agg[d.index()];
        if agg > 1024 {
            let p = (mean_kib as i64) as f64 * 100.0 / (agg as f64 / 1024.0);
            p.min(100.0)
        } else {
            100.0
        }
    }
}

/// group_reporting: sum the reports of a group the way fio's
/// `sum_thread_stats` does. Named after the first job, with its group id,
/// options, percentile settings and extras; histograms merged; bytes and
/// I/O counts summed; runtime = max; bandwidth/IOPS statistics added up
/// (fio's "pure sum"); CPU time weighted by job runtime.
pub fn merge_jobs(jobs: &[JobReport]) -> JobReport {
    let Some(first) = jobs.first() else {
        return JobReport::default();
    };
    let mut out = JobReport {
        jobname: first.jobname.clone(),
        groupid: first.groupid,
        members: 0,
        job_options: first.job_options.clone(),
        percentile_list: first.percentile_list.clone(),
        lat_percentiles: first.lat_percentiles,
        ioprio: first.ioprio,
        latency_depth: first.latency_depth,
        latency_target_ns: first.latency_target_ns,
        latency_window_ns: first.latency_window_ns,
        latency_percentile: first.latency_percentile,
        error: first.error,
        extras: first.extras.clone(),
        ..Default::default()
    };
    // Per-priority stats are kept when jobs carry their own, or when the
    // members run at different priorities (fio's init_per_prio_stats).
    let want_prios = jobs
        .iter()
        .any(|j| !j.prios.is_empty() || j.ioprio != first.ioprio);
    let mut usr_ms = 0.0;
    let mut sys_ms = 0.0;
    let mut run_ms = 0u64;
    for job in jobs {
        out.members += job.members.max(1);
        for d in Dir::ALL {
            out.dir_mut(d).merge(job.dir(d));
        }
        out.sync.merge(&job.sync);
        let rt = job.job_runtime();
        run_ms += rt;
        usr_ms += job.usr_cpu * rt as f64;
        sys_ms += job.sys_cpu * rt as f64;
        out.ctx += job.ctx;
        out.majf += job.majf;
        out.minf += job.minf;
        out.iodepth.merge(&job.iodepth);
        out.elapsed_s = out.elapsed_s.max(job.elapsed());
        if want_prios {
            if job.prios.is_empty() {
                for d in Dir::ALL {
                    let ds = job.dir(d);
                    let h = if job.lat_percentiles {
                        &ds.lat
                    } else {
                        &ds.clat
                    };
                    add_prio(&mut out.prios, job.ioprio, d, h);
                }
            } else {
                for p in &job.prios {
                    add_prio(&mut out.prios, p.ioprio, p.dir, &p.hist);
                }
            }
        }
    }
    // fio's job_runtime of a group is the sum of the members' run times.
    out.job_runtime_ms = run_ms;
    if run_ms > 0 {
        out.usr_cpu = usr_ms / run_ms as f64;
        out.sys_cpu = sys_ms / run_ms as f64;
    } else if !jobs.is_empty() {
        out.usr_cpu = jobs.iter().map(|j| j.usr_cpu).sum::<f64>() / jobs.len() as f64;
        out.sys_cpu = jobs.iter().map(|j| j.sys_cpu).sum::<f64>() / jobs.len() as f64;
    }
    out
}

fn add_prio(prios: &mut Vec<PrioStats>, ioprio: IoPrio, dir: Dir, h: &FioHistogram) {
    if h.count() == 0 {
        return;
    }
    if let Some(p) = prios
        .iter_mut()
        .find(|p| p.ioprio == ioprio && p.dir == dir)
    {
        p.hist.merge(h);
    } else {
        prios.push(PrioStats {
            ioprio,
            dir,
            hist: h.clone(),
        });
    }
}
