//! The runner metrics' follower: a server's runtime counts the turns another process records
//! (through the change feed and the store, never the whole log), from the moment it starts, by
//! tool and outcome with unknown tools as `other`, and the runs a runner drove to an end.

mod common;

use switchyard_catalog::Catalog;
use switchyard_core::turn::{ModelTurn, Refusal, TurnRequest, TurnResponse, TurnToolResult, TurnUsage};
use switchyard_core::{NodeId, SessionId};
use switchyard_runtime::turn_metrics::TurnFollower;
use switchyard_runtime::{Runtime, StartRequest, StepResponse};

/// A tool call's result: `(tool, ok, refusal)`.
type Call = (&'static str, bool, Option<Refusal>);

fn turn(node: NodeId, number: u32, calls: &[Call]) -> ModelTurn {
    ModelTurn {
        node,
        step: switchyard_core::workflow::StepId::new("plan"),
        turn: number,
        model: "local".to_owned(),
        request: TurnRequest { messages: 1, tools: 9, fresh: false, trimmed: 0, new_messages: Vec::new() },
        response: TurnResponse::default(),
        tool_results: calls
            .iter()
            .enumerate()
            .map(|(index, (name, ok, refusal))| TurnToolResult {
                call_id: format!("call_{index}"),
                name: (*name).to_owned(),
                ok: *ok,
                content: String::new(),
                micros: 250,
                refusal: *refusal,
            })
            .collect(),
        usage: TurnUsage { prompt_tokens: 100, completion_tokens: 10, estimated: false },
        latency_ms: 5,
        cost_usd: None,
    }
}

async fn start(runtime: &Runtime) -> StepResponse {
    let request =
        StartRequest { workflow: Some("dev-cycle".to_owned()), goal: "g".to_owned(), ..StartRequest::default() };
    runtime.start(&Catalog::builtins_only(), request).await.unwrap()
}

/// Waits until `follower` has read everything `runner` wrote to `session`.
async fn caught_up(follower: &mut TurnFollower, runner: &Runtime, session: SessionId) {
    let last_seq = runner.session(session).await.unwrap().last_seq;
    follower.reached(session, last_seq).await;
}

#[tokio::test]
async fn the_follower_counts_another_processes_turns_from_its_start_by_tool_and_outcome() {
    let home = common::TestHome::new();
    let server = common::runtime(&home).await;
    // The runner's process: its own store over the same home, so only the store links the two.
    let runner = common::runtime(&home).await;
    let metrics = server.metrics().runner.clone();

    let earlier = start(&runner).await;
    runner.record_turn(earlier.run, turn(earlier.node, 1, &[("read_file", true, None)])).await.unwrap();
    let mut follower = server.follow_turns().await.unwrap();

    runner.record_turn(earlier.run, turn(earlier.node, 2, &[("list_files", true, None)])).await.unwrap();
    let calls: [Call; 5] = [
        ("read_file", true, None),
        ("read_file", false, Some(Refusal::Violation)),
        ("run_shell", false, None),
        ("complete_step", false, Some(Refusal::Blocked)),
        ("complete_step", true, None),
    ];
    runner.record_turn(earlier.run, turn(earlier.node, 3, &calls)).await.unwrap();
    runner.stop(earlier.run, None).await.unwrap();
    caught_up(&mut follower, &runner, earlier.session).await;

    assert_eq!(metrics.turns(), 2, "the turn recorded before the follower started is not counted");
    assert_eq!(metrics.tokens(), (200, 20));
    assert_eq!(metrics.tool_calls("list_files", "ok"), 1);
    assert_eq!(metrics.tool_calls("read_file", "ok"), 1);
    assert_eq!(metrics.tool_calls("read_file", "violation"), 1);
    assert_eq!(metrics.tool_calls("other", "error"), 1, "an unknown tool is counted as other");
    assert_eq!(metrics.tool_calls("complete_step", "blocked"), 1);
    assert_eq!(metrics.tool_calls("complete_step", "ok"), 1);
    assert_eq!(metrics.runs_finished("stopped"), 1, "a run the follower saw a runner drive");

    // A run whose end comes before its first turn seen (the turn that completes a run is recorded
    // after the run's end) is counted when that turn comes; a run no runner drove is not.
    let last_turn_only = start(&runner).await;
    runner.stop(last_turn_only.run, None).await.unwrap();
    runner.record_turn(last_turn_only.run, turn(last_turn_only.node, 1, &[])).await.unwrap();
    runner.record_turn(last_turn_only.run, turn(last_turn_only.node, 2, &[])).await.unwrap();
    let driven_by_no_runner = start(&runner).await;
    runner.stop(driven_by_no_runner.run, None).await.unwrap();
    caught_up(&mut follower, &runner, last_turn_only.session).await;
    caught_up(&mut follower, &runner, driven_by_no_runner.session).await;

    assert_eq!(metrics.turns(), 4);
    assert_eq!(metrics.runs_finished("stopped"), 2, "counted once, by its first turn after the end");
    assert_eq!(metrics.runs_finished("completed"), 0);
}
