//! The lenient tag scanner of classic instructions: only the known tags are structure
//! (`step`, `check`, `goto`, `anchor`, `invoke-workflow`, `invoke-task`, `template-output`),
//! everything else is text, so files that are not valid XML still load.

use regex::Regex;

/// The value of the attribute `name` in a tag's attributes (`name="value"` or `name='value'`).
/// Attributes are read left to right, so text inside another attribute's quotes never counts.
pub(super) fn attribute(attributes: &str, name: &str) -> Option<String> {
    let pattern = regex!(r#"(?:^|\s)([A-Za-z_][A-Za-z0-9_:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')"#);
    pattern
        .captures_iter(attributes)
        .find(|captures| &captures[1] == name)
        .and_then(|captures| captures.get(2).or_else(|| captures.get(3)))
        .map(|value| value.as_str().to_owned())
}

/// One `<step>` of classic instructions.
pub(super) struct ClassicStep {
    pub(super) n: String,
    pub(super) goal: String,
    pub(super) optional: bool,
    pub(super) condition: Option<String>,
    pub(super) repeat: Option<String>,
    pub(super) body: String,
    /// Byte offset of the body in the instructions.
    pub(super) start: usize,
}

/// Splits instructions into steps: `<step n=…>` tags, else `## Step N` headings, else one step.
pub(super) fn classic_steps(text: &str) -> Vec<ClassicStep> {
    let open = regex!(r"(?s)<step\s+([^>]*?)/?>");
    let close = regex!(r"</step\s*>|</workflow\s*>");
    let opens: Vec<(usize, usize, String)> = open
        .captures_iter(text)
        .filter_map(|captures| {
            let whole = captures.get(0)?;
            let attributes = captures[1].to_owned();
            attribute(&attributes, "n").map(|_| (whole.start(), whole.end(), attributes))
        })
        .collect();
    if !opens.is_empty() {
        return opens
            .iter()
            .enumerate()
            .map(|(index, (_, end, attributes))| {
                let limit = opens.get(index + 1).map_or(text.len(), |next| next.0);
                let body_end = close.find(&text[*end..limit]).map_or(limit, |found| end + found.start());
                ClassicStep {
                    n: attribute(attributes, "n").unwrap_or_default(),
                    goal: attribute(attributes, "goal").unwrap_or_default(),
                    optional: attribute(attributes, "optional").as_deref() == Some("true"),
                    condition: attribute(attributes, "if"),
                    repeat: attribute(attributes, "repeat").or_else(|| attribute(attributes, "for-each")),
                    body: text[*end..body_end].trim().to_owned(),
                    start: *end,
                }
            })
            .collect();
    }
    let heading = regex!(r"(?m)^#{2,3}\s+Step\s+([0-9A-Za-z.]+)[:.)]?\s*(.*)$");
    let headings: Vec<(usize, usize, String, String)> = heading
        .captures_iter(text)
        .filter_map(|captures| {
            let whole = captures.get(0)?;
            Some((whole.start(), whole.end(), captures[1].to_owned(), captures[2].trim().to_owned()))
        })
        .collect();
    if !headings.is_empty() {
        return headings
            .iter()
            .enumerate()
            .map(|(index, (_, end, n, goal))| {
                let limit = headings.get(index + 1).map_or(text.len(), |next| next.0);
                ClassicStep {
                    n: n.clone(),
                    goal: goal.clone(),
                    optional: false,
                    condition: None,
                    repeat: None,
                    body: text[*end..limit].trim().to_owned(),
                    start: *end,
                }
            })
            .collect();
    }
    vec![ClassicStep {
        n: "1".to_owned(),
        goal: "Follow the instructions".to_owned(),
        optional: false,
        condition: None,
        repeat: None,
        body: text.trim().to_owned(),
        start: 0,
    }]
}

/// The `if` of the innermost `<check if>` open at `offset` in `body`.
pub(super) fn enclosing_check(body: &str, offset: usize) -> Option<String> {
    let tag = regex!(r"<check\s+([^>]*)>|</check\s*>");
    let mut stack = Vec::new();
    for captures in tag.captures_iter(&body[..offset]) {
        match captures.get(1) {
            Some(attributes) => stack.push(attribute(attributes.as_str(), "if")),
            None => {
                stack.pop();
            }
        }
    }
    stack.into_iter().rev().flatten().next()
}

#[cfg(test)]
mod tests {
    use super::{attribute, classic_steps};

    #[test]
    fn attributes_are_read_whole_in_either_quotes() {
        // `n='1'` inside the goal is text, not the step's number.
        let attributes = r#"goal="Check that n='1' holds" n="3" if='mode == "fast"' for-each="item""#;
        assert_eq!(attribute(attributes, "n").as_deref(), Some("3"));
        assert_eq!(attribute(attributes, "goal").as_deref(), Some("Check that n='1' holds"));
        assert_eq!(attribute(attributes, "if").as_deref(), Some(r#"mode == "fast""#));
        assert_eq!(attribute(attributes, "for-each").as_deref(), Some("item"));
        assert_eq!(attribute(r#"goal="a" n = '2'"#, "n").as_deref(), Some("2"), "spaces around `=`");
        assert_eq!(attribute(attributes, "repeat"), None);
        assert_eq!(attribute(r#"xn="1""#, "n"), None, "a name ends where the attribute's does");
    }

    #[test]
    fn the_scanner_finds_steps_in_files_that_are_not_xml() {
        let text = "<workflow>\n<step n=\"1\" goal=\"Ask\">if x < 3 then <ask>go?</ask>\n<step n=\"2a\" goal=\"Next\" optional=\"true\">b</step></workflow>";
        let steps = classic_steps(text);
        assert_eq!(steps.iter().map(|step| step.n.as_str()).collect::<Vec<_>>(), ["1", "2a"]);
        assert!(steps[1].optional);
        assert!(steps[0].body.contains("x < 3"));
        let markdown = classic_steps("intro\n## Step 1: Plan\nplan it\n## Step 2. Do\ndo it\n");
        assert_eq!(markdown.len(), 2);
        assert_eq!(markdown[1].goal, "Do");
    }
}
