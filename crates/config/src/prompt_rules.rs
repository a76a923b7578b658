//! The rule sets for Markdown prompt files' frontmatter that `[[validate.prompts]]` configures,
//! and the built-in presets they start from.
//!
//! A rule set names the files it applies to (a glob relative to the project root) and a rule per
//! field: required or not, a type (`string`, `string_array`, `enum` with values, `number`,
//! `boolean`), optionally a regular expression. Rule sets come from `[[validate.prompts]]` in
//! `switchyard.toml` (starting from a preset or not), or, when none is configured, are the
//! presets at their conventional places (`[validate] keep_presets` keeps them after a configured
//! list). They live with the configuration because a configured set that cannot work is refused
//! when `switchyard.toml` is read ([`RuleSet::configured`]), so every command stops on it;
//! `switchyard-validate` applies them to files.
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

use crate::error::Error;
use crate::{FieldRule, FieldType, PromptRules, ValidateConfig};

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
    pub fn describe(&self) -> String {
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
    pub fn example(&self) -> &str {
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
    pub fn takes_text(&self) -> bool {
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
                    Error::Invalid(format!(
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
    pub fn base(&self) -> PathBuf {
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
