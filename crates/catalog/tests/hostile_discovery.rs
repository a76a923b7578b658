//! Hostile files in the folders discovery searches: FIFOs, devices, sockets, symlink loops, huge
//! and deep files, and archives that climb out or explode, as single files and inside bundles.
//! Each is met through every way discovery is asked (`list`, `names`, `find`, what `validate`
//! runs, a file or bundle named directly), and each answer must come within 10 s with the
//! process's peak resident memory under 1 GiB: the bounds a blocking open or an unbounded read
//! would break.

use std::fs;
use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use rustix::fs::{CWD, FileType, Mode, makedev, mknodat};
use switchyard_catalog::Catalog;
use switchyard_catalog::Error;
use switchyard_catalog::Sourced;
use switchyard_test_support::{copy_folder, testdata};
use zip::write::SimpleFileOptions;

const ANSWER_WITHIN: Duration = Duration::from_secs(10);
const PEAK_RESIDENT_BYTES: u64 = 1024 * 1024 * 1024;

/// Runs `discover` on its own thread and returns its answer, asserting it came within
/// [`ANSWER_WITHIN`] and that the process's peak resident memory stayed under
/// [`PEAK_RESIDENT_BYTES`]. A hung thread is left behind; the failed test ends the process.
fn bounded<T: Send + 'static>(what: &str, discover: impl FnOnce() -> T + Send + 'static) -> T {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(discover());
    });
    let answer = receiver.recv_timeout(ANSWER_WITHIN).unwrap_or_else(|error| panic!("{what}: no answer ({error})"));
    let peak = peak_resident_bytes();
    assert!(peak < PEAK_RESIDENT_BYTES, "{what}: the process peaked at {peak} resident bytes");
    answer
}

/// `VmHWM` of this process, in bytes.
fn peak_resident_bytes() -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).expect("/proc/self/status has VmHWM");
    let kilobytes: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kilobytes * 1024
}

/// A home whose `workflows/` holds one good workflow, `good`, beside whatever a test adds.
struct Home {
    home: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        let home = Self { home: tempfile::tempdir().unwrap() };
        fs::create_dir_all(home.workflows()).unwrap();
        fs::write(
            home.workflows().join("good.yaml"),
            "id: good\nversion: \"1\"\ntitle: Good\nsteps:\n  - id: only\n    title: Only\n    prompt: Do it.\n",
        )
        .unwrap();
        home
    }

    fn workflows(&self) -> PathBuf {
        self.home.path().join("workflows")
    }

    fn catalog(&self) -> Catalog {
        Catalog::new(None, self.home.path())
    }

    /// A copy of the CrewAgent example `hello-branch` as the bundle folder `workflows/<name>`.
    fn bundle(&self, name: &str) -> PathBuf {
        let folder = self.workflows().join(name);
        copy_folder(&testdata().join("crewagent").join("hello-branch"), &folder);
        folder
    }

    /// One hostile file made by `make` in each place discovery reads: `workflows/<name>.yaml`,
    /// `workflows/<name>-archive.zip`, and `steps/<name>.md` in the bundle folder `<name>-bundle`.
    fn place(&self, name: &str, make: fn(&Path)) -> Placed {
        let bundle = self.bundle(&format!("{name}-bundle"));
        let placed = Placed {
            single: self.workflows().join(format!("{name}.yaml")),
            archive: self.workflows().join(format!("{name}-archive.zip")),
            inside: bundle.join("steps").join(format!("{name}.md")),
            bundle,
        };
        [&placed.single, &placed.archive, &placed.inside].into_iter().for_each(|path| make(path));
        placed
    }

    /// A folder `workflows/<name>` with a regular `workflow.yaml` and a `bmad.json` that `make`
    /// creates: the package manifest discovery reads to list a bundle's workflows.
    fn package_whose_manifest_is(&self, name: &str, make: fn(&Path)) {
        let folder = self.workflows().join(name);
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join("workflow.yaml"), format!("name: {name}\n")).unwrap();
        make(&folder.join("bmad.json"));
    }

    /// Asserts that `list` answers in bounds with `good` and without `hidden`, and that `names`
    /// answers in bounds.
    fn lists_good_without(&self, hidden: &[&str]) {
        let catalog = self.catalog();
        let listed: Vec<String> = bounded("list", move || catalog.list()).into_iter().map(|found| found.name).collect();
        assert!(listed.contains(&"good".to_owned()), "{listed:?}");
        for hidden in hidden {
            assert!(!listed.contains(&(*hidden).to_owned()), "{hidden} listed: {listed:?}");
        }
        let catalog = self.catalog();
        assert!(bounded("names", move || catalog.names()).contains(&"good".to_owned()));
    }

    /// What `validate` of the workflows folder gets for `path`: its error text.
    fn validate_error(&self, path: &Path) -> String {
        let workflows = self.workflows();
        let sources = bounded("sources", move || Catalog::sources(&workflows));
        match sources.into_iter().find(|(source, _)| source == path) {
            Some((_, Err(error))) => error.to_string(),
            Some((_, Ok(Sourced::Workflows(found)))) => panic!("{} validated: {found:?}", path.display()),
            Some((_, Ok(Sourced::NotAWorkflow(reason)))) => panic!("{} skipped: {reason}", path.display()),
            None => panic!("validate does not report {}", path.display()),
        }
    }
}

