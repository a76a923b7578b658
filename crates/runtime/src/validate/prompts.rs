//! Markdown prompt files: their YAML frontmatter checked against field rules.
//!
//! A rule set names the files it applies to (a glob relative to the project root) and a rule per
//! field: required or not, a type (`string`, `string_array`, `enum` with values, `number`,
//! `boolean`), optionally a regular expression. Rule sets come from `[[validate.prompts]]` in
//! `switchyard.toml` (starting from a preset or not), or, when none is configured, are the
//! presets at their conventional places (`[validate] keep_presets` keeps them after a configured
//! list). A configured set that cannot work is refused when `switchyard.toml` is read
//! ([`RuleSet::configured`]), so every command stops on it.
//!
//! The frontmatter is read as YAML 1.2, as Claude Code reads it: `yes`, `no`, `on` and `off` are
//! text, not booleans (YAML 1.1 made them booleans; the parser's default still does).
//!
//! # The presets and where their fields come from
//!
//! Checked on 2026-11-24 against Claude Code's documentation of subagents, skills and slash
//! commands (code.claude.com), as quoted and tabulated by pages that track it: the
//! `shanraisshan/claude-code-best-practice` field tables (subagents, skills, commands; each
//! cites the official page), the Claude Code frontmatter schemas of `lintel-rs/catalog`,
//! claudelint.com's subagent reference, and the official statement that custom commands were
//! merged into skills and share their frontmatter. Where these disagree on a type
//! (`mcpServers`: a list or a mapping), both are accepted. The Agent Skills fields (`license`,
//! `compatibility`, `metadata`) come from agentskills.io/specification, as summarised by
//! skills.menu and implemented by LangChain deepagents' `SkillMetadata`.
//!
//! Claude Code's formats are not ours and keep growing, so an enum of theirs is open: a value
//! outside the documented ones (a permission mode added after 2026-11-24) is the warning
//! `prompt-unknown-value`, an error only with `--strict`, and a valid file never errors.
//! A value that is wrong for any version (a list where text is needed) is an error.
//!
//! - `claude-command`, `**/.claude/commands/**/*.md`: a command takes a skill's frontmatter and
//!   needs none (its name is the file name), so every field is optional: `name` (as a skill's),
//!   `description`, `when_to_use`, `model`, `agent` (strings), `argument-hint` (a string, or
//!   the list `[message]` makes), `arguments`, `allowed-tools`, `paths` (a string or a list), `disable-model-invocation`,
//!   `user-invocable` (booleans), `effort` (low, medium, high, xhigh, max), `context` (fork),
//!   `shell` (bash, powershell), `hooks` (a mapping).
//! - `claude-agent`, `**/.claude/agents/**/*.md`: `name` (lowercase letters, digits and
//!   hyphens) and `description` are required; `tools`, `disallowedTools`, `skills` are a string
//!   or a list, `model`, `color`, `initialPrompt` strings, `permissionMode` one of `default`,
//!   `acceptEdits`, `auto`, `dontAsk`, `bypassPermissions`, `plan`, `maxTurns` a whole number,
//!   `mcpServers` a list (server names or inline definitions) or a mapping, `hooks` a mapping,
//!   `memory` one of `user`, `project`, `local`, `background` a boolean, `isolation`
//!   `worktree`, `effort` as for commands.
//! - `claude-skill`, `**/.claude/skills/*/SKILL.md`: the command fields, with `description`
//!   required (the Agent Skills specification requires it; Claude Code falls back to the first
//!   paragraph, but a skill without one is never chosen well), plus the specification's
//!   `license`, `compatibility` (strings) and `metadata` (a mapping). `name`, when present, is
//!   1-64 lowercase letters, digits and hyphens (the specification also bans `--` and a hyphen
//!   at either end; one linear-time pattern cannot say both, so those are not checked). A
//!   `SKILL.md` deeper in a skill's folder is one of its files, not a skill.
//! - `spw-command`, `commands/spw/*.md`: the SPW seed's contract, every field required: `name`,
//!   `description`, `argument-hint` (strings), `allowed-tools` (a list of strings), `model` (one
//!   of `haiku`, `sonnet`, `opus`: the seed's own closed set).
//!
//! The Claude globs start with `**/` because every folder Claude Code is started in is a
//! project of its own, and it finds the `.claude/` folders of sub-packages (monorepos) too; the
//! walk skips what git ignores.
//!
//! A field no rule names is reported as unknown: a warning, an error with `--strict`.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use regex::Regex;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use switchyard_compiler::{Severity, split_frontmatter};
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;

