//! Markdown prompt files: their YAML frontmatter checked against the field rules of a rule set
//! (`switchyard_config::prompt_rules`: configured by `[[validate.prompts]]`, or the presets).
//!
//! The frontmatter is read as YAML 1.2, as Claude Code reads it: `yes`, `no`, `on` and `off` are
//! text, not booleans (YAML 1.1 made them booleans; the parser's default still does).
//!
//! A field no rule names is reported as unknown: a warning, an error with `--strict`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use switchyard_compiler::{Severity, split_frontmatter};
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;

use crate::report::{Checked, CheckedFile, FileKind, Violation};
use switchyard_catalog::read::read_bounded;
use switchyard_config::prompt_rules::{Kind, Rule, RuleSet};

mod yaml_mistakes;

/// The stable codes of prompt-file violations.
pub mod codes {
    pub const EMPTY: &str = "prompt-empty";
    pub const NO_FRONTMATTER: &str = "prompt-no-frontmatter";
    pub const UNCLOSED_FRONTMATTER: &str = "prompt-unclosed-frontmatter";
    pub const SECOND_FRONTMATTER: &str = "prompt-second-frontmatter";
    pub const YAML: &str = "prompt-yaml";
    pub const NOT_A_MAPPING: &str = "prompt-not-a-mapping";
    pub const MISSING_FIELD: &str = "prompt-missing-field";
    pub const INVALID_TYPE: &str = "prompt-invalid-type";
    pub const INVALID_VALUE: &str = "prompt-invalid-value";
    pub const UNKNOWN_VALUE: &str = "prompt-unknown-value";
    pub const PATTERN_MISMATCH: &str = "prompt-pattern-mismatch";
    pub const UNKNOWN_FIELD: &str = "prompt-unknown-field";
    pub const UNREADABLE: &str = "prompt-unreadable";

    /// Every code with a one-line fix (the same list is in `docs/validate.md`).
    pub const ALL: &[(&str, &str)] = &[
        (EMPTY, "write the frontmatter and the prompt; an empty prompt file does nothing"),
        (NO_FRONTMATTER, "open the file with a `---` line, the fields, and a closing `---` line"),
        (UNCLOSED_FRONTMATTER, "close the frontmatter with a line holding only `---`"),
        (SECOND_FRONTMATTER, "merge the fields written below the frontmatter into it"),
        (YAML, "fix the frontmatter's YAML at the location shown"),
        (NOT_A_MAPPING, "write the frontmatter as `name: value` fields, one per line"),
        (MISSING_FIELD, "add the required field named in the message"),
        (INVALID_TYPE, "give the field a value of the type named in the message"),
        (INVALID_VALUE, "use one of the values the message lists"),
        (UNKNOWN_VALUE, "use a documented value, or keep it if your Claude Code accepts it (see the message)"),
        (PATTERN_MISMATCH, "change the value so it matches the rule's pattern"),
        (UNKNOWN_FIELD, "remove the field or fix its spelling (see the suggestion)"),
        (UNREADABLE, "make the prompt file a regular UTF-8 text file"),
    ];
}

// ------------------------------------------------------------------ finding files

/// The deepest folder a walk for prompt files descends to below a rule set's base.
const MAX_DEPTH: usize = 16;

/// Every file under `folder` (the project root joined with `base`) whose path relative to `root`
/// one of `sets` matches, with the first matching set's index.
///
/// Files git ignores are skipped (the repository's `.gitignore` files, `.git/info/exclude`; not
/// the user's global excludes, so every machine finds the same files): a `**/*.md` glob must not
/// walk `node_modules/` or a build folder. Hidden folders are walked, since prompt files live in
/// `.claude/`; `.git` is not. Symlinked folders are not followed (a loop would never end).
pub(crate) fn find(root: &Path, folder: &Path, sets: &[RuleSet], found: &mut Vec<(PathBuf, usize)>) {
    let walk = ignore::WalkBuilder::new(folder)
        .hidden(false)
        .git_global(false)
        .follow_links(false)
        .max_depth(Some(MAX_DEPTH))
        .filter_entry(|entry| entry.file_name() != ".git")
        .sort_by_file_path(Path::cmp)
        .build();
    for entry in walk.flatten() {
        let is_folder = entry.file_type().is_none_or(|file_type| file_type.is_dir());
        if !is_folder && let Some(index) = set_of(root, entry.path(), sets) {
            found.push((entry.into_path(), index));
        }
    }
}

