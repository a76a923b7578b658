//! Landlock: what the kernel lets a command read, write and connect to.
//!
//! `landlock_restrict_self` confines the calling thread and whatever it starts afterwards, never
//! the other threads of the process, so [`crate::run`] calls [`restrict_current_thread`] on a
//! short-lived thread of its own, which then starts the command and ends. The runner's threads
//! stay as free as they were.
//!
//! Landlock only grants: a rule allows rights on a file hierarchy, and the rights below a folder
//! are the union of the rules on it and on every folder above. So a place is left out by granting
//! around it: along the path from a granted folder (itself included) down to the place, each
//! folder gets no rights of its own (but listing, for the reading rules) and each of its other
//! entries gets the full rights. Two consequences are part of the contract:
//! - a folder on such a path gets no create or remove rights, so a command cannot create, remove
//!   or rename entries directly in it (the workspace root, when `switchyard.toml` sits there),
//!   though it may write into its existing files and anywhere below its other folders;
//! - the rules are taken at the start, so an entry created in such a folder later (by anyone) is
//!   out of the command's reach, and a listing right granted on the way covers the whole subtree,
//!   so the names in a secret folder can be listed though none of its files can be opened.
//!
//! Entries are opened relative to their folder without following symbolic links, so a link an
//! agent planted cannot carry a rule onto its target; links get no rule of their own (what they
//! point to is reached, or not, by its own path).

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, LandlockStatus, PathBeneath, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope,
};
use rustix::fs::{Dir, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::{Confinement, Error, Sandbox};

/// The newest Landlock ABI whose rights are asked for: the file rights up to ioctl on devices (5)
/// and TCP bind and connect (4). On an older kernel the landlock crate drops what the kernel lacks
/// (its best-effort mode) and [`probe`] says what remains.
const TARGET_ABI: ABI = ABI::V5;

/// Devices a command may write to besides its writable places: the usual sinks. Ioctl is granted so
/// that `isatty` on them answers "not a terminal" as everywhere else, rather than "denied".
const WRITABLE_DEVICES: [&str; 2] = ["/dev/null", "/dev/zero"];

/// What the kernel can enforce, found by confining a throwaway thread with a ruleset that grants
/// nothing: the same call every command makes, so a kernel or a seccomp filter that refuses it is
/// found here, before a command depends on it.
pub(crate) fn probe() -> Confinement {
    let thread = std::thread::Builder::new()
        .name("switchyard-landlock-probe".to_owned())
        .spawn(|| Ruleset::default().handle_access(AccessFs::from_all(TARGET_ABI))?.create()?.restrict_self());
    let status = match thread.map(std::thread::JoinHandle::join) {
        Ok(Ok(Ok(status))) => status,
        Ok(Ok(Err(error))) => {
            return Confinement::Unavailable { reason: format!("the kernel refused a Landlock ruleset ({error})") };
        }
        Ok(Err(_)) => return Confinement::Unavailable { reason: "the Landlock probe panicked".to_owned() },
        Err(error) => {
            return Confinement::Unavailable { reason: format!("the Landlock probe's thread did not start ({error})") };
        }
    };
    match status.landlock {
        LandlockStatus::Available { effective_abi, kernel_abi } if status.ruleset != RulesetStatus::NotEnforced => {
            let abi = kernel_abi.map_or(effective_abi as u8, |version| u8::try_from(version).unwrap_or(u8::MAX));
            Confinement::Landlock { abi, network: effective_abi >= ABI::V4 }
        }
        LandlockStatus::Available { .. } => {
            Confinement::Unavailable { reason: "the kernel has Landlock but did not enforce a ruleset".to_owned() }
        }
        LandlockStatus::NotEnabled => Confinement::Unavailable {
            reason: "the kernel has Landlock but it is off (add `landlock` to the `lsm=` boot parameter)".to_owned(),
        },
        LandlockStatus::NotImplemented => Confinement::Unavailable {
            reason: "the kernel has no Landlock (Linux 5.13 or later, built with CONFIG_SECURITY_LANDLOCK)".to_owned(),
        },
    }
}

/// Confines the calling thread (and what it starts from now on) to `sandbox`, with `workspace`
/// the sandbox's workspace resolved and `temporary` the command's private folder, both writable.
/// Returns whether Landlock enforced anything.
pub(crate) fn restrict_current_thread(sandbox: &Sandbox, workspace: &Path, temporary: &Path) -> Result<bool, Error> {
    let places = Places::resolve(sandbox, workspace, temporary);
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(TARGET_ABI)).map_err(refused)?;
    if !sandbox.network {
        // Handled and granted to no port: no TCP connection in or out.
        ruleset = ruleset.handle_access(AccessNet::from_all(TARGET_ABI)).map_err(refused)?;
    }
    // Signals only within the command's own processes (ABI 6): it cannot kill the runner, or any
    // other process of the user's.
    ruleset = ruleset.scope(Scope::Signal).map_err(refused)?;
    let mut rules = ruleset.create().map_err(refused)?;

    let root = open_folder(Path::new("/"))?;
    let secret: Vec<&Path> = places.secret.iter().map(PathBuf::as_path).collect();
    grant_around(
        &mut rules,
        &root,
        Path::new("/"),
        &secret,
        AccessFs::from_read(TARGET_ABI),
        AccessFs::ReadDir.into(),
    )?;
    for folder in &places.writable {
        let inside: Vec<&Path> =
            places.protected.iter().filter(|place| place.starts_with(folder)).map(PathBuf::as_path).collect();
        let handle = open_folder(folder)?;
        grant_around(&mut rules, &handle, folder, &inside, AccessFs::from_write(TARGET_ABI), BitFlags::EMPTY)?;
    }
    for device in WRITABLE_DEVICES {
        match rustix::fs::open(device, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()) {
            Ok(handle) => {
                rules = rules
                    .add_rule(PathBeneath::new(handle, AccessFs::WriteFile | AccessFs::IoctlDev))
                    .map_err(refused)?;
            }
            Err(error) => tracing::debug!(device, %error, "device not granted to the command: it cannot be opened"),
        }
    }
    let status = rules.restrict_self().map_err(refused)?;
    Ok(status.ruleset != RulesetStatus::NotEnforced)
}

