//! The runner's loop against a fake model server over real HTTP, each scenario checked against
//! the run's event log: blocked reports and retries, context resets, per-step models, refusals,
//! tool errors, stuck models, limits, gates, crashes, and what never reaches the model.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;
use switchyard_core::RunStatus;
use switchyard_runner::{Error, Limits, Models, Outcome, PauseReason, RetryPolicy, RunOptions, RunnerEvent, Target};
use switchyard_test_support::fake_llm::{RecordedRequest, Reply};
use tokio_util::sync::CancellationToken;

use crate::common::{
    API_KEY, Driven, Prepared, Scenario, Spawned, World, call, contents, next_wait, raw_call, run_in, two_steps,
};

fn status(outcome: &Outcome) -> Option<RunStatus> {
    match outcome {
        Outcome::Finished { status, .. } => Some(*status),
        Outcome::Paused { .. } => None,
    }
}

fn pause_reason(outcome: &Outcome) -> Option<PauseReason> {
    match outcome {
        Outcome::Paused { reason, .. } => Some(*reason),
        Outcome::Finished { .. } => None,
    }
}

/// The model completes each step it is shown, with these notes in order.
fn complete_steps(notes: &[&str]) -> Vec<Reply> {
    notes.iter().map(|notes| call("complete_step", json!({ "notes": notes }))).collect()
}

/// The roles of a request's messages, in order.
fn roles(request: &RecordedRequest) -> Vec<&str> {
    request.messages().iter().map(|message| message["role"].as_str().unwrap()).collect()
}

const COUNTED: &str = r#"id: counted
version: "1"
title: Counted
description: One step whose artifacts must hold a count.
steps:
  - id: count
    title: Count the files
    prompt: Count the files.
    output:
      type: object
      required: [count]
      properties:
        count: {type: integer}
"#;

#[tokio::test]
async fn a_blocked_complete_step_goes_back_to_the_model_and_a_correct_retry_completes_the_run() {
    let Driven { world, outcome, events, .. } = Scenario::new("counted", COUNTED)
        .replies([
            call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": "three" } })),
            call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 3 } })),
        ])
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 2);
    let answer = contents(&requests[1], "tool").pop().unwrap();
    assert!(answer.contains("\"status\":\"blocked\"") && answer.contains("/artifacts/count"), "{answer}");
    assert!(events.iter().any(|event| matches!(event, RunnerEvent::StepBlocked { attempt: 1, .. })));
    let kinds = world.event_kinds(&outcome).await;
    assert_eq!(kinds.iter().filter(|kind| *kind == "model_turn").count(), 2);
    assert_eq!(kinds.iter().filter(|kind| *kind == "advance_recorded").count(), 2);
    // The turn that completed the run is recorded after what it did.
    assert_eq!(kinds[kinds.len() - 2..], ["run_completed", "model_turn"]);

    let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
    let turns: Vec<(u32, bool)> =
        transcript.iter().map(|recorded| (recorded.turn.turn, recorded.turn.tool_results[0].ok)).collect();
    assert_eq!(turns, [(1, false), (2, true)]);
    assert!(transcript[0].turn.request.fresh);
    assert_eq!(transcript[0].turn.request.new_messages[0].role, "system");
}

#[tokio::test]
async fn a_context_reset_step_starts_with_only_the_system_prompt_and_the_recap() {
    let Driven { world, outcome, .. } = Scenario::new("reset", two_steps(true))
        .replies(complete_steps(&["The draft says zebra-42.", "Finished."]))
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed));
    let requests = world.server.requests();
    assert_eq!(roles(&requests[1]), ["system", "user", "user"], "only the system prompt, the recap and the task");
    assert!(contents(&requests[1], "user")[1].contains("Finish the draft."));
    assert!(contents(&requests[1], "user")[0].contains("zebra-42"), "the recap holds the first step's notes");
    let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
    assert!(transcript[1].turn.request.fresh);
}

