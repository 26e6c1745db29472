//! Line-level reader for fio's INI dialect: comments, `[sections]`,
//! `key[=value]` lines, `include FILE` and `${VAR}` expansion.
//!
//! Comment rule (fio's `strip_blank_end`, applied to every line): everything
//! from the first `;` or `#` on a line is discarded, so a line whose first
//! non-blank character is `;`/`#` is a comment and `bs=4k ; note` means `bs=4k`.

use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, FioError};

/// Where a line came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub file: String,
    pub line: usize,
}

/// One meaningful line of a job file, includes already spliced in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Section {
        name: String,
        loc: Loc,
    },
    Opt {
        key: String,
        value: Option<String>,
        loc: Loc,
    },
}

/// How deep `include` may nest even without a cycle.
const MAX_INCLUDE_DEPTH: usize = 32;

pub(crate) struct Reader<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
    /// Files being read (canonical where possible), outermost first.
    stack: Vec<PathBuf>,
    pub items: Vec<Item>,
}

impl<'a> Reader<'a> {
    pub fn new(env: &'a dyn Fn(&str) -> Option<String>) -> Self {
        Reader {
            env,
            stack: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Read `text`, shown in errors as `display`; relative includes resolve
    /// against `base_dir`; `key` identifies the file for cycle detection.
    pub fn read(
        &mut self,
        text: &str,
        display: &str,
        base_dir: &Path,
        key: PathBuf,
        in_include: bool,
    ) -> Result<(), FioError> {
        self.stack.push(key);
        for (idx, raw) in text.split('\n').enumerate() {
            let loc = Loc {
                file: display.to_string(),
                line: idx + 1,
            };
            self.line(raw, loc, base_dir, in_include)?;
        }
        self.stack.pop();
        Ok(())
    }

    fn line(
        &mut self,
        raw: &str,
        loc: Loc,
        base_dir: &Path,
        in_include: bool,
    ) -> Result<(), FioError> {
        // fio reads a line as a C string: a NUL byte ends it.
        let raw = raw.split('\0').next().unwrap_or("");
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            return Ok(());
        }
        if let Some(rest) = line.strip_prefix('[') {
            if in_include {
                return Err(err(
                    ErrorKind::IncludeHasSection,
                    &loc,
                    None,
                    "included files may not contain [] sections",
                ));
            }
            let Some(inner) = rest.strip_suffix(']') else {
                return Err(err(
                    ErrorKind::UnterminatedSection,
                    &loc,
                    None,
                    format!("section header '{line}' is missing its closing ']'"),
                ));
            };
            let name = inner.trim();
            if name.is_empty() {
                return Err(err(
                    ErrorKind::EmptyJobName,
                    &loc,
                    None,
                    "section '[]' has no name: a job needs a name",
                ));
            }
            self.items.push(Item::Section {
                name: name.to_string(),
                loc,
            });
            return Ok(());
        }
        if let Some(target) = include_target(line) {
            let target = expand_env(target, self.env);
            return self.include(&target, &loc, base_dir);
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => {
                // fio takes the value as written after `=`: `rw = randwrite`
                // is refused by fio and `bs = 4k` read as 4 bytes, so a
                // value that begins with a space is refused here.
                if v.starts_with(char::is_whitespace) && !v.trim().is_empty() {
                    return Err(err(
                        ErrorKind::MalformedValue,
                        &loc,
                        Some(k.trim()),
                        format!(
                            "the value begins with a space, which fio reads as part of it \
                             (it refuses 'rw = randwrite' and reads 'bs = 4k' as 4 bytes): \
                             write {}={}",
                            k.trim(),
                            v.trim()
                        ),
                    ));
                }
                (k.trim(), Some(expand_env(v.trim(), self.env)))
            }
            None => (line, None),
        };
        if key.is_empty() {
            return Err(err(
                ErrorKind::MalformedValue,
                &loc,
                None,
                format!("line '{line}' has a value but no option name"),
            ));
        }
        self.items.push(Item::Opt {
            key: key.to_string(),
            value,
            loc,
        });
        Ok(())
    }

    fn include(&mut self, target: &str, loc: &Loc, base_dir: &Path) -> Result<(), FioError> {
        if target.is_empty() {
            return Err(err(
                ErrorKind::IncludeNotFound,
                loc,
                None,
                "include directive without a file name",
            ));
        }
        let path = if Path::new(target).is_absolute() {
            PathBuf::from(target)
        } else {
            base_dir.join(target)
        };
        let shown = path.display().to_string();
        if !path.is_file() {
            return Err(err(
                ErrorKind::IncludeNotFound,
                loc,
                None,
                format!("include file '{shown}' not found"),
            ));
        }
        let key = path.canonicalize().unwrap_or_else(|_| path.clone());
        if self.stack.contains(&key) {
            return Err(err(
                ErrorKind::IncludeCycle,
                loc,
                None,
                format!("include of '{shown}' forms a cycle"),
            ));
        }
        if self.stack.len() > MAX_INCLUDE_DEPTH {
            return Err(err(
                ErrorKind::IncludeCycle,
                loc,
                None,
                format!("includes nested deeper than {MAX_INCLUDE_DEPTH} levels"),
            ));
        }
        let text = crate::input::read_input(&path).map_err(|e| {
            err(
                ErrorKind::IncludeNotFound,
                loc,
                None,
                format!("cannot read include file '{shown}': {e}"),
            )
        })?;
        let text = String::from_utf8_lossy(&text);
        let dir = parent_dir(&path);
        self.read(&text, &shown, &dir, key, true)
    }
}

fn err(kind: ErrorKind, loc: &Loc, option: Option<&str>, msg: impl Into<String>) -> FioError {
    FioError::new(kind, &loc.file, loc.line, option, msg)
}

/// Directory of a file path, `.` when it has none.
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Cut the line at the first `;` or `#` (fio's behaviour).
fn strip_comment(line: &str) -> &str {
    match line.find([';', '#']) {
        Some(i) => &line[..i],
        None => line,
    }
}

/// `include FILE` → `Some("FILE")`.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    if rest.starts_with(|c: char| c.is_whitespace()) {
        Some(rest.trim())
    } else {
        None
    }
}

