//! Unit tests of the HTML report, including an optional headless-Chromium
//! rendering check.

use super::*;
use crate::k2::figures::{sample_rows, scratch_dir, write_figures};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn report(name: &str) -> (PathBuf, Vec<Figure>) {
    let dir = scratch_dir(name);
    let rows = sample_rows(&["read", "randread"], &["partial", "full"]);
    let figs = write_figures(&rows, &dir).expect("figures");
    let tables = table_html(
        &["op", "scheduler", "p99.9 (µs)"],
        &[
            vec!["read".into(), "none".into(), "1237".into()],
            vec![
                "randread".into(),
                "<script>alert(1)</script>".into(),
                "a&b".into(),
            ],
        ],
    );
    let path = dir.join("report.html");
    write_html(
        &path,
        "K2 study <test>",
        "First paragraph.\n\nSecond paragraph with 5 < 7.",
        &tables,
        &figs,
    )
    .expect("html");
    (path, figs)
}

#[test]
fn html_is_self_contained_and_inlines_every_svg() {
    let (path, figs) = report("html");
    let page = std::fs::read_to_string(&path).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert_eq!(page.matches("<svg").count(), figs.len());
    assert!(!page.contains("<?xml"));
    for fig in &figs {
        assert!(page.contains(&fig.title));
    }
    let without_ns = page.replace("http://www.w3.org/2000/svg", "");
    assert!(!without_ns.contains("http://"), "external http reference");
    assert!(!without_ns.contains("https://"), "external https reference");
    assert!(!page.contains("<link"), "no external stylesheets");
    assert!(
        !page.contains("<script"),
        "no scripts, not even from table cells"
    );
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("<title>K2 study &lt;test&gt;</title>"));
    assert!(page.contains("Second paragraph with 5 &lt; 7."));
    assert!(page.contains("@font-face"));
    assert!(page.contains("<td class=\"num\">1237</td>"));
    assert!(page.contains("<a href=\"fig-read-partial.png\">PNG</a>"));
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn table_cells_and_headers_are_escaped() {
    let t = table_html(
        &["a<b", "\"q\""],
        &[
            vec!["<x>".into(), "1 & 2".into()],
            vec!["-3.5".into(), "12%".into()],
        ],
    );
    assert!(t.contains("<th>a&lt;b</th><th>&quot;q&quot;</th>"));
    assert!(t.contains("<td>&lt;x&gt;</td><td>1 &amp; 2</td>"));
    assert!(t.contains("<td class=\"num\">-3.5</td><td class=\"num\">12%</td>"));
    assert!(!t.contains("<x>"));
}

