//! Every key `switchyard.toml` knows, once: its section, what its value is, its environment
//! variable; and the walk that refuses any other key, naming where it is and the closest known one.
//!
//! A section may be a family of named tables, such as `[models.<name>]`: its keys are declared
//! once under the pattern (`models.<name>`), each table of the family is checked against them,
//! and they have no environment variables (a variable cannot name the table).

use std::collections::BTreeMap;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::error::Error;

/// What a key's value is, which says how an environment variable is read for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string (an address, a name).
    Text,
    /// A path, relative to the file that sets it.
    Path,
    /// A string never shown: printed as `<redacted>`.
    Secret,
    /// A whole number.
    Integer,
    /// A number with a fraction.
    Float,
    /// `true` or `false`.
    Boolean,
    /// A list of strings; comma-separated in an environment variable.
    List,
    /// A list of tables (`[[validate.prompts]]`): no environment variable.
    Tables,
}

/// One key of `switchyard.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The section (`serve`), or the pattern of a family of named tables (`models.<name>`).
    pub section: &'static str,
    pub name: &'static str,
    pub kind: Kind,
}

/// What stands for the table's own name in a family's pattern (`models.<name>`).
pub const NAME_PLACEHOLDER: &str = "<name>";

impl Key {
    /// `section.name`, the key's name in `switchyard config`.
    pub fn dotted(&self) -> String {
        format!("{}.{}", self.section, self.name)
    }

    /// The family this key belongs to (`models` for `models.<name>`), if its section is a family
    /// of named tables.
    pub fn family(&self) -> Option<&'static str> {
        self.section.strip_suffix(NAME_PLACEHOLDER)?.strip_suffix('.')
    }

    /// `SWITCHYARD_<SECTION>_<KEY>`, upper-case, the section not repeated when the key already
    /// starts with it (`[audit] audit_min_confidence` is `SWITCHYARD_AUDIT_MIN_CONFIDENCE`);
    /// `None` for a list of tables, which no variable can hold.
    pub fn variable(&self) -> Option<String> {
        if self.kind == Kind::Tables || self.family().is_some() {
            return None;
        }
        let prefix = format!("{}_", self.section);
        let name = self.name.strip_prefix(&prefix).unwrap_or(self.name);
        Some(format!("SWITCHYARD_{}_{}", self.section, name).to_uppercase().replace('.', "_"))
    }
}

const fn key(section: &'static str, name: &'static str, kind: Kind) -> Key {
    Key { section, name, kind }
}

