//! The `Next:` lines under a step: the exact `continue` command for the pending step, with the
//! report the runtime's template asks for (`--artifacts` skeleton, `--choice`), quoted for a POSIX
//! shell, and what to fill in before running it.

use switchyard_runtime::StepResponse;

/// Where the printed command reads the notes from.
const NOTES_FILE: &str = "NOTES.md";

/// The command to run next and the lines saying what to fill in; `None` without a continue token.
pub fn next_command(response: &StepResponse) -> Option<(String, Vec<String>)> {
    let token = response.tokens.continue_token.as_ref()?;
    if response.step.as_ref().is_some_and(|step| step.run.is_some()) {
        // A step switchyard runs itself takes no report: its token alone runs it.
        let said = "switchyard runs this step's command itself: send its token alone".to_owned();
        return Some((format!("switchyard continue {token}"), vec![said]));
    }
    let mut command = format!("switchyard continue {token} --notes-file {NOTES_FILE}");
    let mut fill_in = Vec::new();
    if let Some(report) = &response.report {
        if let Some(artifacts) = &report.artifacts {
            command.push_str(" --artifacts ");
            command.push_str(&quoted(&artifacts.to_string()));
        }
        if let Some(choice) = &report.choice {
            command.push_str(" --choice ");
            command.push_str(&quoted(choice));
        }
        fill_in.extend(
            report
                .fill_in
                .iter()
                .filter(|fill| fill.path != "notes")
                .map(|fill| format!("{}: {}", fill.path, fill.what)),
        );
    }
    let mut lines = Vec::new();
    if !fill_in.is_empty() {
        lines.push(format!("Before running it, write your notes in {NOTES_FILE} and replace each <fill in: …>:"));
        lines.extend(fill_in.into_iter().map(|fill| format!("  {fill}")));
    }
    Some((command, lines))
}

/// One shell word; a NUL byte (which no shell word can hold) cannot come from JSON text.
fn quoted(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| format!("'{}'", word.replace('\'', "'\\''")), |quoted| quoted.into_owned())
}