/// The index of the first rule set matching `path` (relative to `root`).
pub(crate) fn set_of(root: &Path, path: &Path, sets: &[RuleSet]) -> Option<usize> {
    let relative = path.strip_prefix(root).ok()?;
    sets.iter().position(|set| set.matches(relative))
}

/// The prompt files of the project: each rule set's files under its base folder.
pub(crate) fn project_files(root: &Path, sets: &[RuleSet]) -> Vec<(PathBuf, usize)> {
    let mut found = Vec::new();
    let mut bases: Vec<PathBuf> = sets.iter().map(RuleSet::base).collect();
    bases.sort();
    bases.dedup();
    // A base inside another is walked with it.
    let outermost: Vec<&PathBuf> =
        bases.iter().filter(|base| !bases.iter().any(|other| other != *base && base.starts_with(other))).collect();
    for base in outermost {
        find(root, &root.join(base), sets, &mut found);
    }
    found.sort();
    found.dedup();
    found
}

// ------------------------------------------------------------------ checking

/// Reads and checks one prompt file; `shown` is the path as the report names it.
pub(crate) fn check_file(path: &Path, shown: &str, set: &RuleSet, strict: bool) -> Checked {
    let mut file = CheckedFile::new(shown, FileKind::Prompt);
    file.rules = Some(set.name.clone());
    let text = match read_bounded(path, MAX_WORKFLOW_SOURCE_BYTES) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| format!("{shown} is not UTF-8 text")),
        Err(unread) => Err(unread.reason(Path::new(shown))),
    };
    match text {
        Ok(text) => Checked { file, violations: check(shown, &text, set, strict) },
        Err(reason) => {
            file.error = Some(reason.clone());
            let violation = Violation {
                file: shown.to_owned(),
                kind: FileKind::Prompt,
                workflow: None,
                field: None,
                rule: "readable",
                code: codes::UNREADABLE,
                severity: Severity::Error,
                line: None,
                column: None,
                message: reason,
                help: Some("make it a regular UTF-8 text file, or remove it".to_owned()),
                related: None,
            };
            Checked { file, violations: vec![violation] }
        }
    }
}

