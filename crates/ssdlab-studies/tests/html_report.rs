//! The K2 HTML report in a headless browser: built from synthetic rows (with
//! tiny K2-1 bars side by side), rendered by Chromium when one is on PATH,
//! checked for sideways page overflow at 1300 and 800 px, for Markdown code
//! spans left as raw backticks, and screenshotted. Without a browser the test
//! prints "skipped: no chromium" and passes (CI installs one via .ci/run).
//!
//! Set SSDLAB_KEEP_TEST_OUTPUT=1 to keep the report and screenshots.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ssdlab_studies::findings::Finding;
use ssdlab_studies::k2::figures::write_figures;
use ssdlab_studies::k2::report;
use ssdlab_studies::k2::results::{PointRow, BOUNDS};
use ssdlab_studies::report::html::{markdown_html, table_html, write_html};
use ssdlab_studies::report::index::{write_index, StudyEntry};

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Synthetic rows for two (operation, occupancy) cells shaped like the study's
/// random reads: bandwidth falling to a sliver at K2-2 and K2-1, latency
/// flattening out just above those bars.
fn rows() -> Vec<PointRow> {
    let mut rows = Vec::new();
    for (op, occupancy, scale) in [("randread", "partial", 1.0), ("randread", "full", 1.1)] {
        for bound in std::iter::once(None).chain(BOUNDS.iter().copied().map(Some)) {
            let q = f64::from(bound.unwrap_or(256));
            let bw = scale * (2.0 + 570.0 * q * q / (q * q + 60.0));
            let p999 = scale * (220.0 + 11.0 * q);
            rows.push(PointRow {
                op: op.to_string(),
                occupancy: occupancy.to_string(),
                scheduler: if bound.is_some() { "k2" } else { "none" }.to_string(),
                bound,
                rt_p999_us: p999,
                rt_p99_us: p999 * 0.8,
                rt_mean_us: p999 * 0.3,
                total_bw_mbs: bw,
                nrt_bw_mbs: bw - 1.0,
                reps: 1,
                runtime_s: 1.0,
                waf: 1.0,
                gc_invocations: 0,
                gc_pages_moved: 0,
                erases: 0,
            });
        }
    }
    rows
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-html-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Writes report.html (with its figures) into `dir` the way `reproduce k2`
/// lays it out, plus a wide table and a long unbreakable word to stress the
/// layout.
fn build_report(dir: &Path) -> PathBuf {
    let rows = rows();
    let figs = write_figures(&rows, dir).expect("figures");
    let mut tables = String::from("<h2>Calibration</h2>\n");
    let (h, r) = report::calibration_table(&rows, "partial");
    tables.push_str(&table_html(&h, &r));
    for (op, occ, cell) in report::cells(&rows) {
        tables.push_str(&format!("<h3>{op} — {occ}</h3>\n"));
        let (h, r) = report::cell_table(&cell);
        tables.push_str(&table_html(&h, &r));
    }
    let wide_headers: Vec<String> = (0..24).map(|i| format!("column number {i}")).collect();
    let wide_headers: Vec<&str> = wide_headers.iter().map(String::as_str).collect();
    let wide_row: Vec<String> = (0..24).map(|i| format!("{}", 100_000 + i)).collect();
    tables.push_str(&table_html(&wide_headers, &[wide_row]));
    tables.push_str(&markdown_html(&report::observations_md(&rows)));
    let preamble = format!(
        "Device `consumer-tlc-250g`, the preset's host settings, K2 study job files \
         (`examples/k2/`), seed 1. A long path: `{}`.\n\n\
         The partially occupied half is compared with the paper's figures below.\n",
        "results/k2/".repeat(30)
    );
    let path = dir.join("report.html");
    write_html(
        &path,
        "K2 queue-length-bound study — ssdlab",
        &preamble,
        &tables,
        &figs,
    )
    .expect("html");
    path
}

/// The first browser on PATH.
fn find_browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
    .find(|p| p.is_file())
}

/// Runs a command with a time limit; its stdout, or None if it failed to start
/// or timed out.
fn run_limited(cmd: &mut Command, limit: Duration) -> Option<Vec<u8>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if !status.success() {
                    println!("note: {cmd:?} exited with {status}");
                }
                return reader.join().ok();
            }
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                println!("note: {cmd:?} timed out");
                return None;
            }
        }
    }
}

/// A headless browser run with a fresh profile under `dir`.
fn browser(exe: &Path, dir: &Path, name: &str, width: u32) -> Command {
    let profile = dir.join(format!("profile-{name}"));
    let mut c = Command::new(exe);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--window-size={width},900"));
    c
}

