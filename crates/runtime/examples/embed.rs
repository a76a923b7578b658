//! switchyard in process: another Rust program opens a runtime on a home of its own, starts a run
//! of a built-in workflow, does the pending step, approves its gate as the human, and prints
//! where the run stands. `cargo run -p switchyard-runtime --example embed`.

// An example's output is what it is for.
#![allow(clippy::print_stdout)]

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_runtime::{AdvanceInput, ResponseKind, Runtime, StartRequest, StepResponse};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A home of its own: the key file and the SQLite store go there. A real program would keep it
    // (or leave `home` unset for the user's switchyard home).
    let home = tempfile::tempdir()?;
    let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
    let runtime = Runtime::open(&config).await?;
    // Where workflows are found: the home's own and the built-ins (`Catalog::configured` adds the
    // project's); it is handed to each start, so one runtime serves any number of projects.
    let catalog = Catalog::new(None, &config.home);

    let request = StartRequest {
        workflow: Some("dev-cycle".to_owned()),
        goal: "Add a --verbose flag".to_owned(),
        ..StartRequest::default()
    };
    let started = runtime.start(&catalog, request).await?;
    println!("started {} (session {})", started.run, started.session);
    print_step(&started);

    // The agent's report on the pending step; the continue token names the step and attempt.
    let token = started.tokens.continue_token.clone().ok_or("the first step takes an advance")?;
    let report = AdvanceInput { notes: Some("Plan: add the flag, test it.".to_owned()), ..AdvanceInput::default() };
    let advanced = runtime.advance(&token, Some(started.run), report).await?;
    println!("after the advance: {:?}", advanced.kind);

    // `plan` is gated: a human approves it (the agent's token cannot), and the run moves on.
    if advanced.kind == ResponseKind::WaitingGate {
        let approved = runtime.approve(advanced.run, Some("looks right".to_owned())).await?;
        println!("after the approval: {:?}", approved.kind);
        print_step(&approved);
    }
    Ok(())
}

fn print_step(response: &StepResponse) {
    if let Some(step) = &response.step {
        println!("pending step `{}`: {}", step.step, step.title);
        println!("{}", step.prompt);
    }
}