/// The sandbox's places as absolute paths, in every spelling that reaches them.
#[derive(Debug)]
struct Places {
    /// Folders the command may write below, resolved; none lies inside a protected place.
    writable: Vec<PathBuf>,
    /// Places under a writable folder that must stay as they are: `unwritable` and `secret`.
    protected: Vec<PathBuf>,
    /// Places never read.
    secret: Vec<PathBuf>,
}

impl Places {
    fn resolve(sandbox: &Sandbox, workspace: &Path, temporary: &Path) -> Self {
        // Places are written relative to the workspace, and the workspace relative to the runner's
        // working directory; `workspace` is where that led.
        let here = std::env::current_dir().unwrap_or_else(|_| workspace.to_owned());
        let written_workspace = absolute(&sandbox.workspace, &here);
        let mut roots = vec![(written_workspace.clone(), workspace.to_owned())];
        roots.push((temporary.to_owned(), temporary.canonicalize().unwrap_or_else(|_| temporary.to_owned())));
        for folder in &sandbox.writable {
            let given = absolute(folder, &written_workspace);
            match given.canonicalize() {
                Ok(resolved) if resolved.is_dir() => roots.push((given, resolved)),
                Ok(_) => tracing::warn!(path = %given.display(), "writable place skipped: it is not a folder"),
                Err(error) => {
                    tracing::debug!(path = %given.display(), %error, "writable place skipped: it cannot be resolved")
                }
            }
        }
        let secret: Vec<PathBuf> =
            sandbox.secret.iter().flat_map(|place| locations(place, &written_workspace, &roots)).collect();
        let mut protected: Vec<PathBuf> =
            sandbox.unwritable.iter().flat_map(|place| locations(place, &written_workspace, &roots)).collect();
        protected.extend(secret.iter().cloned());
        let writable = roots
            .into_iter()
            .map(|(_, resolved)| resolved)
            .filter(|folder| {
                let covered = protected.iter().any(|place| folder.starts_with(place));
                if covered {
                    tracing::warn!(path = %folder.display(), "writable place not writable: it lies inside a protected place");
                }
                !covered
            })
            .collect();
        Self { writable, protected, secret }
    }
}

