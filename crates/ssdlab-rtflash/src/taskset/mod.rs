//! Task-set files: `[platform]`, `[[rt_task]]`, `[nrt]` and `[analysis]`
//! in TOML (docs/rt-flash.md, "Task-set files"). Every problem of a file is
//! reported at once, each as `file:line: field: message`. A task that fits
//! on no chip is not a problem of the file: the analysis says so.

mod raw;

use super::platform::{Platform, DEFAULT_RESERVED_BLOCKS};
use raw::{Checker, RawAnalysis, RawNrt, RawPlatform, RawTask};
use serde::Serialize;
use ssdlab_protocol::Ns;
use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::toml_sections::SectionReader;
use toml::Value;

/// A periodic real-time I/O task `(T, D, R, W, S)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RtTask {
    pub name: String,
    pub period_ns: Ns,
    pub deadline_ns: Ns,
    pub read_pages: u64,
    pub write_pages: u64,
    pub footprint_pages: u64,
    pub offset_ns: Ns,
}

/// How NRT requests arrive.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NrtArrival {
    /// Always one more request waiting.
    Saturating,
    /// Poisson arrivals at this rate.
    Poisson { per_second: f64 },
}

/// The non-real-time load: its data region (striped over all chips) and
/// its requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NrtLoad {
    pub footprint_pages: u64,
    pub arrival: NrtArrival,
    /// Requests a saturating load keeps outstanding (None: two per chip).
    pub outstanding: Option<u32>,
    pub min_request_bytes: u64,
    pub max_request_bytes: u64,
    pub read_fraction: f64,
}

/// Which schedulability test decides a cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestKind {
    /// Exact EDF demand-bound test with non-preemptive blocking.
    EdfNp,
    /// Sufficient: `Σ c/D + B/min D ≤ 1`.
    Density,
    /// Sufficient: the synchronous busy period ends before every deadline.
    BusyPeriod,
}

impl TestKind {
    pub const NAMES: &'static [&'static str] = &["edf-np", "density", "busy-period"];

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "edf-np" => Some(TestKind::EdfNp),
            "density" => Some(TestKind::Density),
            "busy-period" => Some(TestKind::BusyPeriod),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            TestKind::EdfNp => "edf-np",
            TestKind::Density => "density",
            TestKind::BusyPeriod => "busy-period",
        }
    }
}

/// What Clustering-BFD does with the chips no task needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeftoverChips {
    /// They form one NRT-only cluster (server bandwidth 1).
    NrtCluster,
    /// Each goes, one at a time, to the cluster whose space is fullest, so
    /// that NRT data striped over every chip finds no cluster much fuller
    /// than the rest.
    Spread,
}

impl LeftoverChips {
    pub const NAMES: &'static [&'static str] = &["nrt-cluster", "spread"];

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "nrt-cluster" => Some(LeftoverChips::NrtCluster),
            "spread" => Some(LeftoverChips::Spread),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            LeftoverChips::NrtCluster => "nrt-cluster",
            LeftoverChips::Spread => "spread",
        }
    }
}

/// How the analysis runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AnalysisOptions {
    pub test: TestKind,
    /// The online allocator may re-allocate every task when an arriving task
    /// fits nowhere incrementally (the data moves are not costed).
    pub allow_migration: bool,
    /// Clustering-BFD's chips left over after packing.
    pub leftover_chips: LeftoverChips,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            test: TestKind::EdfNp,
            allow_migration: true,
            leftover_chips: LeftoverChips::NrtCluster,
        }
    }
}

/// A platform, its real-time tasks, the NRT load and the analysis options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskSet {
    pub platform: Platform,
    pub tasks: Vec<RtTask>,
    pub nrt: Option<NrtLoad>,
    pub analysis: AnalysisOptions,
}

const KEYS: &[&str] = &["platform", "rt_task", "nrt", "analysis"];

impl TaskSet {
    /// Reads a task-set file.
    pub fn load(path: &str) -> Result<TaskSet, InputError> {
        let text = ssdlab_fio::read_input_string(path.as_ref())
            .map_err(|e| InputError::invalid(path, format!("cannot read task set: {e}")))?;
        Self::from_toml(&text, path)
    }