/// Where [`Home::place`] put a hostile file.
struct Placed {
    single: PathBuf,
    archive: PathBuf,
    bundle: PathBuf,
    inside: PathBuf,
}

fn mkfifo(path: &Path) {
    mknodat(CWD, path, FileType::Fifo, Mode::from(0o644), 0).unwrap();
}

/// A character device reading as endless zeros (`/dev/zero`), whose metadata says 0 bytes.
fn zero_device(path: &Path) {
    mknodat(CWD, path, FileType::CharacterDevice, Mode::from(0o644), makedev(1, 5)).unwrap();
}

fn file_error(path: &Path) -> String {
    let owned = path.to_owned();
    match bounded("file", move || Catalog::file(&owned)) {
        Ok(found) => panic!("{} was accepted: {:?}", path.display(), found.compiled),
        Err(error) => error.to_string(),
    }
}

fn bundle_error(path: &Path) -> String {
    let owned = path.to_owned();
    bounded("bundle", move || Catalog::bundle(&owned).map(|found| found.len()).map_err(|error| error.to_string()))
        .expect_err("the bundle is refused")
}

fn assert_names(message: &str, path: &Path, kind: &str) {
    assert!(message.contains(&path.display().to_string()) && message.contains(kind), "{message}");
}

#[test]
fn a_fifo_named_like_a_workflow_is_refused_unopened_by_every_discovery_path() {
    let home = Home::new();
    let fifos: Vec<PathBuf> = ["stuck.yaml", "stuck-yml.yml", "stuck-json.json", "stuck-zip.zip", "stuck-bmad.bmad"]
        .iter()
        .map(|name| home.workflows().join(name))
        .collect();
    fifos.iter().for_each(|fifo| mkfifo(fifo));

    home.lists_good_without(&["stuck", "stuck-yml", "stuck-json", "stuck-zip", "stuck-bmad"]);
    for fifo in &fifos {
        assert_names(&home.validate_error(fifo), fifo, "named pipe (FIFO)");
        assert_names(&file_error(fifo), fifo, "named pipe (FIFO)");
        let named = fifo.clone();
        let sources = bounded("sources of the file", move || Catalog::sources(&named));
        assert!(matches!(sources.as_slice(), [(_, Err(_))]), "{sources:?}");
    }
    let catalog = home.catalog();
    assert!(bounded("find", move || catalog.find("stuck")).is_err());
}

#[test]
fn a_fifo_inside_a_bundle_refuses_the_bundle_unopened() {
    let home = Home::new();
    let bundle = home.bundle("piped");
    let fifo = bundle.join("steps").join("notes.md");
    mkfifo(&fifo);
    // A package whose manifest is a FIFO, beside a regular entry file.
    home.package_whose_manifest_is("manifest-piped", mkfifo);

    home.lists_good_without(&["piped"]);
    assert_names(&bundle_error(&bundle), &fifo, "named pipe (FIFO)");
    assert_names(&home.validate_error(&bundle), &fifo, "named pipe (FIFO)");
    let catalog = home.catalog();
    assert!(bounded("find", move || catalog.find("piped")).is_err());
}

#[test]
fn a_device_is_never_read_whatever_its_metadata_says() {
    let home = Home::new();
    let Placed { single, archive, bundle, inside } = home.place("zero", zero_device);
    home.package_whose_manifest_is("manifest-zeroed", zero_device);

    home.lists_good_without(&["zero", "zero-archive", "zero-bundle"]);
    for path in [&single, &archive] {
        assert_names(&home.validate_error(path), path, "character device");
        assert_names(&file_error(path), path, "character device");
    }
    assert_names(&bundle_error(&bundle), &inside, "character device");
    assert_names(&home.validate_error(&bundle), &inside, "character device");
}

#[test]
fn sockets_named_like_workflows_are_refused() {
    let home = Home::new();
    let single = home.workflows().join("socket.yaml");
    let _single = UnixListener::bind(&single).unwrap();
    let bundle = home.bundle("socketed");
    let inside = bundle.join("steps").join("socket.md");
    let _inside = UnixListener::bind(&inside).unwrap();

    home.lists_good_without(&["socket", "socketed"]);
    assert_names(&home.validate_error(&single), &single, "socket");
    assert_names(&file_error(&single), &single, "socket");
    assert_names(&bundle_error(&bundle), &inside, "socket");
}

