//! WorkRail's `validationCriteria` (rules and their `and`/`or`/`not` compositions) as output
//! checks.

use serde_json::{Value as Json, json};
use switchyard_core::workflow::OutputCheck;

use super::Reader;
use super::conditions::{Dialect, translate};

impl Reader<'_> {
    pub(super) fn criteria(&mut self, criteria: &Json) -> Result<OutputCheck, String> {
        let message = |rule: &Json| rule["message"].as_str().map(str::to_owned);
        let when = |rule: &Json| rule.get("condition").map(|condition| translate(condition, Dialect::Cel)).transpose();
        match criteria {
            Json::Array(rules) => Ok(OutputCheck::All {
                checks: rules.iter().map(|rule| self.criteria(rule)).collect::<Result<_, _>>()?,
                when: None,
            }),
            Json::Object(object) if object.contains_key("and") || object.contains_key("or") => {
                let (key, all) = if object.contains_key("and") { ("and", true) } else { ("or", false) };
                let checks = object[key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|rule| self.criteria(rule))
                    .collect::<Result<Vec<_>, _>>()?;
                let when = when(criteria)?;
                Ok(if all { OutputCheck::All { checks, when } } else { OutputCheck::Any { checks, when } })
            }
            Json::Object(object) if object.contains_key("not") => {
                Ok(OutputCheck::Not { check: Box::new(self.criteria(&object["not"])?), when: when(criteria)? })
            }
            Json::Object(object) => match object.get("type").and_then(Json::as_str) {
                Some("contains") => Ok(OutputCheck::Contains {
                    value: object.get("value").and_then(Json::as_str).unwrap_or_default().to_owned(),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                Some("regex") => Ok(OutputCheck::Regex {
                    pattern: object.get("pattern").and_then(Json::as_str).unwrap_or_default().to_owned(),
                    flags: object.get("flags").and_then(Json::as_str).map(str::to_owned),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                Some("length") => Ok(OutputCheck::Length {
                    min: object.get("min").and_then(Json::as_f64).map(|min| min.max(0.0).ceil() as u64),
                    max: object.get("max").and_then(Json::as_f64).map(|max| max.max(0.0).floor() as u64),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                Some("schema") => Ok(OutputCheck::Schema {
                    schema: object.get("schema").cloned().unwrap_or(json!({})),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                other => Err(format!(
                    "validation rule type {} is not one of contains, regex, length, schema",
                    other.map_or_else(|| "(missing)".to_owned(), |other| format!("`{other}`"))
                )),
            },
            other => Err(format!("a validation rule must be an object or a list, found {other}")),
        }
    }
}
