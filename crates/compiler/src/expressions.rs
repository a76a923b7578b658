//! Static checks of the two embedded languages: CEL edge conditions and minijinja prompts.
//! Both must parse and may only name declared variables or the names the engine provides.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, Mutex};

use crate::diagnostic::{Loc, Report, codes, did_you_mean};
use crate::fields::Located;

/// Names the engine puts in scope of every edge condition.
pub const CONDITION_RESERVED: &[&str] = &["context", "artifacts", "goal", "cycle", "attempt"];
/// Names the engine puts in scope of every prompt template.
pub const TEMPLATE_RESERVED: &[&str] = &["goal", "context", "rejection", "cycle", "attempt", "step"];
/// Functions minijinja itself provides to templates.
const TEMPLATE_GLOBALS: &[&str] = &["range", "dict", "namespace", "debug", "loose", "value_of", "of_kind"];

/// Checks one CEL condition against the declared variables.
pub(crate) fn check_condition(condition: &Located<String>, declared: &[&str], report: &mut Report) {
    // The CEL parser recurses once per nesting level and needs a lot of stack for each, so a
    // deeply nested condition could overflow the stack; such a condition is not readable anyway.
    if condition.value.len() > MAX_CONDITION_BYTES || nesting_depth(&condition.value) > MAX_CONDITION_NESTING {
        report.error(
            condition.at,
            codes::CONDITION_SYNTAX,
            format!(
                "the condition is longer than {MAX_CONDITION_BYTES} bytes or nests brackets deeper than {MAX_CONDITION_NESTING} levels"
            ),
            Some("split the logic: compute a value in an earlier step's context and test that".into()),
        );
        return;
    }
    let parsed = parse_condition(&condition.value);
    let variables = match &*parsed {
        Ok(variables) => variables,
        Err(errors) => {
            for (line, column, message) in &errors.first {
                let at = offset(condition.at, *line, *column);
                report.error(
                    at,
                    codes::CONDITION_SYNTAX,
                    format!("condition `{}` does not parse: {message}", condition.value),
                    Some("write a CEL expression, e.g. `confirmed == true` or `context.score >= 0.8`".into()),
                );
            }
            return;
        }
    };
    for name in variables.iter().map(String::as_str) {
        if declared.contains(&name) || CONDITION_RESERVED.contains(&name) {
            continue;
        }
        let known = declared.iter().copied().chain(CONDITION_RESERVED.iter().copied());
        report.error(
            condition.at,
            codes::CONDITION_UNKNOWN_VARIABLE,
            format!("condition `{}` names `{name}`, which is not a declared variable", condition.value),
            did_you_mean(name, known).or_else(|| {
                Some(format!(
                    "declare `{name}` under `variables`, or read it as `context.{name}`; in scope: {}",
                    CONDITION_RESERVED.join(", ")
                ))
            }),
        );
    }
}

/// Why a CEL condition does not parse.
#[derive(Debug)]
pub(crate) struct SyntaxErrors {
    /// The first three errors: line and column within the condition, and the parser's message.
    pub(crate) first: Vec<(isize, isize, String)>,
    /// Every error, as the parser words them.
    pub(crate) all: String,
}

/// A parsed condition: the variables it names (sorted, each once), or why it does not parse.
pub(crate) type ParsedCondition = Result<Vec<String>, SyntaxErrors>;

/// The most parsed conditions remembered; past it the memo starts again.
const MAX_PARSED_CONDITIONS: usize = 4096;

/// Parses a CEL condition once per process and text. `cel`'s ANTLR-generated parser took about a
/// third of compiling a large WorkRail workflow, and conditions repeat within a workflow and
/// across workflows (WorkRail's loop and `runCondition` forms above all), so `validate` over many
/// files parses each form once.
pub(crate) fn parse_condition(source: &str) -> Arc<ParsedCondition> {
    static PARSED: LazyLock<Mutex<HashMap<String, Arc<ParsedCondition>>>> = LazyLock::new(Mutex::default);
    let memo = || PARSED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(parsed) = memo().get(source) {
        return Arc::clone(parsed);
    }
    let parsed = Arc::new(match cel::Program::compile(source) {
        Ok(program) => {
            let references = program.references();
            let mut variables: Vec<String> = references.variables().into_iter().map(str::to_owned).collect();
            variables.sort_unstable();
            variables.dedup();
            Ok(variables)
        }
        Err(errors) => Err(SyntaxErrors {
            first: errors.errors.iter().take(3).map(|error| (error.pos.0, error.pos.1, error.msg.clone())).collect(),
            all: errors.to_string(),
        }),
    });
    let mut memo = memo();
    if memo.len() >= MAX_PARSED_CONDITIONS {
        memo.clear();
    }
    memo.insert(source.to_owned(), Arc::clone(&parsed));
    parsed
}

/// Checks one prompt template against the declared variables.
pub(crate) fn check_template(template: &Located<String>, declared: &[&str], report: &mut Report) {
    let environment = minijinja::Environment::new();
    let compiled = match environment.template_from_str(&template.value) {
        Ok(compiled) => compiled,
        Err(error) => {
            let line = error.line().unwrap_or(1);
            let at = Loc {
                line: template.at.line.saturating_add(u32::try_from(line).unwrap_or(1).saturating_sub(1)),
                column: template.at.column,
            };
            report.error(
                at,
                codes::TEMPLATE_SYNTAX,
                format!("the prompt template does not parse: {}", error.detail().unwrap_or("syntax error")),
                Some("check `{{ ... }}` and `{% ... %}` pairs; write a literal brace as `{{ '{{' }}`".into()),
            );
            return;
        }
    };
    let names: BTreeSet<String> = compiled.undeclared_variables(false).into_iter().collect();
    for name in names {
        let name = name.as_str();
        if declared.contains(&name) || TEMPLATE_RESERVED.contains(&name) || TEMPLATE_GLOBALS.contains(&name) {
            continue;
        }
        let known = declared.iter().copied().chain(TEMPLATE_RESERVED.iter().copied());
        report.error(
            template.at,
            codes::TEMPLATE_UNKNOWN_VARIABLE,
            format!("the prompt names `{name}`, which is not a declared variable"),
            did_you_mean(name, known).or_else(|| {
                Some(format!(
                    "declare `{name}` under `variables`, or read it as `context.{name}`; in scope: {}",
                    TEMPLATE_RESERVED.join(", ")
                ))
            }),
        );
    }
}

pub use switchyard_core::limits::{MAX_CONDITION_BYTES, MAX_CONDITION_NESTING};

fn nesting_depth(expression: &str) -> usize {
    switchyard_core::limits::condition_nesting(expression)
}

/// A position inside an expression written at `start`, when the expression is on one line.
fn offset(start: Loc, line: isize, column: isize) -> Loc {
    if line <= 1 {
        let column = u32::try_from(column.max(0)).unwrap_or(0);
        Loc { line: start.line, column: start.column.saturating_add(column) }
    } else {
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_is_parsed_once_per_text() {
        let first = parse_condition("context.memo_score >= 0.8 && goal != \"\"");
        let again = parse_condition("context.memo_score >= 0.8 && goal != \"\"");
        assert!(Arc::ptr_eq(&first, &again), "the second call reuses the first parse");
        assert_eq!(first.as_ref().as_ref().unwrap(), &["context", "goal"]);
        let broken = parse_condition("memo_score >=");
        let errors = broken.as_ref().as_ref().unwrap_err();
        assert!(!errors.first.is_empty() && errors.first.len() <= 3, "{errors:?}");
        assert!(errors.all.contains(&errors.first[0].2), "{errors:?}");
    }
}
