//! The loop: ask the runtime where the run stands, give the model the pending step, run its tool
//! calls, record the turn, and go on until the run ends or the runner must stop.
//!
//! Every decision about the run is the runtime's: a `complete_step` is the same advance any door
//! sends (with the node's first-attempt token, so a call sent again after a crash is a replay,
//! never a second advance), a gate waits for `Runtime::approve`, and stopping early is
//! `Runtime::pause`. The loop reads the run's tip at the top of every step, so a runner killed
//! anywhere picks the run up where its log says it is.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;
use switchyard_catalog::Catalog;
use switchyard_core::turn::{
    ModelTurn, Refusal, TurnRequest, TurnResponse, TurnToolCall, TurnToolResult, TurnUsage, bounded,
};
use switchyard_core::workflow::StepId;
use switchyard_core::{Control, NodeId, RunId, SessionId};
use switchyard_llm::{ChatRequest, ChatResponse, Finish, Message, Retry, ToolCall, Usage};
use switchyard_runtime::{ResponseKind, StepResponse, Target as RunTarget};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::conversation::{BYTES_PER_TOKEN, Conversation};
use crate::event::{PauseReason, RunSummary, RunnerEvent};
use crate::models::ModelSpec;
use crate::prompt::{self, PromptFacts, system_prompt};
use crate::tools::{self, Parsed, StepTools};
use crate::watch::{Budget, Scope, StuckWatch};
use crate::{Error, Outcome, Runner, Target};

mod command;
mod remedy;

use self::remedy::Remedies;

/// The note an approval by `--auto-approve` carries, so the log says who approved.
pub(crate) const AUTO_APPROVAL_NOTE: &str = "approved automatically by switchyard run --auto-approve";

/// The most turns of a step a resumed conversation restores from the transcript (then trimmed
/// to the model's window like any conversation).
const RESTORED_TURNS: usize = 200;

/// Arguments of a refused call longer than this are not sent back with later requests.
const KEEP_REFUSED_ARGUMENTS_BYTES: usize = 2048;

/// What the runner adds when the model answers with text instead of a tool call.
const CALL_A_TOOL: &str = "Answer with tool calls only: use the file tools to do the step, `checkpoint` to record progress, and `complete_step` when the step is done.";

/// Where a turn or a wait leaves the loop.
enum Next {
    /// Go on: ask the runtime where the run stands.
    Continue,
    /// Stop driving and leave the run paused.
    Pause(PauseReason, String),
}

/// The step being worked on and what it used so far.
struct StepState {
    node: NodeId,
    step: StepId,
    model_name: String,
    spec: ModelSpec,
    budget: Budget,
    stuck: StuckWatch,
    tool_errors: u32,
    continue_token: Option<String>,
    checkpoint_token: Option<String>,
    /// The tools offered, `complete_step`'s schema marking what this step requires.
    tools: StepTools,
    /// Answers of this step cut at `max_tokens`.
    cut_answers: u32,
    span: tracing::Span,
}

/// What sending a request came to.
enum Sent {
    Answer(ChatResponse),
    /// The server failed in a way the retries did not mend.
    Failed(switchyard_llm::Error),
    /// Ctrl-C or SIGTERM while waiting.
    Interrupted,
}

/// What one tool call came to.
struct ToolOutcome {
    ok: bool,
    content: String,
    /// A file was written, a checkpoint recorded or the step advanced.
    progressed: bool,
    /// The run's tip moved: the step was completed or blocked (or a write moved the run).
    moved: bool,
    /// A refusal the metrics count apart from other errors.
    refusal: Option<Refusal>,
}

impl ToolOutcome {
    fn error(code: &str, message: impl Into<String>) -> Self {
        let content = json!({ "error": { "code": code, "message": message.into() } }).to_string();
        Self { ok: false, content, progressed: false, moved: false, refusal: None }
    }
}

/// What a run's workflow looks like, for the display.
struct Shape {
    title: String,
    steps: Vec<StepId>,
    /// Every step has at most one edge: "step k of n" makes sense.
    is_line: bool,
}

pub(crate) struct Drive<'a> {
    runner: &'a Runner,
    events: UnboundedSender<RunnerEvent>,
    cancel: CancellationToken,
    summary: RunSummary,
    started: Instant,
    budget: Budget,
    /// Every turn so far had a price: the cost is known.
    priced: bool,
    next_turn: u32,
    /// The run's workspace, where its commands run (`None`: the configured default).
    workspace: Option<PathBuf>,
}

