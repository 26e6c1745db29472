//! fio's sample periods: the report's bandwidth and IOPS windows
//! (`bwavgtime`, `iopsavgtime`, 500 ms by default) and the logs'
//! (`log_avg_msec`), which fio ties together when it sets up a job's
//! bandwidth and IOPS logs (fio 3.33 `init.c`; HOWTO, `bwavgtime`): a job
//! with a bandwidth log and no `bwavgtime` takes the log's period as its
//! report's window, and with both the log takes the shorter of the two.
//! IOPS alike. Without a log, `log_avg_msec` leaves the report alone.

use super::LogKind;
use ssdlab_fio::JobSpec;

/// fio's report window when nothing sets one (ms).
const DEFAULT_AVG_MS: u32 = 500;

/// The report's bandwidth and IOPS sample windows (ms); 0 where fio takes
/// a sample per I/O (a log at `log_avg_msec=0` and no window of its own).
pub fn report_windows_ms(spec: &JobSpec) -> (u32, u32) {
    let window = |avg: Option<u32>, log: &Option<String>| match (avg, log) {
        (Some(ms), _) => ms,
        (None, Some(_)) => spec.log_avg_msec,
        (None, None) => DEFAULT_AVG_MS,
    };
    (
        window(spec.bw_avg_msec, &spec.write_bw_log),
        window(spec.iops_avg_msec, &spec.write_iops_log),
    )
}

/// The period (ms) a log of `kind` averages or samples over; 0: an entry
/// per I/O.
pub fn log_period_ms(spec: &JobSpec, kind: LogKind) -> u32 {
    let avg = match kind {
        LogKind::Bw => spec.bw_avg_msec,
        LogKind::Iops => spec.iops_avg_msec,
        LogKind::Lat | LogKind::Slat | LogKind::Clat => None,
    };
    avg.map_or(spec.log_avg_msec, |ms| spec.log_avg_msec.min(ms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> JobSpec {
        let jf = ssdlab_fio::parse_str(&format!("[j]\nrw=read\n{text}"), "t.fio", &|_| None);
        jf.unwrap().jobs.remove(0)
    }

    #[test]
    fn log_avg_msec_sets_the_report_window_only_with_a_log() {
        assert_eq!(report_windows_ms(&spec("log_avg_msec=100\n")), (500, 500));
        let bw_log = spec("log_avg_msec=100\nwrite_bw_log=x\n");
        assert_eq!(report_windows_ms(&bw_log), (100, 500));
        let iops_log = spec("write_iops_log=x\n");
        assert_eq!(report_windows_ms(&iops_log), (500, 0));
    }

    #[test]
    fn an_avgtime_sets_the_report_window_and_shortens_the_log() {
        let s = spec(
            "bwavgtime=200\niopsavgtime=50\nlog_avg_msec=100\nwrite_bw_log=x\nwrite_iops_log=x\n",
        );
        assert_eq!(report_windows_ms(&s), (200, 50));
        assert_eq!(log_period_ms(&s, LogKind::Bw), 100);
        assert_eq!(log_period_ms(&s, LogKind::Iops), 50);
        assert_eq!(log_period_ms(&s, LogKind::Clat), 100);
    }
}