#[tokio::test]
async fn without_a_context_reset_the_conversation_carries_over_to_the_next_step() {
    let Driven { world, outcome, .. } =
        Scenario::new("carry", two_steps(false)).replies(complete_steps(&["Drafted.", "Finished."])).drive().await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed));
    let requests = world.server.requests();
    assert_eq!(roles(&requests[0]), ["system", "user"], "the system prompt and the first step's task");
    assert_eq!(roles(&requests[1]), ["system", "user", "assistant", "tool", "user"]);
    assert_eq!(contents(&requests[1], "system"), contents(&requests[0], "system"), "the prefix stays");
    let task = contents(&requests[1], "user").pop().unwrap();
    assert!(task.contains("The previous step is done") && task.contains("Finish the draft."), "{task}");
}

const TWO_MODELS: &str = r#"id: two-models
version: "1"
title: Two models
description: A fast step and a deep one.
steps:
  - id: skim
    title: Skim
    model: fast
    role: reader
    prompt: Skim the code.
    next: think
  - id: think
    title: Think
    model: deep
    prompt: Think hard.
"#;

#[tokio::test]
async fn each_step_is_sent_to_its_named_model() {
    let personas = BTreeMap::from([("reader".to_owned(), "You read code quickly and carefully.".to_owned())]);
    let Driven { world, outcome, events, .. } = Scenario::new("two-models", TWO_MODELS)
        .replies(complete_steps(&["Skimmed.", "Thought."]))
        .models(|world| {
            let mut models = Models::single("default", world.model("default-model"));
            models.named.insert("fast".to_owned(), world.model("fast-model-id"));
            models.named.insert("deep".to_owned(), world.model("deep-model-id"));
            models
        })
        .options(RunOptions { personas, ..RunOptions::default() })
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed));
    let requests = world.server.requests();
    let sent: Vec<&str> = requests.iter().map(|request| request.model()).collect();
    assert_eq!(sent, ["fast-model-id", "deep-model-id"]);
    assert!(contents(&requests[0], "system")[0].contains("You read code quickly and carefully."));
    let started: Vec<(String, String)> = events
        .iter()
        .filter_map(|event| match event {
            RunnerEvent::StepStarted { step, model, .. } => Some((step.clone(), model.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(started, [("skim".to_owned(), "fast".to_owned()), ("think".to_owned(), "deep".to_owned())]);
}

#[tokio::test]
async fn a_step_naming_an_unconfigured_model_is_refused_before_the_run_starts_or_anything_is_sent() {
    let Prepared { world, runner, start } = Scenario::new("two-models", TWO_MODELS)
        .models(|world| {
            let mut models = Models::single("default", world.model("default-model"));
            models.named.insert("fast".to_owned(), world.model("fast-model-id"));
            models
        })
        .prepare()
        .await;
    let (sender, _receiver) = tokio::sync::mpsc::unbounded_channel();
    let refused = runner.drive(start, sender, CancellationToken::new()).await.unwrap_err();

    assert!(matches!(&refused, Error::UnknownModel { model, .. } if model == "deep"), "{refused:?}");
    assert_eq!(refused.code(), "UNKNOWN_MODEL");
    assert!(refused.to_string().contains("[models.deep]"), "{refused}");
    assert!(world.server.requests().is_empty());
    let sessions = world.runtime.sessions(switchyard_store::SessionQuery::default()).await.unwrap();
    assert!(sessions.is_empty(), "no run was started");
}

#[tokio::test]
async fn a_refused_key_pauses_the_run_at_once_and_the_run_resumes_later() {
    let Driven { world, runner, outcome, events } = Scenario::new("counted", COUNTED)
        .replies([Reply::error(401, json!({ "error": { "message": "invalid api key" } }))])
        .drive()
        .await;

    assert_eq!(pause_reason(&outcome), Some(PauseReason::ModelRefused), "{outcome:?}");
    assert_eq!(world.server.requests().len(), 1, "a refused key is not retried");
    let run = world.runtime.run(&switchyard_runtime::Target::Run(outcome.run())).await.unwrap();
    assert_eq!(run.status, RunStatus::Paused);
    assert!(
        events.iter().any(|event| matches!(event, RunnerEvent::Paused { resume, .. } if resume.contains("--resume")))
    );

    world.server.push(call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 3 } })));
    let (resumed, events) = world.drive(&runner, Target::Resume(outcome.run())).await;
    assert_eq!(status(&resumed), Some(RunStatus::Completed), "{resumed:?}");
    assert!(events.iter().any(|event| matches!(event, RunnerEvent::RunStarted { resumed: true, .. })));
}

