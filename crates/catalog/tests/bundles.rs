//! Bundles through discovery: folders and archives listed with their format, what is not a
//! workflow left out, and hostile bundles (entries that climb out, zip bombs, symlinks out,
//! folders too deep) refused with a clear error.

use std::io::Write;
use std::path::Path;

use switchyard_catalog::Catalog;
use switchyard_test_support::{corpora, testdata, zip_folder_under};
use zip::write::SimpleFileOptions;

#[test]
fn discovery_lists_bundles_with_their_format() {
    let dir = tempfile::tempdir().unwrap();
    let workflows = dir.path().join("workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    let copy = |from: &Path, to: &Path| {
        let mut pending = vec![from.to_path_buf()];
        while let Some(current) = pending.pop() {
            for entry in std::fs::read_dir(&current).unwrap() {
                let path = entry.unwrap().path();
                let target = to.join(path.strip_prefix(from).unwrap());
                if path.is_dir() {
                    std::fs::create_dir_all(&target).unwrap();
                    pending.push(path);
                } else {
                    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                    std::fs::copy(&path, &target).unwrap();
                }
            }
        }
    };
    copy(&testdata().join("crewagent/release-train"), &workflows.join("release-train"));
    copy(&corpora().join("bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev"), &workflows.join("quick-dev"));
    std::fs::copy(corpora().join("workrail/workflows/wr.shaping.json"), workflows.join("shaping.json")).unwrap();
    // Beside them, files and folders that are no workflow, and a file that almost is one.
    std::fs::copy(corpora().join("bmad/6.0.4/src/bmm/module.yaml"), workflows.join("module.yaml")).unwrap();
    std::fs::copy(corpora().join("bmad/6.0.0-alpha.7/bmad/core/config.yaml"), workflows.join("config.yaml")).unwrap();
    copy(&corpora().join("bmad/6.0.0-alpha.22/src/modules/bmb/docs/workflows/templates"), &workflows.join("templates"));
    std::fs::write(workflows.join("almost.yaml"), "id: almost\nsteps: {}\n").unwrap();
    // A package archived with its folder as the archive's single root.
    zip_folder_under(&testdata().join("crewagent/release-train"), &workflows.join("rooted.zip"), "release-train/");
    let catalog = Catalog::new(None, dir.path());
    let listed: Vec<String> = catalog
        .list()
        .iter()
        .map(|found| format!("{} {:?} {}", found.name, found.compiled.format, found.compiled.workflow.is_some()))
        .collect();
    for expected in [
        "release-train.plan CrewAgent true",
        "release-train.ship CrewAgent true",
        "rooted.plan CrewAgent true",
        "rooted.ship CrewAgent true",
        "quick-dev MethodSteps true",
        "shaping Workrail true",
        "almost Native false",
    ] {
        assert!(listed.iter().any(|line| line == expected), "{expected} not in {listed:#?}");
    }
    // Found by the archive's name, each is its own workflow of the package.
    for (name, id) in [("rooted.plan", "release-train.plan"), ("rooted.ship", "release-train.ship")] {
        let found = catalog.find(name).unwrap();
        assert_eq!(found.compiled.workflow.as_ref().map(|workflow| workflow.id.as_str()), Some(id), "{name}");
    }
    for stray in ["module", "config", "templates"] {
        assert!(!listed.iter().any(|line| line.starts_with(&format!("{stray} "))), "{stray} listed: {listed:#?}");
        assert!(catalog.find(stray).is_err(), "{stray} found by name");
    }
}

fn refused(path: &Path) -> String {
    match Catalog::file(path) {
        Ok(found) => panic!("{} was accepted: {:?}", path.display(), found.compiled.format),
        Err(error) => error.to_string(),
    }
}

#[test]
fn hostile_bundles_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // An archive entry that climbs out.
    let climbing = dir.path().join("climb.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&climbing).unwrap());
    writer.start_file("../../evil.md", SimpleFileOptions::default()).unwrap();
    writer.write_all(b"x").unwrap();
    writer.finish().unwrap();
    assert!(refused(&climbing).contains("climbs out"));
    // A zip bomb: 8 MiB of zeros.
    let bomb = dir.path().join("bomb.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&bomb).unwrap());
    writer.start_file("workflow.yaml", SimpleFileOptions::default()).unwrap();
    writer.write_all(&vec![b'0'; 8 * 1024 * 1024]).unwrap();
    writer.finish().unwrap();
    assert!(refused(&bomb).contains("zip bomb"));
    // A symlink out of the folder.
    let linked = dir.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(linked.join("workflow.yaml"), "name: x\n").unwrap();
    std::os::unix::fs::symlink("/etc", linked.join("etc")).unwrap();
    assert!(refused(&linked).contains("points outside the folder"));
    // Folders nested too deep.
    let mut deep = dir.path().join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("workflow.yaml"), "name: x\n").unwrap();
    for level in 0..15 {
        deep = deep.join(format!("d{level}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    assert!(refused(&dir.path().join("deep")).contains("deeper than"));
}
