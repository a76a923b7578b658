//! WorkRail's output contracts and assessments: the output schema a contract asks for, the
//! guidance the agent reads, and the checks WorkRail's engine makes on a submitted assessment.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};
use switchyard_core::workflow::OutputCheck;

use super::conditions::{Dialect, literal};
use super::format::{Assessment, Consequence};

/// What the agent reads about a step's assessments: how to send them, and each referenced
/// assessment's dimensions and levels as the workflow defines them.
pub(super) fn assessment_guidance(references: &[String], assessments: &BTreeMap<String, Assessment>) -> String {
    let names: Vec<String> = references.iter().map(|id| format!("`{id}`")).collect();
    let mut text = format!(
        "## Assessment\nRate this step with {} and send each as an artifact: `{{\"kind\": \"wr.assessment\", \"assessmentId\": \"<id>\", \"dimensions\": {{\"<dimension>\": \"<level>\"}}, \"summary\": \"...\"}}`.",
        names.join(", ")
    );
    for reference in references {
        let Some(assessment) = assessments.get(reference) else { continue };
        for dimension in &assessment.dimensions {
            let levels: Vec<String> = dimension.levels.iter().map(|level| format!("`{level}`")).collect();
            text.push_str(&format!(
                "\n- `{reference}` / `{}` ({}): {}",
                dimension.id.as_deref().unwrap_or_default(),
                levels.join(" | "),
                dimension.purpose.as_deref().unwrap_or_default()
            ));
        }
    }
    text
}

/// The checks WorkRail's engine makes on a submitted assessment before any consequence: for
/// each referenced assessment the workflow defines, every dimension (unless `required: false`)
/// is rated with one of its declared levels, and a rated dimension never has a level the
/// assessment does not declare. Without them an agent could dodge a consequence by leaving a
/// dimension out or inventing a level. Levels compare trimmed and case-insensitively, as
/// WorkRail normalises them, which JSON Schema cannot say; hence `condition` checks, one per
/// dimension, so the message names the dimension and its levels.
pub(super) fn dimension_checks(references: &[String], assessments: &BTreeMap<String, Assessment>) -> Vec<OutputCheck> {
    let mut checks = Vec::new();
    for reference in references {
        let Some(assessment) = assessments.get(reference) else { continue };
        let assessment_literal = literal(&Json::String(reference.clone()), Dialect::Cel);
        // An artifact without `assessmentId` is the step's assessment when it has only one.
        let belongs = if references.len() == 1 {
            format!("(value_of(a, \"assessmentId\") == null || value_of(a, \"assessmentId\") == {assessment_literal})")
        } else {
            format!("value_of(a, \"assessmentId\") == {assessment_literal}")
        };
        let artifact = format!("type(a) == map && value_of(a, \"kind\") == \"wr.assessment\" && {belongs}");
        for dimension in &assessment.dimensions {
            let Some(dimension_id) = dimension.id.as_deref() else { continue };
            let levels: Vec<Json> = dimension.levels.iter().cloned().map(Json::String).collect();
            let levels_literal = literal(&Json::Array(levels.clone()), Dialect::Cel);
            let value = format!(
                "value_of(value_of(a, \"dimensions\"), {})",
                literal(&Json::String(dimension_id.to_owned()), Dialect::Cel)
            );
            let level = format!("value_of({value}, \"level\")");
            let declared = format!(
                "((type({value}) == string && loose({value}, \"in\", {levels_literal})) \
                 || (type({value}) == map && type({level}) == string && loose({level}, \"in\", {levels_literal})))"
            );
            let no_unknown_level = format!(
                "!(type(artifacts) == list && artifacts.exists(a, {artifact} && {value} != null && !{declared}))"
            );
            let required = dimension.required != Some(false);
            let condition = if required {
                format!(
                    "type(artifacts) == list && artifacts.exists(a, {artifact} && {declared}) && {no_unknown_level}"
                )
            } else {
                no_unknown_level
            };
            let names: Vec<String> = dimension.levels.iter().map(|level| format!("`{level}`")).collect();
            let needs = if required { "needs" } else { "may have" };
            let identified =
                if references.len() == 1 { String::new() } else { format!("\"assessmentId\": \"{reference}\", ") };
            checks.push(OutputCheck::Condition {
                condition,
                message: Some(format!(
                    "Assessment `{reference}` {needs} dimension `{dimension_id}` at one of its levels: {} \
                     (a level, or `{{\"level\": \"<level>\", \"rationale\": \"...\"}}`); no other level is accepted. \
                     Send `{{\"kind\": \"wr.assessment\", {identified}\"dimensions\": {{\"{dimension_id}\": \"<level>\", ...}}}}` in `artifacts`.",
                    names.join(" | ")
                )),
                when: None,
            });
        }
    }
    checks
}

