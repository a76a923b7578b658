//! What `pending` shows the agent: the rendered prompt, the contract and the open edges.

use serde_json::json;
use switchyard_core::state::Phase;

use crate::fixture::{Run, choose, object, plain};
use crate::{Command, pending};

const TEXT: &str = r#"
var title string "draft"
var count integer 2
step write notes phase=p attempts=2
prompt {{ step }}: write {{ title }} ({{ count + 1 }}) for {{ goal }}, try {{ attempt }}, cycle {{ cycle }}{% if rejection %}; fixed: {{ rejection }}{% endif %}
edge review -> review
step review gate
edge a -> write max=2
edge b -> complete
edge c -> complete if context.count > 5
"#;

#[test]
fn the_prompt_is_rendered_over_variables_context_and_run_facts() {
    let run = Run::start_with(TEXT, object(json!({"title": "the plan"})));
    let step = pending(&run.loaded, &run.state, "ship it");
    assert_eq!(step.prompt, "write: write the plan (3) for ship it, try 1, cycle 0");
    assert_eq!((step.attempts_left, step.gate, step.phase.as_deref()), (2, false, Some("p")));
    assert_eq!(step.allowed_next.len(), 1);
    assert!(!step.needs_choice);
}

#[test]
fn the_rejection_and_the_last_validation_are_shown() {
    let mut run = Run::start(TEXT);
    run.apply(plain());
    let step = pending(&run.loaded, &run.state, "g");
    assert_eq!(step.validation.unwrap().issues[0].code, "NOTES_REQUIRED");
    assert_eq!(step.attempts_left, 1);
    assert!(step.prompt.contains("try 2"), "{}", step.prompt);
    let mut run = Run::start(TEXT);
    run.apply(Command::Advance(crate::Advance { notes: Some("n".to_owned()), ..crate::fixture::advance() }));
    run.apply(plain());
    run.apply(Command::Reject { reason: "shorter".to_owned() });
    assert_eq!(run.state.rejection.as_deref(), Some("shorter"));
    assert!(matches!(run.state.phase, Phase::Pending));
}

#[test]
fn allowed_next_lists_open_edges_with_what_is_left() {
    let mut run = Run::start(TEXT);
    run.apply(Command::Advance(crate::Advance { notes: Some("n".to_owned()), ..crate::fixture::advance() }));
    let step = pending(&run.loaded, &run.state, "g");
    let labels: Vec<(&str, Option<u32>)> = step.allowed_next.iter().map(|e| (e.label.as_str(), e.remaining)).collect();
    assert_eq!(labels, [("a", Some(2)), ("b", None), ("c", None)]);
    assert!(step.needs_choice, "two unconditional edges and no default");
    assert_eq!(step.allowed_next[1].to, None);
    assert_eq!(step.allowed_next[2].condition_text.as_deref(), Some("`context.count > 5`"));
    run.apply(choose("a"));
    run.apply(Command::Approve { note: None });
    assert_eq!(run.step(), "write");
    let serialized = serde_json::to_value(pending(&run.loaded, &run.state, "g")).unwrap();
    assert_eq!(serialized["notes"], json!("required"));
}

#[test]
fn a_prompt_that_fails_to_render_is_shown_raw_with_a_note() {
    let run = Run::start("step a\nprompt {{ 1 / 0 }} and {{ goal }}\n");
    let step = pending(&run.loaded, &run.state, "g");
    assert!(step.prompt.starts_with("{{ 1 / 0 }} and {{ goal }}"), "{}", step.prompt);
    assert!(step.prompt.contains("could not be rendered"), "{}", step.prompt);
}
