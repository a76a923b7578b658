//! The commands that change a run: advancing a step, a person's answer at a gate or a decision,
//! pause, resume, stop, and checkpoints. Each asks the engine for the transition and appends it
//! in one batch.

use std::future::Future;

use serde_json::Value;
use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::evidence::EvidenceResult;
use switchyard_core::hash::{canonical_json, sha256_hex};
use switchyard_core::state::{DecisionOption, Phase, ReportPolicy};
use switchyard_core::token::TokenKind;
use switchyard_core::why::Why;
use switchyard_core::workflow::EdgeTarget;
use switchyard_core::{AttemptId, Control, NodeId, RunId};
use switchyard_engine::{Command, Fresh, RunView, Transition};
use switchyard_store::{Appended, Batch, Claim, NodeRecord, RunGuard, RunRecord, TokenRecord};

use crate::context::RunContext;
use crate::context::has_reports;
use crate::observe::Observed;
use crate::replay::{
    OnceCall, advance_key, check_payload, command_fields, command_payload, field_hashes, refuse_placeholders,
};
use crate::response::{Flags, respond};
use crate::tokens::{NewTokens, Offered};
use crate::{AdvanceInput, CheckpointResponse, Committed, Error, HumanAnswer, ReportWarnings, Runtime, StepResponse};

/// How many times a command is decided when its batches keep going stale (a human pausing and
/// resuming the run in the same instant, over and over).
const MAX_DECISIONS: usize = 3;

