//! Everything the CLI prints: text for people, JSON for programs, and the one place errors are
//! mapped to messages and exit codes.

use std::io::Write;

use serde::Serialize;
use switchyard_core::RunStatus;
use switchyard_core::evidence::Observation;
use switchyard_core::state::Control;
use switchyard_core::why::{Rule, Why};
use switchyard_runtime::StepResponse;
use switchyard_store::{NodeRecord, RunRecord, SessionRecord, StoredEvent};

mod failure;

pub use self::failure::{Failure, Outcome, print_error_envelope, report_failure};

/// When to colour text (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How log lines on stderr look (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Writes to stdout, in colour only where that helps: styles are written with `anstyle`, and an
/// `anstream` stream strips them unless `--color always`, or `auto` on a terminal without
/// `NO_COLOR`. JSON is never coloured.
#[derive(Debug)]
pub struct Printer {
    pub json: bool,
    colour: anstream::ColorChoice,
}

/// The styles of everything a person reads, in one place so every command colours alike.
mod style {
    use anstyle::{AnsiColor, Style};

    pub const HEADING: Style = Style::new().bold();
    pub const DIM: Style = Style::new().dimmed();
    pub const ID: Style = AnsiColor::Cyan.on_default();
    pub const NEXT: Style = AnsiColor::Green.on_default().bold();
    pub const RED: Style = AnsiColor::Red.on_default();
    pub const GREEN: Style = AnsiColor::Green.on_default();
    pub const YELLOW: Style = AnsiColor::Yellow.on_default();
    pub const BLUE: Style = AnsiColor::Blue.on_default();
    /// The `switchyard:` of an error report, and its code.
    pub const ERROR: Style = AnsiColor::Red.on_default();
}

impl Printer {
    pub fn new(json: bool, choice: ColorChoice) -> Self {
        let colour = match choice {
            _ if json => anstream::ColorChoice::Never,
            ColorChoice::Always => anstream::ColorChoice::Always,
            ColorChoice::Never => anstream::ColorChoice::Never,
            // A terminal that takes colour, unless NO_COLOR (or CLICOLOR=0) says otherwise.
            ColorChoice::Auto => anstream::AutoStream::choice(&std::io::stdout()),
        };
        Self { json, colour }
    }

    pub fn json<T: Serialize>(&self, value: &T) -> Result<(), Failure> {
        let text = serde_json::to_string_pretty(value).map_err(|error| Failure::environment(error.to_string()))?;
        let mut out = std::io::stdout().lock();
        writeln!(out, "{text}").map_err(|error| Failure::stdout(&error))
    }

    pub fn line(&self, text: &str) -> Result<(), Failure> {
        let mut out = anstream::AutoStream::new(std::io::stdout().lock(), self.colour);
        writeln!(out, "{text}").map_err(|error| Failure::stdout(&error))
    }

    /// `text` byte for byte, nothing added or taken away: a source a person redirects to a file.
    pub fn verbatim(&self, text: &str) -> Result<(), Failure> {
        std::io::stdout().lock().write_all(text.as_bytes()).map_err(|error| Failure::stdout(&error))
    }

    pub fn bold(&self, text: &str) -> String {
        paint(text, style::HEADING)
    }

    pub fn dim(&self, text: &str) -> String {
        paint(text, style::DIM)
    }

    pub fn red(&self, text: &str) -> String {
        paint(text, style::RED)
    }

    pub fn green(&self, text: &str) -> String {
        paint(text, style::GREEN)
    }

    pub fn yellow(&self, text: &str) -> String {
        paint(text, style::YELLOW)
    }

    /// An id or token a person may copy into the next command.
    pub fn id(&self, text: &str) -> String {
        paint(text, style::ID)
    }

    /// The `Next:` hint before the command to run next.
    pub fn next_hint(&self, text: &str) -> String {
        paint(text, style::NEXT)
    }

