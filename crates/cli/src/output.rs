//! Everything the CLI prints: text for people, JSON for programs, and the one place errors are
//! mapped to messages and exit codes.

use std::io::{IsTerminal, Write};

use serde::Serialize;
use switchyard_runtime::{Error, ErrorClass, ResponseKind, StepResponse};

use crate::args::ColorChoice;

/// How a command ended when it ran to completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// The command ran, and its answer is a rule violation (a blocked advance, an invalid
    /// workflow, a failed verify).
    RuleViolation,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Success => 0,
            Self::RuleViolation => 1,
        }
    }
}

/// A command that could not do what was asked.
#[derive(Debug)]
pub struct Failure {
    pub code: String,
    pub message: String,
    pub class: ErrorClass,
    pub retryable: bool,
    pub details: Option<serde_json::Value>,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: "USAGE".to_owned(),
            message: message.into(),
            class: ErrorClass::Usage,
            retryable: false,
            details: None,
        }
    }

    pub fn environment(message: impl Into<String>) -> Self {
        Self {
            code: "ENVIRONMENT".to_owned(),
            message: message.into(),
            class: ErrorClass::Usage,
            retryable: false,
            details: None,
        }
    }

    pub fn exit_code(&self) -> u8 {
        match self.class {
            ErrorClass::Rule => 1,
            ErrorClass::Usage => 2,
        }
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        let details = match &error {
            Error::InvalidWorkflow { diagnostics, .. } => serde_json::to_value(diagnostics).ok(),
            Error::ReplayMismatch { run, differs, recorded_sha256, sent_sha256, .. } => Some(serde_json::json!({
                "run": run, "differs": differs, "recorded_sha256": recorded_sha256, "sent_sha256": sent_sha256,
            })),
            _ => None,
        };
        let mut message = error.to_string();
        if let Error::InvalidWorkflow { diagnostics, .. } = &error {
            for diagnostic in diagnostics.iter().filter(|diagnostic| diagnostic.is_error()) {
                message.push('\n');
                message.push_str(&diagnostic.to_string());
            }
        }
        Self { code: error.code().to_owned(), message, class: error.class(), retryable: error.retryable(), details }
    }
}

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'a str,
    message: &'a str,
    retryable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a serde_json::Value>,
}

/// Prints a failure: `switchyard: <message>` on stderr, and with `--json` an error object on
/// stdout so scripts can read the code.
#[allow(clippy::print_stderr)]
pub fn report_failure(failure: &Failure, json: bool) {
    if json {
        print_error_envelope(failure);
    }
    eprintln!("switchyard: {} [{}]", failure.message, failure.code);
}