#[tokio::test]
async fn server_errors_are_retried_and_pause_the_run_when_the_retries_run_out() {
    let retry =
        RetryPolicy { max_attempts: 3, initial_delay: Duration::from_millis(1), max_delay: Duration::from_millis(5) };
    let Driven { world, outcome, events, .. } = Scenario::new("counted", COUNTED)
        .replies((0..3).map(|_| Reply::error(503, json!({ "error": { "message": "overloaded" } }))))
        .options(RunOptions { retry, ..RunOptions::default() })
        .drive()
        .await;

    assert_eq!(pause_reason(&outcome), Some(PauseReason::ModelUnavailable), "{outcome:?}");
    assert_eq!(world.server.requests().len(), 3);
    let retries = events.iter().filter(|event| matches!(event, RunnerEvent::Retrying { .. })).count();
    assert_eq!(retries, 2);
    assert_eq!(world.runtime.transcript(outcome.run()).await.unwrap().len(), 0, "no turn came back");
}

#[tokio::test]
async fn malformed_arguments_and_an_unknown_tool_go_back_to_the_model_as_tool_errors() {
    let Driven { world, outcome, events, .. } = Scenario::new("counted", COUNTED)
        .replies([
            raw_call("complete_step", "{\"notes\": \"unterminated"),
            call("summon_files", json!({})),
            Reply::text("I think the count is 3."),
            call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 3 } })),
        ])
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    assert!(contents(&requests[1], "tool").last().unwrap().contains("not valid JSON"));
    assert!(contents(&requests[2], "tool").last().unwrap().contains("no tool named `summon_files`"));
    assert!(contents(&requests[3], "user").last().unwrap().contains("Answer with tool calls"));
    match events.iter().find_map(|event| match event {
        RunnerEvent::Summary(summary) => Some(summary.clone()),
        _ => None,
    }) {
        Some(summary) => assert_eq!((summary.tool_errors, summary.turns), (3, 4)),
        None => panic!("no summary in {events:?}"),
    }
}

#[tokio::test]
async fn too_many_tool_errors_pause_the_run() {
    let Driven { world, outcome, .. } = Scenario::new("counted", COUNTED)
        .replies([Reply::text("hello"), Reply::text("hello again")])
        .options(RunOptions { max_tool_errors: 2, ..RunOptions::default() })
        .drive()
        .await;
    assert_eq!(pause_reason(&outcome), Some(PauseReason::ToolErrors), "{outcome:?}");
    let kinds = world.event_kinds(&outcome).await;
    assert_eq!(kinds.last().map(String::as_str), Some("run_paused"));
}

/// Drives the counted workflow against `replies` and checks that the run paused for `reason`
/// after `requests` requests to the model.
async fn check_pause(
    replies: impl IntoIterator<Item = Reply>,
    options: RunOptions,
    reason: PauseReason,
    requests: usize,
) {
    let Driven { world, outcome, .. } =
        Scenario::new("counted", COUNTED).replies(replies).options(options).drive().await;
    assert_eq!(pause_reason(&outcome), Some(reason), "{outcome:?}");
    assert_eq!(world.server.requests().len(), requests);
}