/// Every absolute spelling of `place` a rule must be kept off: as written (relative to the
/// workspace), with its symbolic links resolved (what switchyard itself opens), and re-rooted on
/// the resolved writable folder it was written under (the spelling the walks see).
fn locations(place: &Path, workspace: &Path, roots: &[(PathBuf, PathBuf)]) -> Vec<PathBuf> {
    let written = absolute(place, workspace);
    let mut found = vec![written.clone(), resolve_existing(&written)];
    for (given, resolved) in roots {
        if let Ok(rest) = written.strip_prefix(given) {
            found.push(resolved.join(rest));
        }
    }
    found.sort();
    found.dedup();
    found
}

/// `path` made absolute against `base`, with `.` and `..` applied to the words (not the disk).
fn absolute(path: &Path, base: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in base.join(path).components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

/// `path` with its existing part's symbolic links resolved; a place that does not exist yet is
/// still protected where it would be created.
fn resolve_existing(path: &Path) -> PathBuf {
    path.ancestors()
        .find_map(|ancestor| {
            let resolved = ancestor.canonicalize().ok()?;
            Some(resolved.join(path.strip_prefix(ancestor).ok()?))
        })
        .unwrap_or_else(|| path.to_owned())
}

/// Grants `rights` on everything below `folder` (at `folder_path`) except the `excluded` places,
/// all of which lie below it, and `on_the_way` on the folders that lead to them (see the module's
/// documentation for what that costs).
fn grant_around(
    rules: &mut RulesetCreated,
    folder: &OwnedFd,
    folder_path: &Path,
    excluded: &[&Path],
    rights: BitFlags<AccessFs>,
    on_the_way: BitFlags<AccessFs>,
) -> Result<(), Error> {
    if excluded.is_empty() {
        rules.add_rule(PathBeneath::new(folder, rights)).map_err(refused)?;
        return Ok(());
    }
    if excluded.contains(&folder_path) {
        return Ok(());
    }
    if !on_the_way.is_empty() {
        rules.add_rule(PathBeneath::new(folder, on_the_way)).map_err(refused)?;
    }
    let listing = Dir::read_from(folder).map_err(|error| unreadable(folder_path, error))?;
    for entry in listing {
        let entry = entry.map_err(|error| unreadable(folder_path, error))?;
        let name = entry.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        let path = folder_path.join(OsStr::from_bytes(name.to_bytes()));
        if excluded.contains(&path.as_path()) {
            continue;
        }
        let handle =
            match rustix::fs::openat(folder, name, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty()) {
                Ok(handle) => handle,
                // Gone since the listing: nothing to grant.
                Err(Errno::NOENT) => continue,
                Err(error) => return Err(unreadable(&path, error)),
            };
        let kind = rustix::fs::fstat(&handle).map(|stat| FileType::from_raw_mode(stat.st_mode));
        let kind = kind.map_err(|error| unreadable(&path, error))?;
        let below: Vec<&Path> = excluded.iter().copied().filter(|place| place.starts_with(&path)).collect();
        match kind {
            FileType::Symlink => {}
            FileType::Directory if !below.is_empty() => {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let inner =
                    rustix::fs::openat(folder, name, flags, Mode::empty()).map_err(|error| unreadable(&path, error))?;
                grant_around(rules, &inner, &path, &below, rights, on_the_way)?;
            }
            FileType::Directory => {
                rules.add_rule(PathBeneath::new(handle, rights)).map_err(refused)?;
            }
            _ => {
                let for_a_file = rights & file_rights();
                if !for_a_file.is_empty() {
                    rules.add_rule(PathBeneath::new(handle, for_a_file)).map_err(refused)?;
                }
            }
        }
    }
    Ok(())
}

/// The rights a rule on something other than a folder can carry.
fn file_rights() -> BitFlags<AccessFs> {
    AccessFs::Execute | AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev
}

fn open_folder(path: &Path) -> Result<OwnedFd, Error> {
    rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
        .map_err(|error| unreadable(path, error))
}

fn unreadable(path: &Path, error: Errno) -> Error {
    Error::Sandbox {
        what: format!(
            "{} could not be opened or listed to build the rules around it (name places this user can read)",
            path.display()
        ),
        source: Box::new(std::io::Error::from(error)),
    }
}

fn refused(error: RulesetError) -> Error {
    Error::Sandbox {
        what: "the kernel refused the Landlock ruleset (report it with the output of `uname -r`)".to_owned(),
        source: Box::new(error),
    }
}