/// An assessment consequence as WorkRail's engine applies it: when a submitted `wr.assessment`
/// (of the consequence's `forAssessment`, if set) has any dimension at the trigger level, the
/// advance is refused with the guidance and the step stays pending for a follow-up. Levels
/// compare trimmed and case-insensitively, as WorkRail normalises them; a dimension is a level
/// or `{level, rationale}`.
pub(super) fn consequence_check(consequence: &Consequence, references: &[String]) -> OutputCheck {
    let trigger = consequence.when.as_ref();
    let level = trigger.and_then(|when| when.any_equals_level.as_deref()).unwrap_or_default();
    let scope = trigger.and_then(|when| when.for_assessment.as_deref());
    let guidance = consequence.effect.as_ref().and_then(|effect| effect.guidance.as_deref()).unwrap_or_default();
    let level_literal = literal(&Json::String(level.to_owned()), Dialect::Cel);
    let scope_test = match scope {
        Some(assessment) => {
            let assessment_literal = literal(&Json::String(assessment.to_owned()), Dialect::Cel);
            let unnamed_is_it = references.len() == 1 && references[0] == assessment;
            if unnamed_is_it {
                format!(
                    " && (value_of(a, \"assessmentId\") == null || value_of(a, \"assessmentId\") == {assessment_literal})"
                )
            } else {
                format!(" && value_of(a, \"assessmentId\") == {assessment_literal}")
            }
        }
        None => String::new(),
    };
    let condition = format!(
        "!(type(artifacts) == list && artifacts.exists(a, type(a) == map && value_of(a, \"kind\") == \"wr.assessment\"{scope_test} \
         && type(value_of(a, \"dimensions\")) == map && value_of(a, \"dimensions\").exists(d, \
         loose(value_of(a, \"dimensions\")[d], \"equals\", {level_literal}) \
         || loose(value_of(value_of(a, \"dimensions\")[d], \"level\"), \"equals\", {level_literal}))))"
    );
    let which = scope.map_or_else(|| "an assessment".to_owned(), |assessment| format!("assessment `{assessment}`"));
    OutputCheck::Condition {
        condition,
        message: Some(format!(
            "Assessment follow-up required: {which} has a dimension at `{level}`. {guidance} \
             The step stays pending until a new `wr.assessment` has no dimension at `{level}`."
        )),
        when: None,
    }
}

/// The output schema for a WorkRail contract: the artifacts list holds one of its kind.
pub(super) fn contract_schema(reference: &str) -> Json {
    if reference == "wr.contracts.loop_control" {
        return json!({
            "type": "array",
            "contains": {
                "type": "object",
                "required": ["kind", "decision"],
                "properties": {"kind": {"const": "wr.loop_control"}, "decision": {"enum": ["continue", "stop"]}}
            }
        });
    }
    artifact_kind_schema(&contract_kind(reference))
}

pub(super) fn contract_kind(reference: &str) -> String {
    format!("wr.{}", reference.strip_prefix("wr.contracts.").unwrap_or(reference))
}

pub(super) fn artifact_kind_schema(kind: &str) -> Json {
    json!({
        "type": "array",
        "contains": {"type": "object", "required": ["kind"], "properties": {"kind": {"const": kind}}}
    })
}

pub(super) fn contract_guidance(reference: &str) -> String {
    if reference == "wr.contracts.loop_control" {
        return "## Required artifact\nSend `artifacts` as a JSON list holding `{\"kind\": \"wr.loop_control\", \"decision\": \"continue\"}` to run the loop again, or `\"decision\": \"stop\"` to leave it.".to_owned();
    }
    format!(
        "## Required artifact\nSend `artifacts` as a JSON list holding an object with `\"kind\": \"{}\"` and the fields the contract `{reference}` asks for.",
        contract_kind(reference)
    )
}