use crate::catalog::read::read_bounded;
use crate::config::{FieldRule, FieldType, PromptRules, ValidateConfig};
use crate::error::Error;
use crate::validate::report::{Checked, CheckedFile, FileKind, Violation};

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

/// What a field's value must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    String,
    StringArray,
    /// One of these strings.
    Enum(Vec<String>),
    Number,
    Boolean,
    /// A string or a list of strings (Claude Code's `allowed-tools: Read, Grep` or `[Read, Grep]`);
    /// presets only.
    StringOrList,
    /// A mapping of anything (`hooks`, `metadata`); presets only.
    Mapping,
    /// A whole number (`maxTurns`); presets only.
    Integer,
    /// One of these documented strings, or another string: the value set of a format we do not
    /// own, which grows (`permissionMode`). An undocumented value is a warning, an error with
    /// `--strict`; presets only.
    OpenEnum(Vec<String>),
    /// A list of anything, or a mapping (`mcpServers`: names, inline definitions, or a mapping
    /// by name); presets only.
    ListOrMapping,
}

impl Kind {
    fn describe(&self) -> String {
        match self {
            Self::String => "a string".to_owned(),
            Self::StringArray => "a list of strings".to_owned(),
            Self::Enum(values) | Self::OpenEnum(values) => format!("one of {}", values.join(", ")),
            Self::Number => "a number".to_owned(),
            Self::Boolean => "true or false".to_owned(),
            Self::StringOrList => "a string or a list of strings".to_owned(),
            Self::Mapping => "a mapping".to_owned(),
            Self::Integer => "a whole number".to_owned(),
            Self::ListOrMapping => "a list or a mapping".to_owned(),
        }
    }

    /// An example value for a fix.
    fn example(&self) -> &str {
        match self {
            Self::String => "<text>",
            Self::StringArray => "[Read, Grep]",
            Self::Enum(values) | Self::OpenEnum(values) => values.first().map_or("<value>", String::as_str),
            Self::Number | Self::Integer => "1",
            Self::Boolean => "true",
            Self::StringOrList => "Read, Grep",
            Self::Mapping => "{}",
            Self::ListOrMapping => "[]",
        }
    }

    /// Whether a string value is what the rule wants (then an enum or a pattern may still refuse it).
    fn takes_text(&self) -> bool {
        matches!(self, Self::String | Self::Enum(_) | Self::OpenEnum(_) | Self::StringOrList)
    }
}

/// A rule on one frontmatter field.
#[derive(Debug, Clone)]
pub struct Rule {
    pub name: String,
    pub required: bool,
    pub kind: Kind,
    /// A string value (each item of a list) must match it.
    pub pattern: Option<Regex>,
}

/// The rules for the files one glob matches.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// The preset's name, or the glob of a configured set without one: shown in reports.
    pub name: String,
    /// Relative to the project root, `/`-separated; `*` stays within one folder, `**` crosses.
    pub glob: String,
    matcher: GlobMatcher,
    pub rules: Vec<Rule>,
}

/// A built-in rule set.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    /// Where the files conventionally are.
    pub glob: &'static str,
    /// Groups of fields; a later group's field replaces an earlier one of the same name.
    fields: &'static [&'static [PresetField]],
}

#[derive(Debug, Clone, Copy)]
struct PresetField {
    name: &'static str,
    required: bool,
    kind: PresetKind,
    pattern: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
enum PresetKind {
    String,
    StringArray,
    Enum(&'static [&'static str]),
    OpenEnum(&'static [&'static str]),
    Boolean,
    Integer,
    StringOrList,
    Mapping,
    ListOrMapping,
}

