//! `start` and `transition`: the handlers behind each handled row of the transition table.
//!
//! Every handler builds the new node's state (if any) and the events in a fixed order:
//! `NodeCreated`, then the command's own fact (`AdvanceRecorded`, `GateDecided`,
//! `HumanDecided`), then, for an advance whose status report warned, `ReportWarned`, then what
//! followed from it (automatic checkpoint, `RunCompleted`, `RunFailed`).

use serde_json::{Map, Value};
use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::evidence::{ProjectCommands, Snapshot};
use switchyard_core::id::AttemptId;
use switchyard_core::limits::{
    MAX_ARTIFACTS_BYTES, MAX_CONTEXT_BYTES, MAX_GOAL_BYTES, MAX_JSON_DEPTH, MAX_NOTES_BYTES, MAX_REASON_BYTES,
    json_depth,
};
use switchyard_core::state::{
    Control, Counters, DecisionOption, DecisionReason, DowngradedFinding, FailureCode, NodeKind, NodeState, Phase,
    RunStatus, Submission, Validation, ValidationIssue,
};
use switchyard_core::why::{Evaluated, Rule, Subject, Verdict};
use switchyard_core::workflow::{Edge, EdgeKind, EdgeTarget, StatusReportMode, Step};

use crate::conditions::{Conditions, Scope, Trace};
use crate::edges::{self, Selection};
use crate::error::{Error, list_options};
use crate::evidence;
use crate::loaded::LoadedWorkflow;
use crate::status_report::{self, CheckOptions, ReportKind, Severity};
use crate::table::{self, CommandKind, Outcome, Rejection};
use crate::{Advance, Command, Fresh, RunView, Transition};

/// Creates a run's first node at the workflow's entry step. Declared variables missing from
/// `context` get their defaults; values of the wrong type are `INVALID_CONTEXT`.
pub fn start(
    loaded: &LoadedWorkflow,
    goal: &str,
    context: Map<String, Value>,
    project: &ProjectCommands,
    fresh: Fresh,
) -> Result<Transition, Error> {
    check_size("goal", "MAX_GOAL_BYTES", goal.len(), MAX_GOAL_BYTES)?;
    check_context_values(&context)?;
    let issues = context_type_issues(loaded, &context);
    if !issues.is_empty() {
        return Err(Error::InvalidContext { issues });
    }
    // A null at start means "not set", as it does in a delta.
    let mut context: Map<String, Value> = context.into_iter().filter(|(_, value)| !value.is_null()).collect();
    for variable in &loaded.workflow.variables {
        if let Some(default) = &variable.default
            && !context.contains_key(&variable.name)
        {
            context.insert(variable.name.clone(), default.clone());
        }
    }
    check_size("the context", "MAX_CONTEXT_BYTES", compact_len(&context), MAX_CONTEXT_BYTES)?;
    let entry = loaded.step(&loaded.workflow.entry)?;
    let mut follow = Vec::new();
    let trace = Trace::default();
    let landing = Landing { goal, project, node: fresh.node, snapshot: fresh.snapshot, trace: &trace };
    let state = settle(loaded, landing, None, Some(entry), context, Counters::default(), &mut follow)?;
    let created = EventKind::NodeCreated {
        node: fresh.node,
        parent: None,
        kind: NodeKind::Start,
        cause: NodeCause::Start,
        status: state.status(),
        step: state.step.clone(),
        state: state.clone(),
    };
    let mut events = vec![created];
    events.extend(trace.why(Rule::Entry).map(|why| EventKind::DecisionRecorded {
        node: fresh.node,
        step: loaded.workflow.entry.clone(),
        why,
    }));
    events.extend(follow);
    Ok(Transition { events, node: Some((fresh.node, state)), control: Control::Running })
}

/// Handles one command on one node, as [`table::TRANSITIONS`] declares.
pub fn transition(
    loaded: &LoadedWorkflow,
    view: RunView<'_>,
    command: Command,
    fresh: Fresh,
) -> Result<Transition, Error> {
    let status = match view.control {
        Control::Paused => RunStatus::Paused,
        Control::Stopped => RunStatus::Stopped,
        Control::Running => view.state.status(),
    };
    let kind = command.kind();
    if let Outcome::Rejected(rejection) = table::outcome(status, kind) {
        return Err(rejection_error(rejection, status, kind, view.state));
    }
    let machine = Machine { loaded, view, fresh, trace: Trace::default() };
    match command {
        Command::Advance(advance) => machine.advance(advance, None),
        Command::AdvanceTo { advance, to } => machine.advance(advance, Some(&to)),
        Command::Approve { note } => machine.approve(note),
        Command::Reject { reason } => machine.reject(reason),
        Command::Decide { option, note } => machine.human_decision(option, note),
        Command::Pause { reason } => {
            check_optional("the pause reason", "MAX_REASON_BYTES", reason.as_deref(), MAX_REASON_BYTES)?;
            Ok(machine.control_only(EventKind::RunPaused { reason }, Control::Paused))
        }
        Command::Resume => Ok(machine.control_only(EventKind::RunResumed, Control::Running)),
        Command::Stop { reason } => {
            check_optional("the stop reason", "MAX_REASON_BYTES", reason.as_deref(), MAX_REASON_BYTES)?;
            Ok(machine.control_only(EventKind::RunStopped { reason }, Control::Stopped))
        }
        Command::Checkpoint { attempt, notes } => machine.checkpoint(attempt, notes),
    }
}