    /// Parses a task set; `file` names it in errors. Never panics.
    pub fn from_toml(text: &str, file: &str) -> Result<TaskSet, InputError> {
        let mut r = SectionReader::new(text, file, "")?;
        r.refuse_unknown(KEYS);
        let platform: Option<RawPlatform> = r.section("platform");
        let tasks: Option<Vec<RawTask>> = r.section("rt_task");
        let nrt: Option<RawNrt> = r.section("nrt");
        let analysis: Option<RawAnalysis> = r.section("analysis");
        let mut errors = match r.check() {
            Ok(()) => Vec::new(),
            Err(InputError::Many(v)) => v,
            Err(e) => vec![e],
        };
        let mut c = Checker {
            text,
            file,
            errors: Vec::new(),
        };
        let (analysis, reserved) = read_analysis(&mut c, analysis.unwrap_or_default());
        let platform = read_platform(&mut c, platform.unwrap_or_default(), reserved);
        let tasks: Vec<RtTask> = tasks
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter_map(|(i, t)| read_task(&mut c, t, i, &platform))
            .collect();
        let nrt = nrt.and_then(|n| read_nrt(&mut c, &n, &platform));
        errors.append(&mut c.errors);
        if !errors.is_empty() {
            errors.sort_by_key(line_of);
            return Err(InputError::all(errors));
        }
        Ok(TaskSet {
            platform,
            tasks,
            nrt,
            analysis,
        })
    }

    /// Pages of the NRT region (0 without an NRT load).
    pub fn nrt_footprint_pages(&self) -> u64 {
        self.nrt.as_ref().map_or(0, |n| n.footprint_pages)
    }
}