/// The error envelope `--json` promises on stdout for every failure.
pub fn print_error_envelope(failure: &Failure) {
    let envelope = ErrorEnvelope {
        error: ErrorBody {
            code: &failure.code,
            message: &failure.message,
            retryable: failure.retryable,
            details: failure.details.as_ref(),
        },
    };
    let text = serde_json::to_string_pretty(&envelope).expect("error envelope serialises");
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Writes to stdout, in colour only where that helps.
#[derive(Debug)]
pub struct Printer {
    pub json: bool,
    colour: bool,
}

impl Printer {
    pub fn new(json: bool, choice: ColorChoice) -> Self {
        let colour = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Self { json, colour }
    }

    pub fn json<T: Serialize>(&self, value: &T) -> Result<(), Failure> {
        let text = serde_json::to_string_pretty(value).map_err(|error| Failure::environment(error.to_string()))?;
        self.line(&text)
    }

    pub fn line(&self, text: &str) -> Result<(), Failure> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}").map_err(|error| Failure::environment(format!("cannot write to stdout: {error}")))
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint(text, "1")
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint(text, "2")
    }

    pub fn red(&self, text: &str) -> String {
        self.paint(text, "31")
    }

    pub fn green(&self, text: &str) -> String {
        self.paint(text, "32")
    }

    pub fn yellow(&self, text: &str) -> String {
        self.paint(text, "33")
    }

    fn paint(&self, text: &str, code: &str) -> String {
        if self.colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// A step response as text: where the run is, what to do, and the exact next command.
    pub fn step_response(&self, response: &StepResponse) -> Result<(), Failure> {
        if self.json {
            return self.json(response);
        }
        let mut text = String::new();
        let status = match response.kind {
            ResponseKind::Ok | ResponseKind::Complete => self.green(response.status.as_str()),
            ResponseKind::Blocked | ResponseKind::Failed | ResponseKind::Stopped => self.red(response.status.as_str()),
            _ => self.yellow(response.status.as_str()),
        };
        let mut flags = String::new();
        if response.forked {
            flags.push_str(" · forked: a new branch");
        }
        if response.replayed {
            flags.push_str(" · replayed: already recorded, nothing advanced");
        }
        text.push_str(&format!("{} {} · {} · {status}{flags}\n", self.bold("run"), response.run, response.workflow.id));
        if let Some(validation) = &response.validation {
            text.push_str(&format!("\n{}\n", self.red("The last report was refused:")));
            for issue in &validation.issues {
                text.push_str(&format!("  - [{}] {}: {}\n", issue.code, issue.path, issue.message));
            }
        }
        if let Some(step) = &response.step {
            text.push_str(&format!("\n{} {} — {}\n", self.bold("step"), step.step, step.title));
            let mut facts = Vec::new();
            if let Some(role) = &step.role {
                facts.push(format!("role {role}"));
            }
            if let Some(model) = &step.model {
                facts.push(format!("model {model}"));
            }
            if let Some(phase) = &step.phase {
                facts.push(format!("phase {phase}"));
            }
            if step.gate {
                facts.push("a human approves the result".to_owned());
            }
            if step.context_reset {
                facts.push("start in a fresh conversation".to_owned());
            }
            if !facts.is_empty() {
                text.push_str(&format!("{}\n", self.dim(&facts.join(" · "))));
            }
            if let Some(rejection) = &step.rejection {
                text.push_str(&format!("\n{} {rejection}\n", self.yellow("Rework requested:")));
            }
            text.push_str(&format!("\n{}\n", step.prompt.trim_end()));
            text.push_str(&format!("\n{}\n", self.bold("Report")));
            text.push_str(&format!(
                "  notes: {}\n",
                serde_json::to_value(step.notes).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
            ));
            if let Some(schema) = &step.output_schema {
                text.push_str(&format!(
                    "  artifacts matching: {}\n",
                    serde_json::to_string(schema).unwrap_or_default()
                ));
            }
            if !step.allowed_next.is_empty() {
                text.push_str(&format!(
                    "\n{}{}\n",
                    self.bold("Allowed next"),
                    if step.needs_choice { " (choose one with --choice)" } else { "" }
                ));
                for edge in &step.allowed_next {
                    let to = edge.to.as_ref().map_or_else(|| "complete the run".to_owned(), ToString::to_string);
                    let mut line = format!("  - {} → {to}", edge.label);
                    if edge.default {
                        line.push_str(" (default)");
                    }
                    if let Some(condition) = &edge.condition_text {
                        line.push_str(&format!(" when {condition}"));
                    }
                    if let Some(remaining) = edge.remaining {
                        line.push_str(&format!(" [{remaining} left]"));
                    }
                    text.push_str(&line);
                    text.push('\n');
                }
            }
        }
        if let Some(gate) = &response.gate {
            text.push_str(&format!(
                "\nStep `{}` ({}) waits for a human.\n  approve: switchyard approve {}\n  reject:  switchyard reject {} --reason \"…\"\n",
                gate.step, gate.title, response.run, response.run
            ));
        }
        if let Some(decision) = &response.decision {
            let options: Vec<&str> = decision.options.iter().map(|option| option.as_str()).collect();
            text.push_str(&format!(
                "\nA limit was reached ({}); a human decides: switchyard decide {} <{}>\n",
                serde_json::to_value(decision.reason)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                response.run,
                options.join("|")
            ));
        }
        if let Some(failure) = &response.failure {
            text.push_str(&format!("\n{} [{}] {}\n", self.red("The run failed:"), failure.code, failure.message));
        }
        if let Some((command, fill_in)) = crate::next::next_command(response) {
            text.push_str(&format!("\n{} {command}\n", self.bold("Next:")));
            for line in fill_in {
                text.push_str(&format!("{}\n", self.dim(&line)));
            }
        }
        self.line(text.trim_end())
    }
}
