//! From INI items to jobs: global inheritance, per-job resolution, numjobs
//! clones and reporting groups.

use crate::error::{ErrorKind, FioError};
use crate::ini::{Item, Loc};
use crate::job;
use crate::options::{self, Kind, OptionDef, Value};
use crate::spec::{IgnoredOption, JobFile, JobSpec};
use crate::values::ValueError;
use crate::ParseOptions;

/// fio's default `--max-jobs`.
pub const MAX_JOBS: usize = 4096;

/// An option line resolved against the table.
#[derive(Clone, Debug)]
struct RawOpt {
    def: &'static OptionDef,
    written: String,
    value: Option<String>,
    loc: Loc,
}

struct PendingJob {
    name: String,
    loc: Loc,
    /// Global options visible at the section header.
    globals: Vec<RawOpt>,
    own: Vec<RawOpt>,
}

enum Current {
    Nothing,
    Global,
    Job(PendingJob),
}

fn value_error(o: &RawOpt, e: ValueError) -> FioError {
    let kind = if e.out_of_range {
        ErrorKind::OutOfRange
    } else {
        ErrorKind::MalformedValue
    };
    FioError::new(kind, &o.loc.file, o.loc.line, Some(&o.written), e.msg)
}

fn parse(o: &RawOpt, kb_base: u32) -> Result<Value, FioError> {
    options::parse_value(o.def.kind, o.value.as_deref(), kb_base).map_err(|e| value_error(o, e))
}

/// Section names starting with "global" are global sections (as in fio).
fn is_global(name: &str) -> bool {
    name.starts_with("global")
}

pub(crate) fn assemble(items: Vec<Item>, popts: &ParseOptions) -> Result<JobFile, FioError> {
    let mut globals: Vec<RawOpt> = Vec::new();
    let mut out = JobFile {
        global_options: Vec::new(),
        jobs: Vec::new(),
        ignored: Vec::new(),
    };
    let mut current = Current::Nothing;

    for item in items {
        match item {
            Item::Section { name, loc } => {
                if let Current::Job(p) = std::mem::replace(&mut current, Current::Nothing) {
                    finish_job(p, &mut out)?;
                }
                current = if is_global(&name) {
                    Current::Global
                } else {
                    Current::Job(PendingJob {
                        name,
                        loc,
                        globals: globals.clone(),
                        own: Vec::new(),
                    })
                };
            }
            Item::Opt { key, value, loc } => {
                if matches!(current, Current::Nothing) {
                    let shown = match &value {
                        Some(v) => format!("{key}={v}"),
                        None => key.clone(),
                    };
                    return Err(FioError::new(
                        ErrorKind::OutsideSection,
                        &loc.file,
                        loc.line,
                        Some(&key),
                        format!("option '{shown}' is outside of any [] section"),
                    ));
                }
                let def = match options::find(&key) {
                    Some(d) if d.kind == Kind::Deprecated => {
                        return Err(FioError::new(
                            ErrorKind::UnknownOption,
                            &loc.file,
                            loc.line,
                            Some(&key),
                            "is deprecated, and fio refuses it too".to_string(),
                        ));
                    }
                    Some(d) if d.kind != Kind::Unsupported => d,
                    found => {
                        let (kind, reason) = if found.is_some() {
                            (
                                ErrorKind::UnsupportedOption,
                                "is a fio option that ssdlab does not model",
                            )
                        } else {
                            (ErrorKind::UnknownOption, "is not a fio option")
                        };
                        if popts.ignore_unknown {
                            out.ignored.push(IgnoredOption {
                                file: loc.file.clone(),
                                line: loc.line,
                                option: key.clone(),
                                reason: reason.to_string(),
                            });
                            continue;
                        }
                        // The option is named once, in the error's field;
                        // a huge name is cut there.
                        return Err(FioError::new(
                            kind,
                            &loc.file,
                            loc.line,
                            Some(&shorten(&key)),
                            reason.to_string(),
                        ));
                    }
                };
                let raw = RawOpt {
                    def,
                    written: key,
                    value,
                    loc,
                };
                // Validate where it is written, so errors come in file order.
                parse(&raw, 1024)?;
                if def.kind == Kind::Ignored && options::is_fio_only(def) {
                    out.ignored.push(IgnoredOption {
                        file: raw.loc.file.clone(),
                        line: raw.loc.line,
                        option: raw.written.clone(),
                        reason: def.help.to_string(),
                    });
                }
                match &mut current {
                    Current::Global => {
                        job::upsert(
                            &mut out.global_options,
                            def.name,
                            raw.value.as_deref().unwrap_or(""),
                        );
                        globals.push(raw);
                    }
                    Current::Job(p) => p.own.push(raw),
                    Current::Nothing => {}
                }
            }
        }
    }
    if let Current::Job(p) = current {
        finish_job(p, &mut out)?;
    }
    assign_groups(&mut out.jobs);
    Ok(out)
}

/// Resolve one job section and append it (and its clones) to `out`.
fn finish_job(p: PendingJob, out: &mut JobFile) -> Result<(), FioError> {
    let all: Vec<&RawOpt> = p.globals.iter().chain(p.own.iter()).collect();
    // kb_base changes how every size is read: take its final value first.
    let mut kb_base = 1024;
    for o in all.iter().filter(|o| o.def.name == "kb_base") {
        if let Value::Int(v) = parse(o, 1024)? {
            kb_base = if v == 1000 { 1000 } else { 1024 };
        }
    }
    let mut spec = JobSpec::with_defaults(&p.name, &p.loc.file, p.loc.line);
    for o in &all {
        let v = parse(o, kb_base)?;
        job::assign(&mut spec, o.def.name, v);
        job::upsert(
            &mut spec.options,
            o.def.name,
            o.value.as_deref().unwrap_or(""),
        );
        spec.option_lines
            .push((o.def.name.to_string(), o.loc.file.clone(), o.loc.line));
    }
    if spec.name.trim().is_empty() {
        return Err(FioError::new(
            ErrorKind::EmptyJobName,
            &p.loc.file,
            p.loc.line,
            Some("name"),
            "job has no name",
        ));
    }
    let n = spec.numjobs as usize;
    if out.jobs.len() + n > MAX_JOBS {
        return Err(FioError::new(
            ErrorKind::TooManyJobs,
            &p.loc.file,
            p.loc.line,
            None,
            format!(
                "job '{}' would bring the job count above fio's limit of {MAX_JOBS}",
                spec.name
            ),
        ));
    }
    let clones: Vec<JobSpec> = (1..n)
        .map(|k| {
            let mut c = spec.clone();
            c.clone_index = k as u32;
            // fio: clones never start a new group themselves.
            c.stonewall = false;
            c.new_group = false;
            c
        })
        .collect();
    out.jobs.push(spec);
    out.jobs.extend(clones);
    Ok(())
}

/// fio: a job with `stonewall` or `new_group` after at least one job of the
/// current group starts the next group.
fn assign_groups(jobs: &mut [JobSpec]) {
    let mut group = 0u32;
    let mut in_group = 0usize;
    for j in jobs.iter_mut() {
        if (j.stonewall || j.new_group) && in_group > 0 {
            group += 1;
            in_group = 0;
        }
        j.group_id = group;
        in_group += 1;
    }
}

/// A name as shown in an error: at most 64 characters.
fn shorten(name: &str) -> String {
    const MAX: usize = 64;
    match name.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}… ({} bytes)", &name[..cut], name.len()),
        None => name.to_string(),
    }
}