/// A copy of the report whose end of body measures the page into attributes
/// of <html>, for --dump-dom to report.
const PROBE: &str = r#"<script>
(function () {
  function probe() {
    var d = document.documentElement;
    d.setAttribute("data-scroll-width", String(d.scrollWidth));
    d.setAttribute("data-inner-width", String(window.innerWidth));
    d.setAttribute("data-overflow", d.scrollWidth > window.innerWidth ? "yes" : "no");
    var text = document.body.innerText;
    d.setAttribute("data-backticks", String((text.match(/`/g) || []).length));
    d.setAttribute("data-code", String(document.getElementsByTagName("code").length));
  }
  probe();
  window.addEventListener("load", probe);
})();
</script>
"#;

fn attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name}=\"");
    let start = dom.find(&key)? + key.len();
    Some(&dom[start..start + dom[start..].find('"')?])
}

#[test]
fn report_renders_without_overflow_or_raw_markdown() {
    let dir = scratch_dir();
    let path = build_report(&dir);
    let page = std::fs::read_to_string(&path).expect("read report");
    assert!(page.contains("<code>consumer-tlc-250g</code>"));
    assert!(page.contains("<code>none</code>"));
    assert!(page.contains("class=\"table-wrap\""));

    let Some(exe) = find_browser() else {
        println!("skipped: no chromium");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    let limit = Duration::from_secs(180);

    let shot = dir.join("shot-1300.png");
    let url = format!("file://{}", path.display());
    let ran = run_limited(
        browser(&exe, &dir, "shot", 1300)
            .arg(format!("--screenshot={}", shot.display()))
            .arg(&url),
        limit,
    );
    assert!(ran.is_some(), "{} --screenshot failed", exe.display());
    let png = std::fs::read(&shot).unwrap_or_default();
    assert!(
        png.len() > 20_000 && png[..8] == PNG_SIGNATURE,
        "screenshot missing or trivial: {} bytes",
        png.len()
    );
    let png_width = u32::from_be_bytes([png[16], png[17], png[18], png[19]]);
    assert_eq!(png_width, 1300, "screenshot width");

    let probed = dir.join("report-probe.html");
    std::fs::write(
        &probed,
        page.replace("\n</body>", &format!("\n{PROBE}</body>")),
    )
    .expect("write probe page");
    let probed_url = format!("file://{}", probed.display());
    for width in [1300, 800] {
        let dom = run_limited(
            browser(&exe, &dir, &format!("dom-{width}"), width)
                .arg("--dump-dom")
                .arg(&probed_url),
            limit,
        )
        .expect("--dump-dom failed");
        let dom = String::from_utf8_lossy(&dom);
        let tag_start = dom.find("<html").expect("an <html> element in the DOM");
        let html_tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').unwrap_or(0)];
        let scroll = attribute(html_tag, "data-scroll-width");
        let inner = attribute(html_tag, "data-inner-width");
        println!("at {width} px: scrollWidth {scroll:?}, innerWidth {inner:?}");
        assert_eq!(
            attribute(html_tag, "data-overflow"),
            Some("no"),
            "the page scrolls sideways at {width} px (scrollWidth {scroll:?} > innerWidth {inner:?})"
        );
        assert_eq!(
            attribute(html_tag, "data-backticks"),
            Some("0"),
            "raw backticks in the rendered text at {width} px"
        );
        let code: usize = attribute(html_tag, "data-code")
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        assert!(code >= 3, "code spans rendered as <code>: {code}");
        assert_eq!(dom.matches("<svg").count(), 2, "both figures inline");
    }

    if std::env::var_os("SSDLAB_KEEP_TEST_OUTPUT").is_some() {
        println!("kept {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Two made-up studies, one with a finding whose text is long and holds a
/// pipe and backticks.
fn index_entries() -> Vec<StudyEntry> {
    let long = "a finding whose description runs on and on | with a pipe and `code` ".repeat(6);
    vec![
        StudyEntry {
            name: "k2".into(),
            title: "K2 queue-length bound".into(),
            paper: "Park and Lee, 2021".into(),
            findings: vec![
                Finding::new("RT p99.9, none → K2-1", "3251 → 217 µs (15.0×)")
                    .measured("3000 → 250 µs (12.0×)", true),
                Finding::new(long, "up to 1.30×").measured("1.05×", false),
            ],
        },
        StudyEntry {
            name: "stb".into(),
            title: "Selective time-out bundling".into(),
            paper: "Kang, Park and Yoo, 2011".into(),
            findings: vec![Finding::new("STB fastest", "up to 1.30×").measured("1.22×", true)],
        },
    ]
}

#[test]
fn the_index_leads_to_every_report_and_renders_without_overflow() {
    // Its own directory: the other test clears scratch_dir() as it runs.
    let dir = std::env::temp_dir().join(format!("ssdlab-html-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files =
        write_index(&dir, "each on its quick plan, seed 1", &index_entries()).expect("index");
    assert_eq!(files.len(), 2);
    let md = std::fs::read_to_string(dir.join("index.md")).unwrap();
    // The glance table: one row per study, its tally and what differs.
    assert!(md.contains("| [K2 queue-length bound](k2/report.html) | Park and Lee, 2021 | 1 of 2 agree | a finding whose"), "{md}");
    assert!(md.contains("| [Selective time-out bundling](stb/report.html) | Kang, Park and Yoo, 2011 | 1 of 1 agree | – |"), "{md}");
    // Each study's rows are its report's rows.
    for e in index_entries() {
        let section = ssdlab_studies::findings::markdown(&e.findings);
        let table = &section[section.find("| finding |").unwrap()..];
        assert!(md.contains(table), "{table}");
    }
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(
        page.contains("<a href=\"k2/report.html\">")
            && page.contains("<a href=\"stb/report.html\">")
    );

    let Some(exe) = find_browser() else {
        println!("skipped: no chromium");
        return;
    };
    let probed = dir.join("index-probe.html");
    std::fs::write(
        &probed,
        page.replace("\n</body>", &format!("\n{PROBE}</body>")),
    )
    .unwrap();
    let url = format!("file://{}", probed.display());
    for width in [1300, 800] {
        let dom = run_limited(
            browser(&exe, &dir, &format!("index-{width}"), width)
                .arg("--dump-dom")
                .arg(&url),
            Duration::from_secs(180),
        )
        .expect("--dump-dom failed");
        let dom = String::from_utf8_lossy(&dom);
        let tag_start = dom.find("<html").expect("an <html> element in the DOM");
        let html_tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').unwrap_or(0)];
        assert_eq!(
            attribute(html_tag, "data-overflow"),
            Some("no"),
            "sideways scroll at {width} px"
        );
        assert_eq!(
            attribute(html_tag, "data-backticks"),
            Some("0"),
            "raw backticks at {width} px"
        );
        assert_eq!(
            dom.matches("href=\"k2/report.html\"").count(),
            2,
            "glance row and section link"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