#[tokio::test]
async fn a_model_repeating_the_same_call_is_stuck_and_the_run_pauses() {
    let options = RunOptions { stuck_repeats: 3, ..RunOptions::default() };
    let repeated = (0..3).map(|_| call("list_files", json!({ "path": "{output-root}" })));
    check_pause(repeated, options, PauseReason::Stuck, 3).await;
}

#[tokio::test]
async fn turns_without_progress_are_stuck() {
    let options = RunOptions { stuck_turns: 4, ..RunOptions::default() };
    let varied = (0..4).map(|index| call("list_files", json!({ "path": "{output-root}", "limit": index + 1 })));
    check_pause(varied, options, PauseReason::Stuck, 4).await;
}

#[tokio::test]
async fn the_turn_limit_of_a_run_pauses_it_before_another_request() {
    let options =
        RunOptions { run_limits: Limits { max_turns: Some(2), ..Limits::default() }, ..RunOptions::default() };
    let varied = (0..2).map(|index| call("list_files", json!({ "path": "{output-root}", "limit": index + 1 })));
    check_pause(varied, options, PauseReason::LimitReached, 2).await;
}

#[tokio::test]
async fn the_token_limit_of_a_step_pauses_the_run() {
    let step_limits = Limits { max_tokens: Some(1000), ..Limits::default() };
    let Driven { world, outcome, .. } = Scenario::new("counted", COUNTED)
        .replies([call("list_files", json!({ "path": "{output-root}" })).usage(900, 200)])
        .options(RunOptions { step_limits, ..RunOptions::default() })
        .drive()
        .await;
    match &outcome {
        Outcome::Paused { reason: PauseReason::LimitReached, message, .. } => {
            assert!(message.contains("1100 tokens"), "{message}")
        }
        other => panic!("expected a token limit, got {other:?}"),
    }
    assert_eq!(world.server.requests().len(), 1);
}

const GATED: &str = r#"id: gated
version: "1"
title: Gated
description: A reviewed plan, then the work.
steps:
  - id: plan
    title: Plan
    gate: true
    prompt: Plan the work.
    next: work
  - id: work
    title: Work
    prompt: Do the work.
"#;