/// The violations of the prompt file `file` holding `text` under `set`; with `strict`, unknown
/// fields are errors.
pub fn check(file: &str, text: &str, set: &RuleSet, strict: bool) -> Vec<Violation> {
    let mut found = Found { file, violations: Vec::new() };
    if text.trim().is_empty() {
        found.error(
            (1, 1),
            None,
            "frontmatter",
            codes::EMPTY,
            "the file is empty".to_owned(),
            format!("write a frontmatter block{} and the prompt below it", required_list(set)),
        );
        return found.violations;
    }
    let Some((frontmatter, body)) = split_frontmatter(text) else {
        no_frontmatter(&mut found, text, set);
        return found.violations;
    };
    // The frontmatter's first line is the file's second (after `---`); a BOM adds no line.
    let first_line = 2;
    let closing_line = first_line + frontmatter.lines().count() as u32;
    let written = Written::new(frontmatter, first_line);
    let fields = match parse(frontmatter, first_line) {
        Ok(fields) => fields,
        Err(problem) => {
            let at = (problem.line, problem.column);
            found.error(at, None, "yaml", problem.code, problem.message, problem.help);
            return found.violations;
        }
    };
    second_frontmatter(&mut found, body, closing_line, set, &fields);
    for rule in &set.rules {
        match fields.iter().find(|(key, _)| key.value == rule.name) {
            None if rule.required => found.error(
                (1, 1),
                Some(&rule.name),
                "required",
                codes::MISSING_FIELD,
                format!("the required field `{}` is missing", rule.name),
                format!("add `{}: {}` to the frontmatter", rule.name, rule.kind.example()),
            ),
            None => {}
            Some((_, value)) => check_value(&mut found, rule, value, &written, strict),
        }
    }
    let known: Vec<&str> = set.rules.iter().map(|rule| rule.name.as_str()).collect();
    for (key, _) in &fields {
        if known.contains(&key.value.as_str()) {
            continue;
        }
        let help = match switchyard_core::suggest::closest(&key.value, known.iter().copied()) {
            Some(close) => format!("did you mean `{close}`? Otherwise remove the field"),
            None if known.is_empty() => "remove the field, or add a rule for it to the rule set".to_owned(),
            None => format!("remove the field; the rule set `{}` knows {}", set.name, known.join(", ")),
        };
        let severity = if strict { Severity::Error } else { Severity::Warning };
        found.push(
            severity,
            located(&key.referenced, first_line),
            Some(&key.value),
            "unknown-field",
            codes::UNKNOWN_FIELD,
            format!("`{}` is not a field of the rule set `{}`", key.value, set.name),
            help,
        );
    }
    // In reading order, as a person fixes them.
    found.violations.sort_by_key(|violation| (violation.line, violation.column));
    found.violations
}

fn required_list(set: &RuleSet) -> String {
    let required: Vec<&str> = set.rules.iter().filter(|rule| rule.required).map(|rule| rule.name.as_str()).collect();
    if required.is_empty() { String::new() } else { format!(" with {}", required.join(", ")) }
}

/// A file without a closed frontmatter: an error when the rule set requires fields (a Claude
/// Code command needs none, so a command without frontmatter is fine).
fn no_frontmatter(found: &mut Found<'_>, text: &str, set: &RuleSet) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let opens = text.starts_with("---\n") || text.starts_with("---\r\n");
    let first = text.lines().next().unwrap_or_default();
    if !opens && first.starts_with("---") && first.len() > 3 && first[3..].trim().is_empty() {
        let trailing = &first[3..];
        let what = if trailing.chars().all(|character| character == ' ') { "space(s)" } else { "space(s) or tab(s)" };
        found.error(
            (1, 4),
            None,
            "frontmatter",
            codes::NO_FRONTMATTER,
            format!(
                "line 1 has trailing characters: `---` followed by {} {what}, so it does not open a frontmatter and the fields below it are not read",
                trailing.chars().count()
            ),
            "remove everything after `---` on line 1".to_owned(),
        );
        return;
    }
    if opens {
        found.error(
            (1, 1),
            None,
            "frontmatter",
            codes::UNCLOSED_FRONTMATTER,
            "the frontmatter opened on line 1 is never closed".to_owned(),
            "add a line holding only `---` after the last field".to_owned(),
        );
        return;
    }
    if !set.rules.iter().any(|rule| rule.required) {
        return;
    }
    let leading_blank = text.lines().take_while(|line| line.trim().is_empty()).count();
    let starts_later = text.lines().nth(leading_blank).is_some_and(|line| line.trim_end() == "---");
    let (at, help) = if leading_blank > 0 && starts_later {
        (
            (leading_blank as u32 + 1, 1),
            format!("remove the {leading_blank} blank line(s) above `---`: frontmatter must open on the first line"),
        )
    } else {
        (
            (1, 1),
            format!("start the file with a `---` line, the fields{}, and a closing `---` line", required_list(set)),
        )
    };
    found.error(at, None, "frontmatter", codes::NO_FRONTMATTER, "the file has no frontmatter".to_owned(), help);
}