/// Every key, in the order `switchyard config` and `docs/configuration.md` list them.
pub const KEYS: &[Key] = &[
    key("store", "path", Kind::Path),
    key("store", "url", Kind::Secret),
    key("runs", "output_root", Kind::Path),
    key("files", "project_writable", Kind::Boolean),
    key("files", "core_root", Kind::Path),
    key("serve", "host", Kind::Text),
    key("serve", "port", Kind::Integer),
    key("serve", "token_file", Kind::Path),
    key("serve", "token", Kind::Secret),
    key("serve", "allowed_hosts", Kind::List),
    key("serve", "allowed_origins", Kind::List),
    key("serve", "max_connections", Kind::Integer),
    key("serve", "max_pending_connections", Kind::Integer),
    key("serve", "header_timeout_seconds", Kind::Integer),
    key("serve", "body_timeout_seconds", Kind::Integer),
    key("serve", "max_sessions", Kind::Integer),
    key("serve", "session_idle_seconds", Kind::Integer),
    key("audit", "audit_min_confidence", Kind::Float),
    key("evidence", "commands", Kind::Boolean),
    key("evidence", "trusted_workspaces", Kind::List),
    key("evidence", "max_timeout_seconds", Kind::Integer),
    key("evidence", "max_output_bytes", Kind::Integer),
    key("project", "test_command", Kind::Text),
    key("execution", "max_revision_attempts", Kind::Integer),
    key("execution", "max_replan_attempts", Kind::Integer),
    key("runner", "model", Kind::Text),
    key("runner", "base_url", Kind::Text),
    key("runner", "api_key_env", Kind::Text),
    key("runner", "max_turns", Kind::Integer),
    key("runner", "max_tokens", Kind::Integer),
    key("runner", "max_time_seconds", Kind::Integer),
    key("runner", "step_max_turns", Kind::Integer),
    key("runner", "step_max_tokens", Kind::Integer),
    key("runner", "step_max_time_seconds", Kind::Integer),
    key("runner", "request_timeout_seconds", Kind::Integer),
    key("runner", "max_retries", Kind::Integer),
    key("runner", "stuck_repeats", Kind::Integer),
    key("runner", "stuck_turns", Kind::Integer),
    key("runner", "max_tool_errors", Kind::Integer),
    key("runner", "auto_approve", Kind::Boolean),
    key("runner.commands", "allow", Kind::List),
    key("runner.commands", "timeout_seconds", Kind::Integer),
    key("runner.commands", "max_output_bytes", Kind::Integer),
    key("runner.commands", "network", Kind::Boolean),
    key("runner.commands", "writable", Kind::List),
    key("runner.commands", "env", Kind::List),
    key("models.<name>", "base_url", Kind::Text),
    key("models.<name>", "model", Kind::Text),
    key("models.<name>", "api_key_env", Kind::Text),
    key("models.<name>", "temperature", Kind::Float),
    key("models.<name>", "max_tokens", Kind::Integer),
    key("models.<name>", "context_window", Kind::Integer),
    key("models.<name>", "input_price_per_mtok", Kind::Float),
    key("models.<name>", "output_price_per_mtok", Kind::Float),
    key("models.<name>", "stream", Kind::Boolean),
    key("models.<name>", "send_reasoning", Kind::Text),
    key("validate", "prompts", Kind::Tables),
    key("validate", "keep_presets", Kind::Boolean),
    key("validate", "mirrors", Kind::Tables),
];

/// The variable `SWITCHYARD_STORE` has always set the store; it stays an alias of
/// `SWITCHYARD_STORE_PATH`.
pub const STORE_VARIABLE: &str = "SWITCHYARD_STORE";
/// The variable that sets the home, which decides where the user's file is: no file key.
pub const HOME_VARIABLE: &str = "SWITCHYARD_HOME";

/// `SWITCHYARD_*` variables that are no key: read by the binary (the log's filter and format)
/// or only by switchyard's own tests and benchmarks (never by the binary).
const OTHER_VARIABLES: [&str; 9] = [
    "SWITCHYARD_LOG",
    "SWITCHYARD_LOG_FORMAT",
    "SWITCHYARD_BIN",
    "SWITCHYARD_CORPORA",
    "SWITCHYARD_DIAGRAM_DUMP",
    "SWITCHYARD_TEST_BACKEND",
    "SWITCHYARD_TEST_POSTGRES_URL",
    "SWITCHYARD_TEST_POSTGRES_STANDBY_URL",
    "SWITCHYARD_TEST_FOLLOW_TOKEN",
];

/// Of the `SWITCHYARD_*` variable names in `names`, those switchyard reads nowhere (a misspelt
/// `SWITCHYARD_SERVE_PROT` is otherwise silently ignored), each with the closest name it reads.
pub fn unread_variables<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(String, Option<String>)> {
    let known: Vec<String> = KEYS
        .iter()
        .filter_map(Key::variable)
        .chain([STORE_VARIABLE, HOME_VARIABLE].into_iter().chain(OTHER_VARIABLES).map(str::to_owned))
        .collect();
    names
        .into_iter()
        .filter(|name| name.starts_with("SWITCHYARD_") && !known.iter().any(|known| known == name))
        .map(|name| {
            // Compared without the prefix every name shares, which would make any two look alike.
            let unprefixed = |name: &str| name["SWITCHYARD_".len()..].to_owned();
            let candidates: Vec<String> = known.iter().map(|known| unprefixed(known)).collect();
            let closest = switchyard_core::suggest::closest(&unprefixed(name), candidates.iter().map(String::as_str));
            (name.to_owned(), closest.map(|closest| format!("SWITCHYARD_{closest}")))
        })
        .collect()
}

