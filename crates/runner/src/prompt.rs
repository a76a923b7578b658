//! What the model reads about a step, in two parts. The system prompt frames the work: the
//! workflow, the run's goal, the role, how to work. The task, sent as a user message, is the step
//! itself: its prompt as the runtime renders it, what to report and where the run can go next.
//! The task is a user message because chat templates of several model families (Qwen3's among
//! them) refuse a request without one, and a model treats its instructions as the user's there.
//! Both are built from the runtime's answer alone, so they hold no token and no id: the runner
//! keeps those.

use std::fmt::Write as _;

use switchyard_core::workflow::{EdgeKind, NotesPolicy};
use switchyard_runtime::StepResponse;

use crate::tools::{CHECKPOINT, COMPLETE_STEP};

/// The most bytes of an output schema the prompt quotes.
const MAX_SCHEMA_BYTES: usize = 8 * 1024;

/// What the prompt says beyond the runtime's answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PromptFacts<'a> {
    pub workflow_title: &'a str,
    pub goal: &'a str,
    /// The persona text of the step's role, when the configuration has one.
    pub persona: Option<&'a str>,
}

/// The system prompt of a step whose role is `role`: the same for every step of that role, so a
/// carried-over conversation's prefix stays as it was from one step to the next.
pub(crate) fn system_prompt(role: Option<&str>, facts: PromptFacts<'_>) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "You are driving one step of the workflow \"{}\" with switchyard, which checks every step's result.",
        facts.workflow_title
    );
    let _ = writeln!(text, "The run's goal: {}", facts.goal.trim());
    match (role, facts.persona) {
        (Some(role), Some(persona)) => {
            let _ = writeln!(text, "\nYour role: {role}.\n{}", persona.trim());
        }
        (Some(role), None) => {
            let _ = writeln!(text, "\nYour role: {role}. Work as a {role} would.");
        }
        (None, _) => {}
    }
    let _ = write!(
        text,
        "\n## How to work\n\n\
         - The user's message names the step to do now and what to report; it changes as the run moves on.\n\
         - Work only through the tools; answer every turn with tool calls, not with text alone.\n\
         - Paths start at a mount: `{{project-root}}/…` (the project), `{{output-root}}/…` (this run's output folder), `{{bundle-root}}/…` (the workflow's files).\n\
         - Call `{CHECKPOINT}` to record progress on a long step.\n\
         - Call `{COMPLETE_STEP}` once, when the step is done; if it is blocked, fix what the answer says and call it again.\n"
    );
    text
}

/// The task of the step `response` has pending, for the user message that hands it out; `None`
/// when it has none. A person's rejection and a blocked report are part of it, so a conversation
/// that starts afresh on a reworked step (a resumed run) still reads why.
pub(crate) fn task(response: &StepResponse) -> Option<String> {
    let step = response.step.as_ref()?;
    let mut text = String::new();
    let _ = writeln!(text, "## Step: {} (`{}`)\n\n{}", step.title, step.step, step.prompt.trim());
    if let Some(reason) = &step.rejection {
        let _ =
            writeln!(text, "\n## Sent back by a person\n\nA person rejected the last result of this step: {reason}");
    }
    if let Some(validation) = &step.validation {
        let _ = writeln!(text, "\n## Your last report was blocked\n");
        for issue in &validation.issues {
            let _ = writeln!(text, "- {} at `{}`: {}", issue.code, issue.path, issue.message);
        }
    }
    text.push_str("\n## What to report\n\n");
    let _ = writeln!(text, "When the step is done, call `{COMPLETE_STEP}` with:");
    let notes = match step.notes {
        NotesPolicy::Required => "`notes` (required): what you did, decided and why, in Markdown.",
        NotesPolicy::Optional => "`notes` (optional): what you did, decided and why, in Markdown.",
    };
    let _ = writeln!(text, "- {notes}");
    if let Some(artifacts) = response.report.as_ref().and_then(|report| report.artifacts.as_ref()) {
        let _ = writeln!(
            text,
            "- `artifacts`: a JSON object of this shape, every `<fill in: …>` replaced by real values:\n```json\n{}\n```",
            serde_json::to_string_pretty(artifacts).unwrap_or_default()
        );
    }
    if let Some(schema) = &step.output_schema {
        let schema = serde_json::to_string(schema).unwrap_or_default();
        let schema = switchyard_core::turn::bounded_to(&schema, MAX_SCHEMA_BYTES);
        let _ = writeln!(text, "- The artifacts must satisfy this JSON Schema: `{schema}`");
    }
    for check in &step.checks {
        let _ = writeln!(text, "- A check on the report: {}", serde_json::to_string(check).unwrap_or_default());
    }
    if !step.evidence.is_empty() {
        text.push_str("\n## What switchyard checks itself\n\nWhen you report, switchyard looks at the workspace and refuses the report unless:\n");
        for check in &step.evidence {
            let _ = writeln!(text, "- {}", check.requirement());
        }
        text.push_str("Check these yourself before you report (run the command, if you may), so the report passes.\n");
    }
    if step.needs_choice {
        let labels: Vec<&str> = step.allowed_next.iter().map(|edge| edge.label.as_str()).collect();
        let _ = writeln!(text, "- `choice` (required): one of {}.", labels.join(", "));
    }
    if !step.allowed_next.is_empty() {
        text.push_str("\n## Where the run can go next\n\n");
        for edge in &step.allowed_next {
            let to = edge.to.as_ref().map_or_else(|| "the end of the run".to_owned(), |to| format!("step `{to}`"));
            let _ = write!(text, "- `{}` → {to}", edge.label);
            if edge.default {
                text.push_str(" (default)");
            }
            if let Some(condition) = &edge.condition_text {
                let _ = write!(text, ", when {condition}");
            }
            match edge.kind {
                EdgeKind::Loop => text.push_str(", starts another cycle"),
                EdgeKind::Replan => text.push_str(", sends the run back to replan"),
                EdgeKind::Normal => {}
            }
            if let Some(remaining) = edge.remaining {
                let _ = write!(text, " ({remaining} left)");
            }
            text.push('\n');
        }
    } else {
        text.push_str("\nThis is the last step: completing it completes the run.\n");
    }
    if step.gate {
        text.push_str("\nA person reviews this step's result before the run moves on.\n");
    }
    let _ = writeln!(text, "\n{} attempt(s) left for this step's report.", step.attempts_left);
    Some(text)
}
