//! The YAML mistakes people make in frontmatter, told in a sentence when the YAML parser refuses
//! it: an unterminated quote, an unclosed `[` or `{`, a value that starts as a list and goes on
//! as text (`argument-hint: [pr-number] [priority]`), a value holding `: `, a field written
//! twice, an indented first field.
//!
//! The parser's own words say where it stopped, which is often a line after the mistake (an
//! unclosed `[` is noticed where the next field starts); this scan of the top-level fields finds
//! the line where the mistake was made. It runs only on frontmatter the parser refused, so a
//! multi-line quoted or flow value that is valid YAML is never reported.

use super::{YamlProblem, codes};

/// A top-level `key: value` line: the key, and the byte where the value starts (the line's end
/// when the value is on the next lines).
fn field(line: &str) -> Option<(&str, usize)> {
    if line.starts_with([' ', '\t', '#', '-']) || line.trim().is_empty() {
        return None;
    }
    let colon = line
        .match_indices(':')
        .map(|(index, _)| index)
        .find(|&index| line[index + 1..].is_empty() || line[index + 1..].starts_with([' ', '\t']))?;
    let key = line[..colon].trim().trim_matches(['"', '\'']);
    let after = &line[colon + 1..];
    let value_start = colon + 1 + (after.len() - after.trim_start().len());
    Some((key, value_start))
}

/// The 1-based character column of byte `index` of `line`.
fn column(line: &str, index: usize) -> u32 {
    line[..index].chars().count() as u32 + 1
}

/// Where the quote `quote` opening at byte `start` of line `index` closes: the line and byte of
/// the closing quote, looking on across lines.
fn closing_quote(lines: &[&str], index: usize, start: usize, quote: char) -> Option<(usize, usize)> {
    let mut from = start + 1;
    for (offset, line) in lines[index..].iter().enumerate() {
        let mut characters = line[from.min(line.len())..].char_indices().peekable();
        while let Some((at, character)) = characters.next() {
            match (quote, character) {
                ('"', '\\') => {
                    characters.next();
                }
                ('\'', '\'') if characters.peek().is_some_and(|(_, next)| *next == '\'') => {
                    characters.next();
                }
                (quote, character) if quote == character => return Some((index + offset, from + at)),
                _ => {}
            }
        }
        from = 0;
    }
    None
}

/// Where the bracket opening at byte `start` of line `index` closes, quotes inside skipped.
fn closing_bracket(lines: &[&str], index: usize, start: usize) -> Option<(usize, usize)> {
    let mut depth = 0_usize;
    let mut quote: Option<char> = None;
    let mut from = start;
    for (offset, line) in lines[index..].iter().enumerate() {
        let mut characters = line[from.min(line.len())..].char_indices().peekable();
        while let Some((at, character)) = characters.next() {
            match (quote, character) {
                (Some('"'), '\\') => {
                    characters.next();
                }
                (Some(open), character) if open == character => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(character),
                (None, '#') if at > 0 && line.as_bytes()[from + at - 1].is_ascii_whitespace() => break,
                (None, '[' | '{') => depth += 1,
                (None, ']' | '}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some((index + offset, from + at));
                    }
                }
                _ => {}
            }
        }
        from = 0;
    }
    None
}

/// What follows byte `end` of `line`, unless only white space or a comment does.
fn trailing(line: &str, end: usize) -> Option<&str> {
    let rest = line.get(end + 1..)?.trim();
    (!rest.is_empty() && !rest.starts_with('#')).then_some(rest)
}

/// A plain value without its trailing comment.
fn without_comment(value: &str) -> &str {
    value.find(" #").map_or(value, |index| &value[..index]).trim_end()
}

