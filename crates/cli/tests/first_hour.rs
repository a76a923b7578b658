//! The first hour of a new user, typed into a real terminal (tmux): a fresh home and project set
//! up with `init` and checked with `doctor`, a run started, a report that is blocked and says why, a correct report, a gate that waits, the
//! approval from the same terminal, and `sessions` and `log` at the end. Each command is typed with
//! `send-keys`; the test waits for the shell's next prompt by polling `capture-pane` (bounded) and
//! asserts on the screen as a person reads it (capture-pane gives the text without colour codes,
//! so the binary colours as it would for a person).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::Sandbox;

/// A small workflow with a check that blocks a careless report, then a gate a human approves.
const GREETING: &str = include_str!("support/greeting.yaml");

/// The shell's prompt: the number of the command it waits for, so the end of each command is
/// seen on screen, whatever the command printed.
const PROMPT: &str = "first-hour \\#$ ";

/// How long one command may take before the test gives up and shows the screen.
const COMMAND_DEADLINE: Duration = Duration::from_secs(60);

/// A tmux server of the test's own (its own socket, no user configuration) with one shell in a
/// window of the given width; killed when dropped, even when an assertion failed.
struct Terminal {
    socket: PathBuf,
    /// The number of the next prompt the shell will show.
    next_prompt: u32,
}

impl Terminal {
    fn start(sandbox: &Sandbox, columns: u16) -> Self {
        require_tmux();
        let socket = sandbox.home.path().join("tmux.sock");
        let binary_dir = Path::new(env!("CARGO_BIN_EXE_switchyard")).parent().unwrap().to_owned();
        let path = std::env::join_paths(
            std::iter::once(binary_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        let mut command = Command::new("tmux");
        command
            .arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "first-hour", "-x", &columns.to_string(), "-y", "50"])
            .arg("-c")
            .arg(sandbox.project.path())
            .args(["bash", "--norc", "--noprofile", "-i"])
            // The server and its shell take this environment: a fresh home, UTC, the binary under
            // test first on PATH, colour as a terminal gets it (NO_COLOR unset).
            .env_clear()
            .env("PATH", path)
            .env("HOME", sandbox.home.path())
            .env("SWITCHYARD_HOME", sandbox.home.path())
            .env("TZ", "UTC")
            .env("TERM", "xterm-256color")
            .env("LANG", "C.UTF-8")
            .env("HISTFILE", "/dev/null")
            .env("PS1", PROMPT);
        let started = command.output().expect("tmux runs");
        assert!(started.status.success(), "tmux new-session failed: {}", String::from_utf8_lossy(&started.stderr));
        let mut terminal = Self { socket, next_prompt: 1 };
        terminal.wait_for_prompt();
        terminal
    }

    fn tmux(&self, args: &[&str]) -> Output {
        let output = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux runs");
        assert!(output.status.success(), "tmux {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
        output
    }

    /// Everything the window shows and has scrolled past, lines joined where the terminal
    /// wrapped them, without colour codes.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", "first-hour"]).stdout)
            .into_owned()
    }

