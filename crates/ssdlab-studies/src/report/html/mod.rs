//! HTML report of a study: one self-contained HTML5 page (no network
//! access needed: no external CSS, scripts or fonts) with the figures' SVG
//! inline, their captions, and the caller's tables.
//!
//! The page embeds DejaVu Sans (the font the figures were laid out with) as a
//! data URI, so the inline SVG text renders as designed on a machine without
//! system fonts.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::{Figure, DEJAVU_SANS_TTF};

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Standard base64 (RFC 4648, with padding).
fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whether a table cell reads as a number (right-aligned in the page).
fn is_numeric(cell: &str) -> bool {
    let t = cell.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    !t.is_empty() && t.parse::<f64>().is_ok()
}

/// An HTML table with a header row; every header and cell is escaped.
/// Numeric cells are right-aligned (class `num`).
/// The table sits in a `div.table-wrap`, which scrolls sideways on its own
/// when the table is wider than the page.
pub fn table_html(headers: &[&str], rows: &[Vec<String>]) -> String {
    table_with(headers, rows, escape)
}

/// A table whose headers and cells are rendered by `cell` (escaped text or
/// inline Markdown), numeric cells right-aligned, in a sideways-scrolling
/// `div.table-wrap`.
fn table_with<H: AsRef<str>>(
    headers: &[H],
    rows: &[Vec<String>],
    cell: fn(&str) -> String,
) -> String {
    let mut s = String::from("<div class=\"table-wrap\">\n<table>\n<thead><tr>");
    for h in headers {
        let _ = write!(s, "<th>{}</th>", cell(h.as_ref()));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        s.push_str("<tr>");
        for c in row {
            let class = if is_numeric(c) { " class=\"num\"" } else { "" };
            let _ = write!(s, "<td{class}>{}</td>", cell(c));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    s
}

/// Renders the inline Markdown of one line of text as escaped HTML: code
/// spans (`` `x` ``), bold (`**x**`) and links (`[text](url)`, `http`,
/// `https` or relative URLs only; others stay text). Everything else is text,
/// escaped; an unmatched marker stays as it is.
pub fn inline_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('`') {
            let ticks = 1 + after.len() - after.trim_start_matches('`').len();
            let fence = &rest[..ticks];
            if let Some(end) = rest[ticks..].find(fence) {
                let code = &rest[ticks..ticks + end];
                let code = code
                    .strip_prefix(' ')
                    .and_then(|c| c.strip_suffix(' '))
                    .filter(|c| !c.trim().is_empty())
                    .unwrap_or(code);
                let _ = write!(out, "<code>{}</code>", escape(code));
                rest = &rest[2 * ticks + end..];
            } else {
                out.push_str(&escape(fence));
                rest = &rest[ticks..];
            }
        } else if let Some(after) = rest.strip_prefix("**") {
            match after.find("**").filter(|&end| end > 0) {
                Some(end) => {
                    let _ = write!(out, "<strong>{}</strong>", inline_markdown(&after[..end]));
                    rest = &after[end + 2..];
                }
                None => {
                    out.push_str("**");
                    rest = after;
                }
            }
        } else if let Some((label, url, used)) = rest.strip_prefix('[').and_then(link) {
            let _ = write!(
                out,
                "<a href=\"{}\">{}</a>",
                escape(url),
                inline_markdown(label)
            );
            rest = &rest[1 + used..];
        } else {
            let first = rest.chars().next().map_or(1, char::len_utf8);
            let next = rest[first..]
                .find(['`', '*', '['])
                .map_or(rest.len(), |i| i + first);
            out.push_str(&escape(&rest[..next]));
            rest = &rest[next..];
        }
    }
    out
}

/// The `text](url)` of a link after its `[`: the text, the URL and the bytes
/// used, if the URL is safe to link to.
fn link(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find("](")?;
    let label = &s[..close];
    let tail = &s[close + 2..];
    let end = tail.find(')')?;
    let url = tail[..end].trim();
    let scheme = url.split_once(':').map(|(scheme, _)| scheme);
    let safe = match scheme {
        Some(scheme) => {
            matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
                || scheme.contains(['/', '?', '#'])
        }
        None => true,
    };
    (!label.is_empty() && !label.contains('[') && !url.is_empty() && safe).then_some((
        label,
        url,
        close + 2 + end + 1,
    ))
}

/// The cells of a Markdown table row (`| a | b |`).
fn table_cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_string()).collect()
}

/// Whether a line is a table's delimiter row (`|---|:--:|`).
fn is_delimiter_row(line: &str) -> bool {
    let cells = table_cells(line);
    !cells.is_empty()
        && cells.iter().all(|c| {
            let c = c.trim_start_matches(':').trim_end_matches(':');
            !c.is_empty() && c.chars().all(|ch| ch == '-')
        })
}

