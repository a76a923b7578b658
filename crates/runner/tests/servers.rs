//! The runner against the behaviours of the servers people run models on, each played by the
//! fake server over real HTTP: chat templates that need a user turn, reasoning models that want
//! their reasoning back and servers that refuse it, gateways that only stream, strict message
//! validation, empty and cut answers, repeated tool call ids, context windows and the ways each
//! family says one was exceeded, tool calling switched off, usage reported in part or not at all.
//! Each scenario is checked against what the runner sent, the run's log and its transcript.

#[allow(dead_code, reason = "each test binary uses a part of the shared helpers")]
mod common;

use serde_json::{Value, json};
use switchyard_core::RunStatus;
use switchyard_runner::{Limits, Models, Outcome, PauseReason, RunOptions, RunnerEvent, Target};
use switchyard_test_support::fake_llm::{RecordedRequest, Reply, Says};

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::common::{Driven, Prepared, Scenario, Spawned, World, call, contents, two_steps};

const NOTED: &str = r#"id: noted
version: "1"
title: Noted
description: One step that requires notes.
steps:
  - id: note
    title: Write a note
    prompt: Look around, then report what you saw.
    notes: required
"#;

fn completed(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Finished { status: RunStatus::Completed, .. })
}

fn paused(outcome: &Outcome) -> Option<(PauseReason, &str)> {
    match outcome {
        Outcome::Paused { reason, message, .. } => Some((*reason, message.as_str())),
        Outcome::Finished { .. } => None,
    }
}

fn list_files() -> Reply {
    call("list_files", json!({ "path": "{project-root}" }))
}

fn complete(notes: &str) -> Reply {
    call("complete_step", json!({ "notes": notes }))
}

/// The answer to the request's latest tool call.
fn last_answer(request: &RecordedRequest) -> String {
    contents(request, "tool").pop().expect("a tool answer")
}

/// The assistant messages of a request.
fn assistants(request: &RecordedRequest) -> Vec<&Value> {
    request.messages().iter().filter(|message| message["role"] == "assistant").collect()
}

/// Sets up `scenario`, lets `strict` make the server strict, and drives the run.
async fn drive_against(scenario: Scenario, strict: impl FnOnce(&World)) -> Driven {
    let prepared: Prepared = scenario.prepare().await;
    strict(&prepared.world);
    prepared.drive().await
}

#[tokio::test]
async fn a_template_that_needs_a_user_turn_gets_one_in_every_request() {
    let Driven { world, outcome, .. } =
        drive_against(Scenario::new("noted", NOTED).replies([list_files(), complete("Saw files.")]), |world| {
            world.server.needs_user_turn();
        })
        .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 2, "nothing was refused");
    assert!(contents(&requests[0], "user")[0].contains("Look around, then report what you saw."), "the task is there");
}

#[tokio::test]
async fn a_thinking_model_gets_its_reasoning_back_with_the_calls_it_made() {
    let Driven { world, outcome, .. } = drive_against(
        Scenario::new("noted", NOTED)
            .replies([list_files().reasoning("The project root first."), complete("Saw files.").reasoning("Done.")]),
        |world| {
            world.server.wants_reasoning_back();
        },
    )
    .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 2, "nothing was refused");
    assert_eq!(assistants(&requests[1])[0]["reasoning_content"], "The project root first.");
}

#[tokio::test]
async fn a_server_that_refuses_reasoning_is_sent_none_after_its_first_refusal() {
    let Driven { world, outcome, events, runner, .. } = drive_against(
        Scenario::new("two", two_steps(false)).replies([
            list_files().reasoning("Look first."),
            complete("Drafted.").reasoning("The draft is done."),
            complete("Finished.").reasoning("All done."),
        ]),
        |world| {
            world.server.strict_messages();
        },
    )
    .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    // The second request carried the reasoning and was refused; every later one carries none.
    assert!(requests[1].body_text.contains("reasoning_content"));
    assert!(requests[2..].iter().all(|request| !request.body_text.contains("reasoning_content")));
    assert!(events.iter().any(
        |event| matches!(event, RunnerEvent::Retrying { reason, .. } if reason.contains("refuses the reasoning"))
    ));
    // The runner remembers it for its next drive.
    world.server.push_all([list_files().reasoning("Again."), complete("Drafted."), complete("Finished.")]);
    let start = Target::Start(world.workflow("two", &two_steps(false)));
    let (outcome, _) = world.drive(&runner, start).await;
    assert!(completed(&outcome));
    let later = &world.server.requests()[requests.len()..];
    assert!(later.iter().all(|request| !request.body_text.contains("reasoning_content")), "not sent again");
}