fn rejection_error(rejection: Rejection, status: RunStatus, command: CommandKind, state: &NodeState) -> Error {
    match rejection {
        Rejection::RunStopped => Error::RunStopped,
        Rejection::RunPaused => Error::RunPaused { command: command.as_str() },
        Rejection::AlreadyPaused => Error::AlreadyPaused,
        Rejection::RunFinished => Error::RunFinished { status },
        Rejection::AwaitingGate => Error::AwaitingGate,
        Rejection::AwaitingHumanDecision => {
            let options = match &state.phase {
                Phase::WaitingForHumanDecision { options, .. } => list_options(options),
                _ => String::new(),
            };
            Error::AwaitingHumanDecision { options }
        }
        Rejection::NotAtGate => Error::NotAtGate { status },
        Rejection::NoDecisionPending => Error::NoDecisionPending { status },
        Rejection::NotPaused => Error::NotPaused,
    }
}

/// Where taking an edge (or refusing to) leaves the run.
struct Moved {
    state: NodeState,
    /// The edge the run moved along, if it moved.
    edge_label: Option<String>,
    /// Events that follow the command's own event.
    follow: Vec<EventKind>,
}

struct Machine<'a> {
    loaded: &'a LoadedWorkflow,
    view: RunView<'a>,
    fresh: Fresh,
    /// What the command evaluated on its way to a decision: its why.
    trace: Trace,
}

impl<'a> Machine<'a> {
    fn control_only(&self, event: EventKind, control: Control) -> Transition {
        Transition { events: vec![event], node: None, control }
    }

