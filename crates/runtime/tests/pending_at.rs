//! `Runtime::pending_at`: the step a node is about, its prompt rendered with that node's context,
//! for pages that show any node of a run (the console) without handing out tokens as `show` does.

mod common;

use serde_json::json;

use switchyard_catalog::Catalog;
use switchyard_runtime::{AdvanceInput, StartRequest, Target};

const TWO_STEPS: &str = "id: two
title: Two
steps:
  - id: first
    prompt: First, for {{ goal }}.
    notes: optional
    next:
      - {to: second, label: next}
  - id: second
    prompt: Second, with scope {{ context.scope }}.
    notes: optional
    next:
      - {end: true, label: done}
";

#[tokio::test]
async fn pending_at_renders_each_nodes_prompt_with_its_own_context_and_is_none_at_the_end() {
    let dir = common::TestHome::new();
    let file = dir.path().join("two.yaml");
    std::fs::write(&file, TWO_STEPS).unwrap();
    let runtime = common::runtime(&dir).await;
    let started = runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(file), goal: "the parser".into(), ..StartRequest::default() },
        )
        .await
        .unwrap();
    let token = started.tokens.continue_token.clone().unwrap();
    let context = json!({ "scope": "lexer" }).as_object().unwrap().clone();
    let second = runtime
        .advance(&token, None, AdvanceInput { context: Some(context), ..AdvanceInput::default() })
        .await
        .unwrap();
    let first = runtime.pending_at(started.node).await.unwrap().expect("the first node's step");
    assert_eq!((first.step.as_str(), first.prompt.as_str()), ("first", "First, for the parser."));
    let at_second = runtime.pending_at(second.node).await.unwrap().expect("the second node's step");
    assert_eq!(at_second.prompt, "Second, with scope lexer.");
    let token = runtime.show(&Target::Run(second.run)).await.unwrap().tokens.continue_token.unwrap();
    let done = runtime.advance(&token, None, AdvanceInput::default()).await.unwrap();
    assert!(runtime.pending_at(done.node).await.unwrap().is_none(), "a completed run waits on no step");
}
