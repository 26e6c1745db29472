//! CPU affinity of the thread that submits to the drive (fio's
//! `cpus_allowed` and `cpumask`): ssdlab submits every job's I/O from one
//! thread, so the jobs of a run share one CPU set.

use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

/// Pins the calling thread to `cpus`; an error names a CPU this machine
/// does not let the thread run on.
pub fn pin_current_thread(cpus: &[u32]) -> Result<(), String> {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        if cpu as usize >= CpuSet::MAX_CPU {
            return Err(format!(
                "CPU {cpu} is beyond the {} a set can hold",
                CpuSet::MAX_CPU
            ));
        }
        set.set(cpu as usize);
    }
    sched_setaffinity(None, &set).map_err(|e| format!("cannot run on CPUs {cpus:?}: {e}"))
}

/// The CPUs the calling thread may run on.
pub fn current_cpus() -> Vec<u32> {
    let Ok(set) = sched_getaffinity(None) else {
        return Vec::new();
    };
    (0..CpuSet::MAX_CPU)
        .filter(|&c| set.is_set(c))
        .map(|c| c as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_pinned_to_one_cpu_runs_there_alone() {
        // In a thread of its own, so the test runner's threads keep theirs.
        std::thread::spawn(|| {
            let all = current_cpus();
            assert!(!all.is_empty());
            pin_current_thread(&all[..1]).unwrap();
            assert_eq!(current_cpus(), all[..1].to_vec());
            assert!(pin_current_thread(&[u32::MAX]).is_err());
        })
        .join()
        .unwrap();
    }
}
