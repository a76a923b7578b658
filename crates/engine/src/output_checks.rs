//! Output checks (`StepRules::checks`) compiled once per workflow and evaluated on an advance:
//! `contains`, `regex`, `length`, `schema` on its notes, `condition` (a CEL condition) on
//! anything a condition reads (artifacts, context), composed with `all`, `any`, `not`.

use switchyard_core::workflow::OutputCheck;

use crate::conditions::Conditions;

/// A check ready to evaluate.
pub(crate) struct CompiledCheck {
    /// The check applies only when this condition holds (its text, its program).
    when: Option<(String, cel::Program)>,
    kind: Kind,
    message: Option<String>,
    /// Whether the check reads only the notes (no `condition` inside it).
    notes_only: bool,
}

enum Kind {
    Contains(String),
    Regex(fancy_regex::Regex),
    Length { min: Option<u64>, max: Option<u64> },
    Schema(Box<jsonschema::Validator>),
    Condition { source: String, program: cel::Program },
    All(Vec<CompiledCheck>),
    Any(Vec<CompiledCheck>),
    Not(Box<CompiledCheck>),
}

impl CompiledCheck {
    pub(crate) fn compile(check: &OutputCheck) -> Result<Self, String> {
        let when = check
            .when()
            .map(|source| {
                crate::conditions::compile_condition(source)
                    .map(|program| (source.to_owned(), program))
                    .map_err(|error| format!("the condition `{source}` of an output check {error}"))
            })
            .transpose()?;
        let (kind, message) = match check {
            OutputCheck::Contains { value, message, .. } => (Kind::Contains(value.clone()), message.clone()),
            OutputCheck::Regex { pattern, flags, message, .. } => {
                let regex = check_regex(pattern, flags.as_deref())
                    .map_err(|error| format!("the output check pattern `{pattern}` is not a valid regex: {error}"))?;
                (Kind::Regex(regex), message.clone())
            }
            OutputCheck::Length { min, max, message, .. } => (Kind::Length { min: *min, max: *max }, message.clone()),
            OutputCheck::Schema { schema, message, .. } => {
                let validator = jsonschema::validator_for(schema)
                    .map_err(|error| format!("the schema of an output check is invalid: {error}"))?;
                (Kind::Schema(Box::new(validator)), message.clone())
            }
            OutputCheck::Condition { condition, message, .. } => {
                let program = crate::conditions::compile_condition(condition)
                    .map_err(|error| format!("the condition `{condition}` of an output check {error}"))?;
                (Kind::Condition { source: condition.clone(), program }, message.clone())
            }
            OutputCheck::All { checks, .. } => (Kind::All(compile_all(checks)?), None),
            OutputCheck::Any { checks, .. } => (Kind::Any(compile_all(checks)?), None),
            OutputCheck::Not { check, .. } => (Kind::Not(Box::new(Self::compile(check)?)), None),
        };
        let notes_only = match &kind {
            Kind::Condition { .. } => false,
            Kind::All(checks) | Kind::Any(checks) => checks.iter().all(|check| check.notes_only),
            Kind::Not(check) => check.notes_only,
            Kind::Contains(_) | Kind::Regex(_) | Kind::Length { .. } | Kind::Schema(_) => true,
        };
        Ok(Self { when, kind, message, notes_only })
    }