impl<'a> Drive<'a> {
    pub(crate) fn new(runner: &'a Runner, events: UnboundedSender<RunnerEvent>, cancel: CancellationToken) -> Self {
        Self {
            runner,
            events,
            cancel,
            summary: RunSummary::default(),
            started: Instant::now(),
            budget: Budget::new(),
            priced: true,
            next_turn: 1,
            workspace: None,
        }
    }

    fn emit(&self, event: RunnerEvent) {
        // Nobody watching is not an error: the run goes on.
        let _ = self.events.send(event);
    }

    pub(crate) async fn run(mut self, target: Target) -> Result<Outcome, Error> {
        let runtime = std::sync::Arc::clone(&self.runner.runtime);
        let (run, resumed) = match target {
            Target::Start(request) => {
                let catalog = &self.runner.catalog;
                let found = match (request.workflow.as_deref(), request.file.as_deref()) {
                    (_, Some(file)) => Some(Catalog::file(file)?),
                    (Some(name), None) => Some(catalog.find(name)?),
                    // The runtime's start refuses it, saying what to pass.
                    (None, None) => None,
                };
                if let Some(workflow) = found.as_ref().and_then(|found| found.compiled.workflow.as_ref()) {
                    self.runner
                        .models
                        .check(workflow.steps.iter().map(|step| (step.id.as_str(), step.model.as_deref())))?;
                }
                (runtime.start(catalog, request).await?.run, false)
            }
            Target::Resume(run) => {
                let record = runtime.run(&RunTarget::Run(run)).await?;
                let loaded = runtime.pinned_workflow(record.workflow_hash).await?;
                self.runner
                    .models
                    .check(loaded.workflow.steps.iter().map(|step| (step.id.as_str(), step.model.as_deref())))?;
                if record.control == Control::Paused {
                    runtime.resume(run).await?;
                }
                (run, true)
            }
        };
        let record = runtime.run(&RunTarget::Run(run)).await?;
        let session = runtime.session(record.session).await?;
        self.workspace = session.workspace.as_deref().map(PathBuf::from);
        let loaded = runtime.pinned_workflow(record.workflow_hash).await?;
        let shape = Shape {
            title: loaded.workflow.title.clone(),
            steps: loaded.workflow.steps.iter().map(|step| step.id.clone()).collect(),
            is_line: loaded.workflow.steps.iter().all(|step| step.edges.len() <= 1),
        };
        self.next_turn = runtime.last_turn(run).await?.map_or(1, |recorded| recorded.turn.turn + 1);
        self.emit(RunnerEvent::RunStarted {
            run: run.to_string(),
            session: session.id.to_string(),
            workflow: record.workflow_id.clone(),
            resumed,
        });
        let span = tracing::info_span!("run", run = %run, workflow = %record.workflow_id, resumed);
        self.drive(run, session.id, &session.goal, &shape, resumed).instrument(span).await
    }

