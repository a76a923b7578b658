//! The one rule for where a Markdown document's YAML frontmatter ends: used by the bundle
//! front-ends (BMad Method step files, CrewAgent prompts), the state document and the file door's
//! `update_frontmatter`, so a document means the same to each of them.

/// Splits `text` into its YAML frontmatter and body, or `None` when it has none.
///
/// The frontmatter opens with a line that is exactly `---` (after an optional byte-order mark)
/// and closes at the next line that is `---` once trailing white space (`\r` included) is
/// removed; the body starts on the line after. A document whose frontmatter never closes has
/// none.
pub fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::split_frontmatter;

    fn check(text: &str, expected: Option<(&str, &str)>) {
        assert_eq!(split_frontmatter(text), expected, "{text:?}");
    }

    #[test]
    fn frontmatter_ends_at_the_first_line_that_is_only_three_dashes() {
        check("---\nname: a\n---\nbody\n", Some(("name: a\n", "body\n")));
        check("---\r\nname: a\r\n---\r\nbody", Some(("name: a\r\n", "body")));
        check("\u{feff}---\nname: a\n---\n", Some(("name: a\n", "")));
        check("---\n---\nbody", Some(("", "body")));
        check("---\nname: a\n---", Some(("name: a\n", "")));
        check("---\ntitle: a --- b\n---  \nbody", Some(("title: a --- b\n", "body")));
        check("---\nname: a\n----\nstill yaml\n---\nbody", Some(("name: a\n----\nstill yaml\n", "body")));
    }

    #[test]
    fn a_document_without_a_closed_frontmatter_has_none() {
        check("# Title\n---\n", None);
        check("---\nname: a\n", None);
        check("----\nname: a\n---\n", None);
        check("", None);
    }
}
