//! Static checks of the two embedded languages: CEL edge conditions and minijinja prompts.
//! Both must parse and may only name declared variables or the names the engine provides.

use std::collections::BTreeSet;

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
    let program = match cel::Program::compile(&condition.value) {
        Ok(program) => program,
        Err(errors) => {
            for error in errors.errors.iter().take(3) {
                let at = offset(condition.at, error.pos.0, error.pos.1);
                report.error(
                    at,
                    codes::CONDITION_SYNTAX,
                    format!("condition `{}` does not parse: {}", condition.value, error.msg),
                    Some("write a CEL expression, e.g. `confirmed == true` or `context.score >= 0.8`".into()),
                );
            }
            return;
        }
    };
    let references = program.references();
    let mut names: Vec<&str> = references.variables();
    names.sort_unstable();
    names.dedup();
    for name in names {
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