#[tokio::test]
async fn gates_are_approved_automatically_and_the_approval_says_so() {
    let Driven { world, outcome, events, .. } = Scenario::new("gated", GATED)
        .replies(complete_steps(&["The plan.", "The work."]))
        .options(RunOptions { auto_approve: true, ..RunOptions::default() })
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    assert!(events.iter().any(|event| matches!(event, RunnerEvent::HumanDecided { by, .. } if by == "auto-approve")));
    let approvals: Vec<_> = world
        .events(&outcome)
        .await
        .into_iter()
        .filter_map(|event| match event.kind {
            switchyard_core::EventKind::GateDecided { approved, reason, .. } => Some((approved, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(approvals.len(), 1);
    assert!(approvals[0].0 && approvals[0].1.as_deref().is_some_and(|note| note.contains("--auto-approve")));
}

/// Drives `scenario` on a task and returns its world and handle once the runner says it waits for
/// a person, with what to type.
async fn drive_until_waiting(scenario: Scenario) -> (World, tokio::task::JoinHandle<Outcome>, String) {
    let Spawned { world, drive, mut events, .. } = scenario.spawn(CancellationToken::new()).await;
    let (_, how) = next_wait(&mut events).await;
    (world, drive, how)
}

#[tokio::test]
async fn a_gate_approved_through_the_same_store_wakes_the_waiting_runner_through_the_change_feed() {
    let (world, drive, how) =
        drive_until_waiting(Scenario::new("gated", GATED).replies(complete_steps(&["The plan.", "The work."]))).await;
    let run = run_in(&how);
    assert!(how.starts_with("switchyard approve run_"), "{how}");

    world.runtime.approve(run, Some("Looks right.".to_owned())).await.unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(60), drive).await.expect("the runner woke").unwrap();
    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
}

#[tokio::test]
async fn a_gate_approved_from_another_runtime_on_the_same_store_file_lets_the_drive_go_on() {
    let (world, drive, how) =
        drive_until_waiting(Scenario::new("gated", GATED).replies(complete_steps(&["The plan.", "The work."]))).await;
    let run = run_in(&how);

    // Another process's commit reaches the runner through the store's watcher of the file.
    let other = switchyard_runtime::Runtime::open(&world.config).await.unwrap();
    other.approve(run, None).await.unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(60), drive).await.expect("the runner noticed").unwrap();
    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
}

// `wait_for_requests` blocks its thread while the drive runs on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_reason_reaches_the_reworked_step_conversation() {
    let scenario = Scenario::new("gated", GATED).replies(complete_steps(&["The plan.", "The better plan."]));
    let (world, drive, how) = drive_until_waiting(scenario).await;
    let run = run_in(&how);
    world.runtime.reject(run, "Add a rollback plan.".to_owned()).await.unwrap();
    world.server.wait_for_requests(2, Duration::from_secs(60));
    drive.abort();

    let requests = world.server.requests();
    let users = contents(&requests[1], "user");
    assert!(users.iter().any(|text| text.contains("Add a rollback plan.")), "{users:?}");
}

// `wait_for_requests` blocks its thread while the drive runs on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_killed_mid_step_is_picked_up_at_the_tip_without_repeating_a_completed_step() {
    let Spawned { world, runner, drive, .. } = Scenario::new("two", two_steps(false))
        .replies([
            call("complete_step", json!({ "notes": "Drafted." })),
            // The second step's request is never answered before the runner dies.
            call("complete_step", json!({ "notes": "never seen" })).delayed(Duration::from_secs(3600)),
        ])
        .spawn(CancellationToken::new())
        .await;
    world.server.wait_for_requests(2, Duration::from_secs(60));
    // Dropped at its await, as a SIGKILL would leave it: no pause, nothing more recorded.
    drive.abort();
    let _ = drive.await;
    let run = world.runtime.sessions(switchyard_store::SessionQuery::default()).await.unwrap()[0].run.unwrap();

    world.server.push(call("complete_step", json!({ "notes": "Finished." })));
    let (outcome, _) = world.drive(&runner, Target::Resume(run)).await;
    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        contents(&requests[2], "user").last().unwrap().contains("Finish the draft."),
        "picked up at the second step"
    );
    let advances = world.event_kinds(&outcome).await.iter().filter(|kind| *kind == "advance_recorded").count();
    assert_eq!(advances, 2, "each step completed once");
    let turns: Vec<u32> =
        world.runtime.transcript(run).await.unwrap().iter().map(|recorded| recorded.turn.turn).collect();
    assert_eq!(turns, [1, 2], "the turn lost with the runner was never recorded");
}

#[tokio::test]
async fn no_token_key_or_internal_id_ever_reaches_the_model() {
    let Driven { world, outcome, .. } = Scenario::new("gated", GATED)
        .replies([
            call("checkpoint", json!({ "notes": "Halfway through the plan." })),
            call("save_output", json!({ "path": "plan.md", "content": "# Plan\n" })),
            call("read_file", json!({ "path": "{output-root}/plan.md" })),
        ])
        .replies(complete_steps(&["The plan.", "The work."]))
        .options(RunOptions { auto_approve: true, ..RunOptions::default() })
        .drive()
        .await;
    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");

    let secret =
        regex::Regex::new(r"\b(ct|st|ck)_[A-Za-z0-9_-]{24}\b|\b(run|sess|node|attempt|evt)_[a-z2-7]{26}\b").unwrap();
    let requests = world.server.requests();
    assert_eq!(requests.len(), 5);
    for (index, request) in requests.iter().enumerate() {
        assert!(!request.body_text.contains(API_KEY), "request {index} holds the API key");
        assert!(!secret.is_match(&request.body_text), "request {index} holds {:?}", secret.find(&request.body_text));
        assert_eq!(request.header("authorization"), Some(format!("Bearer {API_KEY}").as_str()));
    }
    let answers = contents(&requests[3], "tool");
    assert!(answers.iter().any(|answer| answer.contains("# Plan")), "the file tools work: {answers:?}");
}