/// The key `section.name`, if there is one.
pub fn find(section: &str, name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|key| key.section == section && key.name == name)
}

/// The keys of one entry of a list of tables, with what each holds.
const PROMPT_KEYS: &[(&str, Kind)] = &[("glob", Kind::Text), ("preset", Kind::Text), ("fields", Kind::Tables)];
const FIELD_KEYS: &[(&str, Kind)] = &[
    ("name", Kind::Text),
    ("required", Kind::Boolean),
    ("type", Kind::Text),
    ("values", Kind::List),
    ("pattern", Kind::Text),
];
const MIRROR_KEYS: &[(&str, Kind)] = &[("source", Kind::Path), ("mirror", Kind::Path)];

impl Kind {
    /// What a value of this kind is, for a message saying what a key takes.
    pub fn wanted(self) -> &'static str {
        match self {
            Self::Text | Self::Secret => "text in quotes",
            Self::Path => "a path in quotes",
            Self::Integer => "a whole number",
            Self::Float => "a number such as 0.8",
            Self::Boolean => "`true` or `false`",
            Self::List => "a list of strings, such as [\"a\", \"b\"]",
            Self::Tables => "a list of tables, each written as a [[…]] section",
        }
    }

    /// Whether `value` is of this kind (a list's items are checked on their own).
    fn fits(self, value: &DeValue<'_>) -> bool {
        matches!(
            (self, value),
            (Self::Text | Self::Path | Self::Secret, DeValue::String(_))
                | (Self::Integer, DeValue::Integer(_))
                | (Self::Float, DeValue::Float(_) | DeValue::Integer(_))
                | (Self::Boolean, DeValue::Boolean(_))
                | (Self::List | Self::Tables, DeValue::Array(_))
        )
    }
}

/// What `value` is, for a message; a secret's text is never shown.
fn found(value: &DeValue<'_>, secret: bool) -> String {
    match value {
        DeValue::String(_) if secret => "text".to_owned(),
        DeValue::String(text) => format!("the text \"{text}\""),
        DeValue::Integer(number) => format!("the whole number {}", number.as_str()),
        DeValue::Float(number) => format!("the number {}", number.as_str()),
        DeValue::Boolean(flag) => format!("`{flag}`"),
        DeValue::Datetime(_) => "a date".to_owned(),
        DeValue::Array(_) => "a list".to_owned(),
        DeValue::Table(_) => "a table".to_owned(),
    }
}

/// Refuses a value that is not of `kind`: `what` names the key (`[serve] port`).
fn check_value(file: &Path, text: &str, what: &str, kind: Kind, value: &Spanned<DeValue<'_>>) -> Result<(), Error> {
    let at = position(text, value.span().start);
    if !kind.fits(value.get_ref()) {
        let found = found(value.get_ref(), kind == Kind::Secret);
        return Err(located(file, at, &format!("{what} is {found}, but it takes {}", kind.wanted())));
    }
    let DeValue::Array(items) = value.get_ref() else { return Ok(()) };
    for (index, item) in items.iter().enumerate() {
        let fits = match kind {
            Kind::Tables => matches!(item.get_ref(), DeValue::Table(_)),
            _ => matches!(item.get_ref(), DeValue::String(_)),
        };
        if !fits {
            let wanted = if kind == Kind::Tables { "a table" } else { "text in quotes" };
            return Err(located(
                file,
                position(text, item.span().start),
                &format!("item {} of {what} is {}, but each item is {wanted}", index + 1, found(item.get_ref(), false)),
            ));
        }
    }
    Ok(())
}

/// Where each key a file sets is written: `section.name` to its 1-based line and column.
pub type Positions = BTreeMap<String, (usize, usize)>;

/// What [`check_keys`] found out about a file.
#[derive(Debug, Default)]
pub struct Written {
    /// Where each key is written (`serve.port`), as origins.
    pub keys: Positions,
    /// Where each value of a list of tables' entries is written: `validate.prompts.0.glob`,
    /// `validate.prompts.0.fields.1.pattern`.
    pub entries: Positions,
}