    /// Where the agent fixes a failure: `notes` for a check on the notes alone, `output` for one
    /// that reads the whole advance (a `condition`).
    pub(crate) fn path(&self) -> &'static str {
        if self.notes_only { "notes" } else { "output" }
    }

    /// The issue message for a failure: the reason and what to do about it.
    pub(crate) fn issue_message(&self, reason: &str) -> String {
        if self.notes_only {
            return format!("{reason}: revise the notes (the step's written output) and advance again");
        }
        let reason = reason.trim_end();
        let stop = if reason.ends_with(['.', '!', '?']) { "" } else { "." };
        format!("{reason}{stop} Then advance again with artifacts and context that satisfy the check.")
    }

    /// What the check requires, in a few words, as the why lists it.
    pub(crate) fn describe(&self) -> String {
        let what = match &self.kind {
            Kind::Contains(value) => format!("the notes contain {value:?}"),
            Kind::Regex(regex) => format!("the notes match /{}/", regex.as_str()),
            Kind::Length { min, max } => match (min, max) {
                (Some(min), Some(max)) => format!("the notes are {min} to {max} characters long"),
                (Some(min), None) => format!("the notes are at least {min} characters long"),
                (None, Some(max)) => format!("the notes are at most {max} characters long"),
                (None, None) => "the notes have any length".to_owned(),
            },
            Kind::Schema(_) => "the notes are JSON matching the check's schema".to_owned(),
            Kind::Condition { source, .. } => source.clone(),
            Kind::All(checks) => format!("all of ({})", join(checks)),
            Kind::Any(checks) => format!("any of ({})", join(checks)),
            Kind::Not(check) => format!("not ({})", check.describe()),
        };
        match &self.when {
            Some((when, _)) => format!("when {when}: {what}"),
            None => what,
        }
    }

    /// The program of a check that is a bare condition, whose reads the why records.
    pub(crate) fn condition(&self) -> Option<&cel::Program> {
        match &self.kind {
            Kind::Condition { program, .. } => Some(program),
            _ => None,
        }
    }

    /// `Err(why)` when the check applies and fails on `output`.
    pub(crate) fn evaluate(&self, output: &str, conditions: &Conditions) -> Result<(), String> {
        if let Some((_, when)) = &self.when
            && !conditions.holds(when)
        {
            return Ok(());
        }
        let result = match &self.kind {
            Kind::Contains(value) => {
                if output.contains(value.as_str()) {
                    Ok(())
                } else {
                    Err(format!("the output must contain `{value}`"))
                }
            }
            Kind::Regex(regex) => {
                if regex.is_match(output).unwrap_or(false) {
                    Ok(())
                } else {
                    Err(format!("the output must match the pattern `{}`", regex.as_str()))
                }
            }
            Kind::Length { min, max } => {
                let length = u64::try_from(output.chars().count()).unwrap_or(u64::MAX);
                if min.is_some_and(|min| length < min) || max.is_some_and(|max| length > max) {
                    let bounds = match (min, max) {
                        (Some(min), Some(max)) => format!("between {min} and {max}"),
                        (Some(min), None) => format!("at least {min}"),
                        (None, Some(max)) => format!("at most {max}"),
                        (None, None) => String::new(),
                    };
                    Err(format!("the output is {length} characters long; it must be {bounds} characters"))
                } else {
                    Ok(())
                }
            }
            Kind::Schema(validator) => match serde_json::from_str::<serde_json::Value>(output) {
                Err(error) => Err(format!("the output must be JSON matching a schema, but it does not parse: {error}")),
                Ok(value) => match validator.iter_errors(&value).next() {
                    Some(error) => Err(format!("the output does not match its schema: {error}")),
                    None => Ok(()),
                },
            },
            Kind::Condition { source, program } => match conditions.value(program) {
                Ok(serde_json::Value::Bool(true)) => Ok(()),
                Ok(_) => Err(format!("the condition `{source}` does not hold")),
                Err(error) => Err(format!("the condition `{source}` cannot be evaluated: {error}")),
            },
            Kind::All(checks) => {
                checks.iter().map(|check| check.evaluate(output, conditions)).find(Result::is_err).unwrap_or(Ok(()))
            }
            Kind::Any(checks) => {
                let failures: Vec<String> =
                    checks.iter().filter_map(|check| check.evaluate(output, conditions).err()).collect();
                if failures.len() < checks.len() || checks.is_empty() {
                    Ok(())
                } else {
                    Err(format!("none of these holds: {}", failures.join("; ")))
                }
            }
            Kind::Not(check) => match check.evaluate(output, conditions) {
                Ok(()) => Err("the output must not satisfy a check it satisfies".to_owned()),
                Err(_) => Ok(()),
            },
        };
        // A condition's message stands alone: its source is written for the engine, not the agent.
        result.map_err(|reason| match (&self.message, &self.kind) {
            (Some(message), Kind::Condition { .. }) => message.clone(),
            (Some(message), _) => format!("{message} ({reason})"),
            (None, _) => reason,
        })
    }
}

/// The regex of a `regex` check: the syntax of `fancy-regex` (Rust regex plus look-around and
/// backreferences, close to JavaScript's), flags `i`, `m`, `s` applied inline, a backtracking
/// budget so a hostile pattern cannot hang the engine.
pub(crate) fn check_regex(pattern: &str, flags: Option<&str>) -> Result<fancy_regex::Regex, fancy_regex::Error> {
    let inline: String = flags.unwrap_or_default().chars().filter(|flag| matches!(flag, 'i' | 'm' | 's')).collect();
    let pattern = if inline.is_empty() { pattern.to_owned() } else { format!("(?{inline}){pattern}") };
    fancy_regex::RegexBuilder::new(&pattern).backtrack_limit(100_000).delegate_size_limit(1 << 20).build()
}

fn join(checks: &[CompiledCheck]) -> String {
    checks.iter().map(CompiledCheck::describe).collect::<Vec<_>>().join("; ")
}

fn compile_all(checks: &[OutputCheck]) -> Result<Vec<CompiledCheck>, String> {
    checks.iter().map(CompiledCheck::compile).collect()
}
