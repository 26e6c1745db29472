//! Helpers shared by the CLI's test binaries (each includes this module
//! and uses what it needs, hence the `dead_code` allowances).

use std::process::Command;

/// Runs the `ssdlab` binary: exit code, stdout, stderr.
#[allow(dead_code)]
pub fn ssdlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The text of a blkparse trace: one queued (`Q`) 4 KiB request per event
/// `(time ns, RWBS, start sector)`, in time order.
#[allow(dead_code)]
pub fn blkparse_text(mut events: Vec<(u64, &str, u64)>) -> String {
    events.sort();
    events
        .iter()
        .enumerate()
        .map(|(i, (t, rwbs, sector))| {
            format!(
                "  8,0 0 {} {}.{:09} 100 Q {rwbs} {sector} + 8 [t]\n",
                i + 1,
                t / 1_000_000_000,
                t % 1_000_000_000
            )
        })
        .collect()
}

/// Whether fio (the distribution's package, which `.ci/run` installs) is on
/// the PATH; without it the caller's check (`what`) is skipped, and says so.
#[allow(dead_code)]
pub fn fio_available(what: &str) -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("fio is not installed: {what} did not run");
    }
    ok
}