    async fn drive(
        &mut self,
        run: RunId,
        session: SessionId,
        goal: &str,
        shape: &Shape,
        resumed: bool,
    ) -> Result<Outcome, Error> {
        let runtime = std::sync::Arc::clone(&self.runner.runtime);
        let mut conversation = Conversation::default();
        let mut current: Option<StepState> = None;
        // The step as last shown. It stays true while the run's tip and control stay as they were,
        // which one read of the run tells; a show renders the step and claims tokens (writes).
        let mut last_shown: Option<StepResponse> = None;
        loop {
            if self.cancel.is_cancelled() {
                return self.pause(run, PauseReason::Interrupted, "interrupted".to_owned()).await;
            }
            let record = runtime.run(&RunTarget::Run(run)).await?;
            let shown = match last_shown.take() {
                Some(shown)
                    if shown.node == record.tip
                        && record.control == Control::Running
                        && matches!(shown.kind, ResponseKind::Ok | ResponseKind::Blocked) =>
                {
                    shown
                }
                _ => runtime.show(&RunTarget::Run(run)).await?,
            };
            match shown.kind {
                ResponseKind::Complete | ResponseKind::Failed | ResponseKind::Stopped => {
                    return Ok(self.finish(run, &shown));
                }
                ResponseKind::Paused => {
                    let message = "the run was paused from elsewhere".to_owned();
                    return Ok(self.paused(run, PauseReason::PausedElsewhere, message));
                }
                ResponseKind::WaitingGate | ResponseKind::WaitingForHumanDecision => {
                    let waiting_since = Instant::now();
                    let next = self.wait_for_person(run, session, &shown).await?;
                    // A step reworked after a rejection keeps its budget, less the wait.
                    if let Some(state) = current.as_mut() {
                        state.budget.waited(waiting_since.elapsed());
                    }
                    match next {
                        Next::Continue => continue,
                        Next::Pause(reason, message) => return self.pause(run, reason, message).await,
                    }
                }
                ResponseKind::Ok | ResponseKind::Blocked => {}
            }
            let Some(step) = shown.step.as_ref() else {
                return Err(Error::NoPendingStep { run: run.to_string(), status: shown.status.to_string() });
            };
            if step.run.is_some() {
                // A step switchyard runs itself, left pending (a crash before it ran): its token,
                // sent with nothing, runs it; no model sees it.
                if let Some(token) = runtime.first_attempt_token(shown.node).await? {
                    last_shown =
                        Some(runtime.advance(&token, Some(run), switchyard_runtime::AdvanceInput::default()).await?);
                    continue;
                }
            }
            if current.as_ref().is_none_or(|state| state.node != shown.node) {
                let new_step = current.as_ref().is_none_or(|state| state.step != step.step);
                if new_step {
                    let (name, spec) = self.runner.models.for_step(step.model.as_deref())?;
                    let index = shape.steps.iter().position(|id| *id == step.step);
                    let total = u32::try_from(shape.steps.len()).ok();
                    self.emit(RunnerEvent::StepStarted {
                        step: step.step.to_string(),
                        title: step.title.clone(),
                        index: index.and_then(|index| u32::try_from(index + 1).ok()).filter(|_| shape.is_line),
                        total: total.filter(|_| shape.is_line),
                        role: step.role.clone(),
                        model: name.to_owned(),
                    });
                    current = Some(StepState {
                        node: shown.node,
                        step: step.step.clone(),
                        model_name: name.to_owned(),
                        spec: spec.clone(),
                        budget: Budget::new(),
                        stuck: StuckWatch::default(),
                        tool_errors: 0,
                        continue_token: None,
                        checkpoint_token: None,
                        tools: StepTools::for_step(
                            step,
                            self.runner.options.commands.as_ref().map(|commands| commands.allow.prefixes()),
                        ),
                        cut_answers: 0,
                        span: tracing::info_span!("step", step = %step.step, model = name),
                    });
                }
                let state = current.as_mut().expect("set above");
                state.node = shown.node;
                state.continue_token = runtime.first_attempt_token(shown.node).await?;
                state.checkpoint_token = shown.tokens.checkpoint_token.clone();
                let persona = step.role.as_deref().and_then(|role| self.runner.options.personas.get(role));
                let facts = PromptFacts { workflow_title: &shape.title, goal, persona: persona.map(String::as_str) };
                let system = system_prompt(step.role.as_deref(), facts);
                let task = prompt::task(&shown).unwrap_or_default();
                let reset = new_step && step.context_reset;
                if conversation.is_empty() || reset {
                    // A fresh conversation knows the run only from the recap: give it one unless
                    // the run has just begun.
                    let recap = if reset || resumed {
                        let recap = runtime.recap(shown.node, self.runner.options.recap_budget_bytes).await?;
                        Some(format!("What happened in this run so far (a recap):\n\n{}", recap.text))
                            .filter(|_| !recap.text.trim().is_empty())
                    } else {
                        None
                    };
                    let first = conversation.is_empty();
                    conversation = Conversation::fresh(system, recap, task);
                    if first && resumed && !reset {
                        // The step's turns before the runner stopped: the model need not redo
                        // the reads it had done.
                        let turns = runtime.step_transcript(run, &step.step, RESTORED_TURNS).await?;
                        conversation.restore(&turns);
                    }
                } else {
                    conversation.set_system(system);
                    if new_step {
                        conversation.hand_out(format!(
                            "The previous step is done; the run moved on to the next one.\n\n{task}"
                        ));
                    } else if let Some(reason) = &step.rejection {
                        conversation.push_user(format!(
                            "A person rejected your result for this step: {reason}\nRework the step and call `complete_step` again."
                        ));
                    }
                }
            }
            let state = current.as_mut().expect("set above");
            let span = state.span.clone();
            match self.turn(run, &mut conversation, state).instrument(span).await? {
                Next::Continue => last_shown = Some(shown),
                Next::Pause(reason, message) => return self.pause(run, reason, message).await,
            }
        }
    }

    /// One request to the model and its tool calls, unless a limit was reached.
    async fn turn(
        &mut self,
        run: RunId,
        conversation: &mut Conversation,
        state: &mut StepState,
    ) -> Result<Next, Error> {
        let runner = self.runner;
        if let Some(limit) = self.budget.exceeded(&runner.options.run_limits, Scope::Run) {
            return Ok(Next::Pause(PauseReason::LimitReached, limit));
        }
        if let Some(limit) = state.budget.exceeded(&runner.options.step_limits, Scope::Step(state.step.as_str())) {
            return Ok(Next::Pause(PauseReason::LimitReached, limit));
        }
        let span =
            tracing::info_span!("turn", run = %run, node = %state.node, step = %state.step, turn = self.next_turn);
        self.request_and_act(run, conversation, state).instrument(span).await
    }

