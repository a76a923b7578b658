//! Mirrors (`--strict`): folders that must hold the same files, compared by the SHA-256 of their
//! content, and the project's vendored copies of the built-in workflows against the copies
//! embedded in this binary.
//!
//! Each `[[validate.mirrors]]` pair is walked on both sides (symlinked folders are not followed,
//! `.git` is skipped); a file only in the source is missing from the mirror, one only in the
//! mirror is extra, one in both with other content is divergent. Symlinks are reported when
//! their target does not exist (broken) or lies outside the project root (escaping); a symlink
//! inside the project is compared by the content it points at. A file that cannot be compared
//! (such a symlink, a FIFO) is reported once, as what it is, never also as missing or extra. Files are read as discovery reads
//! them (`catalog/read.rs`): regular files only, opened without blocking, bounded, so a FIFO in
//! a mirror is named, never waited on.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use switchyard_compiler::Severity;
use switchyard_core::hash::sha256_hex;

use crate::report::{Checked, CheckedFile, FileKind, Violation};
use switchyard_catalog::read::{Unread, read_bounded};
use switchyard_catalog::{Catalog, Sourced};
use switchyard_config::MirrorPair;

/// The stable codes of mirror violations.
pub mod codes {
    pub const FOLDER_MISSING: &str = "mirror-folder-missing";
    pub const MISSING: &str = "mirror-missing";
    pub const EXTRA: &str = "mirror-extra";
    pub const DIVERGENT: &str = "mirror-divergent";
    pub const BROKEN_SYMLINK: &str = "mirror-broken-symlink";
    pub const ESCAPING_SYMLINK: &str = "mirror-escaping-symlink";
    pub const UNREADABLE: &str = "mirror-unreadable";
    pub const BUILTIN_DIVERGENT: &str = "builtin-divergent";

    /// Every code with a one-line fix (the same list is in `docs/validate.md`).
    pub const ALL: &[(&str, &str)] = &[
        (FOLDER_MISSING, "create the folder, or fix the pair in [[validate.mirrors]]"),
        (MISSING, "copy the source file into the mirror"),
        (EXTRA, "remove the file from the mirror, or add it to the source"),
        (DIVERGENT, "copy the source file over the mirror's copy again"),
        (BROKEN_SYMLINK, "point the symlink at an existing file, or replace it with a copy"),
        (ESCAPING_SYMLINK, "link to a file inside the project, or replace the link with a copy"),
        (UNREADABLE, "make it a regular, readable file"),
        (
            BUILTIN_DIVERGENT,
            "vendor the built-in again (`switchyard inspect --builtin <id> --format source`), or give your copy an id of its own",
        ),
    ];
}

/// The largest file compared; a mirror holds prompts and workflows, not data sets.
pub const MAX_MIRRORED_FILE_BYTES: usize = 16 * 1024 * 1024;
/// The deepest folder walked below a mirror's root.
const MAX_DEPTH: usize = 16;

/// One entry found in a mirror's folder.
enum Entry {
    /// A file, or a symlink inside the project to one: its content's SHA-256.
    File(String),
    /// Why it cannot be compared.
    Problem(Problem),
}

enum Problem {
    /// A symlink to `target`, which does not exist.
    Broken { target: String },
    /// A symlink to `target`, which resolves to `resolved` outside the project.
    Escaping { target: String, resolved: PathBuf },
    /// Not a regular file, too large, or unreadable.
    Unread(Unread),
}

impl Problem {
    /// The code, what is wrong with the file the report names `shown`, and how to fix it.
    fn describe(&self, shown: &str) -> (&'static str, String, String) {
        match self {
            Self::Broken { target } => (
                codes::BROKEN_SYMLINK,
                format!("{shown} is a symlink to `{target}`, which does not exist"),
                "point the link at an existing file, or replace it with a copy of the file".to_owned(),
            ),
            Self::Escaping { target, resolved } => (
                codes::ESCAPING_SYMLINK,
                format!("{shown} is a symlink to `{target}`, which lies outside the project ({})", resolved.display()),
                "link to a file inside the project, or replace the link with a copy".to_owned(),
            ),
            Self::Unread(unread) => {
                let help = match unread {
                    Unread::NotRegular(_) => "replace it with a regular file".to_owned(),
                    Unread::TooLarge(_) => {
                        format!(
                            "mirrors compare files up to {MAX_MIRRORED_FILE_BYTES} bytes; keep large files out of them"
                        )
                    }
                    Unread::Io(_) => "make it readable".to_owned(),
                };
                (codes::UNREADABLE, unread.reason(Path::new(shown)), help)
            }
        }
    }
}