/// A value chosen by name, or an error naming the field and the known
/// names (`what`: "test", "choice").
fn named<T>(
    c: &mut Checker,
    value: &Option<toml::Spanned<String>>,
    field: &str,
    what: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Option<T> {
    let v = value.as_ref()?;
    let parsed = parse(v.get_ref());
    if parsed.is_none() {
        let message = format!(
            "unknown {what} '{}' (known: {})",
            v.get_ref(),
            names.join(", ")
        );
        c.error(v.span(), field, message);
    }
    parsed
}

fn line_of(e: &InputError) -> usize {
    match e {
        InputError::At { line, .. } => *line,
        _ => 0,
    }
}

fn read_analysis(c: &mut Checker, a: RawAnalysis) -> (AnalysisOptions, u64) {
    let mut out = AnalysisOptions::default();
    if let Some(k) = named(
        c,
        &a.test,
        "analysis.test",
        "test",
        TestKind::parse,
        TestKind::NAMES,
    ) {
        out.test = k;
    }
    if let Some(m) = a.allow_migration {
        out.allow_migration = m;
    }
    let leftover = &a.leftover_chips;
    let names = LeftoverChips::NAMES;
    if let Some(k) = named(
        c,
        leftover,
        "analysis.leftover_chips",
        "choice",
        LeftoverChips::parse,
        names,
    ) {
        out.leftover_chips = k;
    }
    let reserved = a
        .reserved_blocks
        .as_ref()
        .and_then(|r| {
            let n = c.count(r, "analysis.reserved_blocks")?;
            if n == 0 {
                // GC copies a victim into a reserved block before erasing
                // it: without one, the first round has nowhere to go.
                let message = "must be at least 1: GC copies into a reserved block".to_string();
                c.error(r.span(), "analysis.reserved_blocks", message);
            }
            Some(n)
        })
        .unwrap_or(DEFAULT_RESERVED_BLOCKS);
    (out, reserved)
}

fn read_platform(c: &mut Checker, raw: RawPlatform, reserved: u64) -> Platform {
    let chips = raw
        .chips
        .as_ref()
        .and_then(|v| c.count(v, "platform.chips"))
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    let mut p = match &raw.preset {
        Some(name) => from_preset(c, &raw, name, chips),
        None => explicit_platform(c, &raw, chips),
    };
    p.reserved_blocks = reserved;
    for (field, message) in p.problems() {
        let span = raw
            .explicit_fields()
            .into_iter()
            .find(|(n, _)| *n == field)
            .map(|(_, s)| s)
            .or_else(|| raw.chips.as_ref().map(|v| v.span()))
            .unwrap_or(0..0);
        c.error(span, &format!("platform.{field}"), message);
    }
    p
}

fn from_preset(
    c: &mut Checker,
    raw: &RawPlatform,
    name: &toml::Spanned<String>,
    chips: Option<u32>,
) -> Platform {
    for (field, span) in raw.explicit_fields() {
        c.error(
            span,
            &format!("platform.{field}"),
            "give either a preset or the platform's fields, not both".into(),
        );
    }
    let cfg = match Preset::load(name.get_ref()) {
        Ok(p) => p.device,
        Err(e) => {
            c.error(name.span(), "platform.preset", e.to_string());
            return Platform::default();
        }
    };
    match Platform::from_preset(name.get_ref(), &cfg, chips) {
        Ok(p) => p,
        Err(m) => {
            let span = raw.chips.as_ref().map_or(name.span(), |v| v.span());
            c.error(span, "platform.chips", m);
            Platform::default()
        }
    }
}

fn explicit_platform(c: &mut Checker, raw: &RawPlatform, chips: Option<u32>) -> Platform {
    let mut p = Platform::default();
    if let Some(n) = chips {
        p.chips = n;
    }
    let count = |c: &mut Checker, v: &Option<toml::Spanned<i64>>, f: &str, slot: &mut u64| {
        if let Some(n) = v.as_ref().and_then(|v| c.count(v, f)) {
            *slot = n;
        }
    };
    count(
        c,
        &raw.blocks_per_chip,
        "platform.blocks_per_chip",
        &mut p.blocks_per_chip,
    );
    count(
        c,
        &raw.pages_per_block,
        "platform.pages_per_block",
        &mut p.pages_per_block,
    );
    if let Some(n) = raw
        .page_size
        .as_ref()
        .and_then(|v| c.bytes(v, "platform.page_size"))
    {
        p.page_size = n;
    }
    let times = [
        (&raw.read_time, "platform.read_time", &mut p.read_ns),
        (
            &raw.program_time,
            "platform.program_time",
            &mut p.program_ns,
        ),
        (&raw.erase_time, "platform.erase_time", &mut p.erase_ns),
        (
            &raw.transfer_time,
            "platform.transfer_time",
            &mut p.transfer_ns,
        ),
    ];
    for (v, field, slot) in times {
        if let Some(n) = v.as_ref().and_then(|v| c.duration(v, field)) {
            *slot = n;
        }
    }
    p
}

fn read_task(c: &mut Checker, t: &RawTask, i: usize, p: &Platform) -> Option<RtTask> {
    let f = |k: &str| format!("rt_task[{i}].{k}");
    let name = t.name.get_ref().trim().to_string();
    if name.is_empty() {
        c.error(t.name.span(), &f("name"), "empty".into());
    }
    let period = c.duration(&t.period, &f("period"));
    if period == Some(0) {
        c.error(t.period.span(), &f("period"), "must be positive".into());
    }
    let deadline = match &t.deadline {
        Some(d) => c.duration(d, &f("deadline")),
        None => period,
    };
    check_deadline(c, t, &f("deadline"), deadline, period);
    let pages = |c: &mut Checker, v: &Option<toml::Spanned<i64>>, k: &str| {
        v.as_ref().map_or(Some(0), |v| c.count(v, &f(k)))
    };
    let read_pages = pages(c, &t.read_pages, "read_pages");
    let write_pages = pages(c, &t.write_pages, "write_pages");
    if (read_pages, write_pages) == (Some(0), Some(0)) {
        let span = t.write_pages.as_ref().map_or(t.name.span(), |v| v.span());
        c.error(
            span,
            &f("write_pages"),
            "a job reads and writes no page".into(),
        );
    }
    let footprint = c.pages(&t.footprint, &f("footprint"), p.page_size);
    check_footprint(c, &t.footprint, &f("footprint"), footprint, p);
    // A job reads and overwrites pages of its own data set: more pages
    // than the set holds would be simulated as the set itself while the
    // analysis charged every page.
    for (k, v, n) in [
        ("read_pages", &t.read_pages, read_pages),
        ("write_pages", &t.write_pages, write_pages),
    ] {
        if let (Some(v), Some(n), Some(fp)) = (v, n, footprint) {
            if n > fp {
                let message = format!("{n} pages per job exceed the footprint's {fp} pages");
                c.error(v.span(), &f(k), message);
            }
        }
    }
    let offset = t
        .offset
        .as_ref()
        .map_or(Some(0), |o| c.duration(o, &f("offset")));
    Some(RtTask {
        name,
        period_ns: period.filter(|&n| n > 0)?,
        deadline_ns: deadline.filter(|&d| d > 0 && Some(d) <= period)?,
        read_pages: read_pages?,
        write_pages: write_pages?,
        footprint_pages: footprint.filter(|&n| n > 0 && n <= p.usable_pages())?,
        offset_ns: offset?,
    })
}

fn check_deadline(c: &mut Checker, t: &RawTask, field: &str, d: Option<Ns>, period: Option<Ns>) {
    let span = t.deadline.as_ref().map_or(t.period.span(), |d| d.span());
    match (d, period) {
        (Some(0), _) => c.error(span, field, "must be positive".into()),
        (Some(d), Some(p)) if d > p => c.error(
            span,
            field,
            format!("{d} ns is above the period ({p} ns); deadlines are at most the period"),
        ),
        _ => {}
    }
}

fn check_footprint(
    c: &mut Checker,
    v: &toml::Spanned<Value>,
    field: &str,
    pages: Option<u64>,
    p: &Platform,
) {
    match pages {
        Some(0) => c.error(v.span(), field, "must be at least one page".into()),
        Some(n) if n > p.usable_pages() => c.error(
            v.span(),
            field,
            format!(
                "{n} pages is larger than the platform ({} usable pages on {} chips)",
                p.usable_pages(),
                p.chips
            ),
        ),
        _ => {}
    }
}

fn read_nrt(c: &mut Checker, n: &RawNrt, p: &Platform) -> Option<NrtLoad> {
    let footprint = c.pages(&n.footprint, "nrt.footprint", p.page_size);
    check_footprint(c, &n.footprint, "nrt.footprint", footprint, p);
    let arrival = match &n.arrival {
        None => Some(NrtArrival::Saturating),
        Some(a) => read_arrival(c, a),
    };
    let outstanding = read_outstanding(c, n, arrival.as_ref());
    let (lo, hi) = match &n.request_size {
        Some(v) => c.size_range(v, "nrt.request_size")?,
        None => (4096, 131_072),
    };
    let read_fraction = n.read_fraction.as_ref().map_or(0.5, |f| *f.get_ref());
    if !(0.0..=1.0).contains(&read_fraction) {
        let span = n.read_fraction.as_ref().map_or(0..0, |f| f.span());
        c.error(
            span,
            "nrt.read_fraction",
            format!("{read_fraction} is not within [0, 1]"),
        );
        return None;
    }
    Some(NrtLoad {
        footprint_pages: footprint.filter(|&f| f <= p.usable_pages())?,
        arrival: arrival?,
        outstanding,
        min_request_bytes: lo,
        max_request_bytes: hi,
        read_fraction,
    })
}

/// Most NRT requests a saturating load may keep outstanding.
pub const MAX_NRT_OUTSTANDING: i64 = 4096;

/// `nrt.outstanding`: how deep a saturating load is (one request: a single
/// synchronous NRT task).
fn read_outstanding(c: &mut Checker, n: &RawNrt, arrival: Option<&NrtArrival>) -> Option<u32> {
    let o = n.outstanding.as_ref()?;
    let v = *o.get_ref();
    if matches!(arrival, Some(NrtArrival::Poisson { .. })) {
        c.error(
            o.span(),
            "nrt.outstanding",
            "applies to a saturating load only (a Poisson load sets its own depth)".into(),
        );
        return None;
    }
    if !(1..=MAX_NRT_OUTSTANDING).contains(&v) {
        c.error(
            o.span(),
            "nrt.outstanding",
            format!("{v} is not between 1 and {MAX_NRT_OUTSTANDING}"),
        );
        return None;
    }
    Some(v as u32)
}

fn read_arrival(c: &mut Checker, a: &toml::Spanned<Value>) -> Option<NrtArrival> {
    let rate = match a.get_ref() {
        Value::String(s) if s == "saturating" => return Some(NrtArrival::Saturating),
        Value::Integer(n) => *n as f64,
        Value::Float(x) => *x,
        _ => f64::NAN,
    };
    if rate.is_finite() && rate > 0.0 {
        return Some(NrtArrival::Poisson { per_second: rate });
    }
    c.error(
        a.span(),
        "nrt.arrival",
        "expected \"saturating\" or a positive Poisson rate in requests per second".into(),
    );
    None
}

#[cfg(test)]
mod tests;