    async fn request_and_act(
        &mut self,
        run: RunId,
        conversation: &mut Conversation,
        state: &mut StepState,
    ) -> Result<Next, Error> {
        let turn = self.next_turn;
        let mut trimmed = 0;
        let mut remedies = Remedies::default();
        let sent = Instant::now();
        let (response, sent_messages, sent_tools, sent_bytes) = loop {
            let quirks = self.runner.quirks(&state.model_name);
            let window =
                state.spec.context_window_tokens.map(|window| room_for_messages(window, &state.spec, &state.tools));
            if let Some(room) = window.into_iter().chain(quirks.room).min() {
                trimmed += conversation.trim_to(room);
            }
            let request = ChatRequest {
                model: state.spec.model_id.clone(),
                messages: conversation.messages().into(),
                tools: state.tools.specs().into(),
                temperature: state.spec.temperature,
                max_tokens: state.spec.max_tokens,
                stream: state.spec.stream || quirks.stream,
            };
            let sent_messages = u32::try_from(request.messages.len()).unwrap_or(u32::MAX);
            let sent_tools = u32::try_from(request.tools.len()).unwrap_or(u32::MAX);
            let sent_bytes = conversation.bytes() + state.tools.bytes();
            let error = match self.send(&state.model_name, &state.spec, &request).await? {
                Sent::Answer(response) => break (response, sent_messages, sent_tools, sent_bytes),
                Sent::Interrupted => return Ok(Next::Pause(PauseReason::Interrupted, "interrupted".to_owned())),
                Sent::Failed(error) => error,
            };
            if let Some(pause) = self.remedy(&error, conversation, state, &mut remedies) {
                return Ok(Next::Pause(pause.0, pause.1));
            }
        };
        let latency_ms = u64::try_from(sent.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.next_turn += 1;
        let (message, finish, finish_reason) = match response.choices.into_iter().next() {
            Some(choice) => {
                let finish = choice.finish();
                (choice.message, finish, choice.finish_reason)
            }
            None => (Message::calling(Vec::new()), Finish::Other, None),
        };
        let (usage, estimated) = counted_usage(response.usage, sent_bytes, &message);
        for budget in [&mut self.budget, &mut state.budget] {
            budget.turns += 1;
            budget.tokens += usage.total();
        }
        self.summary.turns += 1;
        self.summary.prompt_tokens += usage.prompt_tokens;
        self.summary.completion_tokens += usage.completion_tokens;
        self.summary.tokens_estimated |= estimated;
        let cost = state.spec.price.map(|price| price.cost(&usage));
        match cost {
            Some(cost) => *self.summary.cost_usd.get_or_insert(0.0) += cost,
            None => self.priced = false,
        }
        let (new_messages, fresh) = conversation.take_unrecorded();
        let recorded_request = TurnRequest {
            messages: sent_messages,
            tools: sent_tools,
            fresh,
            trimmed: trimmed + remedies.trimmed,
            new_messages,
        };
        let text = message.content.as_deref().filter(|text| !text.trim().is_empty()).map(bounded);
        let cut = finish == Finish::Length;
        state.cut_answers += u32::from(cut);
        let calls = if message.tool_calls.is_empty() && text.is_none() {
            // An empty answer goes back as nothing: a message with neither text nor calls is
            // one strict servers refuse. The nudge says what happened.
            state.tool_errors += 1;
            self.summary.tool_errors += 1;
            conversation.push_user(empty_answer(&state.spec, finish, finish_reason.as_deref()));
            Vec::new()
        } else {
            let mut message = message;
            let quirks = self.runner.quirks(&state.model_name);
            if state.spec.send_reasoning == Some(false)
                || (state.spec.send_reasoning.is_none() && quirks.refuses_reasoning)
            {
                message.reasoning_content = None;
            }
            let calls = conversation.push_assistant(message);
            if calls.is_empty() {
                state.tool_errors += 1;
                self.summary.tool_errors += 1;
                conversation.push_user(if cut { answer_cut(&state.spec) } else { CALL_A_TOOL.to_owned() });
            }
            calls
        };
        let recorded_response = TurnResponse {
            text,
            tool_calls: calls
                .iter()
                .map(|call| TurnToolCall {
                    id: bounded(&call.id),
                    name: bounded(&call.function.name),
                    arguments: bounded(&call.function.arguments),
                })
                .collect(),
            finish_reason,
        };
        let mut results = Vec::with_capacity(calls.len());
        let mut progressed = false;
        let mut moved = false;
        let mut stuck: Option<String> = None;
        for call in &calls {
            let started = Instant::now();
            let outcome = if moved {
                ToolOutcome::error("NOT_RUN", "not run: an earlier call of this turn already completed the step")
            } else {
                let repeats = state.stuck.call(&call.function.name, &call.function.arguments);
                if repeats >= self.runner.options.stuck_repeats && stuck.is_none() {
                    stuck = Some(format!(
                        "the model called `{}` with the same arguments {repeats} times in a row",
                        call.function.name
                    ));
                }
                let span = tracing::info_span!("tool_call", tool = %call.function.name, call = %call.id);
                self.call_tool(run, state, call, cut).instrument(span).await?
            };
            // A blocked report stays: the model mends it from what it sent.
            if !outcome.ok && outcome.refusal != Some(Refusal::Blocked) {
                conversation.forget_arguments(&call.id, KEEP_REFUSED_ARGUMENTS_BYTES);
            }
            let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            self.summary.tool_calls += 1;
            self.summary.tool_call_ms += micros / 1000;
            progressed |= outcome.progressed;
            moved |= outcome.moved;
            self.emit(RunnerEvent::ToolCalled {
                step: state.step.to_string(),
                tool: call.function.name.clone(),
                ok: outcome.ok,
                summary: summary_of(&outcome.content),
            });
            results.push(TurnToolResult {
                call_id: call.id.clone(),
                name: call.function.name.clone(),
                ok: outcome.ok,
                content: bounded(&outcome.content),
                micros,
                refusal: outcome.refusal,
            });
            conversation.push_tool(&call.id, outcome.content);
        }
        let record = ModelTurn {
            node: state.node,
            step: state.step.clone(),
            turn,
            model: state.model_name.clone(),
            request: recorded_request,
            response: recorded_response,
            tool_results: results,
            usage: TurnUsage {
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
                estimated,
            },
            latency_ms,
            cost_usd: cost,
        };
        self.runner.runtime.record_turn(run, record).await?;
        self.emit(RunnerEvent::Turn {
            step: state.step.to_string(),
            turn,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            tokens_estimated: estimated,
            latency_ms,
            cost_usd: self.cost(),
        });
        let without_progress = state.stuck.turn(progressed || moved);
        if moved {
            state.tool_errors = 0;
            return Ok(Next::Continue);
        }
        if let Some(stuck) = stuck {
            return Ok(Next::Pause(PauseReason::Stuck, stuck));
        }
        if without_progress >= self.runner.options.stuck_turns {
            let message =
                format!("{without_progress} turns in a row without a file written, a checkpoint or the step completed");
            return Ok(Next::Pause(PauseReason::Stuck, message));
        }
        if state.tool_errors >= self.runner.options.max_tool_errors {
            let mut message = format!(
                "the model made {} malformed or unknown tool calls (or answered without one) in step `{}`",
                state.tool_errors, state.step
            );
            if state.cut_answers > 0 {
                let _ = write!(
                    message,
                    "; {} of its answers were cut at max_tokens: {}",
                    state.cut_answers,
                    raise_max_tokens(&state.model_name, &state.spec)
                );
            }
            return Ok(Next::Pause(PauseReason::ToolErrors, message));
        }
        Ok(Next::Continue)
    }

    /// Runs one tool call; `cut` says the answer holding it was cut at `max_tokens`.
    async fn call_tool(
        &mut self,
        run: RunId,
        state: &mut StepState,
        call: &ToolCall,
        cut: bool,
    ) -> Result<ToolOutcome, Error> {
        let parsed = match state.tools.parse(&call.function.name, &call.function.arguments) {
            Ok(parsed) => parsed,
            Err(message) => {
                state.tool_errors += 1;
                self.summary.tool_errors += 1;
                if cut {
                    let message = format!("{message}. {}", answer_cut(&state.spec));
                    return Ok(ToolOutcome::error("ANSWER_CUT", message));
                }
                return Ok(ToolOutcome::error("INVALID_TOOL_CALL", message));
            }
        };
        match parsed {
            Parsed::File { name, arguments } => {
                match self.runner.files.call(&name, arguments, Some(run)).await {
                    Ok(text) => {
                        let wrote = tools::writes(&name);
                        // A write to the state document moves the run as an advance would.
                        let moved = wrote && self.runner.runtime.run(&RunTarget::Run(run)).await?.tip != state.node;
                        Ok(ToolOutcome { ok: true, content: text, progressed: wrote, moved, refusal: None })
                    }
                    Err(error) => {
                        if error.security {
                            self.summary.violations += 1;
                        }
                        let refusal = error.security.then_some(Refusal::Violation);
                        let content = json!({ "error": { "code": error.code, "message": error.message, "details": error.details } });
                        Ok(ToolOutcome {
                            ok: false,
                            content: content.to_string(),
                            progressed: false,
                            moved: false,
                            refusal,
                        })
                    }
                }
            }
            Parsed::Checkpoint(arguments) => {
                // A point of a run takes one checkpoint (the runtime records it once).
                let Some(token) = state.checkpoint_token.take() else {
                    return Ok(ToolOutcome::error(
                        "NO_CHECKPOINT",
                        "a checkpoint is already recorded at this point of the step: go on, and report the rest with complete_step",
                    ));
                };
                match self.runner.runtime.checkpoint(&token, Some(run), Some(arguments.notes)).await {
                    Ok(_) => Ok(ToolOutcome {
                        ok: true,
                        content: json!({ "status": "recorded" }).to_string(),
                        progressed: true,
                        moved: false,
                        refusal: None,
                    }),
                    Err(error) => refused(error),
                }
            }
            Parsed::RunCommand(arguments) => Ok(self.run_command(run, state, arguments.argv).await),
            Parsed::CompleteStep(arguments) => {
                let Some(token) = state.continue_token.clone() else {
                    return Ok(ToolOutcome::error("NO_STEP", "the run takes no report now"));
                };
                let response = match self.runner.runtime.advance(&token, Some(run), arguments.into()).await {
                    Ok(response) => response,
                    Err(error) => {
                        let mut outcome = refused(error)?;
                        // Another door may have moved the run (the report is then not this
                        // runner's to send): look at the run again before the next turn.
                        outcome.moved = self.runner.runtime.run(&RunTarget::Run(run)).await?.tip != state.node;
                        return Ok(outcome);
                    }
                };
                Ok(self.completed(state, &response))
            }
        }
    }

    /// What an accepted, blocked or failing `complete_step` tells the model and the watchers.
    fn completed(&mut self, state: &StepState, response: &StepResponse) -> ToolOutcome {
        let content = match response.kind {
            ResponseKind::Blocked => {
                self.summary.blocked_attempts += 1;
                let issues =
                    response.validation.as_ref().map(|validation| validation.issues.clone()).unwrap_or_default();
                let reason: Vec<String> =
                    issues.iter().map(|issue| format!("{}: {}", issue.code, issue.message)).collect();
                self.emit(RunnerEvent::StepBlocked {
                    step: state.step.to_string(),
                    attempt: response.progress.attempts,
                    reason: reason.join("; "),
                });
                json!({
                    "status": "blocked",
                    "issues": issues,
                    "attempts_left": response.step.as_ref().map(|step| step.attempts_left),
                    "what_to_do": "Fix what the issues say and call complete_step again.",
                })
            }
            ResponseKind::Failed => {
                let failure = response.failure.as_ref().map(|failure| failure.message.clone()).unwrap_or_default();
                json!({ "status": "failed", "message": failure })
            }
            _ => {
                self.summary.steps_completed += 1;
                let next = response.step.as_ref().map(|step| step.step.to_string());
                self.emit(RunnerEvent::StepCompleted { step: state.step.to_string(), next: next.clone() });
                let what_next = match response.kind {
                    ResponseKind::WaitingGate => "A person reviews the result before the run moves on.",
                    ResponseKind::Complete => "The run is complete.",
                    _ => "The next step follows.",
                };
                json!({ "status": "accepted", "next_step": next, "message": what_next })
            }
        };
        ToolOutcome {
            ok: !matches!(response.kind, ResponseKind::Blocked | ResponseKind::Failed),
            content: content.to_string(),
            progressed: true,
            moved: true,
            refusal: (response.kind == ResponseKind::Blocked).then_some(Refusal::Blocked),
        }
    }

    /// Sends a request, again after a retryable failure as the retry policy says (the model
    /// client's backoff, jitter and `Retry-After`). The error stops the drive; a failure the
    /// retries did not mend is the model's answer, for [`Self::remedy`].
    async fn send(&mut self, model_name: &str, spec: &ModelSpec, request: &ChatRequest<'_>) -> Result<Sent, Error> {
        let client = match self.runner.client(model_name, spec) {
            Ok(client) => client,
            Err(error) => return Ok(Sent::Failed(error)),
        };
        let events = self.events.clone();
        let on_retry = move |retry: Retry| {
            let _ = events.send(RunnerEvent::Retrying {
                attempt: retry.attempt,
                delay_ms: u64::try_from(retry.delay.as_millis()).unwrap_or(u64::MAX),
                reason: retry.error.message,
            });
        };
        let policy = self.runner.options.retry.for_client();
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Ok(Sent::Interrupted),
            result = client.complete_with_retries(request, &policy, on_retry) => Ok(match result {
                Ok(response) => Sent::Answer(response),
                Err(error) => Sent::Failed(error),
            }),
        }
    }

