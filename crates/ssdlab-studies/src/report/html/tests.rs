//! Unit tests of the HTML report (the headless-Chromium check is the
//! integration test tests/html_report.rs).

use super::*;
use crate::k2::figures::{sample_rows, scratch_dir, write_figures};
use std::path::PathBuf;

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
