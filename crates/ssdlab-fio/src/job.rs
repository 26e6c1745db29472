//! Storing typed option values into a [`JobSpec`].

use crate::options::Value;
use crate::spec::{JobSpec, PerDir, PrioClass, RateProcess, RwSequencer};

fn set_dirs<T: Clone>(dst: &mut PerDir<T>, src: [Option<T>; 3]) {
    let [r, w, t] = src;
    if let Some(r) = r {
        dst.read = r;
    }
    if let Some(w) = w {
        dst.write = w;
    }
    if let Some(t) = t {
        dst.trim = t;
    }
}

fn map3<A, B>(a: [Option<A>; 3], f: impl Fn(A) -> B) -> [Option<B>; 3] {
    a.map(|x| x.map(&f))
}

fn clamp_u32(v: i64) -> u32 {
    v.clamp(0, i64::from(u32::MAX)) as u32
}

/// Store `value` of the canonical option `name` into `spec`. The value was
/// produced by `parse_value` for that option's kind, so ranges are checked.
pub(crate) fn assign(spec: &mut JobSpec, name: &str, value: Value) {
    use Value as V;
    match (name, value) {
        ("name", V::Str(s)) => spec.name = s,
        ("numjobs", V::Int(v)) => spec.numjobs = clamp_u32(v),
        ("loops", V::Int(v)) => spec.loops = clamp_u32(v),
        ("kb_base", V::Int(v)) => spec.kb_base = clamp_u32(v),
        ("runtime", V::Time(t)) => spec.runtime_ns = t,
        ("time_based", V::Bool(b)) => spec.time_based = b,
        ("startdelay", V::TimeRange(a, b)) => {
            spec.startdelay_ns = a;
            spec.startdelay_max_ns = b;
        }
        ("ramp_time", V::Time(t)) => spec.ramp_time_ns = t,
        ("filename", V::Str(s)) => spec.filename = Some(s),
        ("size", V::SizeOrPct(s)) => spec.size = Some(s),
        ("io_size", V::SizeOrPct(s)) => spec.io_size = Some(s),
        ("filesize", V::SizeOrPct(s)) => spec.filesize = Some(s),
        ("offset", V::SizeOrPct(s)) => spec.offset = s,
        ("offset_increment", V::SizeOrPct(s)) => spec.offset_increment = s,
        ("number_ios", V::Int(v)) => spec.number_ios = Some(v.max(0) as u64),
        ("ioscheduler", V::Str(s)) => spec.ioscheduler = Some(s),
        ("direct", V::Bool(b)) => spec.direct = b,
        ("buffered", V::Bool(b)) => spec.direct = !b,
        ("fsync", V::Int(v)) => spec.fsync_every = clamp_u32(v),
        ("fdatasync", V::Int(v)) => spec.fdatasync_every = clamp_u32(v),
        ("end_fsync", V::Bool(b)) => spec.end_fsync = b,
        ("sync", V::Choice(c)) => spec.sync_writes = !matches!(c, "none" | "0"),
        ("verify", V::Choice(c)) => spec.verify = (c != "none").then(|| c.to_string()),
        ("do_verify", V::Bool(b)) => spec.do_verify = b,
        ("verify_fatal", V::Bool(b)) => spec.verify_fatal = b,
        ("verify_interval", V::Size(n)) => spec.verify_interval = Some(n),
        ("rw", V::Rw(mode, n, add)) => {
            spec.rw = mode;
            spec.rw_sequencer_n = n.unwrap_or(1);
            spec.rw_seq_add = add.unwrap_or(0);
        }
        ("rw_sequencer", V::Choice(c)) => {
            spec.rw_sequencer = if c == "identical" {
                RwSequencer::Identical
            } else {
                RwSequencer::Sequential
            }
        }
        // fio: when both are given, the later one wins.
        ("rwmixread", V::Int(v)) => spec.rwmixread = v.clamp(0, 100) as u8,
        ("rwmixwrite", V::Int(v)) => spec.rwmixread = (100 - v.clamp(0, 100)) as u8,
        ("random_distribution", V::Dist(d, c)) => {
            spec.random_distribution = d;
            spec.random_center = c;
        }
        ("norandommap", V::Bool(b)) => spec.norandommap = b,
        ("randrepeat", V::Bool(b)) => spec.randrepeat = b,
        ("randseed", V::Int(v)) => spec.randseed = Some(v.max(0) as u64),
        ("bs", V::PerDirU64(d)) => set_dirs(&mut spec.bs, d),
        ("bsrange", V::PerDirRange(d)) => set_dirs(&mut spec.bsrange, map3(d, Some)),
        ("bssplit", V::PerDirSplit(d)) => set_dirs(&mut spec.bssplit, d),
        ("ioengine", V::Engine(e)) => spec.ioengine = e,
        ("iodepth", V::Int(v)) => spec.iodepth = clamp_u32(v),
        ("iodepth_low", V::Int(v)) => spec.iodepth_low = Some(clamp_u32(v)),
        ("iodepth_batch_submit", V::Int(v)) => spec.iodepth_batch_submit = clamp_u32(v),
        ("iodepth_batch_complete_min", V::Int(v)) => spec.iodepth_batch_complete_min = clamp_u32(v),
        ("iodepth_batch_complete_max", V::Int(v)) => {
            spec.iodepth_batch_complete_max = Some(clamp_u32(v))
        }
        ("thinktime", V::Time(t)) => spec.thinktime_ns = t,
        ("thinktime_spin", V::Time(t)) => spec.thinktime_spin_ns = t,
        ("thinktime_blocks", V::Int(v)) => spec.thinktime_blocks = clamp_u32(v),
        ("latency_target", V::Time(t)) => spec.latency_target_ns = t,
        ("latency_window", V::Time(t)) => spec.latency_window_ns = t,
        ("latency_percentile", V::Floats(f)) => {
            spec.latency_percentile = f.first().copied().unwrap_or(100.0)
        }
        ("rate", V::PerDirU64(d)) => set_dirs(&mut spec.rate, d),
        ("rate_iops", V::PerDirU64(d)) => set_dirs(&mut spec.rate_iops, d),
        ("rate_process", V::Choice(c)) => {
            spec.rate_process = if c == "poisson" {
                RateProcess::Poisson
            } else {
                RateProcess::Linear
            }
        }
        ("prio", V::Int(v)) => spec.prio = Some(v.clamp(0, 7) as u8),
        ("prioclass", V::Int(v)) => spec.prioclass = PrioClass::from_u8(v.clamp(0, 3) as u8),
        ("nice", V::Int(v)) => spec.nice = v.clamp(-20, 19) as i8,
        ("cpumask" | "cpus_allowed", V::Cpus(c)) => spec.cpus_allowed = Some(c),
        ("cpus_allowed_policy", V::Choice(c)) => spec.cpus_split = c == "split",
        ("cmdprio_percentage", V::PerDirU64(d)) => {
            set_dirs(&mut spec.cmdprio_percentage, map3(d, |v| v.min(100) as u8))
        }
        ("cmdprio_class", V::PerDirU64(d)) => set_dirs(
            &mut spec.cmdprio_class,
            map3(d, |v| {
                PrioClass::from_u8(v.min(3) as u8).unwrap_or(PrioClass::Rt)
            }),
        ),
        ("cmdprio", V::PerDirU64(d)) => set_dirs(&mut spec.cmdprio, map3(d, |v| v.min(7) as u8)),
        ("group_reporting", V::Bool(b)) => spec.group_reporting = b,
        ("new_group", V::Bool(b)) => spec.new_group = b,
        ("stonewall", V::Bool(b)) => spec.stonewall = b,
        ("percentile_list", V::Floats(f)) => spec.percentile_list = f,
        ("lat_percentiles", V::Bool(b)) => spec.lat_percentiles = b,
        ("clat_percentiles", V::Bool(b)) => spec.clat_percentiles = b,
        ("write_lat_log", V::Str(s)) => spec.write_lat_log = Some(s),
        ("write_bw_log", V::Str(s)) => spec.write_bw_log = Some(s),
        ("write_iops_log", V::Str(s)) => spec.write_iops_log = Some(s),
        ("log_avg_msec", V::Int(v)) => spec.log_avg_msec = clamp_u32(v),
        ("bwavgtime", V::Int(v)) => spec.bw_avg_msec = Some(clamp_u32(v)),
        ("iopsavgtime", V::Int(v)) => spec.iops_avg_msec = Some(clamp_u32(v)),
        ("log_max_value", V::Bool(b)) => spec.log_max_value = b,
        ("log_offset", V::Bool(b)) => spec.log_offset = b,
        ("log_prio", V::Bool(b)) => spec.log_prio = b,
        ("per_job_logs", V::Bool(b)) => spec.per_job_logs = b,
        // Ignored options (Value::Nothing) and anything else: nothing to store.
        _ => {}
    }
}

/// Record a raw option for the report: a repeated option keeps its first
/// position and takes the later value.
pub(crate) fn upsert(list: &mut Vec<(String, String)>, name: &str, value: &str) {
    match list.iter_mut().find(|(k, _)| k == name) {
        Some(slot) => slot.1 = value.to_string(),
        None => list.push((name.to_string(), value.to_string())),
    }
}