    /// Waits for a person to approve or reject a gate, or to decide past a limit, on the store's
    /// change feed; approves the gate itself with `auto_approve`.
    async fn wait_for_person(&mut self, run: RunId, session: SessionId, shown: &StepResponse) -> Result<Next, Error> {
        let runtime = std::sync::Arc::clone(&self.runner.runtime);
        let gate = shown.kind == ResponseKind::WaitingGate;
        let step = shown
            .gate
            .as_ref()
            .map(|gate| gate.step.to_string())
            .unwrap_or_else(|| runtime_step(shown).unwrap_or_default());
        if gate && self.runner.options.auto_approve {
            runtime.approve(run, Some(AUTO_APPROVAL_NOTE.to_owned())).await?;
            self.emit(RunnerEvent::HumanDecided {
                step,
                decision: "approved".to_owned(),
                by: "auto-approve".to_owned(),
            });
            return Ok(Next::Continue);
        }
        let how = if gate {
            format!("switchyard approve {run}   (or: switchyard reject {run} --reason \"…\")")
        } else {
            let options: Vec<&str> = shown
                .decision
                .as_ref()
                .map(|decision| decision.options.iter().map(|option| option.as_str()).collect())
                .unwrap_or_default();
            format!("switchyard decide {run} <{}>", options.join("|"))
        };
        let kind = if gate { "gate" } else { "decision" };
        self.emit(RunnerEvent::WaitingForHuman { step: step.clone(), kind: kind.to_owned(), how });
        let waiting_since = Instant::now();
        // Subscribed before reading, so a decision between the read and the wait is not missed.
        let mut changes = runtime.subscribe().await;
        loop {
            let record = runtime.run(&RunTarget::Run(run)).await?;
            if record.tip != shown.node || record.status != shown.status {
                break;
            }
            loop {
                tokio::select! {
                    biased;
                    () = self.cancel.cancelled() => {
                        self.budget.waited(waiting_since.elapsed());
                        return Ok(Next::Pause(PauseReason::Interrupted, "interrupted while waiting for a person".to_owned()));
                    }
                    change = changes.recv() => match change {
                        Ok(change) if change.session != session => continue,
                        Ok(_) | Err(RecvError::Lagged(_)) => break,
                        Err(RecvError::Closed) => {
                            changes = runtime.subscribe().await;
                            break;
                        }
                    },
                }
            }
        }
        self.budget.waited(waiting_since.elapsed());
        let now = runtime.show(&RunTarget::Run(run)).await?;
        let decision = match (&now.kind, now.step.as_ref().and_then(|step| step.rejection.as_ref())) {
            (ResponseKind::Paused, _) => "paused",
            (_, Some(_)) if gate => "rejected",
            _ if gate => "approved",
            _ => "decided",
        };
        self.emit(RunnerEvent::HumanDecided { step, decision: decision.to_owned(), by: "a person".to_owned() });
        Ok(Next::Continue)
    }