    /// A run status in its one vocabulary (`active`, `waiting_gate`, `completed`, …), coloured by
    /// what it asks of a person: moving, waiting on someone, done, or stuck.
    pub fn status(&self, status: RunStatus) -> String {
        let style = match status {
            RunStatus::Active => style::BLUE,
            RunStatus::WaitingGate | RunStatus::WaitingForHumanDecision | RunStatus::Paused => style::YELLOW,
            RunStatus::Completed => style::GREEN,
            RunStatus::Blocked => style::RED,
            RunStatus::Failed | RunStatus::Stopped => style::RED.bold(),
        };
        paint(status.as_str(), style)
    }

    /// The control word of a run (`running`, `paused`, `stopped`), as JSON spells it.
    pub fn control(&self, control: Control) -> String {
        let style = match control {
            Control::Running => style::BLUE,
            Control::Paused => style::YELLOW,
            Control::Stopped => style::RED,
        };
        paint(control.as_str(), style)
    }

    /// Prints rows under a header as aligned columns without borders. On a terminal the table
    /// fits its width: [`Fit::Shrink`] columns (free text such as a goal) are cut to one line with
    /// `…`, and where even that is too wide the [`Column::drop`] columns go, lowest first; the
    /// others (ids, statuses) keep their width so they can be copied whole. Elsewhere (a pipe, a
    /// file) nothing is cut.
    pub fn table(&self, columns: &[Column], rows: Vec<Vec<String>>) -> Result<(), Failure> {
        let mut table = comfy_table::Table::new();
        table.load_style(comfy_table::presets::NOTHING).set_truncation_indicator("…");
        let mut header =
            comfy_table::Row::from(columns.iter().map(|column| paint(&column.title.to_uppercase(), style::HEADING)));
        header.max_height(1);
        table.set_header(header);
        for cells in rows {
            let mut row = comfy_table::Row::from(cells);
            row.max_height(1);
            table.add_row(row);
        }
        let widths = table.column_max_content_widths();
        let last = columns.len().saturating_sub(1);
        for (index, column) in table.column_iter_mut().enumerate() {
            // Two spaces between columns, none before the first or after the last.
            column.set_padding((0, if index == last { 0 } else { 2 }));
        }
        if let Some(terminal) = table.width() {
            table.set_content_arrangement(comfy_table::ContentArrangement::Dynamic);
            let hidden = columns_to_hide(columns, &widths, terminal);
            for (index, (column, spec)) in table.column_iter_mut().zip(columns).enumerate() {
                let title = u16::try_from(spec.title.chars().count()).unwrap_or(u16::MAX);
                let constraint = if hidden.contains(&index) {
                    comfy_table::ColumnConstraint::Hidden
                } else if spec.fit == Fit::Shrink {
                    // Never narrower than its title, which would wrap the header.
                    comfy_table::ColumnConstraint::LowerBoundary(comfy_table::Width::Fixed(title))
                } else {
                    comfy_table::ColumnConstraint::ContentWidth
                };
                column.set_constraint(constraint);
            }
        }
        self.line(&table.trim_fmt())
    }
}

/// How narrow a shrinking column may get (a few words) before columns are dropped to widen it.
const SHRUNK_WIDTH: u16 = 16;

/// One column of a [`Printer::table`].
pub struct Column {
    pub title: &'static str,
    pub fit: Fit,
    /// Where the terminal is too narrow for every column, columns with a `drop` rank go, lowest
    /// first; `None` stays.
    pub drop: Option<u8>,
}

impl Column {
    /// A column printed whole: an id, a status, a name.
    pub const fn whole(title: &'static str) -> Self {
        Self { title, fit: Fit::Whole, drop: None }
    }

    /// A column of free text, cut to fit a terminal.
    pub const fn shrink(title: &'static str) -> Self {
        Self { title, fit: Fit::Shrink, drop: None }
    }

