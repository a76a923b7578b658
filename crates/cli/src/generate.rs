//! `switchyard completions` and `switchyard man`: shell completion scripts and the man pages,
//! generated from the command line's clap definition so they never drift from it.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{Roff, bold, roman};
use serde::Serialize;

use crate::args::Cli;
use crate::output::{Failure, Outcome, Printer};

/// Writes the completion script for `shell` on stdout.
pub fn completions(shell: Shell) -> Result<Outcome, Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "switchyard", &mut script);
    write_stdout(&script)
}

/// One man page: the command it documents and the pages its SEE ALSO section names.
struct Page {
    command: clap::Command,
    /// The words after `switchyard` that run the command (`["keys", "rotate"]`), empty for the
    /// whole command line.
    words: Vec<String>,
    /// The pages of the commands above it, outermost first (`switchyard`, `switchyard-keys`).
    see_also: Vec<String>,
}

impl Page {
    fn name(&self) -> String {
        page_name(&self.words)
    }

    fn file_name(&self) -> String {
        format!("{}.1", self.name())
    }

    /// The page as roff: clap_mangen's sections, then SEE ALSO.
    fn render(&self) -> Result<Vec<u8>, Failure> {
        let mut page = Vec::new();
        // The footer names the program and its version on every page, not the command's name.
        clap_mangen::Man::new(self.command.clone())
            .source(format!("switchyard {}", env!("CARGO_PKG_VERSION")))
            .render(&mut page)
            .map_err(|error| Failure::environment(format!("cannot render the man page {}: {error}", self.name())))?;
        if !self.see_also.is_empty() {
            let mut see_also = Roff::new();
            see_also.control("SH", ["SEE ALSO"]);
            let mut references = Vec::new();
            for (index, name) in self.see_also.iter().enumerate() {
                if index > 0 {
                    references.push(roman(", "));
                }
                references.push(bold(name.as_str()));
                references.push(roman("(1)"));
            }
            see_also.text(references);
            page.extend_from_slice(see_also.to_roff().as_bytes());
        }
        Ok(page)
    }
}

/// Every man page: the whole command line's, then each command's, depth first in the order
/// `--help` lists them. Hidden commands have none.
fn pages() -> Vec<Page> {
    // The NAME line is `switchyard \- <about>`: an about that starts with the name would repeat it.
    // No `help` command: `--help` is on every page's OPTIONS.
    let mut root =
        Cli::command().about("a workflow runtime that keeps LLM agents on rails").disable_help_subcommand(true);
    // Built, each command knows its display name (`switchyard-keys-rotate`) and the global
    // options, which every page lists.
    root.build();
    let mut pages = Vec::new();
    collect(root, &[], &mut pages);
    pages
}

/// Adds the page of `command`, run as `switchyard <words>`, and those of the commands under it.
fn collect(command: clap::Command, words: &[String], pages: &mut Vec<Page>) {
    let see_also = (0..words.len()).map(|depth| page_name(&words[..depth])).collect();
    let subcommands: Vec<clap::Command> =
        command.get_subcommands().filter(|subcommand| !subcommand.is_hide_set()).cloned().collect();
    pages.push(Page { command, words: words.to_vec(), see_also });
    for subcommand in subcommands {
        let below = [words, &[subcommand.get_name().to_owned()]].concat();
        collect(subcommand, &below, pages);
    }
}

/// The name of the page of `switchyard <words>` (`switchyard-keys-rotate`), as its file is named
/// and other pages cite it.
fn page_name(words: &[String]) -> String {
    std::iter::once("switchyard").chain(words.iter().map(String::as_str)).collect::<Vec<_>>().join("-")
}

/// `man`'s answer under `--json` when it wrote the pages to a folder.
#[derive(Serialize)]
struct Written {
    pages: Vec<PathBuf>,
}

/// Writes the man page of the whole command line, or of the command `words` name (`start`,
/// `keys rotate`), on stdout; with `out`, every page into that folder, one file each
/// (`switchyard.1`, `switchyard-start.1`, `switchyard-keys-rotate.1`, …).
pub fn man(printer: &Printer, words: &[String], out: Option<&Path>) -> Result<Outcome, Failure> {
    let pages = pages();
    let Some(folder) = out else {
        let page = pages.iter().find(|page| page.words == words).ok_or_else(|| unknown_command(words, &pages))?;
        return write_stdout(&page.render()?);
    };
    std::fs::create_dir_all(folder)
        .map_err(|error| Failure::environment(format!("cannot create {}: {error}", folder.display())))?;
    let mut written = Vec::new();
    for page in &pages {
        let path = folder.join(page.file_name());
        std::fs::write(&path, page.render()?)
            .map_err(|error| Failure::environment(format!("cannot write {}: {error}", path.display())))?;
        written.push(path);
    }
    if printer.json {
        printer.json(&Written { pages: written })?;
    } else {
        printer.line(&format!(
            "wrote {} man pages to {} (read one with `man -l {}`; a `man1` folder on MANPATH lets `man switchyard-start` find them)",
            written.len(),
            folder.display(),
            folder.join("switchyard.1").display()
        ))?;
    }
    Ok(Outcome::Success)
}

fn unknown_command(words: &[String], pages: &[Page]) -> Failure {
    let known: Vec<String> =
        pages.iter().filter(|page| !page.words.is_empty()).map(|page| page.words.join(" ")).collect();
    Failure::usage(format!(
        "no command `switchyard {}`, so no man page for it; pages exist for `switchyard` and its commands {}",
        words.join(" "),
        known.join(", ")
    ))
}

/// Writes to stdout; a reader that went away (`switchyard man | head`) ends the command quietly,
/// as everywhere else.
fn write_stdout(bytes: &[u8]) -> Result<Outcome, Failure> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush()).map_err(|error| Failure::stdout(&error))?;
    Ok(Outcome::Success)
}
