//! Helpers shared by the CLI's test binaries (each includes this module
//! and uses what it needs, hence the `dead_code` allowances).

use std::path::Path;
use std::process::Command;

/// Runs the `ssdlab` binary: exit code, stdout, stderr.
#[allow(dead_code)]
pub fn ssdlab(args: &[&str]) -> (i32, String, String) {
    ssdlab_in(Path::new("."), args)
}

/// Runs the `ssdlab` binary in `dir`: exit code, stdout, stderr.
#[allow(dead_code)]
pub fn ssdlab_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .current_dir(dir)
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

/// A loop device over a file, detached when dropped.
#[allow(dead_code)]
pub struct LoopDevice {
    pub path: String,
}

impl LoopDevice {
    /// None (and a note on stderr) when this machine cannot make one.
    #[allow(dead_code)]
    pub fn new(backing: &std::path::Path, bytes: u64) -> Option<LoopDevice> {
        let f = std::fs::File::create(backing).unwrap();
        f.set_len(bytes).unwrap();
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .arg(backing)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "no loop device here ({}): the loop-device checks did not run",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Some(LoopDevice { path })
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.path])
            .status();
    }
}