/// A second `---` block right after the frontmatter, or a field of the rule set written just
/// after the closing `---`: the fields the writer meant are not in the frontmatter.
fn second_frontmatter(found: &mut Found<'_>, body: &str, closing_line: u32, set: &RuleSet, fields: &[Field]) {
    let Some((offset, line)) = body.lines().enumerate().find(|(_, line)| !line.trim().is_empty()) else { return };
    let at = (closing_line + 1 + offset as u32, 1);
    if line.trim_end() == "---" {
        found.error(
            at,
            None,
            "frontmatter",
            codes::SECOND_FRONTMATTER,
            format!("a second `---` block starts here, after the frontmatter closed on line {closing_line}; only the first block is frontmatter, so its fields are ignored"),
            "merge its fields into the frontmatter above and remove the extra `---` lines".to_owned(),
        );
        return;
    }
    let key = line.split_once(':').map(|(key, _)| key.trim()).unwrap_or_default();
    let is_rule = set.rules.iter().any(|rule| rule.name == key);
    if is_rule && !fields.iter().any(|(known, _)| known.value == key) {
        // A warning: prompt text may well start with "description: …"; a required field it
        // meant to set is reported missing anyway.
        found.push(
            Severity::Warning,
            at,
            Some(key),
            "frontmatter",
            codes::SECOND_FRONTMATTER,
            format!("`{key}` is written after the frontmatter closed on line {closing_line}, so it is prompt text, not a field"),
            format!("move it above the `---` on line {closing_line}, or remove that `---` if it was meant to sit below"),
        );
    }
}

/// The frontmatter as written, to quote a value back in a fix.
struct Written<'a> {
    /// The frontmatter's lines.
    lines: Vec<&'a str>,
    /// The file's line holding the frontmatter's first line.
    first_line: u32,
}

impl<'a> Written<'a> {
    fn new(frontmatter: &'a str, first_line: u32) -> Self {
        Self { lines: frontmatter.lines().collect(), first_line }
    }

    /// The rest of the file's line `line` from `column` (1-based, in characters), trimmed.
    fn from(&self, (line, column): (u32, u32)) -> Option<&'a str> {
        let text = self.lines.get(line.checked_sub(self.first_line)? as usize)?;
        let start = text.char_indices().nth(column.saturating_sub(1) as usize).map(|(index, _)| index)?;
        Some(text[start..].trim())
    }
}

/// `text` as a double-quoted YAML string.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The YAML 1.1 spellings of booleans (any case), which YAML 1.2, and so Claude Code, reads as
/// text; the first three mean `true`.
const YAML_11_BOOLEANS: [&str; 6] = ["yes", "on", "y", "no", "off", "n"];