    fn cost(&self) -> Option<f64> {
        self.summary.cost_usd.filter(|_| self.priced)
    }

    fn summarise(&mut self) -> RunSummary {
        self.summary.elapsed_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut summary = self.summary.clone();
        summary.cost_usd = self.cost();
        self.emit(RunnerEvent::Summary(summary.clone()));
        summary
    }

    fn finish(&mut self, run: RunId, shown: &StepResponse) -> Outcome {
        let summary = self.summarise();
        self.emit(RunnerEvent::Finished {
            status: shown.status.as_str().to_owned(),
            turns: summary.turns,
            prompt_tokens: summary.prompt_tokens,
            completion_tokens: summary.completion_tokens,
            cost_usd: summary.cost_usd,
        });
        Outcome::Finished { run, status: shown.status, summary }
    }

    /// Pauses the run through the runtime and says so.
    async fn pause(&mut self, run: RunId, reason: PauseReason, message: String) -> Result<Outcome, Error> {
        let recorded = switchyard_core::turn::bounded_to(&format!("{}: {message}", reason.as_str()), 4096);
        if let Err(error) = self.runner.runtime.pause(run, Some(recorded)).await {
            // A run that ended or was paused meanwhile needs no pause; anything else is a failure.
            if error.is_environment() {
                return Err(error.into());
            }
            tracing::info!(%run, code = error.code(), "the run was not paused: {error}");
        }
        Ok(self.paused(run, reason, message))
    }

