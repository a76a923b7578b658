//! Mirrors under `--strict`: each `[[validate.mirrors]]` pair compared by content, its missing,
//! extra and divergent files and its broken or escaping symlinks reported as pairs, and the
//! project's vendored built-in workflows compared with the embedded ones.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use switchyard_config::{MirrorPair, ValidateConfig};
use switchyard_validate::{Report, Request, validate};

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn mirrored(pairs: &[(&str, &str)]) -> ValidateConfig {
    ValidateConfig {
        prompts: Some(Vec::new()),
        mirrors: Some(
            pairs
                .iter()
                .map(|(source, mirror)| MirrorPair { source: PathBuf::from(source), mirror: PathBuf::from(mirror) })
                .collect(),
        ),
        keep_presets: false,
    }
}

/// A project with a workflow and one mirror pair, `commands` → `copy`, whose one file differs.
fn one_diverging_pair(root: &Path) -> ValidateConfig {
    write(root, "commands/a.md", "one");
    write(root, "copy/a.md", "two");
    write(root, ".switchyard/workflows/mine.yaml", "id: mine\nsteps:\n  - id: a\n    prompt: Do it.\n");
    mirrored(&[("commands", "copy")])
}

fn run(root: &Path, config: &ValidateConfig, strict: bool) -> Report {
    validate(&Request { project_root: root, paths: &[], strict, config, min_confidence: 0.8 }).expect("validate runs")
}

/// `code file (related)` for each violation.
fn found(report: &Report) -> Vec<String> {
    report
        .violations
        .iter()
        .map(|violation| {
            format!("{} {} ({})", violation.code, violation.file, violation.related.as_deref().unwrap_or("-"))
        })
        .collect()
}

#[test]
fn a_pair_reports_missing_extra_divergent_and_symlinked_files_as_pairs() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    for (relative, text) in [("a.md", "same\n"), ("b.md", "source\n"), ("only-source.md", "x"), ("nested/c.md", "c")] {
        write(root, &format!("commands/{relative}"), text);
    }
    for (relative, text) in [("a.md", "same\n"), ("b.md", "edited\n"), ("only-mirror.md", "y"), ("nested/c.md", "c")] {
        write(root, &format!(".claude/commands/{relative}"), text);
    }
    symlink("missing-target.md", root.join(".claude/commands/broken.md")).unwrap();
    write(root, "commands/broken.md", "b");
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "s");
    symlink(outside.path().join("secret.md"), root.join(".claude/commands/escaping.md")).unwrap();
    write(root, "commands/escaping.md", "s");
    // A symlink inside the project is compared by the content it points at.
    symlink(root.join("commands/a.md"), root.join(".claude/commands/linked.md")).unwrap();
    write(root, "commands/linked.md", "same\n");

    let report = run(root, &mirrored(&[("commands", ".claude/commands")]), true);
    let mut found = found(&report);
    found.sort();
    assert_eq!(
        found,
        [
            "mirror-broken-symlink .claude/commands/broken.md (commands/broken.md)",
            "mirror-divergent .claude/commands/b.md (commands/b.md)",
            "mirror-escaping-symlink .claude/commands/escaping.md (commands/escaping.md)",
            "mirror-extra .claude/commands/only-mirror.md (commands/only-mirror.md)",
            "mirror-missing .claude/commands/only-source.md (commands/only-source.md)",
        ],
        "{report:#?}"
    );
    assert!(!report.ok);
    assert_eq!(report.stats.files_checked, 8, "{:#?}", report.files);
    assert_eq!(report.stats.files_failed, 5);
    let divergent = report.violations.iter().find(|violation| violation.code == "mirror-divergent").unwrap();
    assert!(divergent.message.contains("sha256"), "{}", divergent.message);
}

#[test]
fn mirrors_are_compared_only_in_strict_mode_and_equal_folders_pass() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    let config = one_diverging_pair(root);
    assert!(run(root, &config, false).ok, "without --strict mirrors are not compared");
    assert!(!run(root, &config, true).ok);
    write(root, "copy/a.md", "one");
    let report = run(root, &config, true);
    assert!(report.ok, "{report:#?}");
}