    fn state(&self) -> &'a NodeState {
        self.view.state
    }

    fn step(&self) -> Result<&'a Step, Error> {
        self.loaded.step(&self.state().step)
    }

    fn conditions<'c>(
        &'c self,
        context: &'c Map<String, Value>,
        artifacts: Option<&'c Value>,
        counters: &Counters,
    ) -> Conditions<'c> {
        let scope = Scope {
            context,
            artifacts,
            goal: self.view.goal,
            cycle: counters.cycles,
            attempt: counters.attempts.saturating_add(1),
            run_step: self.loaded.workflow.run_of(&self.state().step).is_some(),
        };
        Conditions::traced(&self.loaded.workflow, &scope, &self.trace)
    }

    /// Assembles the transition for a command that creates a node; `rule` is what decided where
    /// the run went, recorded with what the command evaluated when there was something to decide.
    fn created(&self, kind: NodeKind, moved: Moved, own_event: EventKind, rule: Option<Rule>) -> Transition {
        let node = self.fresh.node;
        let cause = if self.view.has_children { NodeCause::Fork } else { NodeCause::Advance };
        let mut events = vec![
            EventKind::NodeCreated {
                node,
                parent: Some(self.view.node),
                kind,
                cause,
                status: moved.state.status(),
                step: moved.state.step.clone(),
                state: moved.state.clone(),
            },
            own_event,
        ];
        let why = rule.and_then(|rule| self.trace.why(decided(rule, &moved)));
        events.extend(why.map(|why| EventKind::DecisionRecorded { node, step: self.state().step.clone(), why }));
        events.extend(moved.follow);
        Transition { events, node: Some((node, moved.state)), control: self.view.control }
    }

    /// A node at the current step with another phase.
    fn stay(&self, phase: Phase, context: Map<String, Value>, counters: Counters) -> NodeState {
        NodeState {
            step: self.state().step.clone(),
            phase,
            context,
            counters,
            rejection: self.state().rejection.clone(),
            snapshot: self.state().snapshot.clone(),
        }
    }

    fn failed(&self, code: FailureCode, message: String, context: Map<String, Value>, counters: Counters) -> Moved {
        let event =
            EventKind::RunFailed { node: self.fresh.node, code: code.as_str().to_owned(), message: message.clone() };
        Moved {
            state: self.stay(Phase::Failed { code, message }, context, counters),
            edge_label: None,
            follow: vec![event],
        }
    }

    fn no_eligible_edge(&self, step: &Step, context: Map<String, Value>, counters: Counters) -> Moved {
        let message =
            format!("no edge of step `{}` can be taken: every edge is used up or no condition holds", step.id);
        self.failed(FailureCode::NoEligibleEdge, message, context, counters)
    }

    /// Takes `edge` out of `step` (`None`: leave an end step), counting it against the limits.
    fn take(
        &self,
        step: &Step,
        edge: Option<&Edge>,
        context: Map<String, Value>,
        counters: &Counters,
        submission: Submission,
        replan_allowed_past_limit: bool,
    ) -> Result<Moved, Error> {
        let limits = self.loaded.workflow.limits;
        let mut next = counters.clone();
        if let Some(edge) = edge {
            match edge.kind {
                EdgeKind::Normal => {}
                EdgeKind::Loop => {
                    next.cycles = next.cycles.saturating_add(1);
                    if next.cycles > limits.max_cycles {
                        let message = format!(
                            "loop edge `{}` of step `{}` would start cycle {}, past max_cycles = {}",
                            edge.label, step.id, next.cycles, limits.max_cycles
                        );
                        return Ok(self.failed(FailureCode::MaxCyclesExceeded, message, context, counters.clone()));
                    }
                }
                EdgeKind::Replan => {
                    if !replan_allowed_past_limit && next.replans.saturating_add(1) > limits.max_replan_attempts {
                        let mut options = vec![DecisionOption::Replan];
                        let conditions = self.conditions(&context, submission.artifacts.as_ref(), counters);
                        if proceed_edge(self.loaded, step, counters, &conditions).is_some() {
                            options.push(DecisionOption::Proceed);
                        }
                        options.push(DecisionOption::Stop);
                        let phase =
                            Phase::WaitingForHumanDecision { reason: DecisionReason::ReplanLimit, options, submission };
                        return Ok(Moved {
                            state: self.stay(phase, context, counters.clone()),
                            edge_label: None,
                            follow: vec![],
                        });
                    }
                    next.replans = next.replans.saturating_add(1);
                }
            }
            if edge.max_traversals.is_some() {
                let used = next.traversals.entry(edges::traversal_key(step, edge)).or_insert(0);
                *used = used.saturating_add(1);
            }
        }
        next.steps_completed = next.steps_completed.saturating_add(1);
        let mut context = context;
        if let Some(edge) = edge {
            let conditions = self.conditions(&context, submission.artifacts.as_ref(), counters);
            match assigned(self.loaded, step, edge, &conditions) {
                Ok(values) => assign(values, &mut context),
                Err(message) => {
                    return Ok(self.failed(FailureCode::ConditionError, message, context, counters.clone()));
                }
            }
        }
        let edge_label = edge.map(|edge| edge.label.clone());
        let target = match edge.map(|edge| &edge.target) {
            Some(EdgeTarget::Step(target)) => Some(self.loaded.step(target)?),
            Some(EdgeTarget::Complete) | None => None,
        };
        let mut follow = Vec::new();
        let landing = Landing {
            goal: self.view.goal,
            project: self.view.project,
            node: self.fresh.node,
            snapshot: self.fresh.snapshot.clone(),
            trace: &self.trace,
        };
        let state = settle(self.loaded, landing, Some(step), target, context, next, &mut follow)?;
        Ok(Moved { state, edge_label, follow })
    }

    /// An advance; with `target`, one whose choice is the edge leading there
    /// ([`edges::choice_toward`]), found once the delta is applied, as conditions see it.
    fn advance(&self, mut advance: Advance, target: Option<&EdgeTarget>) -> Result<Transition, Error> {
        check_optional("the notes", "MAX_NOTES_BYTES", advance.notes.as_deref(), MAX_NOTES_BYTES)?;
        if let Some(artifacts) = &advance.artifacts {
            check_size("the artifacts", "MAX_ARTIFACTS_BYTES", compact_len(artifacts), MAX_ARTIFACTS_BYTES)?;
            check_size("the artifacts' nesting", "MAX_JSON_DEPTH", json_depth(artifacts), MAX_JSON_DEPTH)?;
        }
        if let Some(delta) = &advance.context {
            check_size("the context delta", "MAX_CONTEXT_BYTES", compact_len(delta), MAX_CONTEXT_BYTES)?;
            check_context_values(delta)?;
        }
        let step = self.step()?;
        let state = self.state();
        // A step switchyard runs itself is reported by its command alone.
        let ran = match self.loaded.workflow.run_of(&step.id) {
            Some(_) => Some(evidence::ran(step, &mut advance)?),
            None => None,
        };
        let mut issues = Vec::new();
        if step.notes == switchyard_core::workflow::NotesPolicy::Required
            && advance.notes.as_deref().is_none_or(|notes| notes.trim().is_empty())
        {
            issues.push(ValidationIssue {
                code: "NOTES_REQUIRED".to_owned(),
                path: "notes".to_owned(),
                message: format!("step `{}` requires notes: send a short markdown summary of what you did", step.id),
            });
        }
        if let Some(validator) = self.loaded.schema(&step.id) {
            let empty = Value::Object(Map::new());
            let instance = advance.artifacts.as_ref().unwrap_or(&empty);
            for error in validator.iter_errors(instance) {
                issues.push(ValidationIssue {
                    code: "OUTPUT_SCHEMA".to_owned(),
                    path: format!("/artifacts{}", error.instance_path().as_str()),
                    message: format!("{error}: send artifacts that match the step's output schema"),
                });
            }
        }
        let report = self.check_report(step, advance.artifacts.as_ref(), &mut issues);
        let delta = advance.context.clone().unwrap_or_default();
        issues.extend(context_type_issues(self.loaded, &delta));
        let mut context = state.context.clone();
        for (key, value) in &delta {
            if value.is_null() {
                context.remove(key);
            } else {
                context.insert(key.clone(), value.clone());
            }
        }
        let context_bytes = compact_len(&context);
        if context_bytes > MAX_CONTEXT_BYTES {
            issues.push(ValidationIssue {
                code: "CONTEXT_BUDGET".to_owned(),
                path: "context".to_owned(),
                message: format!(
                    "the context would be {context_bytes} bytes, over MAX_CONTEXT_BYTES = {MAX_CONTEXT_BYTES}: delete keys (send them as null) or store less"
                ),
            });
        }
        let conditions = self.conditions(&context, advance.artifacts.as_ref(), &state.counters);
        if let Some(target) = target {
            advance.choice = edges::choice_toward(
                self.loaded,
                step,
                &state.counters,
                &conditions,
                target,
                advance.choice.as_deref(),
            )?;
        }
        let choice = advance.choice.as_deref();
        let output = advance.notes.as_deref().unwrap_or_default();
        for (index, check) in self.loaded.checks(&step.id).iter().enumerate() {
            let result = check.evaluate(output, &conditions);
            conditions.note(|| Evaluated {
                step: step.id.clone(),
                subject: Subject::Check { index },
                text: check.describe(),
                read: check.condition().map(|program| conditions.read(program)).unwrap_or_default(),
                result: if result.is_ok() { Verdict::Held } else { Verdict::NotHeld },
                nearest: None,
            });
            if let Err(reason) = result {
                issues.push(ValidationIssue {
                    code: "OUTPUT_CHECK".to_owned(),
                    path: check.path().to_owned(),
                    message: check.issue_message(&reason),
                });
            }
        }
        let evidence = match ran {
            Some(ran) => vec![ran],
            None => {
                let checks = &self.loaded.workflow.rules(&step.id).evidence;
                if advance.evidence.len() != checks.len() {
                    return Err(Error::EvidenceNotGathered {
                        step: step.id.to_string(),
                        checks: checks.len(),
                        observed: advance.evidence.len(),
                    });
                }
                let (evidence, evidence_issues) = evidence::judge(checks, std::mem::take(&mut advance.evidence));
                issues.extend(evidence_issues);
                evidence
            }
        };
        let gate = self.loaded.is_gate(step, &conditions);
        let mut selection = None;
        if let Some(issue) = edges::unknown_choice(step, choice) {
            issues.push(issue);
        } else if !gate {
            match edges::select(self.loaded, step, &state.counters, &conditions, choice) {
                Selection::Issue(issue) => issues.push(issue),
                other => selection = Some(other),
            }
        }
        let (kind, moved, rule) = if !issues.is_empty() {
            (NodeKind::BlockedAttempt, self.blocked(step, issues), Rule::Blocked)
        } else if gate {
            let submission = Submission { choice: advance.choice.clone(), artifacts: advance.artifacts.clone() };
            let phase = Phase::WaitingGate { submission };
            let moved =
                Moved { state: self.stay(phase, context, state.counters.clone()), edge_label: None, follow: vec![] };
            (NodeKind::Gate, moved, Rule::Gate)
        } else {
            let submission = Submission { choice: advance.choice.clone(), artifacts: advance.artifacts.clone() };
            let (moved, rule) = match selection {
                Some(Selection::Edge(edge, rule)) => {
                    (self.take(step, Some(edge), context, &state.counters, submission, false)?, rule)
                }
                Some(Selection::Complete) => {
                    (self.take(step, None, context, &state.counters, submission, false)?, Rule::Complete)
                }
                _ => (self.no_eligible_edge(step, context, state.counters.clone()), Rule::NoWayOn),
            };
            (NodeKind::Step, moved, rule)
        };
        let recorded = EventKind::AdvanceRecorded {
            from: self.view.node,
            attempt: advance.attempt,
            to: self.fresh.node,
            notes: advance.notes,
            artifacts: advance.artifacts,
            context_delta: advance.context,
            choice: advance.choice,
            edge_label: moved.edge_label.clone(),
        };
        let mut transition = self.created(kind, moved, recorded, Some(rule));
        // Right after the advance they are about, before what followed from it.
        let evidence = (!evidence.is_empty()).then(|| EventKind::EvidenceRecorded {
            node: self.fresh.node,
            step: step.id.clone(),
            results: evidence,
        });
        for (offset, about) in report.into_iter().chain(evidence).enumerate() {
            transition.events.insert(2 + offset, about);
        }
        Ok(transition)
    }

    /// Checks the status or audit report a step's artifacts carry: errors and blocking audit
    /// findings become issues; warnings and downgraded findings become a `ReportWarned` event.
    fn check_report(
        &self,
        step: &Step,
        artifacts: Option<&Value>,
        issues: &mut Vec<ValidationIssue>,
    ) -> Option<EventKind> {
        let rules = self.loaded.workflow.rules(&step.id);
        if rules.status_report.is_none() && !rules.audit {
            return None;
        }
        let policy = self.view.reports;
        let options = CheckOptions {
            kind: if rules.audit { ReportKind::Audit } else { ReportKind::Status },
            strict: policy.strict_status || rules.status_report == Some(StatusReportMode::Strict),
        };
        let review = status_report::review(artifacts, "/artifacts", options, policy.audit_min_confidence);
        let mut warnings = Vec::new();
        for finding in review.findings {
            let issue = ValidationIssue {
                code: "STATUS_REPORT".to_owned(),
                message: format!("{} (rule {})", finding.sentence(), finding.rule.as_str()),
                path: finding.pointer,
            };
            match finding.severity {
                Severity::Error => issues.push(issue),
                Severity::Warning => warnings.push(issue),
            }
        }
        let verdict = review.verdict.unwrap_or_default();
        for finding in verdict.blocking {
            issues.push(ValidationIssue {
                code: "AUDIT_FINDING".to_owned(),
                path: finding.pointer,
                message: format!(
                    "the audit found a validated blocker with confidence {} (at least the run's audit_min_confidence {}): \"{}\"; fix it, audit again and advance with the new report",
                    finding.confidence, policy.audit_min_confidence, finding.summary
                ),
            });
        }
        let downgraded: Vec<DowngradedFinding> = verdict
            .downgraded
            .into_iter()
            .map(|finding| DowngradedFinding {
                path: finding.pointer,
                summary: finding.summary,
                confidence: finding.confidence,
                validated: finding.validated,
                min_confidence: policy.audit_min_confidence,
            })
            .collect();
        (!warnings.is_empty() || !downgraded.is_empty()).then(|| EventKind::ReportWarned {
            node: self.fresh.node,
            step: step.id.clone(),
            warnings,
            downgraded,
        })
    }

    /// A blocked attempt: the context stays as it was; past `max_attempts` the block is terminal.
    fn blocked(&self, step: &Step, issues: Vec<ValidationIssue>) -> Moved {
        let state = self.state();
        let mut counters = state.counters.clone();
        counters.attempts = counters.attempts.saturating_add(1);
        if counters.attempts >= step.max_attempts {
            let summary: Vec<String> = issues.iter().map(|issue| format!("{} ({})", issue.code, issue.path)).collect();
            let message = format!(
                "step `{}` failed its checks {} times (max_attempts = {}); last issues: {}",
                step.id,
                counters.attempts,
                step.max_attempts,
                summary.join(", ")
            );
            return self.failed(FailureCode::AttemptsExhausted, message, state.context.clone(), counters);
        }
        let phase = Phase::Blocked { validation: Validation { issues } };
        Moved { state: self.stay(phase, state.context.clone(), counters), edge_label: None, follow: vec![] }
    }

    /// Moves on with a result a human accepted. A held choice that cannot be used any more (it
    /// is no human's to fix) falls back to what conditions pick, then to the default edge.
    /// Returns where the run went and the rule that chose it.
    fn accept(&self, submission: &Submission) -> Result<(Moved, Rule), Error> {
        let step = self.step()?;
        let state = self.state();
        let mut counters = state.counters.clone();
        counters.revisions = 0;
        let conditions = self.conditions(&state.context, submission.artifacts.as_ref(), &counters);
        let mut selection = edges::select(self.loaded, step, &counters, &conditions, submission.choice.as_deref());
        if matches!(selection, Selection::Issue(_)) {
            selection = edges::select(self.loaded, step, &counters, &conditions, None);
        }
        let (edge, rule) = match selection {
            Selection::Edge(edge, rule) => (Some(edge), rule),
            Selection::Complete => (None, Rule::Complete),
            Selection::Issue(_) => match edges::fallback(step, &counters) {
                Some(edge) => (Some(edge), edges::fallback_rule(edge)),
                None => return Ok((self.no_eligible_edge(step, state.context.clone(), counters), Rule::NoWayOn)),
            },
            Selection::NoEligibleEdge => {
                return Ok((self.no_eligible_edge(step, state.context.clone(), counters), Rule::NoWayOn));
            }
        };
        Ok((self.take(step, edge, state.context.clone(), &counters, submission.clone(), false)?, rule))
    }

    fn approve(&self, note: Option<String>) -> Result<Transition, Error> {
        check_optional("the approval note", "MAX_REASON_BYTES", note.as_deref(), MAX_REASON_BYTES)?;
        let Phase::WaitingGate { submission } = &self.state().phase else {
            return Err(Error::NotAtGate { status: self.state().status() });
        };
        let (moved, rule) = self.accept(submission)?;
        let event = EventKind::GateDecided { node: self.view.node, to: self.fresh.node, approved: true, reason: note };
        Ok(self.created(NodeKind::Decision, moved, event, Some(rule)))
    }

    fn reject(&self, reason: String) -> Result<Transition, Error> {
        check_size("the rejection reason", "MAX_REASON_BYTES", reason.len(), MAX_REASON_BYTES)?;
        let state = self.state();
        let Phase::WaitingGate { submission } = &state.phase else {
            return Err(Error::NotAtGate { status: state.status() });
        };
        let mut counters = state.counters.clone();
        counters.revisions = counters.revisions.saturating_add(1);
        let phase = if counters.revisions > self.loaded.workflow.limits.max_revision_attempts {
            Phase::WaitingForHumanDecision {
                reason: DecisionReason::RevisionLimit,
                options: vec![DecisionOption::Accept, DecisionOption::Revise, DecisionOption::Stop],
                submission: submission.clone(),
            }
        } else {
            counters.attempts = 0;
            Phase::Pending
        };
        let mut next = self.stay(phase, state.context.clone(), counters);
        next.rejection = Some(reason.clone());
        let moved = Moved { state: next, edge_label: None, follow: vec![] };
        let event =
            EventKind::GateDecided { node: self.view.node, to: self.fresh.node, approved: false, reason: Some(reason) };
        Ok(self.created(NodeKind::Decision, moved, event, None))
    }

    fn human_decision(&self, option: DecisionOption, note: Option<String>) -> Result<Transition, Error> {
        check_optional("the decision note", "MAX_REASON_BYTES", note.as_deref(), MAX_REASON_BYTES)?;
        let state = self.state();
        let Phase::WaitingForHumanDecision { options, submission, .. } = &state.phase else {
            return Err(Error::NoDecisionPending { status: state.status() });
        };
        if !options.contains(&option) {
            return Err(Error::OptionNotOffered { option: option.as_str(), offered: list_options(options) });
        }
        let step = self.step()?;
        let counters = &state.counters;
        let conditions = self.conditions(&state.context, submission.artifacts.as_ref(), counters);
        let context = || state.context.clone();
        let person = |edge: &Edge| Some(Rule::Person { label: edge.label.clone() });
        let (moved, rule) = match option {
            DecisionOption::Accept => {
                let (moved, rule) = self.accept(submission)?;
                (moved, Some(rule))
            }
            DecisionOption::Revise => {
                let mut counters = counters.clone();
                counters.revisions = 0;
                counters.attempts = 0;
                let moved =
                    Moved { state: self.stay(Phase::Pending, context(), counters), edge_label: None, follow: vec![] };
                (moved, None)
            }
            DecisionOption::Replan => {
                let selected =
                    match edges::select(self.loaded, step, counters, &conditions, submission.choice.as_deref()) {
                        Selection::Edge(edge, _) if edge.kind == EdgeKind::Replan => Some(edge),
                        _ => step
                            .edges
                            .iter()
                            .find(|edge| edge.kind == EdgeKind::Replan && !edges::exhausted(step, edge, counters)),
                    };
                match selected {
                    Some(edge) => {
                        (self.take(step, Some(edge), context(), counters, submission.clone(), true)?, person(edge))
                    }
                    None => (self.no_eligible_edge(step, context(), counters.clone()), Some(Rule::NoWayOn)),
                }
            }
            DecisionOption::Proceed => match proceed_edge(self.loaded, step, counters, &conditions) {
                Some(edge) => {
                    (self.take(step, Some(edge), context(), counters, submission.clone(), false)?, person(edge))
                }
                None => (self.no_eligible_edge(step, context(), counters.clone()), Some(Rule::NoWayOn)),
            },
            DecisionOption::Stop => {
                // No node is created, so the decision points at the node it was made on.
                let decided =
                    EventKind::HumanDecided { node: self.view.node, to: self.view.node, option, note: note.clone() };
                let stopped = EventKind::RunStopped { reason: note };
                return Ok(Transition { events: vec![decided, stopped], node: None, control: Control::Stopped });
            }
        };
        let event = EventKind::HumanDecided { node: self.view.node, to: self.fresh.node, option, note };
        Ok(self.created(NodeKind::Decision, moved, event, rule))
    }

    fn checkpoint(&self, attempt: Option<AttemptId>, notes: Option<String>) -> Result<Transition, Error> {
        check_optional("the notes", "MAX_NOTES_BYTES", notes.as_deref(), MAX_NOTES_BYTES)?;
        let phase = self.step()?.phase.clone();
        let event = EventKind::CheckpointRecorded { node: self.view.node, attempt, notes, automatic: false, phase };
        Ok(self.control_only(event, self.view.control))
    }
}