#[test]
fn svg_prologue_is_stripped() {
    let dir = scratch_dir("prologue");
    let p = dir.join("a.svg");
    std::fs::write(
        &p,
        "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg>\n<svg xmlns=\"x\"></svg>\n",
    )
    .unwrap();
    assert_eq!(inline_svg(&p).unwrap(), "<svg xmlns=\"x\"></svg>");
    std::fs::write(&p, "not svg").unwrap();
    assert!(inline_svg(&p).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn code_spans_render_as_code_and_are_escaped() {
    assert_eq!(
        inline_markdown("Device `consumer-tlc-250g`, files (`examples/k2/`)."),
        "Device <code>consumer-tlc-250g</code>, files (<code>examples/k2/</code>)."
    );
    assert_eq!(
        inline_markdown("under `<none>` & `a&b`'s"),
        "under <code>&lt;none&gt;</code> &amp; <code>a&amp;b</code>&#39;s"
    );
    // Markup inside a code span is literal; double backticks may hold one.
    assert_eq!(
        inline_markdown("`**x**` and `` a`b ``"),
        "<code>**x**</code> and <code>a`b</code>"
    );
    // An unmatched backtick stays text.
    assert_eq!(inline_markdown("5` µs"), "5` µs");
    assert!(!markdown_html("O1: ≤ α% of `none`'s").contains("`"));
}

#[test]
fn bold_links_headings_lists_and_tables() {
    assert_eq!(
        inline_markdown("**K2-1** <b>"),
        "<strong>K2-1</strong> &lt;b&gt;"
    );
    assert_eq!(inline_markdown("a ** b"), "a ** b");
    assert_eq!(
        inline_markdown("[paper](https://example.org/a?b=1&c=2) [x](javascript:alert(1))"),
        "<a href=\"https://example.org/a?b=1&amp;c=2\">paper</a> \
         [x](javascript:alert(1))"
    );
    assert_eq!(
        inline_markdown("[fig](fig-read-full.png)"),
        "<a href=\"fig-read-full.png\">fig</a>"
    );
    let md = "## Observations <x>\n\n### Occupancy\n\n\
              - Sequential read: under `none`, **+6%**.\n\
              - Random read: 5 < 7\n\n\
              Text line one\nline two.\n\n\
              | objective | bound |\n|---|---|\n| O1, α = 25% | `K2-16` |\n| O2 | 12 |\n";
    let html = markdown_html(md);
    assert_eq!(
        html,
        "<h2>Observations &lt;x&gt;</h2>\n<h3>Occupancy</h3>\n<ul>\n\
         <li>Sequential read: under <code>none</code>, <strong>+6%</strong>.</li>\n\
         <li>Random read: 5 &lt; 7</li>\n</ul>\n\
         <p>Text line one\nline two.</p>\n\
         <div class=\"table-wrap\">\n<table>\n\
         <thead><tr><th>objective</th><th>bound</th></tr></thead>\n<tbody>\n\
         <tr><td>O1, α = 25%</td><td><code>K2-16</code></td></tr>\n\
         <tr><td>O2</td><td class=\"num\">12</td></tr>\n\
         </tbody>\n</table>\n</div>\n"
    );
    for leak in ["`", "**", "|---", "## ", "- "] {
        assert!(!html.contains(leak), "{leak:?} leaked into {html}");
    }
}

#[test]
fn tables_scroll_inside_their_own_container() {
    let t = table_html(&["a"], &[vec!["1".into()]]);
    assert!(t.starts_with("<div class=\"table-wrap\">\n<table>"));
    assert!(t.trim_end().ends_with("</table>\n</div>"));
    assert!(STYLE.contains(".table-wrap { max-width: 100%; overflow-x: auto;"));
    assert!(STYLE.contains("pre { white-space: pre-wrap;"));
    assert!(STYLE.contains("max-width: 100%; height: auto;"));
}

#[test]
fn base64_matches_rfc4648_vectors() {
    for (input, want) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(base64(input.as_bytes()), want);
    }
}

/// Runs a command with a time limit; returns its stdout, or None (with a
/// note) if it failed or timed out.
fn run_limited(cmd: &mut Command, limit: Duration) -> Option<Vec<u8>> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        buf
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let out = reader.join().ok()?;
                if !status.success() {
                    println!("note: {cmd:?} exited with {status}");
                }
                return Some(out);
            }
            Ok(None) if start.elapsed() < limit => {
                std::thread::sleep(Duration::from_millis(100));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                println!("note: {cmd:?} timed out");
                return None;
            }
        }
    }
}

fn chromium(profile: &Path) -> Command {
    let mut c = Command::new("/usr/bin/chromium");
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// Renders the report in headless Chromium when it is installed (skipped
/// at run time otherwise). Set SSDLAB_KEEP_TEST_OUTPUT=1 to keep the
/// screenshot for inspection.
#[test]
fn chromium_renders_the_report() {
    let browser = Path::new("/usr/bin/chromium");
    if !browser.exists() {
        println!("note: /usr/bin/chromium not installed; skipping the browser check");
        return;
    }
    let (path, figs) = report("chromium");
    let dir = path.parent().unwrap().to_path_buf();
    let url = format!("file://{}", path.display());
    let shot = dir.join("shot.png");
    let limit = Duration::from_secs(120);

    let out = run_limited(
        chromium(&dir.join("profile-shot"))
            .arg(format!("--screenshot={}", shot.display()))
            .arg("--window-size=1200,2000")
            .arg(&url),
        limit,
    );
    assert!(out.is_some(), "chromium screenshot run failed");
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(size > 20_000, "screenshot missing or trivial: {size} bytes");

    let dom = run_limited(
        chromium(&dir.join("profile-dom"))
            .arg("--dump-dom")
            .arg(&url),
        limit,
    )
    .expect("chromium --dump-dom run failed");
    let dom = String::from_utf8_lossy(&dom);
    assert_eq!(
        dom.matches("<svg").count(),
        figs.len(),
        "svg elements in DOM"
    );
    assert!(dom.contains("K2-1"));

    if std::env::var_os("SSDLAB_KEEP_TEST_OUTPUT").is_some() {
        println!("kept {}", shot.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