    /// The same column, dropped at this rank where the terminal is too narrow.
    pub const fn dropped_at(self, rank: u8) -> Self {
        Self { drop: Some(rank), ..self }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Whole,
    Shrink,
}

/// The columns to hide so the rest fits `terminal` columns: whole columns at their content
/// width, shrinking ones at their narrowest, two spaces between each.
fn columns_to_hide(columns: &[Column], widths: &[u16], terminal: u16) -> Vec<usize> {
    let needed = |hidden: &[usize]| -> usize {
        let visible: Vec<usize> = (0..columns.len()).filter(|index| !hidden.contains(index)).collect();
        let cells: usize = visible
            .iter()
            .map(|&index| {
                let width = widths.get(index).copied().unwrap_or(1);
                let title = u16::try_from(columns[index].title.chars().count()).unwrap_or(u16::MAX);
                usize::from(match columns[index].fit {
                    Fit::Whole => width,
                    Fit::Shrink => title.max(width.min(SHRUNK_WIDTH)),
                })
            })
            .sum();
        cells + 2 * visible.len().saturating_sub(1)
    };
    let mut droppable: Vec<(u8, usize)> =
        columns.iter().enumerate().filter_map(|(index, column)| column.drop.map(|rank| (rank, index))).collect();
    droppable.sort_unstable();
    let mut hidden = Vec::new();
    for (_, index) in droppable {
        if needed(&hidden) <= usize::from(terminal) {
            break;
        }
        hidden.push(index);
    }
    hidden
}

fn paint(text: &str, style: anstyle::Style) -> String {
    format!("{style}{text}{style:#}")
}

/// A moment as a person reads it: the date and time in the system's time zone (`TZ`, else
/// `/etc/localtime`), to the second.
pub fn local_time(at_ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(at_ms) {
        Ok(timestamp) => {
            timestamp.to_zoned_datetime(jiff::tz::TimeZone::system()).strftime("%Y-%m-%d %H:%M:%S").to_string()
        }
        Err(_) => at_ms.to_string(),
    }
}

/// How long ago a moment was, in its largest whole unit (`just now`, `5m ago`, `3h ago`,
/// `2d ago`); past thirty days, the local date.
pub fn age(at_ms: i64, now_ms: i64) -> String {
    let seconds = (now_ms - at_ms).max(0) / 1000;
    match seconds {
        0..60 => "just now".to_owned(),
        60..3_600 => format!("{}m ago", seconds / 60),
        3_600..86_400 => format!("{}h ago", seconds / 3_600),
        86_400..2_592_000 => format!("{}d ago", seconds / 86_400),
        _ => local_time(at_ms).chars().take(10).collect(),
    }
}

/// How many of a failed command's last output lines a step response shows.
const OUTPUT_LINES_SHOWN: usize = 10;

/// The first line of a free text, cut to at most `limit` characters with `…`.
pub fn first_line(text: &str, limit: usize) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= limit {
        return line.to_owned();
    }
    let kept = limit.saturating_sub(1);
    let cut: String = line.chars().take(kept).collect();
    let whole_words = line.chars().nth(kept).is_some_and(char::is_whitespace);
    // At a word's end, unless that would throw away more than half of what fits.
    let cut = match cut.rfind(' ') {
        Some(space) if !whole_words && space >= cut.len() / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", cut.trim_end())
}

impl Printer {
    /// A step response as text: where the run is, what to do, and the exact next command.
    pub fn step_response(&self, response: &StepResponse) -> Result<(), Failure> {
        if self.json {
            return self.json(response);
        }
        let mut text = String::new();
        let status = self.status(response.status);
        let mut flags = String::new();
        if response.forked {
            flags.push_str(" · forked: a new branch");
        }
        if response.replayed {
            flags.push_str(" · replayed: already recorded, nothing advanced");
        }
        text.push_str(&format!(
            "{} {} · {} · {status}{flags}\n",
            self.bold("run"),
            self.id(&response.run.to_string()),
            response.workflow.id
        ));
        if let Some(validation) = &response.validation {
            text.push_str(&format!("\n{}\n", self.red("The last report was refused:")));
            for issue in &validation.issues {
                text.push_str(&format!("  - [{}] {}: {}\n", issue.code, issue.path, issue.message));
            }
        }
        if !response.evidence.is_empty() {
            text.push_str(&format!("\n{}\n", self.bold("What switchyard checked itself:")));
            for result in &response.evidence {
                let mark = if result.passed { self.green("passed") } else { self.red("failed") };
                text.push_str(&format!("  - {mark} {}\n", result.observation.summary()));
                // A failed command's last lines say why, as the agent reads them.
                if let (false, Observation::Command(run)) = (result.passed, &result.observation) {
                    let lines: Vec<&str> = run.output_tail.lines().collect();
                    for line in &lines[lines.len().saturating_sub(OUTPUT_LINES_SHOWN)..] {
                        text.push_str(&format!("      {}\n", self.dim(line)));
                    }
                }
            }
        }
        // A refused report's issues above already say why it was refused.
        if let Some(why) = response.why.as_ref().filter(|why| why.rule != Rule::Blocked) {
            text.push_str(&format!("\n{} {}\n", self.bold("Why:"), self.why_lines(why)));
        }
        if let Some(report) = &response.report_warnings {
            // A refused report's warnings come with it: it was not accepted.
            let heading = if response.validation.is_some() {
                "The same report also has warnings:"
            } else {
                "The report was accepted with warnings:"
            };
            text.push_str(&format!("\n{}\n", self.bold(heading)));
            for issue in &report.warnings {
                text.push_str(&format!("  - [{}] {}: {}\n", issue.code, issue.path, issue.message));
            }
            for finding in &report.downgraded {
                let why = if finding.validated { "below the threshold" } else { "not validated; threshold" };
                text.push_str(&format!(
                    "  - downgraded {}: {} (confidence {}, {why} {}; see _handoff.md)\n",
                    finding.path, finding.summary, finding.confidence, finding.min_confidence
                ));
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
            for check in &step.evidence {
                text.push_str(&format!("  switchyard checks that {}\n", check.requirement()));
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
            text.push_str(&format!("\n{} {command}\n", self.next_hint("Next:")));
            for line in fill_in {
                text.push_str(&format!("{}\n", self.dim(&line)));
            }
        }
        self.line(text.trim_end())
    }
}

/// What `switchyard status` shows of a run: the run record, the node at its tip and the limits of
/// the workflow it is pinned to.
pub struct RunSummary<'a> {
    pub run: &'a RunRecord,
    pub tip: Option<&'a NodeRecord>,
    pub workflow: Option<&'a switchyard_core::Workflow>,
    pub now_ms: i64,
    /// What the agent runner's turns on the run add up to, in a line, when a runner drove it.
    pub runner: Option<String>,
}

impl Printer {
    /// `status` as a short block: where the run is, what is pending, how far it went against its
    /// limits, and when it moved.
    pub fn run_summary(&self, summary: &RunSummary<'_>) -> Result<(), Failure> {
        let RunSummary { run, tip, workflow, now_ms, runner } = summary;
        let mut rows: Vec<(&str, String)> = vec![
            ("run", format!("{} (session {})", self.id(&run.id.to_string()), self.id(&run.session.to_string()))),
            ("workflow", format!("{} {}", run.workflow_id, self.dim(&run.workflow_hash.to_string()))),
            ("status", self.status(run.status)),
        ];
        if !run.status.is_terminal() {
            rows[2].1.push_str(&format!(" · control {}", self.control(run.control)));
        }
        let step = tip.and_then(|tip| workflow.and_then(|workflow| workflow.step(&tip.step)));
        if let Some(tip) = tip {
            let mut line = match step {
                Some(step) => format!("{} — {}", self.bold(tip.step.as_str()), step.title),
                None => self.bold(tip.step.as_str()),
            };
            if step.is_some_and(|step| step.gate) {
                line.push_str(" (a human approves the result)");
            }
            let label = if run.status.is_terminal() { "last step" } else { "step" };
            rows.push((label, line));
            let counters = &tip.state.counters;
            let done = counters.steps_completed;
            let mut progress = vec![format!("{done} {} done", if done == 1 { "step" } else { "steps" })];
            if let Some(step) = step {
                progress.push(format!("failed attempts {} of {}", counters.attempts, step.max_attempts));
            }
            match workflow {
                Some(workflow) => {
                    let limits = &workflow.limits;
                    progress.push(format!("cycles {} of {}", counters.cycles, limits.max_cycles));
                    progress.push(format!("revisions {} of {}", counters.revisions, limits.max_revision_attempts));
                    progress.push(format!("replans {} of {}", counters.replans, limits.max_replan_attempts));
                }
                None => progress.extend([
                    format!("cycles {}", counters.cycles),
                    format!("revisions {}", counters.revisions),
                    format!("replans {}", counters.replans),
                ]),
            }
            rows.push(("progress", progress.join(" · ")));
        }
        if let Some(runner) = runner {
            rows.push(("runner", runner.clone()));
        }
        rows.push(("nodes", format!("{} · tip {}", run.node_count, self.id(&run.tip.to_string()))));
        rows.push(("started", format!("{} ({})", local_time(run.created_at_ms), age(run.created_at_ms, *now_ms))));
        rows.push(("updated", format!("{} ({})", local_time(run.updated_at_ms), age(run.updated_at_ms, *now_ms))));
        let text: Vec<String> =
            rows.into_iter().map(|(label, value)| format!("{} {value}", self.bold(&format!("{label:<10}")))).collect();
        self.line(&text.join("\n"))?;
        if let Some(next) = next_command(run) {
            self.line(&format!("\n{} {next}", self.next_hint("Next:")))?;
        }
        Ok(())
    }