const fn field(name: &'static str, required: bool, kind: PresetKind) -> PresetField {
    PresetField { name, required, kind, pattern: None }
}

const fn optional(name: &'static str, kind: PresetKind) -> PresetField {
    field(name, false, kind)
}

const fn matching(name: &'static str, required: bool, pattern: &'static str) -> PresetField {
    PresetField { name, required, kind: PresetKind::String, pattern: Some(pattern) }
}

/// Lowercase letters and digits joined by single hyphens, as Claude Code names subagents.
const KEBAB_NAME: &str = r"^[a-z0-9]+(-[a-z0-9]+)*$";
/// A skill name: at most 64 lowercase letters, digits and hyphens.
const SKILL_NAME: &str = r"^[a-z0-9-]{1,64}$";

/// Claude Code's effort levels, as documented on 2026-11-24.
const EFFORT: PresetKind = PresetKind::OpenEnum(&["low", "medium", "high", "xhigh", "max"]);

/// The frontmatter of a Claude Code skill, which a command shares: every field optional.
const SKILL_FIELDS: [PresetField; 15] = [
    matching("name", false, SKILL_NAME),
    optional("description", PresetKind::String),
    optional("when_to_use", PresetKind::String),
    // `argument-hint: [message]`, as Claude Code's own examples write it, is a list to YAML.
    optional("argument-hint", PresetKind::StringOrList),
    optional("arguments", PresetKind::StringOrList),
    optional("allowed-tools", PresetKind::StringOrList),
    optional("model", PresetKind::String),
    optional("effort", EFFORT),
    optional("disable-model-invocation", PresetKind::Boolean),
    optional("user-invocable", PresetKind::Boolean),
    optional("context", PresetKind::OpenEnum(&["fork"])),
    optional("agent", PresetKind::String),
    optional("hooks", PresetKind::Mapping),
    optional("paths", PresetKind::StringOrList),
    optional("shell", PresetKind::OpenEnum(&["bash", "powershell"])),
];

/// What a skill adds to the shared fields: `description` required, and the Agent Skills
/// specification's own fields.
const SKILL_FILE_FIELDS: [PresetField; 4] = [
    field("description", true, PresetKind::String),
    optional("license", PresetKind::String),
    optional("compatibility", PresetKind::String),
    optional("metadata", PresetKind::Mapping),
];

/// The built-in rule sets; their sources are in the module documentation.
pub const PRESETS: &[Preset] = &[
    Preset { name: "claude-command", glob: "**/.claude/commands/**/*.md", fields: &[&SKILL_FIELDS] },
    Preset {
        name: "claude-agent",
        glob: "**/.claude/agents/**/*.md",
        fields: &[&[
            matching("name", true, KEBAB_NAME),
            field("description", true, PresetKind::String),
            optional("tools", PresetKind::StringOrList),
            optional("disallowedTools", PresetKind::StringOrList),
            optional("model", PresetKind::String),
            optional(
                "permissionMode",
                PresetKind::OpenEnum(&["default", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "plan"]),
            ),
            optional("maxTurns", PresetKind::Integer),
            optional("skills", PresetKind::StringOrList),
            optional("mcpServers", PresetKind::ListOrMapping),
            optional("hooks", PresetKind::Mapping),
            optional("memory", PresetKind::OpenEnum(&["user", "project", "local"])),
            optional("background", PresetKind::Boolean),
            optional("isolation", PresetKind::OpenEnum(&["worktree"])),
            optional("effort", EFFORT),
            optional("color", PresetKind::String),
            optional("initialPrompt", PresetKind::String),
        ]],
    },
    Preset { name: "claude-skill", glob: "**/.claude/skills/*/SKILL.md", fields: &[&SKILL_FIELDS, &SKILL_FILE_FIELDS] },
    Preset {
        name: "spw-command",
        glob: "commands/spw/*.md",
        fields: &[&[
            field("name", true, PresetKind::String),
            field("description", true, PresetKind::String),
            field("argument-hint", true, PresetKind::String),
            field("allowed-tools", true, PresetKind::StringArray),
            field("model", true, PresetKind::Enum(&["haiku", "sonnet", "opus"])),
        ]],
    },
];

