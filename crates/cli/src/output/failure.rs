//! How a command ends: its outcome, or the failure it reports (a message and stable code on
//! stderr, the error envelope on stdout with `--json`) and the exit code each maps to.

use std::io::Write;

use serde::Serialize;
use switchyard_runtime::{Error, ErrorClass};

use super::{ColorChoice, paint, style};

/// How a command ended when it ran to completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// The command ran, and its answer is a rule violation (a blocked advance, an invalid
    /// workflow, a failed verify).
    RuleViolation,
    /// The command stopped because of its environment after doing part of its work (`run`: the
    /// model server refused the key or stayed down); what it did is kept.
    EnvironmentProblem,
    /// A person pressed Ctrl-C and the command stopped cleanly (`run`: the run is paused).
    Interrupted,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Success => 0,
            Self::RuleViolation => 1,
            Self::EnvironmentProblem => 2,
            // 128 + SIGINT, as shells report a command a Ctrl-C ended.
            Self::Interrupted => 130,
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
        if self.code == OUTPUT_CLOSED {
            return 0;
        }
        match self.class {
            ErrorClass::Rule => 1,
            ErrorClass::Usage => 2,
        }
    }

    /// A write to stdout that failed. A reader that stopped reading (`switchyard log … | head`)
    /// is no failure: the command ends there, quietly and with exit 0, as ripgrep and cargo do.
    pub(crate) fn stdout(error: &std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            return Self { code: OUTPUT_CLOSED.to_owned(), ..Self::environment("stdout was closed") };
        }
        Self::environment(format!("cannot write to stdout: {error}"))
    }
}

/// The failures of the crates the CLI calls besides the runtime: a workflow that cannot be found
/// or read, a configuration that is wrong, a validation that cannot run, a run folder that cannot
/// be written. Each keeps its own stable code; none is a rule saying no (exit 2).
macro_rules! usage_failure {
    ($($error:ty),*) => {$(
        impl From<$error> for Failure {
            fn from(error: $error) -> Self {
                Self {
                    code: error.code().to_owned(),
                    message: error.to_string(),
                    class: ErrorClass::Usage,
                    retryable: false,
                    details: None,
                }
            }
        }
    )*};
}

usage_failure!(switchyard_config::Error, switchyard_validate::Error, switchyard_run_folder::Error);

impl From<switchyard_catalog::Error> for Failure {
    fn from(error: switchyard_catalog::Error) -> Self {
        Error::Catalog(error).into()
    }
}

/// The code of [`Failure::stdout`] when the reader went away; never printed.
const OUTPUT_CLOSED: &str = "OUTPUT_CLOSED";

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

/// Prints a failure: `switchyard: <message> [<code>]` on stderr, and with `--json` an error
/// object on stdout so scripts can read the code. Where stderr takes colour (`--color`, a
/// terminal without `NO_COLOR`), the prefix and the code are red and each command the message
/// proposes (`` `switchyard …` ``) is painted as the `Next:` hint paints the command to run.
pub fn report_failure(failure: &Failure, json: bool, colour: ColorChoice) {
    if failure.code == OUTPUT_CLOSED {
        return;
    }
    if json {
        print_error_envelope(failure);
    }
    let colour = match colour {
        ColorChoice::Always => anstream::ColorChoice::Always,
        ColorChoice::Never => anstream::ColorChoice::Never,
        ColorChoice::Auto => anstream::AutoStream::choice(&std::io::stderr()),
    };
    let line = format!(
        "{} {} {}",
        paint("switchyard:", style::ERROR.bold()),
        with_commands_painted(&failure.message),
        paint(&format!("[{}]", failure.code), style::ERROR)
    );
    let _ = writeln!(anstream::AutoStream::new(std::io::stderr().lock(), colour), "{line}");
}

/// `message` with each command it proposes in backticks (`` `switchyard show run_…` ``) painted
/// as the command to run next; other backticked text (an id, a name) stays as it is.
fn with_commands_painted(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(index, part)| {
            let quoted = index % 2 == 1;
            if quoted && part.starts_with("switchyard ") { paint(part, style::NEXT) } else { part.to_owned() }
        })
        .collect::<Vec<_>>()
        .join("`")
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