#[tokio::test]
async fn a_model_set_never_to_send_reasoning_sends_none() {
    let Driven { world, outcome, .. } = Scenario::new("noted", NOTED)
        .replies([list_files().reasoning("Look first."), complete("Saw files.")])
        .models(|world| {
            let mut model = world.model("strict");
            model.send_reasoning = Some(false);
            Models::single("strict", model)
        })
        .drive()
        .await;
    assert!(completed(&outcome));
    assert!(!world.server.requests()[1].body_text.contains("reasoning_content"));
}

#[tokio::test]
async fn a_gateway_that_only_streams_is_streamed_to_after_its_first_refusal() {
    let Driven { world, outcome, events, .. } =
        drive_against(Scenario::new("noted", NOTED).replies([list_files(), complete("Saw files.")]), |world| {
            world.server.stream_only();
        })
        .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 3, "one refusal, then two streamed requests");
    assert!(!requests[0].asks_to_stream() && requests[1..].iter().all(RecordedRequest::asks_to_stream));
    assert!(
        events
            .iter()
            .any(|event| matches!(event, RunnerEvent::Retrying { reason, .. } if reason.contains("stream = true")))
    );
}

#[tokio::test]
async fn a_model_set_to_stream_streams_from_its_first_request() {
    let Driven { world, outcome, .. } = Scenario::new("noted", NOTED)
        .replies([list_files(), complete("Saw files.")])
        .models(|world| {
            let mut model = world.model("streaming");
            model.stream = true;
            Models::single("streaming", model)
        })
        .drive()
        .await;
    assert!(completed(&outcome));
    let requests = world.server.requests();
    assert!(requests.iter().all(RecordedRequest::asks_to_stream));
    assert_eq!(requests[0].body["stream_options"]["include_usage"], true);
}

#[tokio::test]
async fn an_empty_answer_never_goes_back_and_the_model_is_told() {
    let Driven { world, outcome, .. } =
        drive_against(Scenario::new("noted", NOTED).replies([Reply::empty(), complete("Saw files.")]), |world| {
            world.server.strict_messages();
        })
        .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 2, "the strict server refused nothing");
    assert!(assistants(&requests[1]).is_empty(), "no empty assistant message went back");
    assert!(contents(&requests[1], "user").last().unwrap().contains("Your answer was empty"));
    let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
    assert_eq!(transcript[0].turn.response.finish_reason.as_deref(), Some("stop"));
}

#[tokio::test]
async fn repeated_tool_call_ids_are_made_unique_before_they_go_back() {
    let twice = Reply::tool_calls(&[
        ("list_files", json!({ "path": "{project-root}" })),
        ("list_files", json!({ "path": "{output-root}" })),
    ])
    .call_ids(&["call_0", "call_0"]);
    let Driven { world, outcome, .. } = drive_against(
        Scenario::new("noted", NOTED).replies([twice, list_files().call_ids(&["call_0"]), complete("Saw files.")]),
        |world| {
            world.server.strict_messages();
        },
    )
    .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    assert_eq!(requests.len(), 3, "the strict server refused nothing");
    let ids: Vec<&str> = assistants(&requests[2])
        .iter()
        .flat_map(|message| message["tool_calls"].as_array().unwrap())
        .map(|call| call["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_0", "call_0_2", "call_0_3"]);
    let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
    assert_eq!(transcript[0].turn.response.tool_calls[1].id, "call_0_2", "the transcript records the ids sent back");
    assert_eq!(transcript[0].turn.tool_results[1].call_id, "call_0_2");
}

#[tokio::test]
async fn an_answer_cut_at_max_tokens_is_named_so() {
    let cut = || Reply::raw_tool_call("complete_step", "{\"notes\": \"I looked at the fi").finish("length");
    let Driven { world, outcome, .. } = Scenario::new("noted", NOTED)
        .replies([cut(), cut()])
        .options(RunOptions { max_tool_errors: 2, ..RunOptions::default() })
        .models(|world| {
            let mut model = world.model("short");
            model.max_tokens = Some(64);
            Models::single("short", model)
        })
        .drive()
        .await;
    let (reason, message) = paused(&outcome).expect("paused");
    assert_eq!(reason, PauseReason::ToolErrors);
    assert!(
        message.contains("2 of its answers were cut at max_tokens: raise `max_tokens` (now 64) in `[models.short]`"),
        "{message}"
    );
    let answer: Value = serde_json::from_str(&last_answer(&world.server.requests()[1])).unwrap();
    assert_eq!(answer["error"]["code"], "ANSWER_CUT");
    assert!(answer["error"]["message"].as_str().unwrap().contains("cut at max_tokens = 64"), "{answer}");
}