const STRICT_REVIEW: &str = r#"id: strict-review
version: "1"
title: Strict review
description: One reviewed step with a single revision.
limits:
  max_revision_attempts: 1
steps:
  - id: write
    title: Write
    gate: true
    prompt: Write it.
"#;

#[tokio::test]
async fn a_run_past_its_revision_limit_waits_for_a_decision_and_goes_on_after_it() {
    let prepared = Scenario::new("strict", STRICT_REVIEW).prepare().await;
    prepared.world.server.otherwise(|_| call("complete_step", json!({ "notes": "Written." })));
    let Spawned { world, drive, mut events, .. } = prepared.spawn(CancellationToken::new());
    let (kind, how) = loop {
        let (kind, how) = next_wait(&mut events).await;
        if kind == "decision" {
            break (kind, how);
        }
        world.runtime.reject(run_in(&how), "Not yet.".to_owned()).await.unwrap();
    };
    assert_eq!(kind, "decision");
    assert!(how.starts_with("switchyard decide run_") && how.contains("accept"), "{how}");

    let run = run_in(&how);
    world.runtime.decide(run, switchyard_core::state::DecisionOption::Accept, None).await.unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(60), drive).await.expect("the runner went on").unwrap();
    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
}

#[tokio::test]
async fn cancelling_a_runner_that_waits_at_a_gate_pauses_the_run_cleanly() {
    let cancel = CancellationToken::new();
    let Spawned { world, drive, mut events, .. } =
        Scenario::new("gated", GATED).replies(complete_steps(&["The plan."])).spawn(cancel.clone()).await;
    let (_, how) = next_wait(&mut events).await;
    cancel.cancel();
    let outcome = drive.await.unwrap();

    assert_eq!(pause_reason(&outcome), Some(PauseReason::Interrupted), "{outcome:?}");
    let run = world.runtime.run(&switchyard_runtime::Target::Run(run_in(&how))).await.unwrap();
    assert_eq!(run.status, RunStatus::Paused);
}