fn check_value(found: &mut Found<'_>, rule: &Rule, value: &Spanned<Yaml>, written: &Written<'_>, strict: bool) {
    let at = located(&value.referenced, written.first_line);
    let wrong_type = |found: &mut Found<'_>, what: &str, help: String| {
        found.error(
            at,
            Some(&rule.name),
            "type",
            codes::INVALID_TYPE,
            format!("`{}` must be {}, not {what}", rule.name, rule.kind.describe()),
            help,
        );
    };
    let write = || format!("write `{}: {}`", rule.name, rule.kind.example());
    let strings: Vec<(&str, (u32, u32))> = match (&rule.kind, &value.value) {
        (kind, Yaml::String(text)) if kind.takes_text() => vec![(text.as_str(), at)],
        (Kind::StringArray | Kind::StringOrList, Yaml::List(items)) => {
            let mut strings = Vec::new();
            for (index, item) in items.iter().enumerate() {
                match &item.value {
                    Yaml::String(text) => strings.push((text.as_str(), located(&item.referenced, written.first_line))),
                    other => {
                        found.error(
                            located(&item.referenced, written.first_line),
                            Some(&rule.name),
                            "type",
                            codes::INVALID_TYPE,
                            format!("item {} of `{}` must be a string, not {}", index + 1, rule.name, other.kind()),
                            "quote the item".to_owned(),
                        );
                    }
                }
            }
            strings
        }
        (Kind::StringArray, Yaml::String(_)) => {
            found.error(
                at,
                Some(&rule.name),
                "type",
                codes::INVALID_TYPE,
                format!("`{}` must be a list of strings, not a string", rule.name),
                format!("write it as a list, `{}: [Read, Grep]`, or one `- item` per line", rule.name),
            );
            return;
        }
        (Kind::Number, Yaml::Number { .. })
        | (Kind::Integer, Yaml::Number { whole: true })
        | (Kind::Boolean, Yaml::Bool)
        | (Kind::Mapping | Kind::ListOrMapping, Yaml::Mapping)
        | (Kind::ListOrMapping, Yaml::List(_)) => return,
        (Kind::Integer, Yaml::Number { whole: false }) => {
            wrong_type(found, "a fraction", format!("write a whole number, such as `{}: 10`", rule.name));
            return;
        }
        (Kind::Boolean, Yaml::String(text)) if YAML_11_BOOLEANS.contains(&text.to_ascii_lowercase().as_str()) => {
            let meant =
                if YAML_11_BOOLEANS[..3].contains(&text.to_ascii_lowercase().as_str()) { "true" } else { "false" };
            wrong_type(
                found,
                &format!("the text `{text}`"),
                format!(
                    "YAML 1.2, which Claude Code reads, takes `{text}` as text, not a boolean: write `{}: {meant}`",
                    rule.name
                ),
            );
            return;
        }
        (kind, Yaml::List(_) | Yaml::Mapping) if kind.takes_text() => {
            // `argument-hint: [message]` is a list to YAML; what was meant is the text.
            let help = match written.from(at).filter(|raw| raw.starts_with(['[', '{'])) {
                Some(raw) => format!(
                    "a value starting with `{}` is a {} to YAML; quote it to keep it as text: `{}: {}`",
                    &raw[..1],
                    if raw.starts_with('[') { "list" } else { "mapping" },
                    rule.name,
                    quoted(raw)
                ),
                None => write(),
            };
            wrong_type(found, value.value.kind(), help);
            return;
        }
        (_, other) => {
            wrong_type(found, other.kind(), write());
            return;
        }
    };
    for (text, at) in strings {
        match &rule.kind {
            Kind::Enum(values) if !values.iter().any(|value| value == text) => {
                let help = match switchyard_core::suggest::closest(text, values.iter().map(String::as_str)) {
                    Some(close) => format!("did you mean `{close}`? The values are {}", values.join(", ")),
                    None => format!("use one of {}", values.join(", ")),
                };
                found.error(
                    at,
                    Some(&rule.name),
                    "enum",
                    codes::INVALID_VALUE,
                    format!("`{}` is `{text}`, which is not one of {}", rule.name, values.join(", ")),
                    help,
                );
            }
            Kind::OpenEnum(values) if !values.iter().any(|value| value == text) => {
                let start = match switchyard_core::suggest::closest(text, values.iter().map(String::as_str)) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => format!("Use one of {}.", values.join(", ")),
                };
                let keep = if strict {
                    format!(
                        "If your Claude Code documents `{text}`, override the rule: a [[validate.prompts]] set with this preset and a field `name = \"{}\"`, `type = \"string\"`",
                        rule.name
                    )
                } else {
                    format!(
                        "If your Claude Code documents `{text}`, keep it: this is a warning, an error only with --strict"
                    )
                };
                let help = format!("{start} {keep}");
                found.push(
                    if strict { Severity::Error } else { Severity::Warning },
                    at,
                    Some(&rule.name),
                    "enum",
                    codes::UNKNOWN_VALUE,
                    format!(
                        "`{}` is `{text}`, which is not among the values Claude Code documented on 2026-11-24 ({})",
                        rule.name,
                        values.join(", ")
                    ),
                    help,
                );
            }
            _ => {}
        }
        if let Some(pattern) = &rule.pattern
            && !pattern.is_match(text)
        {
            found.error(
                at,
                Some(&rule.name),
                "pattern",
                codes::PATTERN_MISMATCH,
                format!("`{}` is `{text}`, which does not match `{}`", rule.name, pattern.as_str()),
                format!("change the value so it matches `{}`", pattern.as_str()),
            );
        }
    }
}