/// Checks that every key of `text` (the file `file`) is known and that its value is of the
/// key's kind, and says where each is written. Ranges, and rules between keys, are checked when
/// the file is read into its sections.
pub fn check_keys(file: &Path, text: &str) -> Result<Written, Error> {
    let root = DeTable::parse(text).map_err(|error| {
        let at = error.span().map_or((1, 1), |span| position(text, span.start));
        located(file, at, &format!("{}; fix the TOML syntax", error.message().trim_end()))
    })?;
    let sections = section_names();
    let mut positions = Positions::new();
    let mut entries = Positions::new();
    for (spanned_name, section) in root.get_ref() {
        let section_name: &str = spanned_name.get_ref();
        let is_table = matches!(section.get_ref(), DeValue::Table(_));
        if !is_table && !sections.contains(&section_name) {
            let names = KEYS.iter().map(|key| key.name);
            let fix = match switchyard_core::suggest::closest(section_name, names)
                .and_then(|name| KEYS.iter().find(|key| key.name == name))
            {
                Some(key) => format!("did you mean `{}` under [{}]?", key.name, shown(key.section)),
                None => "every key belongs to a section such as [serve]".to_owned(),
            };
            let at = position(text, spanned_name.span().start);
            return Err(located(file, at, &format!("unknown key `{section_name}` outside any section; {fix}")));
        }
        if !sections.contains(&section_name) {
            let fix = match switchyard_core::suggest::closest(section_name, sections.iter().copied()) {
                Some(known) => format!("did you mean [{}]?", shown(known)),
                None => format!(
                    "the sections are {}",
                    sections.iter().map(|name| format!("[{}]", shown(name))).collect::<Vec<_>>().join(", ")
                ),
            };
            let at = position(text, spanned_name.span().start);
            return Err(located(file, at, &format!("unknown section [{section_name}]; {fix}")));
        }
        let DeValue::Table(table) = section.get_ref() else { continue };
        if let Some(pattern) = KEYS.iter().find(|key| key.family() == Some(section_name)).map(|key| key.section) {
            check_family(file, text, section_name, pattern, table, &mut positions)?;
            continue;
        }
        let inner = |name: &str| format!("{section_name}.{name}");
        let mut names: Vec<&str> = KEYS.iter().filter(|key| key.section == section_name).map(|key| key.name).collect();
        let subsections: Vec<&str> = KEYS
            .iter()
            .filter_map(|key| key.section.strip_prefix(section_name)?.strip_prefix('.'))
            .filter(|name| !name.contains('.'))
            .collect();
        names.extend(&subsections);
        for (spanned, value) in table {
            let name: &str = spanned.get_ref();
            if subsections.contains(&name) {
                let sub_name = inner(name);
                let DeValue::Table(sub) = value.get_ref() else {
                    let at = position(text, spanned.span().start);
                    let message = format!("[{sub_name}] is a table: write it as a section, [{sub_name}]");
                    return Err(located(file, at, &message));
                };
                let sub_names: Vec<&str> =
                    KEYS.iter().filter(|key| key.section == sub_name).map(|key| key.name).collect();
                for key in sub {
                    check_key(file, text, &sub_name, &sub_names, key, &mut positions)?;
                }
                continue;
            }
            check_key(file, text, section_name, &names, (spanned, value), &mut positions)?;
            let dotted = format!("{section_name}.{name}");
            let label = format!("[[{dotted}]]");
            match (section_name, name) {
                ("validate", "prompts") => {
                    check_entries(file, text, value, PROMPT_KEYS, (&label, &dotted), &mut entries)?;
                }
                ("validate", "mirrors") => {
                    check_entries(file, text, value, MIRROR_KEYS, (&label, &dotted), &mut entries)?;
                }
                _ => {}
            }
        }
    }
    Ok(Written { keys: positions, entries })
}

