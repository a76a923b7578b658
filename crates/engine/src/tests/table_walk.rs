//! Walks every (status, command) pair of the transition table and checks that `transition` handles
//! or rejects it exactly as the table says.

use serde_json::json;
use switchyard_core::state::{
    Control, Counters, DecisionOption, DecisionReason, FailureCode, NodeState, Phase, RunStatus, Submission, Validation,
};
use switchyard_core::workflow::StepId;

use crate::fixture::{load, node_id, plain, toward};
use crate::table::{CommandKind, Outcome, TRANSITIONS};
use crate::{Command, Fresh, RunView, transition};

const WORKFLOW: &str = "
step review gate
edge done -> complete default
";

fn state(phase: Phase) -> NodeState {
    NodeState {
        step: StepId::new("review"),
        phase,
        context: serde_json::Map::new(),
        counters: Counters::default(),
        rejection: None,
        snapshot: None,
    }
}

/// One node state per node status.
fn states() -> Vec<NodeState> {
    vec![
        state(Phase::Pending),
        state(Phase::Blocked { validation: Validation { issues: vec![] } }),
        state(Phase::WaitingGate { submission: Submission::default() }),
        state(Phase::WaitingForHumanDecision {
            reason: DecisionReason::RevisionLimit,
            options: vec![DecisionOption::Accept, DecisionOption::Revise, DecisionOption::Stop],
            submission: Submission::default(),
        }),
        state(Phase::Completed),
        state(Phase::Failed { code: FailureCode::NoEligibleEdge, message: "x".to_owned() }),
    ]
}

/// A well-formed command of each kind, so only the status decides the outcome.
fn command(kind: CommandKind) -> Command {
    match kind {
        CommandKind::Advance => plain(),
        CommandKind::AdvanceTo => toward("complete"),
        CommandKind::Approve => Command::Approve { note: None },
        CommandKind::Reject => Command::Reject { reason: "redo".to_owned() },
        CommandKind::Decide => Command::Decide { option: DecisionOption::Accept, note: None },
        CommandKind::Pause => Command::Pause { reason: None },
        CommandKind::Resume => Command::Resume,
        CommandKind::Stop => Command::Stop { reason: None },
        CommandKind::Checkpoint => Command::Checkpoint { attempt: None, notes: Some(json!("n").to_string()) },
    }
}

/// Every (control, node state) pair whose effective status is `status`.
fn views_for(status: RunStatus) -> Vec<(Control, NodeState)> {
    let all = states();
    match status {
        RunStatus::Paused => all.into_iter().map(|state| (Control::Paused, state)).collect(),
        RunStatus::Stopped => all.into_iter().map(|state| (Control::Stopped, state)).collect(),
        status => {
            all.into_iter().filter(|state| state.status() == status).map(|state| (Control::Running, state)).collect()
        }
    }
}

#[test]
fn transition_does_what_the_table_says_for_every_status_and_command() {
    let loaded = load(WORKFLOW);
    let mut walked = 0;
    for row in TRANSITIONS {
        let views = views_for(row.status);
        assert!(!views.is_empty(), "no view for status {}", row.status);
        for (control, state) in views {
            let view = RunView {
                control,
                node: node_id(1),
                state: &state,
                has_children: false,
                goal: "g",
                reports: Default::default(),
                project: &Default::default(),
            };
            let result = transition(&loaded, view, command(row.command), Fresh::node(node_id(2)));
            let context = format!("({}, {}) on {:?} with {control:?}", row.status, row.command.as_str(), state.phase);
            match (row.outcome, result) {
                (Outcome::Handled(_), Ok(transition)) => {
                    assert!(!transition.events.is_empty(), "{context}: handled but recorded nothing");
                }
                (Outcome::Rejected(rejection), Err(error)) => {
                    assert_eq!(error.code(), rejection.code(), "{context}: {error}");
                }
                (outcome, result) => panic!("{context}: table says {outcome:?}, transition gave {result:?}"),
            }
            walked += 1;
        }
    }
    assert!(walked >= TRANSITIONS.len());
}

#[test]
fn rejections_carry_retryability_where_waiting_helps() {
    let loaded = load(WORKFLOW);
    let gate = state(Phase::WaitingGate { submission: Submission::default() });
    let view = RunView {
        control: Control::Running,
        node: node_id(1),
        state: &gate,
        has_children: false,
        goal: "g",
        reports: Default::default(),
        project: &Default::default(),
    };
    let error = transition(&loaded, view, plain(), Fresh::node(node_id(2))).unwrap_err();
    assert_eq!(error.code(), "AWAITING_GATE");
    assert!(error.retryable());
    let done = state(Phase::Completed);
    let view = RunView { state: &done, ..view };
    let error = transition(&loaded, view, plain(), Fresh::node(node_id(2))).unwrap_err();
    assert_eq!(error.code(), "RUN_FINISHED");
    assert!(!error.retryable());
}