    /// `status --why`: each decision that brought the run to its tip, with what it evaluated.
    pub fn decisions(&self, decisions: &[switchyard_runtime::Decision], last: usize) -> Result<(), Failure> {
        if decisions.is_empty() {
            return self.line(&format!(
                "\n{} nothing to explain: each step the run left had one way on and no condition",
                self.bold("Why:")
            ));
        }
        let mut text = format!(
            "\n{} (the decisions among the last {last} nodes of its branch, oldest first)\n",
            self.bold("Why the run is here")
        );
        for decision in decisions {
            text.push_str(&format!("  {} {}\n", self.id(&decision.node.to_string()), self.why_lines(&decision.why)));
        }
        self.line(text.trim_end())
    }

    /// A why as a sentence and, indented below it, what was evaluated, one line each.
    fn why_lines(&self, why: &Why) -> String {
        let mut text = why.sentence();
        for evaluated in &why.evaluated {
            text.push_str(&format!("\n      {}", self.dim(&evaluated.line())));
        }
        if why.more > 0 {
            text.push_str(&format!("\n      {}", self.dim(&format!("… and {} more", why.more))));
        }
        text
    }

    /// `log` as a table: each event's number, local time, kind and what it says.
    pub fn event_log(&self, events: &[StoredEvent]) -> Result<(), Failure> {
        if events.is_empty() {
            return self.line("no events");
        }
        let rows = events
            .iter()
            .map(|event| {
                let run = event.run.map(|run| run.to_string()).unwrap_or_default();
                vec![
                    event.seq.to_string(),
                    local_time(event.at_ms),
                    event.kind.name().to_owned(),
                    event_summary(&event.kind, &run),
                ]
            })
            .collect();
        let columns = [Column::whole("seq"), Column::whole("time"), Column::whole("event"), Column::shrink("details")];
        self.table(&columns, rows)
    }

