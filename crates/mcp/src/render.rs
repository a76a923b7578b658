//! The text an agent reads: the step, what to report, where it may go, and the exact next call.
//! The same facts go out as `structuredContent`.

use std::fmt::Write;

use serde_json::Value;

use crate::wire::{Execution, Kind, NextIntent};

/// Renders an execution answer as Markdown for the agent.
pub fn execution(execution: &Execution) -> String {
    let mut text = String::new();
    let flags = match (execution.replayed, execution.forked) {
        (true, _) => " (replayed: this call was already made; nothing advanced, this is the recorded answer)",
        (false, true) => " (forked: this advance started a new branch; the old branch is kept)",
        _ => "",
    };
    let _ = writeln!(
        text,
        "switchyard · {} · run {} · {}{flags}",
        execution.workflow_id,
        execution.run_id,
        switchyard_core::wire_name(&execution.kind)
    );
    match execution.kind {
        Kind::Ok | Kind::Blocked => step(&mut text, execution),
        Kind::WaitingForHumanGate => {
            if let Some(gate) = &execution.gate {
                let _ = writeln!(
                    text,
                    "\n## Waiting for a human\nYour report on `{}` ({}) was accepted and now waits for a human to approve it. You cannot approve it yourself.\nTell the user: approve with `{}`, or send it back with `{}`.\nAsking again before then returns this same status (retryable); it never advances.",
                    gate.step_id, gate.title, gate.approve_with, gate.reject_with
                );
            }
        }
        Kind::WaitingForHumanDecision => {
            if let Some(decision) = &execution.decision {
                let _ = writeln!(
                    text,
                    "\n## Waiting for a human decision\nA limit was reached ({}). A human picks one of: {} with `{}`. You cannot decide it yourself; asking again returns this same status.",
                    decision.reason,
                    decision.options.join(", "),
                    decision.decide_with
                );
            }
        }
        Kind::Paused => {
            let _ = writeln!(
                text,
                "\n## Paused\nA human paused this run. Resume with `switchyard resume {}`; asking again before then returns this status.",
                execution.run_id
            );
        }
        Kind::Complete => {
            let _ = writeln!(text, "\n## Complete\nThe workflow is done. Nothing more to report.");
        }
        Kind::Failed => {
            let failure = execution
                .failure
                .as_ref()
                .map(|failure| serde_json::json!({ "code": failure.code, "message": failure.message }).to_string())
                .unwrap_or_default();
            let _ = writeln!(text, "\n## Failed\n{failure}");
        }
        Kind::Stopped => {
            let _ = writeln!(text, "\n## Stopped\nA human stopped this run.");
        }
    }
    if let Some(report) = &execution.report_warnings {
        let _ = writeln!(text, "\n## Report warnings\nYour report was accepted with these warnings:");
        for warning in &report.warnings {
            let _ = writeln!(text, "- `{}`: {}", warning.path, warning.message);
        }
        for finding in &report.downgraded {
            let why = if finding.validated { "below the threshold" } else { "not validated" };
            let _ = writeln!(
                text,
                "- downgraded finding `{}` (confidence {}, {why}; audit_min_confidence {}): {}",
                finding.path, finding.confidence, finding.min_confidence, finding.summary
            );
        }
    }
    if let Some(recap) = &execution.recap
        && !recap.text.is_empty()
    {
        let _ = writeln!(text, "\n## Recovery context (this branch so far)\n{}", recap.text);
    }
    if let Some(next) = &execution.next_call {
        let call = serde_json::json!({ "tool": next.tool, "params": next.params });
        let _ =
            writeln!(text, "\n## Next call\n```json\n{}\n```", serde_json::to_string_pretty(&call).unwrap_or_default());
        if execution.next_intent == NextIntent::PerformPendingThenContinue && !next.fill_in.is_empty() {
            let _ = writeln!(text, "Replace each `<fill in: …>` with your report before you send it:");
            for fill in &next.fill_in {
                let _ = writeln!(text, "- `{}`: {}", fill.path, fill.what);
            }
            let _ = writeln!(
                text,
                "Sent with a placeholder left in, it is refused (`VALIDATION_ERROR`) and nothing is recorded."
            );
        }
    }
    text
}

fn step(text: &mut String, execution: &Execution) {
    let Some(pending) = &execution.pending else { return };
    if let Some(validation) = &execution.validation {
        let _ = writeln!(text, "\n## Blocked: the last report did not pass its checks");
        for issue in &validation.issues {
            let _ = writeln!(text, "- {} at `{}`: {}", issue.code, issue.path, issue.message);
        }
        if let Some(sent) = &validation.sent {
            let _ = writeln!(text, "You sent: `{sent}`");
        }
        let _ = writeln!(
            text,
            "Fix that and call again with the retryContinueToken (below). Attempts left: {}.",
            pending.attempts_left
        );
    }
    let role = pending.agent_role.as_deref().map(|role| format!(" · role: {role}")).unwrap_or_default();
    let _ = writeln!(text, "\n## Step `{}`: {}{role}", pending.step_id, pending.title);
    if let Some(rejection) = &pending.rejection {
        let _ = writeln!(text, "\nA human sent this step back: {rejection}");
    }
    let _ = writeln!(text, "\n{}", pending.prompt.trim_end());
    let _ = writeln!(text, "\n## What to report");
    let _ = writeln!(
        text,
        "- notes (`output.notesMarkdown`): {}",
        if pending.notes_required { "required" } else { "optional" }
    );
    if let Some(schema) = &pending.output_schema {
        let _ = writeln!(text, "- artifacts (`output.artifacts`) matching: `{}`", compact(schema));
    }
    if pending.human_gate {
        let _ = writeln!(text, "- a human approves this step's result before the run moves on");
    }
    if !pending.allowed_next.is_empty() {
        let _ = writeln!(
            text,
            "\n## Allowed next{}",
            if pending.needs_choice { " (send `choice`: one of these labels)" } else { "" }
        );
        for edge in &pending.allowed_next {
            let to = edge.to.as_deref().map(|to| format!("`{to}`")).unwrap_or_else(|| "complete".to_owned());
            let mut line = format!("- `{}` → {to}", edge.label);
            if edge.default {
                line.push_str(" (default)");
            }
            if let Some(condition) = &edge.condition {
                let _ = write!(line, " when {condition}");
            }
            let _ = writeln!(text, "{line}");
        }
    }
}

fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 2000 { format!("{}…", text.chars().take(2000).collect::<String>()) } else { text }
}
