//! What every page the grader writes shares (the rehearsal's, the timelines'): escaping,
//! and a document whose styles are inline, so that it opens from disk with no network.

use std::fmt::Write;

/// Text for HTML, in an element or an attribute.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The HTML id of a scenario's part of a page of timelines, so that a link can end in
/// `#s-<scenario>`.
pub fn anchor(scenario: &str) -> String {
    format!("s-{scenario}")
}

/// The start of a page titled `title`, up to and including its `<h1>`: the common style,
/// then the page's own `style`.
pub fn start(title: &str, style: &str) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}{style}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(title),
        esc(title)
    );
    h
}

/// The look every page shares: text, headings, figures, tables, the footer.
const STYLE: &str = "
body { font-family: system-ui, sans-serif; max-width: 960px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
figure { margin: 1.5em 0; } .plot svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #444; }
table { border-collapse: collapse; margin: 1em 0; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: left; }
.legend, footer { color: #666; font-size: .9em; }
footer { margin-top: 3em; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
    }

    #[test]
    fn a_page_starts_with_its_title_escaped() {
        let h = start("a < b", "p { }");
        assert!(h.contains("<title>a &lt; b</title>"));
        assert!(h.ends_with("<h1>a &lt; b</h1>\n"));
        assert!(h.contains("p { }</style>"));
    }
}