/// Most steps a run may skip in a row before the engine calls the chain a fault: far beyond any
/// real workflow, small enough to stop a cycle of skipped steps at once.
const MAX_SKIPS: usize = 10_000;

/// Lands the run after it left `from` (`None` at start) for `target` (`None`: the run
/// completes): steps whose run condition is false are skipped, moving on along their edges as
/// an advance with no input would, and recorded in `Counters::skipped`. Returns the new state;
/// `follow` gets the automatic phase checkpoints and `RunCompleted` or `RunFailed`.
fn settle(
    loaded: &LoadedWorkflow,
    landing: Landing<'_>,
    from: Option<&Step>,
    target: Option<&Step>,
    mut context: Map<String, Value>,
    mut counters: Counters,
    follow: &mut Vec<EventKind>,
) -> Result<NodeState, Error> {
    let Landing { goal, project, node, snapshot, trace } = landing;
    let mut from = from;
    let mut target = target;
    let mut skipped = Vec::new();
    loop {
        if let Some(phase) = from
            .and_then(|from| from.phase.as_ref())
            .filter(|phase| target.is_none_or(|target| target.phase.as_ref() != Some(*phase)))
        {
            follow.push(EventKind::CheckpointRecorded {
                node,
                attempt: None,
                notes: None,
                automatic: true,
                phase: Some(phase.clone()),
            });
        }
        let Some(step) = target else {
            let last = from.map(|from| from.id.clone()).unwrap_or_else(|| loaded.workflow.entry.clone());
            counters.skipped = skipped;
            follow.push(EventKind::RunCompleted { node });
            return Ok(NodeState {
                step: last,
                phase: Phase::Completed,
                context,
                counters,
                rejection: None,
                snapshot: None,
            });
        };
        counters.attempts = 0;
        counters.revisions = 0;
        let scope =
            Scope { context: &context, artifacts: None, goal, cycle: counters.cycles, attempt: 1, run_step: false };
        let conditions = Conditions::traced(&loaded.workflow, &scope, trace);
        if loaded.runs(&step.id, &conditions, project) {
            counters.skipped = skipped;
            // A step whose evidence compares with the workspace as it is now gets the snapshot
            // the runtime took for it; it is carried to the step's retries from here.
            let snapshot = snapshot.filter(|_| loaded.workflow.needs_snapshot(&step.id));
            return Ok(NodeState {
                step: step.id.clone(),
                phase: Phase::Pending,
                context,
                counters,
                rejection: None,
                snapshot,
            });
        }
        skipped.push(step.id.clone());
        let fail =
            |code: FailureCode, message: String, context, mut counters: Counters, skipped, follow: &mut Vec<_>| {
                counters.skipped = skipped;
                follow.push(EventKind::RunFailed { node, code: code.as_str().to_owned(), message: message.clone() });
                Ok(NodeState {
                    step: step.id.clone(),
                    phase: Phase::Failed { code, message },
                    context,
                    counters,
                    rejection: None,
                    snapshot: None,
                })
            };
        if skipped.len() > MAX_SKIPS {
            let message = format!(
                "more than {MAX_SKIPS} steps were skipped in a row, ending at `{}`: the run conditions form a cycle",
                step.id
            );
            return fail(FailureCode::ConditionError, message, context, counters, skipped, follow);
        }
        let position = {
            let snapshot = counters.clone();
            match edges::select(loaded, step, &snapshot, &conditions, None) {
                Selection::Edge(edge, _) => Some(edge),
                Selection::Complete => None,
                Selection::Issue(_) => match edges::fallback(step, &snapshot) {
                    Some(edge) => Some(edge),
                    None => {
                        let message = format!("step `{}` was skipped, but none of its edges can be taken", step.id);
                        return fail(FailureCode::NoEligibleEdge, message, context, counters, skipped, follow);
                    }
                },
                Selection::NoEligibleEdge => {
                    let message = format!("step `{}` was skipped, but every one of its edges is used up", step.id);
                    return fail(FailureCode::NoEligibleEdge, message, context, counters, skipped, follow);
                }
            }
            .and_then(|edge| step.edges.iter().position(|candidate| std::ptr::eq(candidate, edge)))
        };
        let edge = position.map(|position| &step.edges[position]);
        if let Some(edge) = edge {
            if let Err((code, message)) = count(loaded, step, edge, &mut counters) {
                return fail(code, message, context, counters, skipped, follow);
            }
            match assigned(loaded, step, edge, &conditions) {
                Ok(values) => assign(values, &mut context),
                Err(message) => return fail(FailureCode::ConditionError, message, context, counters, skipped, follow),
            }
        }
        from = Some(step);
        target = match edge.map(|edge| &edge.target) {
            Some(EdgeTarget::Step(next)) => Some(loaded.step(next)?),
            Some(EdgeTarget::Complete) | None => None,
        };
    }
}

