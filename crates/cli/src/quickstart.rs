//! `switchyard quickstart`: walks the built-in dev-cycle workflow end to end in a temporary store,
//! through the same runtime every door uses, and narrates what happened.

use serde::Serialize;
use switchyard_config::{Config, Overrides};
use switchyard_runtime::{AdvanceInput, ResponseKind, StartRequest, StepResponse, Target};

use crate::output::{Failure, Outcome, Printer};

#[derive(Serialize)]
struct Beat {
    action: String,
    kind: ResponseKind,
    step: Option<String>,
    node: String,
}

pub async fn run(printer: &Printer) -> Result<Outcome, Failure> {
    let home = tempfile::tempdir()
        .map_err(|error| Failure::environment(format!("cannot create a temporary folder: {error}")))?;
    let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), store: None, project_root: None })?;
    let opened = crate::opened::Opened::open(&config).await?;
    let runtime = opened.runtime.as_ref();
    let mut beats = Vec::new();
    let mut say = |action: &str, response: &StepResponse| -> Result<(), Failure> {
        beats.push(Beat {
            action: action.to_owned(),
            kind: response.kind,
            step: response
                .step
                .as_ref()
                .map(|step| step.step.to_string())
                .or_else(|| response.gate.as_ref().map(|gate| gate.step.to_string())),
            node: response.node.to_string(),
        });
        if printer.json {
            return Ok(());
        }
        let step = beats.last().and_then(|beat| beat.step.clone()).unwrap_or_else(|| "-".to_owned());
        let mut line = format!("{:<58} → {:<26} step {step}", action, response.status.as_str());
        if let Some(validation) = &response.validation {
            for issue in &validation.issues {
                line.push_str(&format!("\n{:>62}[{}] {}", "", issue.code, issue.message));
            }
        }
        printer.line(&line)
    };
    let notes = |text: &str| AdvanceInput { notes: Some(text.to_owned()), ..AdvanceInput::default() };
    let token = |response: &StepResponse| {
        response.tokens.continue_token.clone().ok_or_else(|| Failure::environment("expected a continue token"))
    };

    if !printer.json {
        printer.line(&format!("{} temporary store {}\n", printer.bold("quickstart:"), config.store_path.display()))?;
    }
    let goal = "Add a --verbose flag to the greeter CLI";
    let started = runtime
        .start(
            &opened.catalog,
            StartRequest { workflow: Some("dev-cycle".to_owned()), goal: goal.to_owned(), ..StartRequest::default() },
        )
        .await?;
    say("start dev-cycle", &started)?;
    let run = started.run;

    let planned =
        runtime.advance(&token(&started)?, None, notes("Plan: parse the flag, thread it to the logger.")).await?;
    say("agent reports the plan", &planned)?;
    let rejected = runtime.reject(run, "The plan has no tests; add them.".to_owned()).await?;
    say("human rejects the plan: \"no tests\"", &rejected)?;
    let replanned =
        runtime.advance(&token(&rejected)?, None, notes("Plan: parse the flag, thread it, test both modes.")).await?;
    say("agent reports the revised plan", &replanned)?;
    let approved = runtime.approve(run, None).await?;
    say("human approves the plan", &approved)?;

    let blocked = runtime.advance(&token(&approved)?, None, AdvanceInput::default()).await?;
    say("agent reports the implementation without notes", &blocked)?;
    let implemented = runtime.advance(&token(&blocked)?, None, notes("Implemented the flag; 2 tests added.")).await?;
    say("agent retries with notes", &implemented)?;

    let review_token = token(&implemented)?;
    let review = AdvanceInput {
        notes: Some("Looks good.".to_owned()),
        choice: Some("close".to_owned()),
        ..AdvanceInput::default()
    };
    let reviewed = runtime.advance(&review_token, None, review.clone()).await?;
    say("agent reviews and chooses `close`", &reviewed)?;
    let replayed = runtime.advance(&review_token, None, review).await?;
    say("the same report sent again (replay)", &replayed)?;
    let done = runtime.approve(run, Some("Ship it.".to_owned())).await?;
    say("human approves the review", &done)?;

    let session = runtime.run(&Target::Run(run)).await?.session;
    let events = runtime.events(session, 0, 1000).await?;
    let report = runtime.verify().await?;
    if printer.json {
        printer.json(&serde_json::json!({
            "run": run,
            "beats": beats,
            "events": events.len(),
            "verify_problems": report.problems.len(),
        }))?;
    } else {
        printer.line(&format!("\n{} ({} events)", printer.bold("the log"), events.len()))?;
        for event in &events {
            printer.line(&format!("  {:>3} {}", event.seq, event.kind.name()))?;
        }
        printer.line(&format!(
            "\nverify: {} problem(s). Try it yourself: switchyard start dev-cycle --goal \"…\"",
            report.problems.len()
        ))?;
    }
    Ok(if done.kind == ResponseKind::Complete && report.problems.is_empty() {
        Outcome::Success
    } else {
        Outcome::RuleViolation
    })
}