/// Replace every `${NAME}` with the variable's value (unset → empty).
/// An unterminated `${` is kept literally.
pub(crate) fn expand_env(s: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                if !name.is_empty() {
                    out.push_str(&env(name).unwrap_or_default());
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn items(text: &str) -> Result<Vec<Item>, FioError> {
        let mut r = Reader::new(&no_env);
        r.read(text, "t.fio", Path::new("."), PathBuf::from("t.fio"), false)?;
        Ok(r.items)
    }

    #[test]
    fn comments_and_values() {
        let it = items("; c\n# c\n[job]\n  bs=4k ; trailing\nrw=read#x\ndirect\n").unwrap();
        assert_eq!(it.len(), 4);
        match &it[1] {
            Item::Opt { key, value, loc } => {
                assert_eq!(key, "bs");
                assert_eq!(value.as_deref(), Some("4k"));
                assert_eq!(loc.line, 4);
            }
            other => panic!("{other:?}"),
        }
        match &it[3] {
            Item::Opt { key, value, .. } => {
                assert_eq!(key, "direct");
                assert_eq!(*value, None);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn crlf_and_section_names() {
        let it = items("[ a job ]\r\nbs=4k\r\n").unwrap();
        assert!(matches!(&it[0], Item::Section { name, .. } if name == "a job"));
        assert!(matches!(&it[1], Item::Opt { value: Some(v), .. } if v == "4k"));
    }

    #[test]
    fn unterminated_section() {
        let e = items("\n[job\n").unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnterminatedSection);
        assert_eq!(e.line, 2);
    }

    #[test]
    fn env_expansion() {
        let env = |k: &str| (k == "A").then(|| "x".to_string());
        assert_eq!(expand_env("${A}-${B}-${A", &env), "x--${A");
        assert_eq!(expand_env("${}", &env), "");
        assert_eq!(expand_env("plain", &env), "plain");
    }

    #[test]
    fn include_prefix() {
        assert_eq!(include_target("include  a.fio"), Some("a.fio"));
        assert_eq!(include_target("includes=1"), None);
        assert_eq!(include_target("include=1"), None);
    }
}