/// What landing a run on a node needs besides the workflow: the run's goal (conditions read it)
/// and project commands (a step running one the run lacks is skipped), the node's id, the
/// workspace snapshot for it, and the trace its conditions are written down in.
struct Landing<'a> {
    goal: &'a str,
    project: &'a ProjectCommands,
    node: switchyard_core::id::NodeId,
    snapshot: Option<Snapshot>,
    trace: &'a Trace,
}

/// The rule of a command that chose `rule`, given where the run went: a chosen edge the limits
/// refused failed the run or asks a person.
fn decided(rule: Rule, moved: &Moved) -> Rule {
    if !rule.chose_edge() || moved.edge_label.is_some() {
        return rule;
    }
    match &moved.state.phase {
        Phase::Failed { .. } => Rule::NoWayOn,
        Phase::WaitingForHumanDecision { .. } => Rule::Gate,
        _ => rule,
    }
}

/// Counts an edge taken out of a skipped step against the limits.
fn count(
    loaded: &LoadedWorkflow,
    step: &Step,
    edge: &Edge,
    counters: &mut Counters,
) -> Result<(), (FailureCode, String)> {
    let limits = loaded.workflow.limits;
    match edge.kind {
        EdgeKind::Normal => {}
        EdgeKind::Loop => {
            counters.cycles = counters.cycles.saturating_add(1);
            if counters.cycles > limits.max_cycles {
                return Err((
                    FailureCode::MaxCyclesExceeded,
                    format!(
                        "loop edge `{}` of skipped step `{}` would start cycle {}, past max_cycles = {}",
                        edge.label, step.id, counters.cycles, limits.max_cycles
                    ),
                ));
            }
        }
        EdgeKind::Replan => {
            counters.replans = counters.replans.saturating_add(1);
            if counters.replans > limits.max_replan_attempts {
                return Err((
                    FailureCode::NoEligibleEdge,
                    format!(
                        "replan edge `{}` of skipped step `{}` is past max_replan_attempts = {}",
                        edge.label, step.id, limits.max_replan_attempts
                    ),
                ));
            }
        }
    }
    if edge.max_traversals.is_some() {
        let used = counters.traversals.entry(edges::traversal_key(step, edge)).or_insert(0);
        *used = used.saturating_add(1);
    }
    Ok(())
}

