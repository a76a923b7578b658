//! Agents' notes, which are Markdown, rendered as HTML that can run nothing: raw HTML in the notes
//! is shown as text, and a link or image keeps its target only when it is `http`, `https`,
//! `mailto` or relative (otherwise only its text is kept). pulldown-cmark's writer escapes every
//! text and attribute; images become links, so no outside resource is fetched by showing notes.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// Link targets with a scheme are kept only with one of these.
const ALLOWED_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Whether a link target may be kept: relative, or with an allowed scheme. A scheme is whatever
/// precedes the first `:` when no `/`, `?` or `#` comes before it, as browsers read it; a tab or
/// newline inside it (`java\tscript:`) makes it no allowed scheme.
fn allowed_target(target: &str) -> bool {
    let target = target.trim();
    match target.find([':', '/', '?', '#']) {
        Some(index) if target[index..].starts_with(':') => {
            let scheme = target[..index].to_ascii_lowercase();
            ALLOWED_SCHEMES.contains(&scheme.as_str())
        }
        _ => true,
    }
}

/// `notes` as HTML safe to put in a page.
pub fn render(notes: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // Whether each open link or image was kept, to close it the same way.
    let mut kept = Vec::new();
    let events = Parser::new_ext(notes, options).filter_map(|event| match event {
        Event::Html(text) | Event::InlineHtml(text) => Some(Event::Text(text)),
        Event::Start(Tag::Link { link_type, dest_url, title, id })
        | Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            let keep = allowed_target(&dest_url);
            kept.push(keep);
            keep.then_some(Event::Start(Tag::Link { link_type, dest_url, title, id }))
        }
        Event::End(TagEnd::Link | TagEnd::Image) => kept.pop().unwrap_or(false).then_some(Event::End(TagEnd::Link)),
        other => Some(other),
    });
    let mut html = String::with_capacity(notes.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(notes: &str, expected: &str) {
        assert_eq!(render(notes).trim_end(), expected, "notes: {notes:?}");
    }

    #[test]
    fn markdown_renders() {
        check("**bold** and `code`", "<p><strong>bold</strong> and <code>code</code></p>");
        check("- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>");
        check("[docs](https://example.com/a?b=1)", "<p><a href=\"https://example.com/a?b=1\">docs</a></p>");
        check("[here](../x.md)", "<p><a href=\"../x.md\">here</a></p>");
        check("[mail](MAILTO:a@b.example)", "<p><a href=\"MAILTO:a@b.example\">mail</a></p>");
    }

    #[test]
    fn raw_html_comes_out_as_text() {
        check("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
        check("hi <img src=x onerror=alert(1)>", "<p>hi &lt;img src=x onerror=alert(1)&gt;</p>");
        check("</textarea><b>x</b>", "<p>&lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt;</p>");
    }

    #[test]
    fn links_to_scripts_keep_only_their_text() {
        check("[click](javascript:alert(1))", "<p>click</p>");
        check("[click](JavaScript:alert(1))", "<p>click</p>");
        check("[click](data:text/html,<script>alert(1)</script>)", "<p>click</p>");
        check("<javascript:alert(1)>", "<p>javascript:alert(1)</p>");
        check("[x][r]\n\n[r]: vbscript:msgbox", "<p>x</p>");
    }

    #[test]
    fn images_become_links_and_fetch_nothing() {
        check("![logo](https://example.com/a.png)", "<p><a href=\"https://example.com/a.png\">logo</a></p>");
        check("![x](javascript:alert(1))", "<p>x</p>");
        assert!(!render("![a](https://e.example/a.png)").contains("<img"));
    }

    #[test]
    fn attribute_quotes_cannot_break_out() {
        let html = render("[x](https://e.example/\"onmouseover=alert(1))");
        assert!(!html.contains("\"onmouseover"), "{html}");
    }
}