impl Preset {
    /// The preset called `name`.
    pub fn named(name: &str) -> Option<&'static Preset> {
        PRESETS.iter().find(|preset| preset.name == name)
    }

    fn rules(&self) -> Vec<Rule> {
        let mut rules: Vec<Rule> = Vec::new();
        for field in self.fields.iter().flat_map(|group| group.iter()) {
            let strings = |values: &[&str]| values.iter().map(|value| (*value).to_owned()).collect();
            let rule = Rule {
                name: field.name.to_owned(),
                required: field.required,
                kind: match field.kind {
                    PresetKind::String => Kind::String,
                    PresetKind::StringArray => Kind::StringArray,
                    PresetKind::Enum(values) => Kind::Enum(strings(values)),
                    PresetKind::OpenEnum(values) => Kind::OpenEnum(strings(values)),
                    PresetKind::Boolean => Kind::Boolean,
                    PresetKind::Integer => Kind::Integer,
                    PresetKind::StringOrList => Kind::StringOrList,
                    PresetKind::Mapping => Kind::Mapping,
                    PresetKind::ListOrMapping => Kind::ListOrMapping,
                },
                pattern: field.pattern.map(|pattern| Regex::new(pattern).expect("a preset's pattern compiles")),
            };
            match rules.iter_mut().find(|known| known.name == rule.name) {
                Some(known) => *known = rule,
                None => rules.push(rule),
            }
        }
        rules
    }

    /// The preset as a rule set at its conventional place.
    pub fn rule_set(&self) -> RuleSet {
        RuleSet {
            name: self.name.to_owned(),
            glob: self.glob.to_owned(),
            matcher: matcher(self.glob),
            rules: self.rules(),
        }
    }
}

fn matcher(glob: &str) -> GlobMatcher {
    compile_glob(glob).expect("a preset's glob compiles")
}

fn compile_glob(glob: &str) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(glob).literal_separator(true).build()?.compile_matcher())
}

/// Why a `[[validate.prompts]]` entry does not give a rule set: the key that is wrong (of the
/// entry, or of its field number `field`) and what is wrong with it. `switchyard.toml` is
/// refused with it when it is read, located at that key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleProblem {
    pub field: Option<usize>,
    pub key: &'static str,
    pub message: String,
}

impl RuleSet {
    /// The rule sets `[[validate.prompts]]` configures, or every preset at its conventional place
    /// when it configures none. A configured set's `fields` add to its preset's rules or replace
    /// the rule of the same name.
    pub fn from_config(configured: Option<&[PromptRules]>) -> Result<Vec<RuleSet>, Error> {
        let Some(configured) = configured else {
            return Ok(PRESETS.iter().map(Preset::rule_set).collect());
        };
        configured
            .iter()
            .map(|entry| {
                RuleSet::configured(entry).map_err(|problem| {
                    let label =
                        if problem.field.is_some() { "[[validate.prompts.fields]]" } else { "[[validate.prompts]]" };
                    Error::invalid_input(format!(
                        "[[validate.prompts]] glob = \"{}\": {label} {}: {}",
                        entry.glob, problem.key, problem.message
                    ))
                })
            })
            .collect()
    }

    /// The rule sets `validate` applies under `config`: the configured ones, then, with
    /// `keep_presets`, every preset at its conventional place (a file a configured set matches
    /// gets that set).
    pub fn of(config: &ValidateConfig) -> Result<Vec<RuleSet>, Error> {
        let mut sets = RuleSet::from_config(config.prompts.as_deref())?;
        if config.prompts.is_some() && config.keep_presets {
            sets.extend(PRESETS.iter().map(Preset::rule_set));
        }
        Ok(sets)
    }