/// The values the assignments of `edge` give, computed in the scope before any of them is made.
fn assigned(
    loaded: &LoadedWorkflow,
    step: &Step,
    edge: &Edge,
    conditions: &Conditions<'_>,
) -> Result<Vec<(String, Value)>, String> {
    let Some(position) = step.edges.iter().position(|candidate| std::ptr::eq(candidate, edge)) else {
        return Ok(Vec::new());
    };
    loaded
        .assignments(&step.id, position)
        .iter()
        .map(|(name, program)| {
            let value = conditions.value(program).map_err(|error| {
                format!("the assignment of `{name}` on edge `{}` of step `{}` failed: {error}", edge.label, step.id)
            })?;
            Ok((name.clone(), value))
        })
        .collect()
}

/// Makes the assignments: a null value removes the variable.
fn assign(values: Vec<(String, Value)>, context: &mut Map<String, Value>) {
    for (name, value) in values {
        if value.is_null() {
            context.remove(&name);
        } else {
            context.insert(name, value);
        }
    }
}

/// The edge "proceed" takes: the default, else the first, of the non-replan edges that are not
/// used up and whose condition (if any) holds.
fn proceed_edge<'w>(
    loaded: &LoadedWorkflow,
    step: &'w Step,
    counters: &Counters,
    conditions: &Conditions,
) -> Option<&'w Edge> {
    let programs = loaded.conditions(&step.id);
    let open: Vec<&Edge> = step
        .edges
        .iter()
        .zip(programs)
        .filter(|(edge, program)| {
            edge.kind != EdgeKind::Replan
                && !edges::exhausted(step, edge, counters)
                && program.as_ref().is_none_or(|program| conditions.holds(program))
        })
        .map(|(edge, _)| edge)
        .collect();
    open.iter().find(|edge| edge.default).or(open.first()).copied()
}