/// Checks every pair; `shown` turns a path into the text the report names it by.
pub(crate) fn check_pairs(root: &Path, pairs: &[MirrorPair], shown: &dyn Fn(&Path) -> String) -> Vec<Checked> {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    pairs.iter().flat_map(|pair| check_pair(root, &canonical_root, pair, shown)).collect()
}

fn check_pair(root: &Path, canonical_root: &Path, pair: &MirrorPair, shown: &dyn Fn(&Path) -> String) -> Vec<Checked> {
    let (source, mirror) = (root.join(&pair.source), root.join(&pair.mirror));
    let mut checked = Vec::new();
    for (folder, other, side) in [(&source, &mirror, "source"), (&mirror, &source, "mirror")] {
        if !folder.is_dir() {
            let mut file = CheckedFile::new(shown(folder), FileKind::Mirror);
            file.error = Some(format!("the {side} folder does not exist"));
            let violation = violation(
                shown(folder),
                Some(shown(other)),
                codes::FOLDER_MISSING,
                format!(
                    "the {side} folder of the mirror pair ({} → {}) does not exist",
                    shown(&source),
                    shown(&mirror)
                ),
                format!("create it, or fix `{side}` in [[validate.mirrors]] of switchyard.toml"),
            );
            checked.push(Checked { file, violations: vec![violation] });
        }
    }
    if !checked.is_empty() {
        return checked;
    }
    let sources = entries(&source, canonical_root);
    let mirrors = entries(&mirror, canonical_root);
    let mut relatives: Vec<&PathBuf> = sources.keys().chain(mirrors.keys()).collect();
    relatives.sort();
    relatives.dedup();
    for relative in relatives {
        let (source_file, mirror_file) = (source.join(relative), mirror.join(relative));
        let (source_shown, mirror_shown) = (shown(&source_file), shown(&mirror_file));
        let mut violations = Vec::new();
        let mut problem = |path_shown: &str, other: &str, entry: Option<&Entry>| {
            if let Some(Entry::Problem(problem)) = entry {
                let (code, message, help) = problem.describe(path_shown);
                violations.push(violation(path_shown.to_owned(), Some(other.to_owned()), code, message, help));
            }
        };
        problem(&source_shown, &mirror_shown, sources.get(relative));
        problem(&mirror_shown, &source_shown, mirrors.get(relative));
        // A side that cannot be compared is reported as that, once: a broken link in the
        // mirror is not also an extra file, nor one in the source a missing copy.
        let comparable = |entry: Option<&Entry>| !matches!(entry, Some(Entry::Problem(_)));
        if !comparable(sources.get(relative)) || !comparable(mirrors.get(relative)) {
            checked.push(Checked { file: CheckedFile::new(mirror_shown, FileKind::Mirror), violations });
            continue;
        }
        match (sources.get(relative), mirrors.get(relative)) {
            (Some(Entry::File(expected)), Some(Entry::File(found))) if expected != found => {
                violations.push(violation(
                    mirror_shown.clone(),
                    Some(source_shown.clone()),
                    codes::DIVERGENT,
                    format!(
                        "{mirror_shown} differs from its source {source_shown} (sha256 {} against {})",
                        &found[..12],
                        &expected[..12]
                    ),
                    format!("copy {source_shown} over it again, or make the change in the source and copy it"),
                ));
            }
            (Some(_), None) => violations.push(violation(
                mirror_shown.clone(),
                Some(source_shown.clone()),
                codes::MISSING,
                format!("{source_shown} has no copy in the mirror: {mirror_shown} is missing"),
                format!("copy {source_shown} to {mirror_shown}"),
            )),
            (None, Some(_)) => violations.push(violation(
                mirror_shown.clone(),
                Some(source_shown.clone()),
                codes::EXTRA,
                format!("{mirror_shown} is in the mirror but not in its source ({source_shown} does not exist)"),
                format!("remove {mirror_shown}, or add the file to the source first"),
            )),
            _ => {}
        }
        checked.push(Checked { file: CheckedFile::new(mirror_shown, FileKind::Mirror), violations });
    }
    checked
}

