//! Reading a condition for the why: which values it read, and the smallest change of the context
//! that would make a condition that did not hold hold.
//!
//! Both walk the condition's syntax tree (`cel::Program::expression`), never evaluate anything
//! beyond the values already bound, and give up (no nearest change) on any shape they do not
//! know: a wrong suggestion would be worse than none.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use cel::IdedExpr;
use cel::common::ast::{EntryExpr, Expr, LiteralValue, operators};
use serde_json::Value;
use switchyard_core::why::{Change, Nearest, bounded_value};
use switchyard_core::workflow::Workflow;

/// The values `program` reads from `bindings`: each variable it names by its name, and for
/// `context` and `artifacts` each field it selects (`context.stable`), or the whole value where
/// it uses one without selecting a field. Each value is bounded.
pub(crate) fn read(program: &cel::Program, bindings: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    let mut read = BTreeMap::new();
    let mut whole = Vec::new();
    fields(program.expression(), &mut |name, field| match field {
        Some(field) => {
            let value = bindings.get(name).and_then(|value| value.get(field)).unwrap_or(&Value::Null);
            read.insert(format!("{name}.{field}"), bounded_value(value));
        }
        None => whole.push(name.to_owned()),
    });
    for variable in program.references().variables() {
        let Some(value) = bindings.get(variable) else { continue };
        let selected_only = matches!(variable, "context" | "artifacts") && !whole.iter().any(|name| name == variable);
        if !selected_only {
            read.insert(variable.to_owned(), bounded_value(value));
        }
    }
    read
}