fn context_type_issues(loaded: &LoadedWorkflow, values: &Map<String, Value>) -> Vec<ValidationIssue> {
    values
        .iter()
        .filter_map(|(key, value)| {
            let variable = loaded.workflow.variable(key)?;
            (!variable.value_type.admits(value)).then(|| ValidationIssue {
                code: "CONTEXT_TYPE".to_owned(),
                path: format!("/context/{key}"),
                message: format!(
                    "`{key}` is declared {}, but got {}: send a {} value, or null to delete the key",
                    variable.value_type.name(),
                    json_type(value),
                    variable.value_type.name()
                ),
            })
        })
        .collect()
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn check_context_values(values: &Map<String, Value>) -> Result<(), Error> {
    let deepest = values.values().map(json_depth).max().unwrap_or(0);
    check_size("a context value's nesting", "MAX_JSON_DEPTH", deepest, MAX_JSON_DEPTH)
}

fn check_size(what: &'static str, limit: &'static str, size: usize, max: usize) -> Result<(), Error> {
    if size > max {
        let unit = if limit == "MAX_JSON_DEPTH" { "levels of nesting" } else { "bytes" };
        return Err(Error::InputTooLarge { what, limit, unit, size, max });
    }
    Ok(())
}

fn check_optional(what: &'static str, limit: &'static str, text: Option<&str>, max: usize) -> Result<(), Error> {
    check_size(what, limit, text.map_or(0, str::len), max)
}

fn compact_len<T: serde::Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |bytes| bytes.len())
}