    fn paused(&mut self, run: RunId, reason: PauseReason, message: String) -> Outcome {
        let summary = self.summarise();
        tracing::info!(%run, reason = reason.as_str(), "runner stopped; the run is paused");
        self.emit(RunnerEvent::Paused {
            reason,
            message: message.clone(),
            resume: format!("switchyard run --resume {run}"),
        });
        Outcome::Paused { run, reason, message, summary }
    }
}

/// The step a response is about, for one without a gate view.
fn runtime_step(shown: &StepResponse) -> Option<String> {
    shown.step.as_ref().map(|step| step.step.to_string())
}

/// A runtime error the model caused (a report with placeholders, a choice that leads nowhere):
/// its answer. Failures of the store or around it stop the drive.
fn refused(error: switchyard_runtime::Error) -> Result<ToolOutcome, Error> {
    if error.is_environment() { Err(error.into()) } else { Ok(ToolOutcome::error(error.code(), error.to_string())) }
}

/// The first line of a tool's answer, short, for a display.
fn summary_of(content: &str) -> String {
    let line = content.lines().next().unwrap_or("");
    switchyard_core::turn::bounded_to(line, 160)
}

/// How many tokens of the window the messages may take: the rest holds the tool schemas and the
/// answer (`max_tokens`, or an eighth of the window when the model sets none), which the server
/// counts against the same window.
fn room_for_messages(window: u64, spec: &ModelSpec, tools: &StepTools) -> u64 {
    let answer = spec.max_tokens.map_or(window / 8, u64::from);
    window.saturating_sub(answer).saturating_sub(tools.bytes().div_ceil(BYTES_PER_TOKEN))
}