/// Checks one key of the table of `section` (`names` its keys): a known name, a value of the
/// key's kind; records where it is written.
fn check_key(
    file: &Path,
    text: &str,
    section: &str,
    names: &[&str],
    (name, value): (&Spanned<std::borrow::Cow<'_, str>>, &Spanned<DeValue<'_>>),
    positions: &mut Positions,
) -> Result<(), Error> {
    let at = position(text, name.span().start);
    let name: &str = name.get_ref();
    check_name(file, at, name, names, &format!("[{section}]"))?;
    let key = find(section, name).expect("a checked name is a key");
    check_value(file, text, &format!("[{section}] {name}"), key.kind, value)?;
    positions.insert(format!("{section}.{name}"), at);
    Ok(())
}

/// The sections, in the order of [`KEYS`]; a family of named tables by its own name (`models`).
/// A section within a section (`runner.commands`) is not one of them: its keys are checked
/// where its table sits.
pub fn section_names() -> Vec<&'static str> {
    let mut sections: Vec<&str> =
        KEYS.iter().map(|key| key.family().unwrap_or(key.section)).filter(|section| !section.contains('.')).collect();
    sections.dedup();
    sections
}

/// A section as messages name it: a family of named tables with its pattern (`models.<name>`).
fn shown(section: &str) -> &str {
    KEYS.iter().find(|key| key.section == section || key.family() == Some(section)).map_or(section, |key| key.section)
}