impl Runtime {
    /// Advances the step a continue token names. With `expected_run`, a token of another run is
    /// refused (`TOKEN_WRONG_RUN`): a guard against a token pasted from another conversation.
    ///
    /// A report that fails the step's checks is not an error: the answer's `kind` is
    /// [`ResponseKind::Blocked`](crate::ResponseKind::Blocked), `validation` says what is wrong, and a fresh continue token
    /// retries. Sending the same token and report again replays the recorded answer
    /// (`replayed`); the same token with another report is refused (`REPLAY_MISMATCH`).
    ///
    /// ```
    /// # use switchyard_catalog::Catalog;
    /// # use switchyard_config::{Config, Overrides};
    /// # use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, ResponseKind};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// # let started = runtime.start(&Catalog::builtins_only(), StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..Default::default() }).await?;
    /// let token = started.tokens.continue_token.clone().unwrap();
    /// // No notes where the step requires them: blocked, with what to fix and a retry token.
    /// let blocked = runtime.advance(&token, Some(started.run), AdvanceInput::default()).await?;
    /// assert_eq!(blocked.kind, ResponseKind::Blocked);
    ///
    /// let retry = blocked.tokens.continue_token.unwrap();
    /// let report = AdvanceInput { notes: Some("The plan.".into()), ..Default::default() };
    /// let advanced = runtime.advance(&retry, Some(started.run), report).await?;
    /// assert_eq!(advanced.kind, ResponseKind::WaitingGate);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn advance(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
    ) -> Result<StepResponse, Error> {
        refuse_placeholders(&input)?;
        let response =
            self.deciding_again(|| self.advance_once(continue_token, expected_run, input.clone(), None)).await?;
        self.then_run_steps(response).await
    }

    /// Advances the step a continue token names to the step `to` (or the end of the run): the
    /// engine takes the edge that leads there, exactly as if its label were `input.choice`,
    /// and refuses with `NO_EDGE_TO_STEP`, naming the allowed next steps, when none does. For
    /// doors that name where to go rather than how (the state document's `currentNodeId`).
    pub async fn advance_to(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
        to: EdgeTarget,
    ) -> Result<StepResponse, Error> {
        refuse_placeholders(&input)?;
        let response = self
            .deciding_again(|| self.advance_once(continue_token, expected_run, input.clone(), Some(to.clone())))
            .await?;
        self.then_run_steps(response).await
    }

    async fn advance_once(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
        to: Option<EdgeTarget>,
    ) -> Result<StepResponse, Error> {
        let (record, context, node) = self.token_scope(continue_token, TokenKind::Continue, expected_run).await?;
        let attempt =
            record.attempt.ok_or_else(|| Error::internal("a continue token was stored without an attempt"))?;
        if context.workflow.workflow.run_of(&node.state.step).is_some() {
            // Its token only asks switchyard to run it (after a crash left the run there).
            if input != AdvanceInput::default() || to.is_some() {
                let step = node.state.step.to_string();
                return Err(switchyard_engine::Error::RunStepReported { step }.into());
            }
            return self.run_step(&context, &node).await;
        }
        let key = advance_key(record.node, attempt);
        // A plain advance keeps the payload it always had, so recorded calls still match.
        let payload = match &to {
            None => sha256_hex(&canonical_json(&input)),
            Some(to) => sha256_hex(&canonical_json(&serde_json::json!({ "input": input, "to": to }))),
        };
        let mut parts = serde_json::to_value(&input).unwrap_or(Value::Null);
        if let (Some(to), Value::Object(parts)) = (&to, &mut parts) {
            parts.insert("to".to_owned(), serde_json::json!(to));
        }
        let call = OnceCall { key, payload, fields: field_hashes(&parts), session: record.session, run: record.run };
        let checks = &context.workflow.workflow.rules(&node.state.step).evidence;
        let mut evidence = Vec::new();
        if !checks.is_empty() {
            // Evidence can take minutes to gather (a test suite), so a report sent again is
            // found as one first, and evidence is gathered only where the engine will judge it.
            if let Some(recorded) = self.store.recorded(call.session, &call.key).await? {
                return self.replay(&recorded, &call).await;
            }
            if context.run.control == Control::Running
                && matches!(node.state.phase, Phase::Pending | Phase::Blocked { .. })
            {
                let (workspace, snapshot) = (context.workspace.as_deref(), node.state.snapshot.as_ref());
                evidence = self.evidence.gather(checks, workspace, snapshot, input.artifacts.as_ref()).await;
            }
        }
        let advance = switchyard_engine::Advance {
            attempt,
            notes: input.notes,
            artifacts: input.artifacts,
            context: input.context,
            choice: input.choice,
            evidence,
        };
        let command = match to {
            Some(to) => Command::AdvanceTo { advance, to },
            None => Command::Advance(advance),
        };
        // The claim is not read first, as the other commands read theirs: nearly every advance is
        // sent once, and the read cost each one a lookup. An advance sent again finds its claim
        // in the append, which then writes nothing, and replays; one the engine or the store
        // refuses (the run has moved on since) looks for its claim before it answers with the
        // refusal, so it replays all the same.
        match self.execute(&context, &node, command, Some(&call)).await {
            Err(error) => match self.store.recorded(call.session, &call.key).await? {
                Some(recorded) => self.replay(&recorded, &call).await,
                None => Err(error),
            },
            answer => answer,
        }
    }

    /// Approves the result a gate waits on.
    pub async fn approve(&self, run: RunId, note: Option<String>) -> Result<StepResponse, Error> {
        self.act_on_tip(run, None, "gate", Command::Approve { note }).await
    }

    /// Rejects the result a gate waits on; the step is handed back with `reason`.
    pub async fn reject(&self, run: RunId, reason: String) -> Result<StepResponse, Error> {
        self.act_on_tip(run, None, "gate", Command::Reject { reason }).await
    }

    /// Picks one of the options a run waiting for a human decision offers.
    pub async fn decide(
        &self,
        run: RunId,
        option: DecisionOption,
        note: Option<String>,
    ) -> Result<StepResponse, Error> {
        self.act_on_tip(run, None, "decide", Command::Decide { option, note }).await
    }

    /// Answers a run waiting for a person at node `at`, the node the person was shown. Where
    /// [`Runtime::approve`] acts on whatever the run waits on now, this is refused with
    /// `RUN_MOVED_ON` when the run has moved past `at` (another person, another terminal), so an
    /// answer never lands on a step its author did not see. The same answer sent twice replays.
    pub async fn answer(&self, run: RunId, at: NodeId, answer: HumanAnswer) -> Result<StepResponse, Error> {
        let (key_kind, command) = match answer {
            HumanAnswer::Approve { note } => ("gate", Command::Approve { note }),
            HumanAnswer::Reject { reason } => ("gate", Command::Reject { reason }),
            HumanAnswer::Decide { option, note } => ("decide", Command::Decide { option, note }),
        };
        self.act_on_tip(run, Some(at), key_kind, command).await
    }

    pub async fn pause(&self, run: RunId, reason: Option<String>) -> Result<StepResponse, Error> {
        self.control(run, Command::Pause { reason }).await
    }

    pub async fn resume(&self, run: RunId) -> Result<StepResponse, Error> {
        self.control(run, Command::Resume).await
    }

    pub async fn stop(&self, run: RunId, reason: Option<String>) -> Result<StepResponse, Error> {
        self.control(run, Command::Stop { reason }).await
    }

    /// Records notes on a node without advancing.
    pub async fn checkpoint(
        &self,
        checkpoint_token: &str,
        expected_run: Option<RunId>,
        notes: Option<String>,
    ) -> Result<CheckpointResponse, Error> {
        self.deciding_again(|| self.checkpoint_once(checkpoint_token, expected_run, notes.clone())).await
    }

    async fn checkpoint_once(
        &self,
        checkpoint_token: &str,
        expected_run: Option<RunId>,
        notes: Option<String>,
    ) -> Result<CheckpointResponse, Error> {
        let (record, context, node) = self.token_scope(checkpoint_token, TokenKind::Checkpoint, expected_run).await?;
        let attempt = record.attempt.unwrap_or_else(|| AttemptId::first_for(record.node));
        let call = OnceCall {
            key: format!("checkpoint:{}:{attempt}", record.node),
            payload: sha256_hex(&canonical_json(&notes)),
            fields: field_hashes(&serde_json::json!({ "notes": notes })),
            session: record.session,
            run: record.run,
        };
        let response =
            |replayed| CheckpointResponse { session: record.session, run: record.run, node: record.node, replayed };
        if let Some(recorded) = self.store.recorded(call.session, &call.key).await? {
            check_payload(&recorded, &call)?;
            return Ok(response(true));
        }
        let transition = switchyard_engine::transition(
            &context.workflow,
            self.view(&context, &node, ReportPolicy::default()),
            Command::Checkpoint { attempt: Some(attempt), notes },
            Fresh::node(self.ids.node()),
        )?;
        let claim = call.claim(record.node);
        let told = self.followed().then(|| transition.events.clone());
        match self.append(&context, transition.events, Some(claim), Vec::new()).await? {
            Appended::Committed { last_seq, .. } => {
                if let Some(events) = told {
                    let step = context.pending(&node.state);
                    let commit = Committed {
                        context: &context,
                        acted_on: &node,
                        created: None,
                        control: context.run.control,
                        last_seq,
                        events: &events,
                        step: step.as_ref(),
                        started: false,
                    };
                    self.tell_followers(&commit).await;
                }
                Ok(response(false))
            }
            Appended::AlreadyRecorded(recorded) => {
                check_payload(&recorded, &call)?;
                Ok(response(true))
            }
        }
    }

    /// Runs a person's answer at the run's tip, or at `expected` when the caller names the node it
    /// answers. The claim of the node's key is read first, so an answer sent again replays even
    /// after the run moved on; an answer meant for a node the run has left is refused. The tip
    /// cannot move between this read and the commit without a claim at this node, which the
    /// claim's uniqueness settles.
    async fn act_on_tip(
        &self,
        run: RunId,
        expected: Option<NodeId>,
        key_kind: &str,
        command: Command,
    ) -> Result<StepResponse, Error> {
        let response = self
            .deciding_again(|| async {
                let context = self.run_context(run).await?;
                let at = expected.unwrap_or(context.run.tip);
                let call = OnceCall {
                    key: format!("{key_kind}:{at}"),
                    payload: sha256_hex(&canonical_json(&command_payload(&command))),
                    fields: field_hashes(&command_fields(&command)),
                    session: context.run.session,
                    run,
                };
                if let Some(recorded) = self.store.recorded(call.session, &call.key).await? {
                    return self.replay(&recorded, &call).await;
                }
                if at != context.run.tip {
                    return Err(Error::MovedOn {
                        run: run.to_string(),
                        expected: at.to_string(),
                        tip: context.run.tip.to_string(),
                    });
                }
                let node = self.node(at).await?;
                self.execute(&context, &node, command.clone(), Some(&call)).await
            })
            .await?;
        // An approval or a decision may send the run on to a step switchyard runs.
        self.then_run_steps(response).await
    }

    async fn control(&self, run: RunId, command: Command) -> Result<StepResponse, Error> {
        let response = self
            .deciding_again(|| async {
                let context = self.run_context(run).await?;
                let node = self.node(context.run.tip).await?;
                self.execute(&context, &node, command.clone(), None).await
            })
            .await?;
        // A run resumed at a step switchyard runs (paused before it ran) runs it now.
        self.then_run_steps(response).await
    }

    /// Runs a command again when its batch went stale: the run was paused, resumed or stopped
    /// between the transition and the commit (`STORE_STALE`, nothing written). The next attempt
    /// reads the run again, so the engine decides on what it is now.
    async fn deciding_again<T, Attempt>(&self, mut attempt: impl FnMut() -> Attempt) -> Result<T, Error>
    where
        Attempt: Future<Output = Result<T, Error>>,
    {
        for _ in 1..MAX_DECISIONS {
            match attempt().await {
                Err(Error::Store(switchyard_store::Error::Stale { .. })) => {}
                result => return result,
            }
        }
        attempt().await
    }

    /// Asks the engine for the transition, appends it, and answers.
    pub(crate) async fn execute(
        &self,
        context: &RunContext,
        node: &NodeRecord,
        command: Command,
        call: Option<&OnceCall>,
    ) -> Result<StepResponse, Error> {
        let mut fresh = Fresh::node(self.ids.node());
        let advancing = matches!(command, Command::Advance(_) | Command::AdvanceTo { .. });
        let reports = if advancing && has_reports(&context.workflow.workflow) {
            self.report_policy(&context.run).await?
        } else {
            ReportPolicy::default()
        };
        let view = self.view(context, node, reports);
        // A command that lands on a step comparing with the workspace is decided again with a
        // snapshot of it: the engine keeps it in the node that hands the step out.
        let again = context.workflow.compares_workspace().then(|| command.clone());
        let mut transition = switchyard_engine::transition(&context.workflow, view, command, fresh.clone())?;
        if let Some(command) = again
            && let Some(snapshot) =
                self.snapshot_for(&context.workflow, transition.node.as_ref(), context.workspace.as_deref()).await
        {
            fresh.snapshot = Some(snapshot);
            transition = switchyard_engine::transition(&context.workflow, view, command, fresh)?;
        }
        let Transition { events, node: created, control } = transition;
        let findings = what_the_advance_recorded(&events);
        let forked = events.iter().any(|event| matches!(event, EventKind::NodeCreated { cause: NodeCause::Fork, .. }));
        let (target_id, target_state) = match &created {
            Some((id, state)) => (*id, state.clone()),
            None => (node.id, node.state.clone()),
        };
        let tokens = match &created {
            Some((id, state)) => {
                self.fresh_tokens(context.run.session, context.run.id, *id, Offered::at(state, control))
            }
            None => NewTokens::default(),
        };
        let claim = call.map(|call| call.claim(target_id));
        let told = self.followed().then(|| events.clone());
        let observed = Observed::of(
            context.run.session,
            context.run.id,
            &context.workflow.workflow.id,
            &events,
            Some((node.id, &node.state.step)),
            Some(context.run.status),
        );
        match self.append(context, events, claim, tokens.records.clone()).await? {
            Appended::Committed { last_seq, .. } => {
                let minted = if tokens.records.is_empty() {
                    self.tokens_for(context, target_id, &target_state, AttemptId::first_for(target_id)).await?
                } else {
                    tokens.minted(&self.keys)
                };
                let mut response =
                    respond(context, target_id, &target_state, control, minted, Flags { forked, replayed: false });
                findings.answer(&mut response);
                observed.committed(&self.metrics, response.status);
                if let Some(events) = told {
                    let commit = Committed {
                        context,
                        acted_on: node,
                        created: created.as_ref().map(|(id, state)| (*id, state)),
                        control,
                        last_seq,
                        events: &events,
                        step: response.step.as_ref(),
                        started: false,
                    };
                    self.tell_followers(&commit).await;
                }
                Ok(response)
            }
            Appended::AlreadyRecorded(recorded) => match call {
                Some(call) => self.replay(&recorded, call).await,
                None => Err(Error::internal(format!("`{}` was recorded by a call that claims none", recorded.key))),
            },
        }
    }

    async fn append(
        &self,
        context: &RunContext,
        events: Vec<EventKind>,
        claim: Option<Claim>,
        tokens: Vec<TokenRecord>,
    ) -> Result<Appended, Error> {
        let batch = Batch {
            session: context.run.session,
            events: self.stamp(context.run.id, events),
            claim,
            tokens,
            pin: None,
            guard: Some(RunGuard { run: context.run.id, control: context.run.control }),
        };
        self.commit(batch).await
    }

    fn view<'a>(&self, context: &'a RunContext, node: &'a NodeRecord, reports: ReportPolicy) -> RunView<'a> {
        RunView {
            control: context.run.control,
            node: node.id,
            state: &node.state,
            has_children: node.child_count > 0,
            goal: &context.goal,
            reports,
            project: &context.project,
        }
    }

    /// The report policy a run recorded when it started; the defaults for a run that recorded
    /// none (started before policies were recorded).
    async fn report_policy(&self, run: &RunRecord) -> Result<ReportPolicy, Error> {
        Ok(match self.run_started(run).await? {
            Some(EventKind::RunStarted { report_policy, .. }) => report_policy.unwrap_or_default(),
            _ => ReportPolicy::default(),
        })
    }

    /// The `RunStarted` event of `run`, read from its session's first events (its creation and
    /// its run's start): one bounded read, never a scan of the log.
    pub(crate) async fn run_started(&self, run: &RunRecord) -> Result<Option<EventKind>, Error> {
        let events = self.store.events(run.session, 0, 8).await?;
        Ok(events
            .into_iter()
            .filter(|event| event.run == Some(run.id))
            .map(|event| event.kind)
            .find(|kind| matches!(kind, EventKind::RunStarted { .. })))
    }
}

/// What a command recorded beside its node, from its events.
pub(crate) fn what_the_advance_recorded(events: &[EventKind]) -> Findings {
    let mut findings = Findings::default();
    for event in events {
        match event {
            EventKind::ReportWarned { warnings, downgraded, .. } => {
                findings.report = Some(ReportWarnings { warnings: warnings.clone(), downgraded: downgraded.clone() });
            }
            EventKind::EvidenceRecorded { results, .. } => findings.evidence.clone_from(results),
            EventKind::DecisionRecorded { why, .. } => findings.why = Some(why.clone()),
            _ => {}
        }
    }
    findings
}

/// What a command recorded beside the node it created: the report's warnings, the evidence and
/// the why.
#[derive(Debug, Default)]
pub struct Findings {
    pub report: Option<ReportWarnings>,
    /// What switchyard observed of the reported work, check by check, with each verdict.
    pub evidence: Vec<EvidenceResult>,
    /// Why the run went where it went, if there was something to decide.
    pub why: Option<Why>,
}

impl Findings {
    pub(crate) fn answer(self, response: &mut StepResponse) {
        response.report_warnings = self.report;
        response.evidence = self.evidence;
        response.why = self.why;
    }
}