#[tokio::test]
async fn a_complete_step_without_the_notes_a_step_requires_is_refused_without_using_an_attempt() {
    let Driven { world, outcome, events, .. } =
        Scenario::new("noted", NOTED).replies([call("complete_step", json!({})), complete("Saw files.")]).drive().await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    let offered = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["function"]["name"] == "complete_step")
        .unwrap();
    assert_eq!(offered["function"]["parameters"]["required"], json!(["notes"]), "the schema says so");
    let answer = last_answer(&requests[1]);
    assert!(answer.contains("was not sent (no attempt used)") && answer.contains("notes"), "{answer}");
    let kinds = world.event_kinds(&outcome).await;
    assert_eq!(kinds.iter().filter(|kind| *kind == "advance_recorded").count(), 1, "one report reached the run");
    assert!(!events.iter().any(|event| matches!(event, RunnerEvent::StepBlocked { .. })));
}

const ONE_ATTEMPT: &str = r#"id: one-attempt
version: "1"
title: One attempt
description: A step with one attempt at a checked report.
steps:
  - id: count
    title: Count
    prompt: Count the files.
    max_attempts: 1
    output:
      type: object
      required: [count]
      properties:
        count: {type: integer}
"#;

#[tokio::test]
async fn a_complete_step_that_fails_the_run_is_never_shown_as_ok() {
    let Driven { outcome, events, .. } = Scenario::new("one-attempt", ONE_ATTEMPT)
        .replies([call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": "three" } }))])
        .drive()
        .await;
    assert!(matches!(outcome, Outcome::Finished { status: RunStatus::Failed, .. }), "{outcome:?}");
    let called: Vec<bool> = events
        .iter()
        .filter_map(|event| match event {
            RunnerEvent::ToolCalled { tool, ok, .. } if tool == "complete_step" => Some(*ok),
            _ => None,
        })
        .collect();
    assert_eq!(called, [false]);
}

#[tokio::test]
async fn each_familys_context_refusal_trims_the_conversation_and_sends_it_again() {
    for says in [Says::OpenAiContext, Says::VllmContext, Says::LlamaCppContext, Says::LiteLlmContext] {
        let big = "x".repeat(4000);
        let Driven { world, outcome, .. } = Scenario::new("noted", NOTED)
            .replies([
                call("save_output", json!({ "path": "a.md", "content": big })),
                call("read_file", json!({ "path": "{output-root}/a.md" })),
                call("read_file", json!({ "path": "{output-root}/a.md", "startLine": 1 })),
                Reply::says(says),
                complete("Saw files."),
            ])
            .drive()
            .await;
        assert!(completed(&outcome), "{says:?}: {outcome:?}");
        let requests = world.server.requests();
        assert_eq!(requests.len(), 5);
        assert!(requests[4].body_text.len() < requests[3].body_text.len(), "{says:?}: sent again shorter");
        assert!(requests[4].body_text.contains("removed to fit the model's context window"), "{says:?}");
        let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
        assert!(transcript[3].turn.request.trimmed > 0, "{says:?}: the turn records the trim");
    }
}

#[tokio::test]
async fn a_context_refusal_with_nothing_left_to_trim_pauses_saying_so() {
    let scenario = Scenario::new("noted", NOTED);
    let prepared = scenario.prepare().await;
    prepared.world.server.otherwise(|_| Reply::says(Says::VllmContext));
    let Driven { outcome, .. } = prepared.drive().await;
    let (reason, message) = paused(&outcome).expect("paused");
    assert_eq!(reason, PauseReason::ContextFull);
    assert!(message.contains("nothing is left to trim") && message.contains("context_window"), "{message}");
}

#[tokio::test]
async fn a_4k_window_counted_whole_by_the_server_is_never_exceeded() {
    let replies =
        (0..40).map(|turn| call("save_output", json!({ "path": format!("n-{turn}.md"), "content": "n".repeat(200) })));
    let Driven { world, outcome, .. } = drive_against(
        Scenario::new("noted", NOTED).replies(replies).replies([complete("Saw files.")]).models(|world| {
            let mut model = world.model("small");
            model.context_window_tokens = Some(4096);
            model.max_tokens = Some(512);
            Models::single("small", model)
        }),
        |world| {
            world.server.context_window(4096);
        },
    )
    .await;
    assert!(completed(&outcome), "{outcome:?}");
    assert_eq!(world.server.requests().len(), 41, "the server refused none");
}

#[tokio::test]
async fn tool_calling_switched_off_pauses_naming_the_servers_words_and_the_fix() {
    for (says, fix) in [
        (Says::VllmToolsOff, "--enable-auto-tool-choice"),
        (Says::LlamaCppToolsOff, "--jinja"),
        (Says::OllamaNoTools, "does not support tools"),
    ] {
        let Driven { outcome, .. } = Scenario::new("noted", NOTED).replies([Reply::says(says)]).drive().await;
        let (reason, message) = paused(&outcome).expect("paused");
        assert_eq!(reason, PauseReason::RequestRejected, "{says:?}");
        assert!(message.contains("LLM_TOOLS_UNSUPPORTED") && message.contains(fix), "{says:?}: {message}");
        assert!(!message.contains("check the API key"), "{message}");
    }
}

#[tokio::test]
async fn a_token_budget_holds_when_a_server_reports_only_a_total_or_nothing() {
    let Driven { outcome, .. } = Scenario::new("noted", NOTED)
        .replies([list_files().total_tokens_only(6000), list_files().total_tokens_only(6000)])
        .options(RunOptions {
            step_limits: Limits { max_tokens: Some(10_000), ..Limits::default() },
            ..RunOptions::default()
        })
        .drive()
        .await;
    let (reason, message) = paused(&outcome).expect("paused");
    assert_eq!(reason, PauseReason::LimitReached);
    assert!(message.contains("12000"), "{message}");

    let Driven { outcome, events, world, .. } =
        Scenario::new("noted", NOTED).replies([list_files().no_usage(), complete("Saw files.")]).drive().await;
    assert!(completed(&outcome));
    let estimated: Vec<(bool, u64)> = events
        .iter()
        .filter_map(|event| match event {
            RunnerEvent::Turn { tokens_estimated, prompt_tokens, .. } => Some((*tokens_estimated, *prompt_tokens)),
            _ => None,
        })
        .collect();
    assert!(estimated[0].0 && estimated[0].1 > 500, "the first turn is estimated from its size: {estimated:?}");
    assert!(!estimated[1].0, "the second was counted by the server");
    let transcript = world.runtime.transcript(outcome.run()).await.unwrap();
    assert!(transcript[0].turn.usage.estimated && !transcript[1].turn.usage.estimated);
}

#[tokio::test]
async fn a_refused_oversized_call_is_not_sent_again_with_every_request() {
    let huge = "y".repeat(3 * 1024 * 1024);
    let Driven { world, outcome, .. } = Scenario::new("noted", NOTED)
        .replies([
            call("save_output", json!({ "path": "huge.md", "content": huge })),
            list_files(),
            complete("Saw files."),
        ])
        .drive()
        .await;
    assert!(completed(&outcome), "{outcome:?}");
    let requests = world.server.requests();
    assert!(last_answer(&requests[1]).contains("error"), "the write was refused");
    for request in &requests[1..] {
        assert!(request.body_text.len() < 64 * 1024, "{} bytes sent", request.body_text.len());
    }
    assert!(requests[2].body_text.contains("bytes of arguments of this refused call were removed"));
}

// `wait_for_requests` blocks its thread while the drive runs on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_picked_up_mid_step_gives_the_model_the_conversation_it_had() {
    let Spawned { world, runner, drive, .. } = Scenario::new("two", two_steps(false))
        .replies([
            call("save_output", json!({ "path": "notes.md", "content": "zebra-42" })),
            // Never answered before the runner dies.
            complete("never seen").delayed(Duration::from_secs(3600)),
        ])
        .spawn(CancellationToken::new())
        .await;
    world.server.wait_for_requests(2, Duration::from_secs(60));
    drive.abort();
    let _ = drive.await;
    let run = world.runtime.sessions(switchyard_store::SessionQuery::default()).await.unwrap()[0].run.unwrap();

    world.server.push_all([complete("Drafted."), complete("Finished.")]);
    let (outcome, _) = world.drive(&runner, Target::Resume(run)).await;
    assert!(completed(&outcome), "{outcome:?}");
    let resumed = &world.server.requests()[2];
    let calls: Vec<&Value> =
        assistants(resumed).iter().flat_map(|message| message["tool_calls"].as_array().unwrap()).collect();
    assert_eq!(calls.len(), 1, "the save before the crash is restored: {:#?}", resumed.messages());
    assert_eq!(calls[0]["function"]["name"], "save_output");
    assert!(calls[0]["function"]["arguments"].as_str().unwrap().contains("zebra-42"));
    assert!(last_answer(resumed).starts_with("wrote {output-root}/notes.md"), "its answer too");
    let task = contents(resumed, "user").into_iter().find(|text| text.contains("## Step: Draft it")).expect("the task");
    assert!(task.contains("Write the draft"), "{task}");
    let transcript = world.runtime.transcript(run).await.unwrap();
    assert!(transcript[1].turn.request.fresh, "the resumed conversation starts afresh in the record");
}