/// Renders the small Markdown subset the reports use as HTML: ATX headings
/// (`#` to `######`), paragraphs (lines joined; blank lines separate them),
/// `-` / `*` bullet lists, pipe tables with a delimiter row (rendered like
/// [`table_html`]) and the inline markup of [`inline_markdown`]. All text is
/// escaped; raw HTML in the input shows as text.
pub fn markdown_html(md: &str) -> String {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            let text: Vec<String> = para.iter().map(|l| inline_markdown(l.trim())).collect();
            let _ = writeln!(out, "<p>{}</p>", text.join("\n"));
            para.clear();
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        let hashes = t.len() - t.trim_start_matches('#').len();
        if t.is_empty() {
            flush(&mut para, &mut out);
            i += 1;
        } else if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            flush(&mut para, &mut out);
            let text = t[hashes..].trim().trim_end_matches('#').trim_end();
            let _ = writeln!(out, "<h{hashes}>{}</h{hashes}>", inline_markdown(text));
            i += 1;
        } else if t.starts_with("- ") || t.starts_with("* ") {
            flush(&mut para, &mut out);
            out.push_str("<ul>\n");
            while let Some(item) = lines
                .get(i)
                .map(|l| l.trim())
                .and_then(|l| l.strip_prefix("- ").or_else(|| l.strip_prefix("* ")))
            {
                let _ = writeln!(out, "<li>{}</li>", inline_markdown(item.trim()));
                i += 1;
            }
            out.push_str("</ul>\n");
        } else if t.starts_with('|') && lines.get(i + 1).is_some_and(|l| is_delimiter_row(l)) {
            flush(&mut para, &mut out);
            let headers = table_cells(t);
            i += 2;
            let mut rows = Vec::new();
            while let Some(l) = lines
                .get(i)
                .map(|l| l.trim())
                .filter(|l| l.starts_with('|'))
            {
                rows.push(table_cells(l));
                i += 1;
            }
            out.push_str(&markdown_table(&headers, &rows));
        } else {
            para.push(line);
            i += 1;
        }
    }
    flush(&mut para, &mut out);
    out
}

/// A table from Markdown cells: like [`table_html`], with inline markup.
fn markdown_table(headers: &[String], rows: &[Vec<String>]) -> String {
    table_with(headers, rows, inline_markdown)
}

/// The SVG of a figure file without its XML declaration, doctype or leading
/// comments, ready to be inlined in HTML.
fn inline_svg(path: &Path) -> io::Result<String> {
    let text = std::fs::read_to_string(path)?;
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        let end = if rest.starts_with("<?") {
            rest.find("?>").map(|i| i + 2)
        } else if rest.starts_with("<!--") {
            rest.find("-->").map(|i| i + 3)
        } else if rest.starts_with("<!") {
            rest.find('>').map(|i| i + 1)
        } else {
            break;
        };
        match end {
            Some(i) => rest = rest[i..].trim_start(),
            None => break,
        }
    }
    if !rest.starts_with("<svg") {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not an SVG document", path.display()),
        ));
    }
    Ok(rest.trim_end().to_string())
}

/// Path of `target` relative to the directory `base`, with '/' separators, if
/// `target` lies inside `base`.
fn relative_href(base: &Path, target: &Path) -> Option<String> {
    let rel = target.strip_prefix(base).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("/"))
}

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", sans-serif; color: #1a1a1a; background: #fff;
  max-width: 1100px; margin: 2em auto; padding: 0 1em; line-height: 1.45;
  overflow-wrap: break-word; }
h1 { font-size: 1.6em; margin-bottom: 0.4em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
p, li, figcaption { overflow-wrap: anywhere; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em;
  background: #f1f3f5; border-radius: 3px; padding: 0 0.2em; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; }
figure { margin: 1.5em 0; max-width: 100%; }
figure svg, figure img, img, svg { display: block; max-width: 100%; height: auto; }
figure svg { width: 100%; max-width: 1000px; }
figcaption { font-size: 0.92em; color: #333; margin-top: 0.3em; }
.table-wrap { max-width: 100%; overflow-x: auto; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; }
th { background: #eef2f7; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tbody tr:nth-child(even) { background: #f7f7f7; }
"#;

/// Writes a self-contained HTML5 report to `path`: the title, the intro
/// (Markdown, rendered by [`markdown_html`]), each figure's SVG inline with a
/// caption, then `tables_html` verbatim.
pub fn write_html(
    path: &Path,
    title: &str,
    intro_markdown: &str,
    tables_html: &str,
    figures: &[Figure],
) -> io::Result<()> {
    let mut page = String::new();
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(page, "<title>{}</title>", escape(title));
    page.push_str("<style>");
    if !figures.is_empty() {
        let _ = write!(
            page,
            "\n@font-face {{ font-family: \"DejaVu Sans\"; font-style: normal; \
             font-weight: normal; src: url(data:font/ttf;base64,{}) format(\"truetype\"); }}",
            base64(DEJAVU_SANS_TTF)
        );
    }
    page.push_str(STYLE);
    page.push_str("</style>\n</head>\n<body>\n");
    let _ = writeln!(page, "<h1>{}</h1>", escape(title));
    page.push_str("<div class=\"intro\">\n");
    page.push_str(&markdown_html(intro_markdown));
    page.push_str("</div>\n");
    let base = path.parent().unwrap_or_else(|| Path::new(""));
    if !figures.is_empty() {
        page.push_str("<h2>Figures</h2>\n");
    }
    for (i, fig) in figures.iter().enumerate() {
        let svg = inline_svg(&fig.svg)?;
        let _ = writeln!(page, "<figure id=\"{}\">", escape(&fig.id));
        page.push_str(&svg);
        page.push('\n');
        let _ = write!(
            page,
            "<figcaption><strong>Figure {}.</strong> {}.",
            i + 1,
            escape(&fig.title)
        );
        if !fig.legend.is_empty() {
            page.push(' ');
            page.push_str(&escape(&fig.legend));
        }
        if let Some(href) = fig.png.as_ref().and_then(|p| relative_href(base, p)) {
            let _ = write!(page, " <a href=\"{}\">PNG</a>", escape(&href));
        }
        page.push_str("</figcaption>\n</figure>\n");
    }
    page.push_str(tables_html);
    page.push_str("\n</body>\n</html>\n");
    std::fs::write(path, page)
}

#[cfg(test)]
mod tests;
