//! WorkRail's `validationCriteria` (rules and their `and`/`or`/`not` compositions) as output
//! checks.

use serde_json::{Value as Json, json};
use switchyard_core::workflow::OutputCheck;

use super::Reader;
use super::conditions::{Dialect, translate};
use super::format::{Criteria, Rule};

impl Reader<'_> {
    pub(super) fn criteria(&mut self, criteria: &Criteria) -> Result<OutputCheck, String> {
        let when = |condition: &Option<Json>| {
            condition.as_ref().map(|condition| translate(condition, Dialect::Cel)).transpose()
        };
        match criteria {
            Criteria::List(rules) => Ok(OutputCheck::All {
                checks: rules.iter().map(|rule| self.criteria(rule)).collect::<Result<_, _>>()?,
                when: None,
            }),
            Criteria::All { and, condition } => {
                let checks = and.iter().map(|rule| self.criteria(rule)).collect::<Result<Vec<_>, _>>()?;
                Ok(OutputCheck::All { checks, when: when(condition)? })
            }
            Criteria::Any { or, condition } => {
                let checks = or.iter().map(|rule| self.criteria(rule)).collect::<Result<Vec<_>, _>>()?;
                Ok(OutputCheck::Any { checks, when: when(condition)? })
            }
            Criteria::Not { not, condition } => {
                Ok(OutputCheck::Not { check: Box::new(self.criteria(not)?), when: when(condition)? })
            }
            Criteria::Rule(rule) => rule_check(rule, || when(&rule.condition)),
            Criteria::Other(other) => Err(format!("a validation rule must be an object or a list, found {other}")),
        }
    }
}

/// One rule as a check; its condition is translated once its type is known to be WorkRail's.
fn rule_check(rule: &Rule, when: impl Fn() -> Result<Option<String>, String>) -> Result<OutputCheck, String> {
    let message = rule.message.clone();
    match rule.kind.as_deref() {
        Some("contains") => {
            Ok(OutputCheck::Contains { value: rule.value.clone().unwrap_or_default(), message, when: when()? })
        }
        Some("regex") => Ok(OutputCheck::Regex {
            pattern: rule.pattern.clone().unwrap_or_default(),
            flags: rule.flags.clone(),
            message,
            when: when()?,
        }),
        Some("length") => Ok(OutputCheck::Length {
            min: rule.min.map(|min| min.max(0.0).ceil() as u64),
            max: rule.max.map(|max| max.max(0.0).floor() as u64),
            message,
            when: when()?,
        }),
        Some("schema") => {
            Ok(OutputCheck::Schema { schema: rule.schema.clone().unwrap_or(json!({})), message, when: when()? })
        }
        other => Err(format!(
            "validation rule type {} is not one of contains, regex, length, schema",
            other.map_or_else(|| "(missing)".to_owned(), |other| format!("`{other}`"))
        )),
    }
}