    /// `sessions` as a table, most recently active first; `filters` are the flags that chose them
    /// (`--status completed`), for the answer when none passed.
    pub fn sessions(&self, sessions: &[SessionRecord], filters: &[String], now_ms: i64) -> Result<(), Failure> {
        if sessions.is_empty() && filters.is_empty() {
            return self.line("no sessions (start one with `switchyard start <workflow> --goal \"…\"`)");
        }
        if sessions.is_empty() {
            return self
                .line(&format!("no sessions match {} (`switchyard sessions` lists every one)", filters.join(" ")));
        }
        let rows = sessions
            .iter()
            .map(|session| {
                let workspace = session.workspace.as_deref().map(|path| {
                    std::path::Path::new(path)
                        .file_name()
                        .map_or_else(|| path.to_owned(), |name| name.to_string_lossy().into_owned())
                });
                let place = match (workspace, &session.git_branch) {
                    (Some(workspace), Some(branch)) => format!("{workspace} ({branch})"),
                    (Some(workspace), None) => workspace,
                    (None, Some(branch)) => format!("({branch})"),
                    (None, None) => "-".to_owned(),
                };
                vec![
                    self.id(&session.id.to_string()),
                    session.status.map_or_else(|| "-".to_owned(), |status| self.status(status)),
                    session.workflow_id.clone().unwrap_or_else(|| "-".to_owned()),
                    first_line(&session.goal, 48),
                    place,
                    // One width for every age, so the columns after it do not move as ages grow.
                    format!("{:<8}", age(session.created_at_ms, now_ms)),
                    format!("{:<8}", age(session.updated_at_ms, now_ms)),
                ]
            })
            .collect();
        let columns = [
            Column::whole("session"),
            Column::whole("status"),
            Column::whole("workflow").dropped_at(3),
            Column::shrink("goal"),
            Column::shrink("workspace").dropped_at(1),
            Column::whole("age").dropped_at(2),
            Column::whole("active"),
        ];
        self.table(&columns, rows)
    }