    /// Polls the screen until the shell shows its next prompt (bounded by [`COMMAND_DEADLINE`]).
    fn wait_for_prompt(&mut self) {
        let prompt = format!("first-hour {}$", self.next_prompt);
        let deadline = Instant::now() + COMMAND_DEADLINE;
        loop {
            let screen = self.screen();
            if screen.lines().any(|line| line.trim_end() == prompt) {
                self.next_prompt += 1;
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no prompt `{prompt}` within {COMMAND_DEADLINE:?}; the screen:\n{screen}"
            );
            // Between two looks at the screen; the wait ends on what the screen shows.
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Types a command line, presses Enter, waits for the next prompt, and returns what the
    /// command printed: the screen between its line and the next prompt.
    fn type_line(&mut self, line: &str) -> String {
        let typed_at = self.next_prompt - 1;
        self.tmux(&["send-keys", "-t", "first-hour", "-l", line]);
        self.tmux(&["send-keys", "-t", "first-hour", "Enter"]);
        self.wait_for_prompt();
        let screen = self.screen();
        let start = format!("first-hour {typed_at}$ {line}");
        let end = format!("first-hour {}$", self.next_prompt - 1);
        let after = screen.split_once(&start).unwrap_or_else(|| panic!("`{start}` is not on the screen:\n{screen}")).1;
        after.split_once(&end).map_or(after, |(printed, _)| printed).trim_matches('\n').to_owned()
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}

/// The test needs tmux; without it, it fails and says how to get it (never a silent skip).
fn require_tmux() {
    let found = Command::new("tmux").arg("-V").output().is_ok_and(|output| output.status.success());
    assert!(
        found,
        "this test drives a real terminal with tmux, which is not installed: `apt-get install -y tmux` \
         (`cargo xtask test` installs it)"
    );
}

/// The last `ct_…` token a screen shows in a `Next:` line.
fn next_token(printed: &str) -> String {
    let line = printed
        .lines()
        .rev()
        .find(|line| line.starts_with("Next:"))
        .unwrap_or_else(|| panic!("no `Next:` line:\n{printed}"));
    let start = line.find("ct_").unwrap_or_else(|| panic!("no continue token in `{line}`"));
    line[start..].split_whitespace().next().unwrap().to_owned()
}

/// The `run_…` id a screen shows first.
fn run_id(printed: &str) -> String {
    let start = printed.find("run_").unwrap_or_else(|| panic!("no run id:\n{printed}"));
    printed[start..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

#[test]
fn a_new_user_walks_from_a_fresh_project_to_a_finished_run_in_a_terminal() {
    let sandbox = Sandbox::new();
    let mut terminal = Terminal::start(&sandbox, 200);

    // The project is set up first: a documented configuration, an example workflow, and what to
    // type next; a second `init` changes nothing and says so.
    let initialised = terminal.type_line("switchyard init");
    assert!(initialised.contains("created switchyard.toml"), "{initialised}");
    assert!(initialised.contains("created .switchyard/workflows/small-change.yaml"), "{initialised}");
    for next in ["switchyard validate .switchyard/workflows", "switchyard start small-change", "switchyard doctor"] {
        assert!(
            initialised.contains(next),
            "`{next}` among the next commands:
{initialised}"
        );
    }
    let again = terminal.type_line("switchyard init");
    assert!(again.contains("exists, left as is: switchyard.toml") && !again.contains("created"), "{again}");
    let doctor = terminal.type_line("switchyard doctor");
    assert!(doctor.contains("0 problem(s)") && doctor.contains("1 valid project workflow(s)"), "{doctor}");

    // The user adds a workflow of their own beside the example.
    sandbox.write_workflow("greeting.yaml", GREETING);

    let listed = terminal.type_line("switchyard list");
    assert!(
        listed.contains("greeting") && listed.contains("small-change"),
        "the project's workflows are listed:\n{listed}"
    );

    let started = terminal.type_line("switchyard start greeting --goal 'Greet new contributors in the README'");
    assert!(started.contains("step draft — Draft the greeting"), "{started}");
    assert!(started.contains("Write a one-line greeting for the README. Say hello."), "{started}");
    let run = run_id(&started);

    // The first report forgets the word the step asks for: blocked, and the screen says why.
    terminal.type_line("echo 'Welcome aboard!' > NOTES.md");
    let blocked = terminal.type_line(&format!("switchyard continue {} --notes-file NOTES.md", next_token(&started)));
    assert!(blocked.contains("blocked"), "{blocked}");
    assert!(blocked.contains("The last report was refused"), "{blocked}");
    assert!(blocked.contains("the greeting must say hello"), "the reason, in the workflow's words:\n{blocked}");
    assert_eq!(terminal.type_line("echo \"exit $?\""), "exit 1", "a blocked attempt exits 1");

    // The retry the screen offers, with the word in.
    terminal.type_line("echo 'Welcome, and hello!' > NOTES.md");
    let drafted = terminal.type_line(&format!("switchyard continue {} --notes-file NOTES.md", next_token(&blocked)));
    assert!(drafted.contains("step review — Review the greeting"), "{drafted}");
    assert!(drafted.contains("a human approves the result"), "{drafted}");

    let gated = terminal.type_line(&format!("switchyard continue {} --notes 'Reads warmly.'", next_token(&drafted)));
    assert!(gated.contains("waiting_gate"), "{gated}");
    assert!(gated.contains("waits for a human"), "{gated}");
    assert!(gated.contains(&format!("approve: switchyard approve {run}")), "{gated}");

    let status = terminal.type_line(&format!("switchyard status {run}"));
    assert!(status.contains("waiting_gate · control running"), "{status}");
    assert!(status.contains(&format!("Next: switchyard approve {run}")), "{status}");

    let approved = terminal.type_line(&format!("switchyard approve {run}"));
    assert!(approved.lines().next().is_some_and(|line| line.ends_with("· greeting · completed")), "{approved}");

    let sessions = terminal.type_line("switchyard sessions");
    let mut rows = sessions.lines();
    let header = rows.next().unwrap_or_default();
    for column in ["SESSION", "STATUS", "WORKFLOW", "GOAL", "WORKSPACE", "AGE", "ACTIVE"] {
        assert!(header.contains(column), "`{column}` in the header:\n{sessions}");
    }
    let row = rows.next().unwrap_or_default();
    // `--color auto` on a terminal: the header is bold, the status coloured (capture-pane -e keeps
    // the codes; every other look at the screen drops them).
    let coloured = terminal.tmux(&["capture-pane", "-p", "-e", "-t", "first-hour"]).stdout;
    let coloured = String::from_utf8_lossy(&coloured);
    // A colour sequence ends in `m`, right before the word it paints.
    let painted = |word: &str| coloured.lines().any(|line| line.contains('\x1b') && line.contains(&format!("m{word}")));
    assert!(painted("SESSION") && painted("completed"), "{coloured:?}");
    assert!(
        row.contains("completed") && row.contains("greeting") && (row.contains("just now") || row.contains(" ago")),
        "{sessions}"
    );
    assert!(row.contains("Greet new contributors in the README"), "{sessions}");

    let log = terminal.type_line(&format!("switchyard log {run}"));
    assert!(log.lines().next().is_some_and(|line| line.starts_with("SEQ") && line.contains("TIME")), "{log}");
    for event in ["session_created", "run_started", "advance_recorded", "gate_decided", "approved", "run_completed"] {
        assert!(log.contains(event), "`{event}` in the log:\n{log}");
    }
    assert!(
        log.lines().skip(1).all(|line| line.split_whitespace().nth(1).is_some_and(is_date)
            && line.split_whitespace().nth(2).is_some_and(is_time)),
        "each event at a local date and time, not in epoch milliseconds:\n{log}"
    );
}

/// `YYYY-MM-DD`.
fn is_date(word: &str) -> bool {
    shaped(word, "dddd-dd-dd")
}

/// `HH:MM:SS`.
fn is_time(word: &str) -> bool {
    shaped(word, "dd:dd:dd")
}

/// Whether `word` has the shape of `pattern`, where `d` stands for a digit.
fn shaped(word: &str, pattern: &str) -> bool {
    word.len() == pattern.len()
        && word.chars().zip(pattern.chars()).all(|(c, p)| if p == 'd' { c.is_ascii_digit() } else { c == p })
}

#[test]
fn sessions_fit_a_narrow_terminal_by_cutting_goals_not_ids() {
    let sandbox = Sandbox::new();
    let goal = "Rewrite the greeter so that it reads its greetings from a file and falls back to English";
    let started = sandbox.run(&["start", "dev-cycle", "--goal", goal]).ok();
    let session = support::string(&started["session"]);
    let mut terminal = Terminal::start(&sandbox, 80);
    let sessions = terminal.type_line("switchyard sessions");
    for line in sessions.lines() {
        assert!(line.chars().count() <= 80, "wider than the terminal ({} columns):\n{sessions}", line.chars().count());
    }
    let row = sessions.lines().nth(1).unwrap_or_default();
    assert!(row.starts_with(&session), "the id whole, to copy:\n{sessions}");
    assert!(row.contains("Rewrite the") && row.contains('…') && !row.contains("English"), "the goal cut:\n{sessions}");
}