/// Checks each table of a family (`[models.local]`, `[models.hosted]`) against the family's keys
/// (`pattern`, `models.<name>`), and says where each key is written (`models.local.base_url`).
fn check_family(
    file: &Path,
    text: &str,
    family: &str,
    pattern: &str,
    tables: &DeTable<'_>,
    positions: &mut Positions,
) -> Result<(), Error> {
    let names: Vec<&str> = KEYS.iter().filter(|key| key.section == pattern).map(|key| key.name).collect();
    for (table_name, value) in tables {
        let table_name: &str = table_name.get_ref();
        let DeValue::Table(table) = value.get_ref() else {
            let at = position(text, value.span().start);
            return Err(located(
                file,
                at,
                &format!(
                    "`{table_name}` in [{family}] is not a table: each entry is a table of its own, [{family}.{table_name}], with the keys {}",
                    names.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        for (name, value) in table {
            let at = position(text, name.span().start);
            let name: &str = name.get_ref();
            check_name(file, at, name, &names, &format!("[{family}.{table_name}]"))?;
            let kind = find(pattern, name).expect("a checked name is a key").kind;
            check_value(file, text, &format!("[{family}.{table_name}] {name}"), kind, value)?;
            positions.insert(format!("{family}.{table_name}.{name}"), at);
        }
    }
    Ok(())
}

/// Checks the keys and values of each table of the list of tables `dotted` (`validate.prompts`,
/// and their `fields`), and says where each value is written (`validate.prompts.0.glob`).
fn check_entries(
    file: &Path,
    text: &str,
    value: &Spanned<DeValue<'_>>,
    keys: &[(&str, Kind)],
    (label, dotted): (&str, &str),
    entries: &mut Positions,
) -> Result<(), Error> {
    let names: Vec<&str> = keys.iter().map(|(name, _)| *name).collect();
    let DeValue::Array(tables) = value.get_ref() else { return Ok(()) };
    for (index, entry) in tables.iter().enumerate() {
        let DeValue::Table(table) = entry.get_ref() else { continue };
        entries.insert(format!("{dotted}.{index}"), position(text, entry.span().start));
        for (key, value) in table {
            let name: &str = key.get_ref();
            check_name(file, position(text, key.span().start), name, &names, label)?;
            let (_, kind) = keys.iter().find(|(known, _)| *known == name).expect("a checked name");
            check_value(file, text, &format!("{label} {name}"), *kind, value)?;
            entries.insert(format!("{dotted}.{index}.{name}"), position(text, value.span().start));
            match name {
                "fields" => {
                    let nested = ("[[validate.prompts.fields]]", format!("{dotted}.{index}.fields"));
                    check_entries(file, text, value, FIELD_KEYS, (nested.0, &nested.1), entries)?;
                }
                "type" if dotted.ends_with(".fields") => check_field_type(file, text, label, value)?,
                _ => {}
            }
        }
    }
    Ok(())
}

/// Refuses a `type` of `[[validate.prompts.fields]]` that names no field type.
fn check_field_type(file: &Path, text: &str, label: &str, value: &Spanned<DeValue<'_>>) -> Result<(), Error> {
    let DeValue::String(written) = value.get_ref() else { return Ok(()) };
    let names = crate::FieldType::NAMES;
    if names.contains(&written.as_ref()) {
        return Ok(());
    }
    let close = switchyard_core::suggest::closest(written, names.iter().copied())
        .map_or_else(String::new, |close| format!("did you mean `{close}`? "));
    Err(located(
        file,
        position(text, value.span().start),
        &format!("{label} type `{written}` is no field type; {close}The types are {}", names.join(", ")),
    ))
}

fn check_name(file: &Path, at: (usize, usize), name: &str, known: &[&str], label: &str) -> Result<(), Error> {
    if known.contains(&name) {
        return Ok(());
    }
    if known.contains(&"api_key_env") && names_a_secret(name) {
        return Err(located(
            file,
            at,
            &format!(
                "`{name}` in {label}: switchyard never reads an API key from a file, where it would end up in a \
                 repository or a backup; remove the line, put the key in an environment variable, and name the \
                 variable with `api_key_env = \"OPENAI_API_KEY\"` (or --api-key-env)"
            ),
        ));
    }
    let fix = match switchyard_core::suggest::closest(name, known.iter().copied()) {
        Some(closest) => format!("did you mean `{closest}`?"),
        None => format!(
            "the keys of {label} are {}",
            known.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
        ),
    };
    Err(located(file, at, &format!("unknown key `{name}` in {label}; {fix}")))
}

/// Whether a key's name says it holds a secret itself (`api_key`, `token`), not where one is.
fn names_a_secret(name: &str) -> bool {
    let plain: String = name.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    ["apikey", "key", "token", "apitoken", "secret", "password", "bearer", "authorization"].contains(&plain.as_str())
}

/// `file:line:column: message`, the shape of every located configuration error.
pub fn located(file: &Path, (line, column): (usize, usize), message: &str) -> Error {
    Error::Invalid(format!("{}:{line}:{column}: {message}", file.display()))
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_variable_is_named_with_the_closest_one_switchyard_reads() {
        let unread = unread_variables([
            "SWITCHYARD_SERVE_PROT",
            "SWITCHYARD_SERVE_PORT",
            "SWITCHYARD_HOME",
            "SWITCHYARD_LOG",
            "SWITCHYARD_STORE_URL",
            "SWITCHYARD_NOTHING_LIKE_ANY",
            "PATH",
        ]);
        assert_eq!(
            unread,
            [
                ("SWITCHYARD_SERVE_PROT".to_owned(), Some("SWITCHYARD_SERVE_PORT".to_owned())),
                ("SWITCHYARD_NOTHING_LIKE_ANY".to_owned(), None),
            ]
        );
    }

    #[test]
    fn variables_follow_the_section_and_key_without_repeating_the_section() {
        let variable = |section: &str, name: &str| find(section, name).and_then(Key::variable);
        assert_eq!(variable("audit", "audit_min_confidence").as_deref(), Some("SWITCHYARD_AUDIT_MIN_CONFIDENCE"));
        assert_eq!(variable("serve", "port").as_deref(), Some("SWITCHYARD_SERVE_PORT"));
        assert_eq!(
            variable("execution", "max_revision_attempts").as_deref(),
            Some("SWITCHYARD_EXECUTION_MAX_REVISION_ATTEMPTS")
        );
        assert_eq!(variable("serve", "token").as_deref(), Some("SWITCHYARD_SERVE_TOKEN"));
        assert_eq!(variable("validate", "prompts"), None);
    }

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        assert_eq!(position("a\nbé = 1\n", 0), (1, 1));
        assert_eq!(position("a\nbé = 1\n", 2), (2, 1));
        assert_eq!(position("a\nbé = 1\n", 6), (2, 4));
    }
}