#[test]
fn a_file_that_cannot_be_compared_is_reported_once_as_what_it_is() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    write(root, "commands/kept.md", "k");
    std::fs::create_dir_all(root.join("copy")).unwrap();
    write(root, "copy/kept.md", "k");
    // Only in the mirror, a broken link: not also an extra file.
    symlink("nowhere.md", root.join("copy/broken.md")).unwrap();
    // Only in the source, a broken link: not also a missing copy.
    symlink("nowhere.md", root.join("commands/gone.md")).unwrap();
    // Only in the mirror, a link out of the project: not also an extra file.
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "s");
    symlink(outside.path().join("secret.md"), root.join("copy/escaping.md")).unwrap();
    let report = run(root, &mirrored(&[("commands", "copy")]), true);
    let mut found = found(&report);
    found.sort();
    assert_eq!(
        found,
        [
            "mirror-broken-symlink commands/gone.md (copy/gone.md)",
            "mirror-broken-symlink copy/broken.md (commands/broken.md)",
            "mirror-escaping-symlink copy/escaping.md (commands/escaping.md)",
        ],
        "{report:#?}"
    );
}

#[test]
fn only_mirrors_without_strict_is_nothing_to_validate_and_says_strict_compares_them() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "commands/a.md", "one");
    write(project.path(), "copy/a.md", "one");
    let config = mirrored(&[("commands", "copy")]);
    let request =
        Request { project_root: project.path(), paths: &[], strict: false, config: &config, min_confidence: 0.8 };
    let error = validate(&request).unwrap_err().to_string();
    assert!(error.contains("nothing to validate"), "{error}");
    assert!(
        error.contains("the 1 [[validate.mirrors]] pair(s) of switchyard.toml are compared only with --strict: run `switchyard validate --strict`"),
        "{error}"
    );
    assert!(run(project.path(), &config, true).ok);
}

#[test]
fn a_missing_folder_of_a_pair_is_named() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), "commands/a.md", "one");
    let report = run(project.path(), &mirrored(&[("commands", "nowhere")]), true);
    assert_eq!(found(&report), ["mirror-folder-missing nowhere (commands)"]);
}

#[test]
fn a_fifo_in_a_mirror_is_named_without_being_read() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    write(root, "commands/pipe.md", "text");
    std::fs::create_dir_all(root.join("copy")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("copy/pipe.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from(0o644),
        0,
    )
    .unwrap();
    // Would block forever on a plain open; discovery's read opens without blocking and refuses it.
    let report = run(root, &mirrored(&[("commands", "copy")]), true);
    let unreadable = report.violations.iter().find(|violation| violation.code == "mirror-unreadable").unwrap();
    assert!(unreadable.message.contains("named pipe (FIFO)"), "{}", unreadable.message);
}

#[test]
fn a_vendored_built_in_must_match_the_embedded_copy() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    let builtin = switchyard_catalog::Catalog::new(None, root).find("code-review").unwrap();
    assert_eq!(builtin.location.path, "builtin:code-review");
    let text = builtin_text("code-review");
    write(root, ".switchyard/workflows/code-review.yaml", &text);
    let config = mirrored(&[]);
    assert!(run(root, &config, true).ok, "an exact copy passes");
    write(root, ".switchyard/workflows/code-review.yaml", &format!("{text}\n# edited\n"));
    let report = run(root, &config, true);
    assert_eq!(
        found(&report),
        ["builtin-divergent .switchyard/workflows/code-review.yaml (builtin:code-review)"],
        "{report:#?}"
    );
}

/// The source text of a built-in, as vendored by copying it.
fn builtin_text(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../compiler/builtins/{name}.yaml")))
        .unwrap()
}

/// `switchyard validate --strict .` in the project root is `switchyard validate --strict`: the
/// root named as a path is the project, mirrors and all, and its report names files alike.
#[test]
fn the_project_root_named_as_a_path_is_the_project() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    let config = one_diverging_pair(root);
    let as_project = run(root, &config, true);
    for named in [root.to_owned(), root.join("."), root.join("commands/..")] {
        let request = Request {
            project_root: root,
            paths: std::slice::from_ref(&named),
            strict: true,
            config: &config,
            min_confidence: 0.8,
        };
        let report = validate(&request).expect("validate runs");
        assert_eq!(found(&report), found(&as_project), "{}", named.display());
        assert_eq!(report.stats.files_checked, as_project.stats.files_checked, "{}", named.display());
    }
    assert_eq!(found(&as_project), ["mirror-divergent copy/a.md (commands/a.md)"]);

    // A folder inside the project is only that folder: no mirrors, and here nothing to check.
    let commands = [root.join("commands")];
    let inside =
        validate(&Request { project_root: root, paths: &commands, strict: true, config: &config, min_confidence: 0.8 });
    assert!(matches!(inside, Err(switchyard_validate::Error::NothingToCheck(_))), "{inside:#?}");
}