    /// `tool list` for a person: each file tool and the first sentence of what it does.
    pub fn tools(&self, tools: &[switchyard_files::ToolDefinition]) -> Result<(), Failure> {
        let rows = tools.iter().map(|tool| vec![self.bold(tool.name), first_sentence(tool.description)]).collect();
        self.table(&[Column::whole("tool"), Column::shrink("what it does")], rows)?;
        self.line(&format!(
            "\n{} switchyard tool <name> '<json arguments>' --run <run>   (arguments: switchyard tool list --json)",
            self.next_hint("Call:")
        ))
    }
}

/// One workflow as `list` shows it to a person.
pub struct WorkflowRow {
    pub name: String,
    pub format: String,
    /// Where it was found: a path, or `builtin:<name>`.
    pub source: String,
    pub valid: bool,
    /// The lower copies it hides.
    pub shadows: Vec<String>,
}

impl Printer {
    /// `list` as a table: name, format, where each workflow comes from, and what is wrong with it
    /// or what it shadows.
    pub fn workflows(&self, workflows: &[WorkflowRow]) -> Result<(), Failure> {
        if workflows.is_empty() {
            return self.line("no workflows");
        }
        let rows = workflows
            .iter()
            .map(|workflow| {
                let mut notes = Vec::new();
                if !workflow.valid {
                    notes.push(self.red("invalid: run switchyard validate"));
                }
                notes.extend(workflow.shadows.iter().map(|path| self.dim(&format!("shadows {path}"))));
                vec![self.bold(&workflow.name), workflow.format.clone(), workflow.source.clone(), notes.join("; ")]
            })
            .collect();
        let columns = [
            Column::whole("name"),
            Column::whole("format").dropped_at(2),
            Column::shrink("source"),
            Column::shrink("notes").dropped_at(1),
        ];
        self.table(&columns, rows)
    }
}

/// The command a person most likely runs next on a run, by its status.
fn next_command(run: &RunRecord) -> Option<String> {
    let id = run.id;
    match run.status {
        RunStatus::Active | RunStatus::Blocked => {
            Some(format!("switchyard show {id}   (the step and its continue token)"))
        }
        RunStatus::WaitingGate => Some(format!("switchyard approve {id}   or   switchyard reject {id} --reason \"…\"")),
        RunStatus::WaitingForHumanDecision => {
            Some(format!("switchyard show {id}   (the options), then switchyard decide {id} <option>"))
        }
        RunStatus::Paused => Some(format!("switchyard resume {id}")),
        RunStatus::Completed | RunStatus::Stopped | RunStatus::Failed => Some(format!("switchyard log {id}")),
    }
}

/// A description's first sentence (up to the first `. ` or line end).
fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line.to_owned(),
    }
}

