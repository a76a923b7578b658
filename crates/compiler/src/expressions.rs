//! Static checks of the two embedded languages: CEL edge conditions and minijinja prompts.
//! Both must parse and may only name declared variables or the names the engine provides.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, Mutex};

use cel::IdedExpr;
use cel::common::ast::operators;
use cel::common::ast::{EntryExpr, Expr, LiteralValue};
use switchyard_core::workflow::ValueType;

use crate::diagnostic::{Loc, Report, codes, did_you_mean};
use crate::located::Located;

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
    if exceeds_bounds(&condition.value) {
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
        Ok(parsed) => &parsed.variables,
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

/// A parsed condition, or why it does not parse.
pub(crate) type ParsedCondition = Result<Parsed, SyntaxErrors>;

/// What the checks need from a condition that parses.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// The variables it names, sorted, each once.
    pub(crate) variables: Vec<String>,
    /// Every comparison of a bare variable with a literal (`count == "three"`, `3 < count`).
    pub(crate) comparisons: Vec<Comparison>,
}

/// A variable compared with a literal, as written in a condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Comparison {
    pub(crate) variable: String,
    /// The operator as written: `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub(crate) operator: &'static str,
    pub(crate) literal: Literal,
}

/// The type of a literal in a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    String,
    Integer,
    Double,
    Boolean,
    Bytes,
    Null,
}

impl Literal {
    fn of(value: &LiteralValue) -> Self {
        match value {
            LiteralValue::Boolean(_) => Self::Boolean,
            LiteralValue::Bytes(_) => Self::Bytes,
            LiteralValue::Double(_) => Self::Double,
            LiteralValue::Int(_) | LiteralValue::UInt(_) => Self::Integer,
            LiteralValue::Null => Self::Null,
            LiteralValue::String(_) => Self::String,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Integer => "an integer",
            Self::Double => "a number",
            Self::Boolean => "a boolean",
            Self::Bytes => "bytes",
            Self::Null => "null",
        }
    }

    /// Whether a value of the declared type can ever equal or be ordered against this literal.
    /// `null` compares with anything (a presence test), and CEL compares numbers across types.
    fn fits(self, value_type: ValueType) -> bool {
        match (value_type, self) {
            (ValueType::Any, _) | (_, Self::Null) => true,
            (ValueType::String, literal) => literal == Self::String,
            (ValueType::Integer | ValueType::Number, literal) => matches!(literal, Self::Integer | Self::Double),
            (ValueType::Boolean, literal) => literal == Self::Boolean,
            (ValueType::Array | ValueType::Object, _) => false,
        }
    }
}

/// The comparison operators whose operands must be of one type, with how they are written.
const COMPARISONS: [(&str, &str); 6] = [
    (operators::EQUALS, "=="),
    (operators::NOT_EQUALS, "!="),
    (operators::LESS, "<"),
    (operators::LESS_EQUALS, "<="),
    (operators::GREATER, ">"),
    (operators::GREATER_EQUALS, ">="),
];

/// Every comparison of a bare identifier with a literal in `expression`. Calls such as `loose`
/// or `value_of`, which imported formats' conditions compile to, compare leniently at run time
/// and are not comparisons here.
fn comparisons_in(expression: &IdedExpr, found: &mut Vec<Comparison>) {
    match &expression.expr {
        Expr::Call(call) => {
            if let Some((_, operator)) = COMPARISONS.iter().find(|(name, _)| *name == call.func_name)
                && let [left, right] = call.args.as_slice()
            {
                let pair = match (&left.expr, &right.expr) {
                    (Expr::Ident(name), Expr::Literal(value)) | (Expr::Literal(value), Expr::Ident(name)) => {
                        Some((name, value))
                    }
                    _ => None,
                };
                if let Some((name, value)) = pair {
                    found.push(Comparison { variable: name.clone(), operator, literal: Literal::of(value) });
                }
            }
            for argument in call.target.iter().map(|target| &**target).chain(&call.args) {
                comparisons_in(argument, found);
            }
        }
        Expr::Comprehension(comprehension) => {
            for part in [
                &comprehension.iter_range,
                &comprehension.accu_init,
                &comprehension.loop_cond,
                &comprehension.loop_step,
                &comprehension.result,
            ] {
                comparisons_in(part, found);
            }
        }
        Expr::List(list) => list.elements.iter().for_each(|element| comparisons_in(element, found)),
        Expr::Map(map) => {
            for entry in &map.entries {
                if let EntryExpr::MapEntry(entry) = &entry.expr {
                    comparisons_in(&entry.key, found);
                    comparisons_in(&entry.value, found);
                }
            }
        }
        Expr::Select(select) => comparisons_in(&select.operand, found),
        Expr::Struct(_) | Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Checks that a condition compares each declared variable only with literals of its type:
/// `count == "three"` with `count: integer` can never hold, so it is an error at validate time.
pub(crate) fn check_condition_types(condition: &Located<String>, declared: &[(&str, ValueType)], report: &mut Report) {
    // Too long or too deep to parse safely: `check_condition` has reported it already.
    if exceeds_bounds(&condition.value) {
        return;
    }
    let parsed = parse_condition(&condition.value);
    let Ok(parsed) = &*parsed else { return };
    for comparison in &parsed.comparisons {
        let Some((_, value_type)) = declared.iter().find(|(name, _)| *name == comparison.variable) else { continue };
        if comparison.literal.fits(*value_type) {
            continue;
        }
        report.error(
            condition.at,
            codes::CONDITION_TYPE_MISMATCH,
            format!(
                "condition `{}` compares `{}` (declared `{}`) {} {}",
                condition.value,
                comparison.variable,
                value_type.name(),
                comparison.operator,
                comparison.literal.name()
            ),
            Some(format!(
                "compare `{}` with a value of type `{}`, or change its declared `type`",
                comparison.variable,
                value_type.name()
            )),
        );
    }
}

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
            let mut comparisons = Vec::new();
            comparisons_in(program.expression(), &mut comparisons);
            Ok(Parsed { variables, comparisons })
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

/// Whether a condition is longer or nests deeper than the parser may be given: it recurses once
/// per nesting level and needs a lot of stack for each.
fn exceeds_bounds(expression: &str) -> bool {
    expression.len() > MAX_CONDITION_BYTES
        || switchyard_core::limits::condition_nesting(expression) > MAX_CONDITION_NESTING
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
        assert_eq!(first.as_ref().as_ref().unwrap().variables, ["context", "goal"]);
        let broken = parse_condition("memo_score >=");
        let errors = broken.as_ref().as_ref().unwrap_err();
        assert!(!errors.first.is_empty() && errors.first.len() <= 3, "{errors:?}");
        assert!(errors.all.contains(&errors.first[0].2), "{errors:?}");
    }
}