#[test]
fn symlink_loops_end_in_a_clear_error() {
    let home = Home::new();
    let first = home.workflows().join("loop-a.yaml");
    std::os::unix::fs::symlink("loop-b.yaml", &first).unwrap();
    std::os::unix::fs::symlink("loop-a.yaml", home.workflows().join("loop-b.yaml")).unwrap();
    std::os::unix::fs::symlink("..", home.workflows().join("up")).unwrap();
    // A folder inside a bundle that links back to the bundle, and a file linking to itself.
    let back = home.bundle("linked-back");
    std::os::unix::fs::symlink("..", back.join("steps").join("again")).unwrap();
    let itself = home.bundle("linked-itself");
    std::os::unix::fs::symlink("me.md", itself.join("steps").join("me.md")).unwrap();

    home.lists_good_without(&["loop-a", "loop-b", "linked-back", "linked-itself"]);
    assert!(file_error(&first).contains("loop-a.yaml"));
    assert!(bundle_error(&back).contains("already read"), "{}", bundle_error(&back));
    assert!(bundle_error(&itself).contains("cannot be followed"), "{}", bundle_error(&itself));
}

#[test]
fn huge_files_are_refused_by_the_bytes_read() {
    let home = Home::new();
    // Sparse files: a gibibyte each by their metadata, nothing on disk.
    let Placed { single, archive, bundle, inside } =
        home.place("huge", |path| fs::File::create(path).unwrap().set_len(1 << 30).unwrap());

    home.lists_good_without(&["huge", "huge-archive", "huge-bundle"]);
    assert_names(&file_error(&single), &single, "larger than");
    assert!(file_error(&archive).contains("larger than"), "{}", file_error(&archive));
    assert_names(&bundle_error(&bundle), &inside, "larger than");
}

#[test]
fn deeply_nested_files_and_folders_answer_without_overflowing() {
    let home = Home::new();
    let depth = 100_000;
    fs::write(home.workflows().join("deep-yaml.yaml"), format!("steps: {}{}\n", "[".repeat(depth), "]".repeat(depth)))
        .unwrap();
    fs::write(
        home.workflows().join("deep-json.json"),
        format!("{{\"steps\": {}{}}}", "[".repeat(depth), "]".repeat(depth)),
    )
    .unwrap();
    let mut deep_folder = home.workflows().join("nested");
    for level in 0..40 {
        deep_folder = deep_folder.join(format!("level-{level}"));
    }
    fs::create_dir_all(&deep_folder).unwrap();
    fs::write(deep_folder.join("buried.yaml"), "steps: []\n").unwrap();
    let bundle = home.bundle("deep-bundle");
    fs::write(bundle.join("steps").join("deep.md"), format!("{}\n", ">".repeat(depth))).unwrap();

    home.lists_good_without(&[]);
    let workflows = home.workflows();
    let sources = bounded("sources", move || Catalog::sources(&workflows));
    for name in ["deep-yaml.yaml", "deep-json.json"] {
        let (_, outcome) = sources.iter().find(|(path, _)| path.ends_with(name)).expect("the deep file is reported");
        let Ok(Sourced::Workflows(found)) = outcome else { panic!("{name}: {outcome:?}") };
        assert!(found[0].compiled.workflow.is_none(), "{name} is refused with a diagnostic");
    }
    assert!(!sources.iter().any(|(path, _)| path.ends_with("buried.yaml")), "the walk stops at its depth");
}

#[test]
fn archives_that_climb_out_or_explode_are_refused_in_discovery() {
    let home = Home::new();
    let climbing = home.workflows().join("climb.zip");
    let mut writer = zip::ZipWriter::new(fs::File::create(&climbing).unwrap());
    writer.start_file("../../evil.yaml", SimpleFileOptions::default()).unwrap();
    writer.write_all(b"steps: []\n").unwrap();
    writer.finish().unwrap();
    let bomb = home.workflows().join("bomb.zip");
    let mut writer = zip::ZipWriter::new(fs::File::create(&bomb).unwrap());
    writer.start_file("workflow.yaml", SimpleFileOptions::default()).unwrap();
    for _ in 0..64 {
        writer.write_all(&[b'0'; 1024 * 1024]).unwrap();
    }
    writer.finish().unwrap();
    // The same bomb inside a bundle folder is a binary file there, skipped unexpanded.
    let bundle = home.bundle("carrying");
    fs::copy(&bomb, bundle.join("steps").join("bomb.zip")).unwrap();

    home.lists_good_without(&["climb", "bomb"]);
    assert!(home.validate_error(&climbing).contains("climbs out"));
    assert!(home.validate_error(&bomb).contains("zip bomb"));
    let carrying = bundle;
    let found = bounded("bundle", move || Catalog::bundle(&carrying).map_err(|error: Error| error.to_string()));
    assert!(found.unwrap()[0].compiled.workflow.is_some(), "the bundle carrying an archive still compiles");
}