#[tokio::test]
async fn a_long_conversation_is_trimmed_to_the_context_window_oldest_tool_answers_first() {
    let big = "x".repeat(6000);
    let Driven { world, outcome, .. } = Scenario::new("counted", COUNTED)
        .replies([
            call("save_output", json!({ "path": "big.md", "content": big })),
            call("read_file", json!({ "path": "{output-root}/big.md" })),
            call("read_file", json!({ "path": "{output-root}/big.md", "startLine": 1 })),
            call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 1 } })).usage(1000, 10),
        ])
        .models(|world| {
            let mut model = world.model("small-window");
            // Room for the tool schemas, the answer, the system prompt, the task, the saved content
            // and one long answer but not two: replacing the older answer is enough, and no
            // exchange is dropped.
            model.context_window_tokens = Some(9000);
            model.price = Some(switchyard_runner::Price { prompt_usd_per_token: 1e-6, completion_usd_per_token: 2e-6 });
            Models::single("small", model)
        })
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    let answers = contents(&requests[3], "tool");
    assert!(
        answers[0].starts_with("wrote {output-root}/big.md"),
        "a short answer is not worth trimming: {}",
        answers[0]
    );
    assert!(answers[1].contains("removed to fit the model's context window"), "{answers:?}");
    assert!(answers[2].contains(&"x".repeat(6000)), "the latest answer is kept whole");
    let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
    assert_eq!(transcript[3].turn.request.trimmed, 1);
    match &outcome {
        // Three turns of 10 + 5 tokens and one of 1000 + 10, at $1 and $2 per million.
        Outcome::Finished { summary, .. } => {
            let expected = (30.0 + 1000.0) / 1e6 + (15.0 + 10.0) * 2.0 / 1e6;
            assert!(summary.cost_usd.is_some_and(|cost| (cost - expected).abs() < 1e-12), "{summary:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_long_conversation_fits_a_4k_window_counted_whole_with_the_tool_schemas_and_the_answer() {
    let turns = 60;
    let window_tokens: u64 = 4096;
    let answer_tokens: u32 = 512;
    let Driven { world, outcome, .. } = Scenario::new("counted", COUNTED)
        .replies(
            (0..turns).map(|turn| call("save_output", json!({ "path": format!("note-{turn}.md"), "content": "n" }))),
        )
        .replies([call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 1 } }))])
        .models(move |world| {
            let mut model = world.model("small-window");
            model.context_window_tokens = Some(window_tokens);
            model.max_tokens = Some(answer_tokens);
            Models::single("small", model)
        })
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    // A server counts the whole request against the window: every message, the tool schemas, the
    // template around them, and the answer's `max_tokens`. Read as a tokenizer reads JSON, about
    // 4 bytes a token, every request fits.
    for (index, request) in requests.iter().enumerate() {
        let counted = request.body_text.len() as u64 / 4 + u64::from(answer_tokens);
        assert!(
            counted <= window_tokens,
            "request {}: {counted} tokens counted in a {window_tokens} window",
            index + 1
        );
    }
    let last = requests.last().unwrap().messages();
    assert_eq!(last[0]["role"], "system");
    let users = contents(requests.last().unwrap(), "user");
    assert!(users.iter().any(|text| text.contains("earlier turns of this conversation were removed")), "{users:?}");
    let mut calls: Vec<&str> = Vec::new();
    for message in last {
        match message["role"].as_str().unwrap() {
            "assistant" => {
                calls =
                    message["tool_calls"].as_array().unwrap().iter().map(|call| call["id"].as_str().unwrap()).collect();
            }
            "tool" => assert!(calls.contains(&message["tool_call_id"].as_str().unwrap()), "{message} lost its call"),
            _ => calls.clear(),
        }
    }
    let latest = &last[last.len() - 2];
    assert!(
        latest["tool_calls"][0]["function"]["arguments"].as_str().unwrap().contains(&format!("note-{}", turns - 1))
    );
    assert!(last[last.len() - 1]["content"].as_str().unwrap().contains(&format!("note-{}", turns - 1)));
}

#[tokio::test]
async fn a_second_checkpoint_at_the_same_point_is_answered_without_counting_as_a_tool_error() {
    let Driven { world, outcome, .. } = Scenario::new("counted", COUNTED)
        .replies([
            call("checkpoint", json!({ "notes": "First half." })),
            call("checkpoint", json!({ "notes": "Second half." })),
            call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 2 } })),
        ])
        .options(RunOptions { max_tool_errors: 1, ..RunOptions::default() })
        .drive()
        .await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    assert!(contents(&requests[2], "tool").last().unwrap().contains("already recorded"));
    let checkpoints = world.event_kinds(&outcome).await.iter().filter(|kind| *kind == "checkpoint_recorded").count();
    assert_eq!(checkpoints, 1);
}