/// The mistake in `frontmatter` (whose first line is the file's `first_line`), if this scan
/// recognises one; located in the file.
pub(super) fn diagnose(frontmatter: &str, first_line: u32) -> Option<YamlProblem> {
    let lines: Vec<&str> = frontmatter.lines().collect();
    let file_line = |index: usize| first_line + index as u32;
    let problem = |index: usize, column: u32, message: String, help: String| YamlProblem {
        line: file_line(index),
        column,
        code: codes::YAML,
        message,
        help,
    };
    let first = lines.iter().position(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))?;
    let indent = lines[first].len() - lines[first].trim_start().len();
    if indent > 0 {
        return Some(problem(
            first,
            1,
            format!("line {} is indented, but the frontmatter's fields start at the left margin", file_line(first)),
            "remove the spaces or tabs before the field, and keep every field of the frontmatter at the left margin"
                .to_owned(),
        ));
    }
    let mut index = first;
    while index < lines.len() {
        let line = lines[index];
        let Some((key, start)) = field(line) else {
            index += 1;
            continue;
        };
        let value = &line[start..];
        let at = column(line, start);
        match value.chars().next() {
            Some(quote @ ('"' | '\'')) => match closing_quote(&lines, index, start, quote) {
                None => {
                    return Some(problem(
                        index,
                        at,
                        format!(
                            "the `{quote}` that opens the value of `{key}` on line {} is never closed",
                            file_line(index)
                        ),
                        format!("end the value with a closing `{quote}`, or remove the opening one"),
                    ));
                }
                Some((end_index, end)) => {
                    if let Some(rest) = trailing(lines[end_index], end) {
                        return Some(problem(
                            end_index,
                            column(lines[end_index], end) + 1,
                            format!(
                                "the quoted value of `{key}` ends at its closing `{quote}`, but `{rest}` follows it"
                            ),
                            format!("quote the whole value, `{key}: {}`", super::quoted(value)),
                        ));
                    }
                    index = end_index + 1;
                }
            },
            Some(open @ ('[' | '{')) => {
                let close = if open == '[' { ']' } else { '}' };
                match closing_bracket(&lines, index, start) {
                    None => {
                        return Some(problem(
                            index,
                            at,
                            format!(
                                "the `{open}` that opens the value of `{key}` on line {} is never closed",
                                file_line(index)
                            ),
                            format!(
                                "close it with `{close}` after the last item: `{key}: {}{close}`",
                                without_comment(value)
                            ),
                        ));
                    }
                    Some((end_index, end)) => {
                        if let Some(rest) = trailing(lines[end_index], end) {
                            let kind = if open == '[' { "list" } else { "mapping" };
                            let help = if end_index == index {
                                format!(
                                    "quote the value to keep it as text: `{key}: {}`",
                                    super::quoted(without_comment(value))
                                )
                            } else {
                                format!("end the value at its `{close}`, or quote the whole value")
                            };
                            return Some(problem(
                                index,
                                at,
                                format!(
                                    "the value of `{key}` starts with `{open}`, so YAML reads it as a {kind} that ends at its `{close}`, and `{rest}` after it is not valid YAML"
                                ),
                                help,
                            ));
                        }
                        index = end_index + 1;
                    }
                }
            }
            Some('|' | '>') => {
                // A block scalar: its lines are indented below it.
                index += 1;
                while index < lines.len() && (lines[index].starts_with([' ', '\t']) || lines[index].trim().is_empty()) {
                    index += 1;
                }
            }
            Some(reserved @ ('@' | '`' | '%' | '*' | '&' | '!')) => {
                let read_as = match reserved {
                    '*' => "which YAML reads as an alias of an anchor",
                    '&' => "which YAML reads as an anchor",
                    '!' => "which YAML reads as a tag",
                    _ => "a character YAML reserves, so no plain text may start with it",
                };
                return Some(problem(
                    index,
                    at,
                    format!("the value of `{key}` starts with `{reserved}`, {read_as}"),
                    format!("quote the value: `{key}: {}`", super::quoted(without_comment(value))),
                ));
            }
            Some(_) => {
                let plain = without_comment(value);
                if plain.contains(": ") || plain.ends_with(':') {
                    return Some(problem(
                        index,
                        at,
                        format!("the value of `{key}` holds `: `, which YAML reads as the start of another field"),
                        format!("quote the value: `{key}: {}`", super::quoted(plain)),
                    ));
                }
                index += 1;
            }
            None => index += 1,
        }
    }
    None
}

/// A field written twice: `key` again at the file's `line` (column `column`); the first time is
/// found among the top-level fields when it is one of them.
pub(super) fn duplicate(frontmatter: &str, first_line: u32, key: &str, line: u32, column: u32) -> YamlProblem {
    let earlier = frontmatter
        .lines()
        .enumerate()
        .map(|(index, text)| (first_line + index as u32, text))
        .take_while(|(number, _)| *number < line)
        .find(|(_, text)| field(text).is_some_and(|(name, _)| name == key))
        .map(|(number, _)| number);
    let (message, help) = match earlier {
        Some(earlier) => (
            format!("`{key}` is written twice, on lines {earlier} and {line}; a field may appear once"),
            format!("keep one of them: remove line {line}, or merge its value into line {earlier}"),
        ),
        None => (
            format!("`{key}` appears twice in the same mapping, the second time on line {line}"),
            "keep one of them".to_owned(),
        ),
    };
    YamlProblem { line, column, code: codes::YAML, message, help }
}