    /// The rule set of one `[[validate.prompts]]` entry, or the first thing wrong with it.
    pub fn configured(entry: &PromptRules) -> Result<RuleSet, RuleProblem> {
        let problem = |field: Option<usize>, key: &'static str, message: String| RuleProblem { field, key, message };
        let mut rules = match &entry.preset {
            Some(name) => match Preset::named(name) {
                Some(preset) => preset.rules(),
                None => {
                    let known: Vec<&str> = PRESETS.iter().map(|preset| preset.name).collect();
                    let close = switchyard_core::suggest::closest(name, known.iter().copied())
                        .map_or_else(String::new, |close| format!("did you mean `{close}`? "));
                    return Err(problem(
                        None,
                        "preset",
                        format!("there is no preset `{name}`; {close}The presets are {}", known.join(", ")),
                    ));
                }
            },
            None => Vec::new(),
        };
        for (index, field) in entry.fields.iter().enumerate() {
            let rule = configured_rule(field).map_err(|(key, message)| problem(Some(index), key, message))?;
            match rules.iter_mut().find(|known| known.name == rule.name) {
                Some(known) => *known = rule,
                None => rules.push(rule),
            }
        }
        let matcher = compile_glob(&entry.glob).map_err(|error| {
            problem(
                None,
                "glob",
                format!(
                    "`{}` is no glob: {}; write one like `commands/**/*.md` (`*` within a folder, `**` across folders)",
                    entry.glob,
                    error.kind()
                ),
            )
        })?;
        Ok(RuleSet {
            name: entry.preset.clone().unwrap_or_else(|| entry.glob.clone()),
            glob: entry.glob.clone(),
            matcher,
            rules,
        })
    }

    /// Whether the file at `relative` (to the project root, `/`-separated) is this set's.
    pub fn matches(&self, relative: &Path) -> bool {
        self.matcher.is_match(relative)
    }

    /// The folder below the project root where this set's files can be: the glob's leading
    /// components without wildcards, so a walk does not cover the whole tree.
    fn base(&self) -> PathBuf {
        let mut base = PathBuf::new();
        let components: Vec<&str> = self.glob.split('/').collect();
        for component in &components[..components.len().saturating_sub(1)] {
            if component.contains(['*', '?', '[', '{']) {
                break;
            }
            base.push(component);
        }
        base
    }
}

/// The rule of one configured field, or the key that is wrong and why.
fn configured_rule(field: &FieldRule) -> Result<Rule, (&'static str, String)> {
    let kind = match field.kind {
        FieldType::String => Kind::String,
        FieldType::StringArray => Kind::StringArray,
        FieldType::Number => Kind::Number,
        FieldType::Boolean => Kind::Boolean,
        FieldType::Enum if field.values.is_empty() => {
            return Err((
                "type",
                format!(
                    "the enum field `{}` lists no values; add them, as in `values = [\"draft\", \"final\"]`",
                    field.name
                ),
            ));
        }
        FieldType::Enum => Kind::Enum(field.values.clone()),
    };
    let pattern = field
        .pattern
        .as_deref()
        .map(|pattern| {
            Regex::new(pattern).map_err(|error| {
                (
                    "pattern",
                    format!(
                        "the pattern of field `{}`, `{pattern}`, is no regular expression: {}",
                        field.name,
                        regex_problem(pattern, &error)
                    ),
                )
            })
        })
        .transpose()?;
    Ok(Rule { name: field.name.clone(), required: field.required, kind, pattern })
}

/// What is wrong with `pattern`, which `regex` refused with `error`, in one line: the problem and
/// the character where the parser stopped (`regex`'s own message draws it over several lines).
fn regex_problem(pattern: &str, error: &regex::Error) -> String {
    let at = |problem: &dyn std::fmt::Display, span: &regex_syntax::ast::Span| {
        format!("{problem} (at character {})", span.start.column)
    };
    match regex_syntax::ParserBuilder::new().build().parse(pattern) {
        Err(regex_syntax::Error::Parse(error)) => at(error.kind(), error.span()),
        Err(regex_syntax::Error::Translate(error)) => at(error.kind(), error.span()),
        Err(other) => other.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ").to_owned(),
        Ok(_) => match error {
            regex::Error::CompiledTooBig(limit) => {
                format!("it compiles to more than {limit} bytes; write a simpler pattern")
            }
            other => other.to_string().lines().last().unwrap_or_default().trim_start_matches("error: ").to_owned(),
        },
    }
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
