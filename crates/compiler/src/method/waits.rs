//! Where a BMad Method workflow waits for the user: a `<ask>`, a halt or a menu in a step's text
//! makes the step a gate a human approves (or a conditional one).

use regex::Regex;

use super::expression;
use super::tags::{attribute, enclosing_check};

/// Where a classic step waits for the user: `<ask>`, `<template-output>` (the method's
/// checkpoint after writing a section), `<elicit-required>` and `<invoke-task halt="true">`
/// (elicitation). Unconditional ones make the step a gate; ones under a condition that is a
/// real expression make a conditional gate; ones under a plain-language condition are left to
/// the agent (the condition cannot be judged before the step runs). Returns the gate, the
/// conditional gate and the reasons, for the prompt.
pub(super) fn waits_for_user(body: &str) -> (bool, Option<String>, Vec<&'static str>) {
    let tag = regex!(r"<(ask|template-output|elicit-required|invoke-task)\b([^>]*)>");
    let mut gate = false;
    let mut when = Vec::new();
    let mut reasons = Vec::new();
    for captures in tag.captures_iter(body) {
        let attributes = &captures[2];
        let reason = match &captures[1] {
            "ask" => "it asks the user",
            "template-output" => "it writes a template section for the user to review",
            "elicit-required" => "it runs elicitation with the user",
            _ if attribute(attributes, "halt").as_deref() == Some("true") => "it runs a task that halts for the user",
            _ => continue,
        };
        let offset = captures.get(0).map_or(0, |found| found.start());
        match attribute(attributes, "if").or_else(|| enclosing_check(body, offset)) {
            None => gate = true,
            Some(condition) => match expression(&condition) {
                Some(evaluated) => when.push(evaluated),
                None => continue,
            },
        }
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    when.dedup();
    let gate_when = (!gate && !when.is_empty()).then(|| when.join(" || "));
    (gate, gate_when, reasons)
}

/// A step-file menu, where the method halts for the user: a `[C] Continue` option, or two or
/// more options such as `[A] Advanced Elicitation [P] Party Mode` or `[P] Plan first [E] Execute`.
pub(super) fn has_menu(body: &str) -> bool {
    let continue_option = regex!(r"(?i)\[C\]\**\s*continue");
    let option = regex!(r"\[([A-Z0-9])\]\**\s*[A-Za-z]");
    let mut letters: Vec<&str> =
        option.captures_iter(body).filter_map(|captures| captures.get(1)).map(|m| m.as_str()).collect();
    letters.sort_unstable();
    letters.dedup();
    continue_option.is_match(body) || letters.len() >= 2
}