/// The violations of one file as they are found.
struct Found<'a> {
    file: &'a str,
    violations: Vec<Violation>,
}

impl Found<'_> {
    fn error(
        &mut self,
        at: (u32, u32),
        field: Option<&str>,
        rule: &'static str,
        code: &'static str,
        message: String,
        help: String,
    ) {
        self.push(Severity::Error, at, field, rule, code, message, help);
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        severity: Severity,
        (line, column): (u32, u32),
        field: Option<&str>,
        rule: &'static str,
        code: &'static str,
        message: String,
        help: String,
    ) {
        self.violations.push(Violation {
            file: self.file.to_owned(),
            kind: FileKind::Prompt,
            workflow: None,
            field: field.map(str::to_owned),
            rule,
            code,
            severity,
            line: Some(line),
            column: Some(column),
            message,
            help: Some(help),
            related: None,
        });
    }
}

// ------------------------------------------------------------------ the frontmatter's YAML

/// A frontmatter field: its key and its value, each where it is written.
type Field = (Spanned<String>, Spanned<Yaml>);

/// A frontmatter value, as far as the rules look into it.
#[derive(Debug, Clone, PartialEq)]
enum Yaml {
    Null,
    Bool,
    /// `whole`: written without a fraction or an exponent.
    Number {
        whole: bool,
    },
    String(String),
    List(Vec<Spanned<Yaml>>),
    Mapping,
}

impl Yaml {
    fn kind(&self) -> &'static str {
        match self {
            Self::Null => "empty (null)",
            Self::Bool => "a boolean",
            Self::Number { .. } => "a number",
            Self::String(_) => "a string",
            Self::List(_) => "a list",
            Self::Mapping => "a mapping",
        }
    }
}

/// Why the frontmatter's YAML does not give fields, located in the file.
struct YamlProblem {
    line: u32,
    column: u32,
    code: &'static str,
    message: String,
    help: String,
}

/// The frontmatter's fields in order, or why it has none; `first_line` is the file's line
/// holding the frontmatter's first.
fn parse(frontmatter: &str, first_line: u32) -> Result<Vec<Field>, YamlProblem> {
    // YAML 1.2 booleans only: Claude Code reads `description: yes` as the text `yes`.
    let options = serde_saphyr::options! { strict_booleans: true };
    let error = match serde_saphyr::from_str_with_options::<Spanned<Document>>(frontmatter, options) {
        Ok(document) => {
            let (line, column) = located(&document.referenced, first_line);
            return match document.value {
                Document::Fields(fields) => Ok(fields),
                Document::Empty => Ok(Vec::new()),
                Document::Other(kind) => Err(YamlProblem {
                    line,
                    column,
                    code: codes::NOT_A_MAPPING,
                    message: format!("the frontmatter is {kind}, not fields"),
                    help: "write one `name: value` field per line".to_owned(),
                }),
            };
        }
        Err(error) => error,
    };
    let (line, column) = error.location().map_or((first_line, 1), |location| located(&location, first_line));
    match error.without_snippet() {
        serde_saphyr::Error::MultipleDocuments { .. } => {
            return Err(YamlProblem {
                line,
                column,
                code: codes::YAML,
                message: "the frontmatter holds a second YAML document: a line starting with `---` or `...` \
                          inside it ends the first"
                    .to_owned(),
                help: "keep only the opening and closing `---` lines; remove the one inside, or move what \
                       follows it into the first document"
                    .to_owned(),
            });
        }
        serde_saphyr::Error::DuplicateMappingKey { key: Some(key), .. } => {
            return Err(yaml_mistakes::duplicate(frontmatter, first_line, key, line, column));
        }
        _ => {}
    }
    if let Some(problem) = yaml_mistakes::diagnose(frontmatter, first_line) {
        return Err(problem);
    }
    // A mistake the scan does not know: the parser's words, inside a sentence of ours.
    let said = error.without_snippet().to_string();
    let said = said.rfind(" at line ").map_or(said.as_str(), |index| &said[..index]).trim_end_matches('.');
    Err(YamlProblem {
        line,
        column,
        code: codes::YAML,
        message: format!("the frontmatter is not valid YAML here (the YAML parser stopped with: {said})"),
        help: "check this line and the one above it: a value holding `: ` or ` #` needs quotes, every quote and \
               bracket must close, and nested lines are indented below their field"
            .to_owned(),
    })
}

