//! Reading typed fields out of located mappings: unknown keys are reported with a suggestion,
//! wrong types are reported at the value, and reading goes on so every problem surfaces at once.

use crate::diagnostic::{Loc, Report, codes, did_you_mean};
use crate::tree::{Node, Value};

/// A value with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Located<T> {
    pub value: T,
    pub at: Loc,
}

impl<T> Located<T> {
    pub fn new(value: T, at: Loc) -> Self {
        Self { value, at }
    }
}

/// The fields of one mapping, checked against the names a section allows.
#[derive(Debug)]
pub(crate) struct Fields<'a> {
    pub at: Loc,
    entries: Vec<(Located<String>, &'a Node)>,
    source: &'a str,
}

impl<'a> Fields<'a> {
    /// Reads `node` as a mapping of the section `what` (e.g. "step"). Reports a node that is not
    /// a mapping (returning `None`), keys outside `known`, and duplicate keys.
    pub fn read(node: &'a Node, what: &str, known: &[&str], source: &'a str, report: &mut Report) -> Option<Self> {
        let Value::Mapping(raw) = &node.value else {
            report.error(
                node.at,
                codes::INVALID_TYPE,
                format!("{what} must be a mapping, found {}", node.value.kind()),
                None,
            );
            return None;
        };
        let mut entries: Vec<(Located<String>, &'a Node)> = Vec::new();
        for (key, value) in raw {
            let Some(name) = key.scalar_text() else {
                report.error(
                    key.at,
                    codes::INVALID_TYPE,
                    format!("a key in {what} must be a string, found {}", key.value.kind()),
                    None,
                );
                continue;
            };
            if !known.contains(&name.as_str()) {
                report.error(
                    key.at,
                    codes::UNKNOWN_FIELD,
                    format!("unknown field `{name}` in {what}"),
                    did_you_mean(&name, known.iter().copied())
                        .or_else(|| Some(format!("{what} fields are: {}", known.join(", ")))),
                );
                continue;
            }
            if let Some((first, _)) = entries.iter().find(|(existing, _)| existing.value == name) {
                report.error(
                    key.at,
                    codes::DUPLICATE_KEY,
                    format!("duplicate key `{name}` in {what}"),
                    Some(format!("the first `{name}` is at line {}; remove one of them", first.at.line)),
                );
                continue;
            }
            entries.push((Located::new(name, key.at), value));
        }
        Some(Self { at: node.at, entries, source })
    }

    /// The value of a field, unless absent or null.
    pub fn get(&self, name: &str) -> Option<&'a Node> {
        self.entries
            .iter()
            .find(|(key, _)| key.value == name)
            .map(|(_, value)| *value)
            .filter(|value| value.value != Value::Null)
    }

    /// Where a field's key is written.
    pub fn key_at(&self, name: &str) -> Option<Loc> {
        self.entries.iter().find(|(key, _)| key.value == name).map(|(key, _)| key.at)
    }

    pub fn string(&self, name: &str, report: &mut Report) -> Option<Located<String>> {
        let node = self.get(name)?;
        match node.spelled_text(self.source) {
            Some(text) => Some(Located::new(text, node.at)),
            None => {
                report.error(
                    node.at,
                    codes::INVALID_TYPE,
                    format!("`{name}` must be a string, found {}", node.value.kind()),
                    None,
                );
                None
            }
        }
    }

    pub fn required_string(&self, name: &str, what: &str, report: &mut Report) -> Option<Located<String>> {
        if self.get(name).is_none() {
            report.error(
                self.at,
                codes::MISSING_FIELD,
                format!("{what} has no `{name}`"),
                Some(format!("add `{name}:`")),
            );
            return None;
        }
        self.string(name, report)
    }

    pub fn boolean(&self, name: &str, report: &mut Report) -> Option<Located<bool>> {
        let node = self.get(name)?;
        match node.value {
            Value::Bool(value) => Some(Located::new(value, node.at)),
            _ => {
                report.error(
                    node.at,
                    codes::INVALID_TYPE,
                    format!("`{name}` must be `true` or `false`, found {}", node.value.kind()),
                    None,
                );
                None
            }
        }
    }

    /// A whole number from `minimum` up to `u32::MAX`.
    pub fn count(&self, name: &str, minimum: u32, report: &mut Report) -> Option<Located<u32>> {
        let node = self.get(name)?;
        let number = match &node.value {
            Value::Number(number) => number.as_u64().and_then(|value| u32::try_from(value).ok()),
            _ => None,
        };
        match number {
            Some(value) if value >= minimum => Some(Located::new(value, node.at)),
            _ => {
                report.error(
                    node.at,
                    codes::INVALID_VALUE,
                    format!("`{name}` must be a whole number from {minimum} to {}", u32::MAX),
                    None,
                );
                None
            }
        }
    }

    /// One of a fixed set of words.
    pub fn choice<T: Copy>(&self, name: &str, options: &[(&str, T)], report: &mut Report) -> Option<Located<T>> {
        let node = self.get(name)?;
        let text = node.scalar_text().unwrap_or_default();
        match options.iter().find(|(word, _)| *word == text) {
            Some((_, value)) => Some(Located::new(*value, node.at)),
            None => {
                let words: Vec<&str> = options.iter().map(|(word, _)| *word).collect();
                report.error(
                    node.at,
                    codes::INVALID_VALUE,
                    format!("`{name}` must be one of {}, found `{text}`", words.join(", ")),
                    did_you_mean(&text, words.iter().copied()),
                );
                None
            }
        }
    }

    /// A list, or `None` (after a report) when the field holds something else.
    pub fn list(&self, name: &str, report: &mut Report) -> Option<&'a [Node]> {
        let node = self.get(name)?;
        match &node.value {
            Value::Sequence(items) => Some(items),
            _ => {
                report.error(
                    node.at,
                    codes::INVALID_TYPE,
                    format!("`{name}` must be a list, found {}", node.value.kind()),
                    None,
                );
                None
            }
        }
    }
}