/// The tokens a turn used, and whether they are estimated: as the server counted them; its total
/// alone (counted as prompt tokens) when it gave no parts; estimated from the request's and the
/// answer's sizes when it gave nothing.
fn counted_usage(reported: Option<Usage>, sent_bytes: u64, answer: &Message) -> (Usage, bool) {
    match reported {
        Some(usage) if usage.prompt_tokens + usage.completion_tokens > 0 => (usage, false),
        Some(usage) if usage.total_tokens > 0 => {
            (Usage { prompt_tokens: usage.total_tokens, completion_tokens: 0, total_tokens: usage.total_tokens }, false)
        }
        _ => {
            let answer_bytes = answer.content.as_deref().map_or(0, str::len)
                + answer.reasoning_content.as_deref().map_or(0, str::len)
                + answer
                    .tool_calls
                    .iter()
                    .map(|call| call.function.name.len() + call.function.arguments.len())
                    .sum::<usize>();
            let prompt_tokens = sent_bytes.div_ceil(BYTES_PER_TOKEN);
            let completion_tokens = (answer_bytes as u64).div_ceil(BYTES_PER_TOKEN);
            (Usage { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens }, true)
        }
    }
}

/// What to do about answers cut at `max_tokens`.
fn raise_max_tokens(model_name: &str, spec: &ModelSpec) -> String {
    match spec.max_tokens {
        Some(max) => format!("raise `max_tokens` (now {max}) in `[models.{model_name}]`"),
        None => format!("set a larger `max_tokens` in `[models.{model_name}]` (the server's default applies now)"),
    }
}

/// What the model reads when its answer was cut at `max_tokens`.
fn answer_cut(spec: &ModelSpec) -> String {
    let limit = spec.max_tokens.map_or_else(|| "the server's limit".to_owned(), |max| format!("max_tokens = {max}"));
    format!(
        "Your answer was cut at {limit} (finish_reason `length`), so it is incomplete. Answer in smaller pieces: one tool call at a time, and a long file in several writes."
    )
}

/// What the model reads after an answer with neither text nor a tool call.
fn empty_answer(spec: &ModelSpec, finish: Finish, finish_reason: Option<&str>) -> String {
    match finish {
        Finish::Length => format!("Your answer was empty. {}", answer_cut(spec)),
        Finish::ContentFilter => {
            format!("Your answer was empty: the server's content filter stopped it. {CALL_A_TOOL}")
        }
        _ => format!("Your answer was empty (finish_reason `{}`). {CALL_A_TOOL}", finish_reason.unwrap_or("none")),
    }
}