fn violation(file: String, related: Option<String>, code: &'static str, message: String, help: String) -> Violation {
    Violation {
        file,
        kind: FileKind::Mirror,
        workflow: None,
        field: None,
        rule: "mirror",
        code,
        severity: Severity::Error,
        line: None,
        column: None,
        message,
        help: Some(help),
        related,
    }
}

/// Every file under `folder`, by its path relative to it.
fn entries(folder: &Path, canonical_root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut found = BTreeMap::new();
    walk(folder, folder, canonical_root, 0, &mut found);
    found
}

fn walk(base: &Path, folder: &Path, canonical_root: &Path, depth: usize, found: &mut BTreeMap<PathBuf, Entry>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(read) = fs::read_dir(folder) else { return };
    for entry in read.flatten() {
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else { continue };
        let relative = path.strip_prefix(base).unwrap_or(&path).to_owned();
        if file_type.is_dir() {
            if entry.file_name() != ".git" {
                walk(base, &path, canonical_root, depth + 1, found);
            }
            continue;
        }
        let entry = if file_type.is_symlink() { symlink(&path, canonical_root) } else { content(&path) };
        found.insert(relative, entry);
    }
}

fn symlink(path: &Path, canonical_root: &Path) -> Entry {
    let target = fs::read_link(path).map(|target| target.display().to_string()).unwrap_or_default();
    let Ok(resolved) = fs::canonicalize(path) else {
        return Entry::Problem(Problem::Broken { target });
    };
    if !resolved.starts_with(canonical_root) {
        return Entry::Problem(Problem::Escaping { target, resolved });
    }
    if resolved.is_dir() {
        // A linked folder is never followed (a loop would never end); it is equal to a link to the same place.
        return Entry::File(format!("folder:{}", resolved.display()));
    }
    content(path)
}

fn content(path: &Path) -> Entry {
    match read_bounded(path, MAX_MIRRORED_FILE_BYTES) {
        Ok(bytes) => Entry::File(sha256_hex(&bytes)),
        Err(unread) => Entry::Problem(Problem::Unread(unread)),
    }
}

/// The project's workflow files that carry a built-in's id with other content than the built-in
/// this binary embeds: a vendored copy gone stale, or edited in place.
pub(crate) fn check_builtins(workflows: &Path, shown: &dyn Fn(&Path) -> String) -> Vec<Checked> {
    if !workflows.is_dir() {
        return Vec::new();
    }
    let builtins: Vec<switchyard_compiler::Builtin> = switchyard_compiler::builtins().collect();
    let mut checked = Vec::new();
    for (path, result) in Catalog::sources(workflows) {
        let Ok(Sourced::Workflows(found)) = result else { continue };
        if path.is_dir() || switchyard_catalog::is_bundle_path(&path) {
            continue;
        }
        for found in found {
            let id = found.compiled.workflow.as_ref().map_or(found.name.as_str(), |workflow| workflow.id.as_str());
            let Some(builtin) = builtins.iter().find(|builtin| builtin.name == id) else { continue };
            // Read again as discovery reads: the compile kept no bytes.
            let Ok(bytes) = read_bounded(&path, MAX_MIRRORED_FILE_BYTES) else { continue };
            let (vendored, embedded) = (sha256_hex(&bytes), sha256_hex(builtin.source.text.as_bytes()));
            let path_shown = shown(&path);
            let mut violations = Vec::new();
            if vendored != embedded {
                violations.push(violation(
                    path_shown.clone(),
                    Some(format!("builtin:{}", builtin.name)),
                    codes::BUILTIN_DIVERGENT,
                    format!(
                        "{path_shown} declares the built-in workflow `{}` but differs from the copy in this switchyard (sha256 {} against {})",
                        builtin.name,
                        &vendored[..12],
                        &embedded[..12]
                    ),
                    format!(
                        "vendor the built-in of this release again (`switchyard inspect --builtin {} --format source > {path_shown}`), or give your copy an id of its own if the change is deliberate",
                        builtin.name
                    ),
                ));
            }
            checked.push(Checked { file: CheckedFile::new(path_shown, FileKind::Mirror), violations });
        }
    }
    checked
}