/// What one event says, in the words `--json` uses.
fn event_summary(kind: &switchyard_core::EventKind, run: &str) -> String {
    use switchyard_core::EventKind as E;
    match kind {
        E::SessionCreated { title, .. } => format!("\"{title}\""),
        E::RunStarted { workflow_id, workflow_hash, .. } => {
            // The hash's first 12 hex digits, as git shortens a commit; `--json` has it whole.
            let hash = workflow_hash.to_string();
            format!("{run} {workflow_id} {}", hash.get(.."sha256:".len() + 12).unwrap_or(&hash))
        }
        E::NodeCreated { node, step, status, cause, .. } => {
            format!("{node} step {step} · {status} · {}", switchyard_core::wire_name(cause))
        }
        E::AdvanceRecorded { from, to, choice, edge_label, .. } => {
            let mut line = format!("{from} → {to}");
            if let Some(edge) = edge_label {
                line.push_str(&format!(" by edge {edge}"));
            }
            if let Some(choice) = choice {
                line.push_str(&format!(" (chose {choice})"));
            }
            line
        }
        E::GateDecided { approved, reason, .. } => {
            if *approved {
                "approved".to_owned()
            } else {
                format!("rejected: {}", reason.as_deref().unwrap_or(""))
            }
        }
        E::HumanDecided { option, .. } => option.as_str().to_owned(),
        E::CheckpointRecorded { automatic, phase, .. } => {
            if *automatic {
                format!("phase {} ended", phase.as_deref().unwrap_or("-"))
            } else {
                "manual".to_owned()
            }
        }
        E::RunPaused { reason } | E::RunStopped { reason } => reason.clone().unwrap_or_default(),
        E::RunFailed { code, .. } => code.clone(),
        E::EvidenceRecorded { step, results, .. } => {
            let failed: Vec<String> =
                results.iter().filter(|result| !result.passed).map(|result| (result.check + 1).to_string()).collect();
            match failed.as_slice() {
                [] => format!("step {step} · {} evidence check(s) passed", results.len()),
                _ => format!("step {step} · evidence {} of {} failed", failed.join(", "), results.len()),
            }
        }
        E::DecisionRecorded { step, why, .. } => format!("step {step} · {}", why.sentence()),
        E::ReportWarned { step, warnings, downgraded, .. } => {
            let mut parts = vec![format!("step {step}")];
            if !warnings.is_empty() {
                parts.push(format!("{} report warning(s)", warnings.len()));
            }
            for finding in downgraded {
                let why = if finding.validated { "below" } else { "not validated, threshold" };
                parts.push(format!(
                    "downgraded {} (confidence {}, {why} {})",
                    finding.path, finding.confidence, finding.min_confidence
                ));
            }
            parts.join(" · ")
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::{age, first_line};

    fn check_age(seconds_ago: i64, expected: &str) {
        let now_ms = 1_800_000_000_000;
        assert_eq!(age(now_ms - seconds_ago * 1000, now_ms), expected, "{seconds_ago} s ago");
    }

    #[test]
    fn ages_read_in_their_largest_whole_unit() {
        check_age(0, "just now");
        check_age(59, "just now");
        check_age(60, "1m ago");
        check_age(3_599, "59m ago");
        check_age(3_600, "1h ago");
        check_age(86_399, "23h ago");
        check_age(86_400, "1d ago");
        check_age(29 * 86_400, "29d ago");
        // A clock that went back is not "in the future" for a person.
        check_age(-5, "just now");
    }

    #[test]
    fn ages_past_thirty_days_are_dates() {
        let shown = age(0, 31 * 86_400 * 1000);
        assert_eq!(shown.len(), "1970-01-01".len(), "{shown}");
        assert!(shown.starts_with("19"), "{shown}");
    }

    #[test]
    fn goals_are_cut_at_a_word_on_their_first_line() {
        assert_eq!(first_line("Short goal", 48), "Short goal");
        assert_eq!(first_line("First line\nsecond line", 48), "First line");
        assert_eq!(first_line("Rewrite the greeter so that it reads its greetings", 20), "Rewrite the greeter…");
        assert_eq!(first_line("Supercalifragilisticexpialidocious words", 12), "Supercalifr…");
        assert_eq!(first_line("", 10), "");
    }
}