fn clamp(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX).max(1)
}

/// Where a node is in the file, given the frontmatter's first line.
fn located(location: &serde_saphyr::Location, first_line: u32) -> (u32, u32) {
    (clamp(location.line()).saturating_add(first_line - 1), clamp(location.column()))
}

/// The frontmatter document: fields, nothing (only comments), or some other value.
enum Document {
    Fields(Vec<Field>),
    Empty,
    Other(&'static str),
}

impl<'de> Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DocumentVisitor;
        impl<'de> Visitor<'de> for DocumentVisitor {
            type Value = Document;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("frontmatter fields")
            }
            fn visit_unit<E>(self) -> Result<Document, E> {
                Ok(Document::Empty)
            }
            fn visit_none<E>(self) -> Result<Document, E> {
                Ok(Document::Empty)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Document, E> {
                Ok(Document::Other("a boolean"))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Document, E> {
                Ok(Document::Other("a number"))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Document, E> {
                Ok(Document::Other("a number"))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Document, E> {
                Ok(Document::Other("a number"))
            }
            fn visit_str<E>(self, _: &str) -> Result<Document, E> {
                Ok(Document::Other("a line of text"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Document, A::Error> {
                while access.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Document::Other("a list"))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Document, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = access.next_key::<Spanned<String>>()? {
                    fields.push((key, access.next_value::<Spanned<Yaml>>()?));
                }
                Ok(Document::Fields(fields))
            }
        }
        deserializer.deserialize_any(DocumentVisitor)
    }
}

impl<'de> Deserialize<'de> for Yaml {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct YamlVisitor;
        impl<'de> Visitor<'de> for YamlVisitor {
            type Value = Yaml;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Yaml, E> {
                Ok(Yaml::Null)
            }
            fn visit_none<E>(self) -> Result<Yaml, E> {
                Ok(Yaml::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Yaml, D::Error> {
                Yaml::deserialize(deserializer)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Yaml, E> {
                Ok(Yaml::Bool)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Yaml, E> {
                Ok(Yaml::Number { whole: true })
            }
            fn visit_u64<E>(self, _: u64) -> Result<Yaml, E> {
                Ok(Yaml::Number { whole: true })
            }
            fn visit_f64<E>(self, _: f64) -> Result<Yaml, E> {
                Ok(Yaml::Number { whole: false })
            }
            fn visit_str<E>(self, value: &str) -> Result<Yaml, E> {
                Ok(Yaml::String(value.to_owned()))
            }
            fn visit_string<E>(self, value: String) -> Result<Yaml, E> {
                Ok(Yaml::String(value))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Yaml, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = access.next_element::<Spanned<Yaml>>()? {
                    items.push(item);
                }
                Ok(Yaml::List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Yaml, A::Error> {
                while access.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
                Ok(Yaml::Mapping)
            }
        }
        deserializer.deserialize_any(YamlVisitor)
    }
}
