//! The Postmark workload file: `[postmark]` (Postmark 1.5's parameters,
//! per process) and `[page_cache]` (the host's `vm.dirty_*` knobs). Every
//! problem is reported at once, located by file, line and key.

use crate::error::InputError;
use crate::host::PageCacheConfig;
use crate::toml_sections::SectionReader;
use serde::{Deserialize, Serialize};
use ssdlab_protocol::Ns;

/// Postmark's parameters (J. Katcher, "PostMark: A New File System
/// Benchmark", NetApp TR3022, 1997; version 1.5), for each of `processes`
/// concurrent processes, plus the file-system costs ssdlab adds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PostmarkConfig {
    /// Concurrent Postmark processes, each in its own directory.
    pub processes: u32,
    /// Files each process creates before its transactions.
    pub files: u32,
    /// Transactions per process.
    pub transactions: u32,
    /// File size range in bytes (new files and appends).
    #[serde(deserialize_with = "crate::units::bytes")]
    pub size_min: u64,
    #[serde(deserialize_with = "crate::units::bytes")]
    pub size_max: u64,
    /// Out of 10: the share of transactions that read rather than append.
    pub read_bias: u32,
    /// Out of 10: the share of transactions that create rather than delete.
    pub create_bias: u32,
    /// Bytes of one synchronous journal commit (descriptor, metadata, commit
    /// block) that a create or delete waits for.
    #[serde(deserialize_with = "crate::units::bytes_u32")]
    pub journal_commit_bytes: u32,
    /// Size of the journal area at the start of the device.
    #[serde(deserialize_with = "crate::units::bytes")]
    pub journal_bytes: u64,
    /// Whether a create or delete waits for its journal commit (true: the
    /// STB paper's metadata-bound creates). False: the commit's pages are
    /// dirtied and reach the device as write-back, as ext3's periodic
    /// kjournald commit does for a process that never syncs.
    pub sync_metadata: bool,
    /// CPU time of one system call.
    #[serde(deserialize_with = "crate::units::ns")]
    pub syscall_ns: Ns,
    /// CPU time to copy 1 KiB between the application and the page cache.
    #[serde(deserialize_with = "crate::units::ns")]
    pub copy_ns_per_kib: Ns,
}

impl Default for PostmarkConfig {
    /// Postmark 1.5's defaults (500 files of 500 B–9.77 KB, 500
    /// transactions, biases 5) for five processes, as the STB study runs it.
    fn default() -> Self {
        PostmarkConfig {
            processes: 5,
            files: 500,
            transactions: 500,
            size_min: 500,
            size_max: 10_000,
            read_bias: 5,
            create_bias: 5,
            journal_commit_bytes: 8192,
            journal_bytes: 32 << 20,
            sync_metadata: true,
            syscall_ns: 5_000,
            copy_ns_per_kib: 500,
        }
    }
}

impl PostmarkConfig {
    /// Every problem, as the key and the reason.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut found = Vec::new();
        let mut bad = |key: &str, msg: String| found.push((format!("postmark.{key}"), msg));
        if !(1..=64).contains(&self.processes) {
            bad("processes", format!("{} is not in [1, 64]", self.processes));
        }
        if self.files == 0 || self.files > 1_000_000 {
            bad("files", format!("{} is not in [1, 1000000]", self.files));
        }
        if self.transactions > 100_000_000 {
            bad("transactions", "must be at most 100000000".into());
        }
        if self.size_min == 0 {
            bad("size_min", "must be at least 1 byte".into());
        }
        if self.size_max > 1 << 30 {
            bad("size_max", "must be at most 1 GiB".into());
        }
        if self.size_min > self.size_max {
            bad(
                "size_min",
                format!(
                    "the size range is inverted: size_min {} is above size_max {}",
                    self.size_min, self.size_max
                ),
            );
        }
        for (key, v) in [
            ("read_bias", self.read_bias),
            ("create_bias", self.create_bias),
        ] {
            if v > 10 {
                bad(key, format!("{v} is not in [0, 10]"));
            }
        }
        if self.journal_commit_bytes == 0 || self.journal_commit_bytes > 1 << 20 {
            bad("journal_commit_bytes", "must be in [1, 1048576]".into());
        }
        if self.journal_bytes < self.journal_commit_bytes as u64 {
            bad(
                "journal_bytes",
                "must hold at least one journal commit".into(),
            );
        }
        if self.syscall_ns > 1_000_000_000 || self.copy_ns_per_kib > 1_000_000_000 {
            bad("syscall_ns", "CPU costs must be at most 1 s".into());
        }
        found
    }
}

/// A Postmark workload file: the benchmark and the page cache it runs on.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PostmarkFile {
    pub postmark: PostmarkConfig,
    pub page_cache: PageCacheConfig,
    /// The seed a Postmark command file set (`set seed`); None otherwise.
    pub seed: Option<u64>,
}

impl PostmarkFile {
    /// Parses a workload file; `file` names it in errors. `page_bytes` is
    /// the device's page (the page cache's unit).
    pub fn from_toml(text: &str, file: &str, page_bytes: u32) -> Result<PostmarkFile, InputError> {
        let mut r = SectionReader::new(text, file, "")?;
        r.refuse_unknown(&["postmark", "page_cache"]);
        let postmark: Option<PostmarkConfig> = r.section("postmark");
        let page_cache: Option<PageCacheConfig> = r.section("page_cache");
        if let Some(p) = &postmark {
            r.problems(p.problems());
        }
        if let Some(c) = &page_cache {
            let found = c.problems(page_bytes);
            r.problems(
                found
                    .into_iter()
                    .map(|(k, m)| (format!("page_cache.{k}"), m))
                    .collect(),
            );
        }
        r.check()?;
        Ok(PostmarkFile {
            postmark: postmark.unwrap_or_default(),
            page_cache: page_cache.unwrap_or_default(),
            seed: None,
        })
    }
}