/// Drives the two-step workflow while another door completes its first step during the model's
/// first answer, which is `first`; the model then completes the step it is shown. Checks that
/// the model was asked twice, the second time at the new tip, and returns the requests.
async fn another_door_completes_the_first_step_during(first: Reply) -> Vec<RecordedRequest> {
    let (release, released) = std::sync::mpsc::channel::<()>();
    let Spawned { world, drive, .. } = Scenario::new("two", two_steps(false))
        .replies([
            Reply::computed(move |_| {
                // The model answers only once the other door has completed the step.
                released.recv().unwrap();
                first
            }),
            call("complete_step", json!({ "notes": "Finished." })),
        ])
        .spawn(CancellationToken::new())
        .await;
    world.server.wait_for_requests(1, Duration::from_secs(60));
    let run = world.runtime.sessions(switchyard_store::SessionQuery::default()).await.unwrap()[0].run.unwrap();
    let shown = world.runtime.show(&switchyard_runtime::Target::Run(run)).await.unwrap();
    let report = switchyard_runtime::AdvanceInput { notes: Some("Drafted by hand.".to_owned()), ..Default::default() };
    world.runtime.advance(shown.tokens.continue_token.as_deref().unwrap(), Some(run), report).await.unwrap();
    release.send(()).unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(60), drive).await.expect("the drive ends").unwrap();
    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let advances = world.event_kinds(&outcome).await.iter().filter(|kind| *kind == "advance_recorded").count();
    assert_eq!(advances, 2, "each step was completed once");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        contents(&requests[1], "user").last().unwrap().contains("Finish the draft."),
        "the second turn is at the new tip"
    );
    requests
}

// `wait_for_requests` blocks its thread while the drive runs on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_another_door_completed_while_the_model_worked_is_not_completed_again() {
    let first = call("complete_step", json!({ "notes": "Drafted by the model." }));
    let requests = another_door_completes_the_first_step_during(first).await;
    assert!(contents(&requests[1], "tool").last().unwrap().contains("REPLAY_MISMATCH"));
}

// `wait_for_requests` blocks its thread while the drive runs on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_another_door_completed_during_a_turn_that_did_not_move_the_run_is_seen_at_the_next_turn() {
    // The model's first turn only lists files: the run did not move by its hand.
    let first = call("list_files", json!({ "path": "{project-root}" }));
    another_door_completes_the_first_step_during(first).await;
}

/// A step that is done only when a file exists, which switchyard checks itself.
const EVIDENCED: &str = r#"id: evidenced
steps:
  - id: make
    prompt: Make a text file.
    notes: optional
    evidence:
      - {kind: files, paths: ["*.txt"]}
"#;

#[tokio::test]
async fn the_model_reads_the_evidence_and_each_failed_check_as_the_tool_result() {
    let workspace = tempfile::tempdir().unwrap();
    let commands = switchyard_runner::Commands {
        allow: switchyard_command::Allowlist::new(vec![vec!["touch".to_owned()]]),
        limits: switchyard_command::Limits { timeout: Duration::from_secs(30), max_output_bytes: 4096 },
        workspace: workspace.path().to_owned(),
        writable: Vec::new(),
        unwritable: Vec::new(),
        secret: Vec::new(),
        network: false,
        env: Vec::new(),
    };
    let mut prepared = Scenario::new("evidenced", EVIDENCED)
        .replies([
            call("complete_step", json!({})),
            call("run_command", json!({ "argv": ["touch", "made.txt"] })),
            call("complete_step", json!({})),
        ])
        .options(RunOptions { commands: Some(commands), ..RunOptions::default() })
        .prepare()
        .await;
    if let Target::Start(request) = &mut prepared.start {
        request.workspace = Some(workspace.path().to_owned());
    }
    let Driven { world, outcome, .. } = prepared.drive().await;

    assert_eq!(status(&outcome), Some(RunStatus::Completed), "{outcome:?}");
    let requests = world.server.requests();
    let task = contents(&requests[0], "user").join("\n");
    assert!(task.contains("What switchyard checks itself") && task.contains("files matching `*.txt` exist"), "{task}");
    let refused = contents(&requests[1], "tool").pop().unwrap();
    assert!(
        refused.contains("EVIDENCE") && refused.contains("no regular file inside the workspace matches"),
        "{refused}"
    );
    let kinds = world.event_kinds(&outcome).await;
    assert_eq!(kinds.iter().filter(|kind| *kind == "evidence_recorded").count(), 2);
}