/// Calls `found(name, Some(field))` for each `context.field` or `artifacts.field` in the tree, and
/// `found(name, None)` for each other use of `context` or `artifacts`.
fn fields(expression: &IdedExpr, found: &mut impl FnMut(&str, Option<&str>)) {
    match &expression.expr {
        Expr::Select(select) => match &select.operand.expr {
            Expr::Ident(name) if is_record(name) => found(name, Some(&select.field)),
            _ => fields(&select.operand, found),
        },
        Expr::Ident(name) if is_record(name) => found(name, None),
        Expr::Call(call) => {
            for argument in call.target.iter().map(|target| &**target).chain(&call.args) {
                fields(argument, found);
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
                fields(part, found);
            }
        }
        Expr::List(list) => list.elements.iter().for_each(|element| fields(element, found)),
        Expr::Map(map) => {
            for entry in &map.entries {
                if let EntryExpr::MapEntry(entry) = &entry.expr {
                    fields(&entry.key, found);
                    fields(&entry.value, found);
                }
            }
        }
        Expr::Ident(_) | Expr::Struct(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn is_record(name: &str) -> bool {
    matches!(name, "context" | "artifacts")
}

/// The smallest change of the context that makes `program` hold, where it is a comparison of a
/// context value with a literal, a flag (`stable`, `!stable`), or `&&` and `||` of those.
pub(crate) fn nearest(program: &cel::Program, bindings: &BTreeMap<String, Value>, workflow: &Workflow) -> Nearest {
    match changes(program.expression(), bindings, workflow) {
        Some(changes) if !changes.is_empty() => Nearest::Set { changes },
        // Already holding by this reading, yet the condition did not hold: an error, or a reading
        // too simple for it.
        _ => Nearest::NoSimpleChange,
    }
}

/// The changes that make `expression` hold: empty when it holds already; `None` when it is not
/// a shape this reads.
fn changes(expression: &IdedExpr, bindings: &BTreeMap<String, Value>, workflow: &Workflow) -> Option<Vec<Change>> {
    match &expression.expr {
        Expr::Ident(_) | Expr::Select(_) => flag(expression, true, bindings, workflow),
        Expr::Call(call) if call.target.is_none() => match (call.func_name.as_str(), call.args.as_slice()) {
            (operators::LOGICAL_AND, [left, right]) => {
                let mut both = changes(left, bindings, workflow)?;
                both.extend(changes(right, bindings, workflow)?);
                Some(both)
            }
            (operators::LOGICAL_OR, [left, right]) => {
                match (changes(left, bindings, workflow), changes(right, bindings, workflow)) {
                    (Some(left), Some(right)) => Some(if right.len() < left.len() { right } else { left }),
                    (Some(one), None) | (None, Some(one)) => Some(one),
                    (None, None) => None,
                }
            }
            (operators::LOGICAL_NOT, [operand]) => flag(operand, false, bindings, workflow),
            (function, [left, right]) => {
                let operator = Operator::of(function)?;
                let (name, operator, literal) = match (&right.expr, &left.expr) {
                    (Expr::Literal(literal), _) => (settable(left, workflow)?, operator, literal),
                    (_, Expr::Literal(literal)) => (settable(right, workflow)?, operator.flipped(), literal),
                    _ => return None,
                };
                let literal = literal_json(literal)?;
                let current = current(&name, bindings);
                if operator.holds(current, &literal) {
                    return Some(Vec::new());
                }
                Some(vec![operator.change(name, literal)?])
            }
            _ => None,
        },
        _ => None,
    }
}

/// A boolean context value used as a condition: it must be `wanted`.
fn flag(
    expression: &IdedExpr,
    wanted: bool,
    bindings: &BTreeMap<String, Value>,
    workflow: &Workflow,
) -> Option<Vec<Change>> {
    let name = settable(expression, workflow)?;
    if current(&name, bindings) == &Value::Bool(wanted) {
        return Some(Vec::new());
    }
    Some(vec![Change { name, operator: "==".to_owned(), value: Value::Bool(wanted) }])
}

/// The context key an expression names, if a change of the context can set it: a declared
/// variable, or `context.key`. Names the engine binds itself (`cycle`, `attempt`, `exit_code`,
/// `artifacts`, `goal`) are not the context's.
fn settable(expression: &IdedExpr, workflow: &Workflow) -> Option<String> {
    match &expression.expr {
        Expr::Ident(name) if workflow.variable(name).is_some() && !RESERVED.contains(&name.as_str()) => {
            Some(name.clone())
        }
        Expr::Select(select) if !select.test => match &select.operand.expr {
            Expr::Ident(record) if record == "context" => Some(select.field.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Names bound by the engine, which win over a declared variable of the same name.
const RESERVED: [&str; 6] = ["context", "artifacts", "goal", "cycle", "attempt", "exit_code"];

fn current<'b>(name: &str, bindings: &'b BTreeMap<String, Value>) -> &'b Value {
    bindings.get("context").and_then(|context| context.get(name)).or_else(|| bindings.get(name)).unwrap_or(&Value::Null)
}

fn literal_json(literal: &LiteralValue) -> Option<Value> {
    Some(match literal {
        LiteralValue::Boolean(flag) => Value::Bool(*flag.inner()),
        LiteralValue::Int(integer) => Value::from(*integer.inner()),
        LiteralValue::UInt(unsigned) => Value::from(*unsigned.inner()),
        LiteralValue::Double(number) => serde_json::Number::from_f64(*number.inner()).map(Value::Number)?,
        LiteralValue::String(text) => Value::String(text.inner().to_owned()),
        LiteralValue::Null => Value::Null,
        LiteralValue::Bytes(_) => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Operator {
    fn of(function: &str) -> Option<Self> {
        Some(match function {
            operators::EQUALS => Self::Equal,
            operators::NOT_EQUALS => Self::NotEqual,
            operators::LESS => Self::Less,
            operators::LESS_EQUALS => Self::LessOrEqual,
            operators::GREATER => Self::Greater,
            operators::GREATER_EQUALS => Self::GreaterOrEqual,
            _ => return None,
        })
    }

    /// The operator with its operands swapped: `1 < x` is `x > 1`.
    fn flipped(self) -> Self {
        match self {
            Self::Less => Self::Greater,
            Self::LessOrEqual => Self::GreaterOrEqual,
            Self::Greater => Self::Less,
            Self::GreaterOrEqual => Self::LessOrEqual,
            same => same,
        }
    }

    fn holds(self, value: &Value, literal: &Value) -> bool {
        let order = compare(value, literal);
        match self {
            Self::Equal => order == Some(Ordering::Equal),
            Self::NotEqual => order != Some(Ordering::Equal),
            Self::Less => order == Some(Ordering::Less),
            Self::LessOrEqual => matches!(order, Some(Ordering::Less | Ordering::Equal)),
            Self::Greater => order == Some(Ordering::Greater),
            Self::GreaterOrEqual => matches!(order, Some(Ordering::Greater | Ordering::Equal)),
        }
    }

    /// The change that makes `name <operator> literal` hold. A strict bound on an integer becomes
    /// the nearest integer (`x < 3`: set x to 2 or less); on any other value it stays strict.
    fn change(self, name: String, literal: Value) -> Option<Change> {
        let (operator, value) = match (self, literal.as_i64()) {
            (Self::Less, Some(bound)) => ("<=", Value::from(bound.checked_sub(1)?)),
            (Self::Greater, Some(bound)) => (">=", Value::from(bound.checked_add(1)?)),
            (Self::Equal, _) => ("==", literal),
            (Self::NotEqual, _) => ("!=", literal),
            (Self::Less, None) => ("<", literal),
            (Self::LessOrEqual, _) => ("<=", literal),
            (Self::Greater, None) => (">", literal),
            (Self::GreaterOrEqual, _) => (">=", literal),
        };
        Some(Change { name, operator: operator.to_owned(), value })
    }
}

/// How CEL orders two values of the kinds a literal can have; `None` across kinds (numbers of
/// either kind compare with each other, as in CEL).
fn compare(value: &Value, literal: &Value) -> Option<Ordering> {
    match (value, literal) {
        (Value::Number(left), Value::Number(right)) => left.as_f64()?.partial_cmp(&right.as_f64()?),
        (Value::String(left), Value::String(right)) => Some(left.cmp(right)),
        (Value::Bool(left), Value::Bool(right)) => Some(left.cmp(right)),
        (Value::Null, Value::Null) => Some(Ordering::Equal),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::workflow;

    fn nearest_for(condition: &str, context: Value) -> Nearest {
        let workflow = workflow("var stable boolean\nvar count integer\nvar level string\nstep a\n");
        let mut bindings: BTreeMap<String, Value> =
            context.as_object().unwrap().iter().map(|(name, value)| (name.clone(), value.clone())).collect();
        bindings.insert("context".to_owned(), context);
        let program = cel::Program::compile(condition).unwrap();
        nearest(&program, &bindings, &workflow)
    }

    fn set(changes: &[(&str, &str, Value)]) -> Nearest {
        Nearest::Set {
            changes: changes
                .iter()
                .map(|(name, operator, value)| Change {
                    name: (*name).to_owned(),
                    operator: (*operator).to_owned(),
                    value: value.clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_comparison_or_flag_over_the_context_names_the_value_that_takes_the_edge() {
        let context = serde_json::json!({"stable": false, "count": 5, "level": "low"});
        assert_eq!(nearest_for("stable == true", context.clone()), set(&[("stable", "==", Value::Bool(true))]));
        assert_eq!(nearest_for("stable", context.clone()), set(&[("stable", "==", Value::Bool(true))]));
        assert_eq!(nearest_for("count < 3", context.clone()), set(&[("count", "<=", Value::from(2))]));
        assert_eq!(nearest_for("10 <= count", context.clone()), set(&[("count", ">=", Value::from(10))]));
        assert_eq!(nearest_for("context.level != 'low'", context), set(&[("level", "!=", Value::from("low"))]));
    }

    #[test]
    fn a_conjunction_changes_only_what_did_not_hold_and_a_disjunction_its_smaller_side() {
        let context = serde_json::json!({"stable": true, "count": 5, "level": "low"});
        assert_eq!(
            nearest_for("stable && count > 7 && level == 'high'", context.clone()),
            set(&[("count", ">=", Value::from(8)), ("level", "==", Value::from("high"))])
        );
        assert_eq!(
            nearest_for("(count > 7 && level == 'high') || !stable", context),
            set(&[("stable", "==", Value::Bool(false))])
        );
    }

    #[test]
    fn any_other_shape_has_no_simple_change() {
        let context = serde_json::json!({"stable": false, "count": 5, "level": "low"});
        for condition in ["count + 1 > 9", "size(level) > 5", "cycle > 2", "artifacts.ok == true", "undeclared == 1"] {
            assert_eq!(nearest_for(condition, context.clone()), Nearest::NoSimpleChange, "{condition}");
        }
    }

    #[test]
    fn read_names_variables_and_the_fields_of_records_it_selects() {
        let bindings = BTreeMap::from([
            ("stable".to_owned(), Value::Bool(false)),
            ("context".to_owned(), serde_json::json!({"stable": false, "notes": "x".repeat(1000)})),
            ("artifacts".to_owned(), serde_json::json!({"ok": true})),
        ]);
        let program = cel::Program::compile("stable || artifacts.ok && context.missing == 1").unwrap();
        assert_eq!(
            read(&program, &bindings),
            BTreeMap::from([
                ("artifacts.ok".to_owned(), Value::Bool(true)),
                ("context.missing".to_owned(), Value::Null),
                ("stable".to_owned(), Value::Bool(false)),
            ])
        );
    }
}
