//! Mounts and kernel-checked access. A path variable is resolved once to a mount (an open
//! directory handle); every access below it goes through cap-std, which resolves with openat2
//! `RESOLVE_BENEATH` on Linux and elsewhere (or on a kernel older than 5.6) walks one name at a
//! time with `openat` and `O_NOFOLLOW`, so `..`, absolute and symlink escapes are refused by the
//! kernel at the moment of use, not by comparing strings beforehand.
//!
//! A [`Guard`] keeps switchyard's own places (configuration, workflow folders, keys, the store)
//! out of reach whatever the mounts say: each was opened when the host was built, and what an
//! agent names is compared with them by file identity (device and inode), through the handles
//! the access itself goes through.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, MetadataExt, OpenOptions, OpenOptionsExt};
use cap_std_ext::dirext::CapStdExtDirExt;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;
use switchyard_core::suggest;

use crate::error::{ToolError, codes};

/// The longest path argument accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// How far up the folder tree [`ancestry`] walks before giving up (deeper than any real tree).
const MAX_ANCESTRY: usize = 4096;
/// Entries of a secret folder compared with a read file, and how deep (the key folder holds one
/// keyring; a folder past these bounds is refused whole, see [`Guard::secret_identities`]).
const MAX_SECRET_ENTRIES: usize = 1024;
const MAX_SECRET_DEPTH: usize = 4;
/// How [`ancestry`] opens each folder above, to read what it is and to go on up. Linux's `O_PATH`
/// needs no permission on the folder itself. Other systems have no `O_PATH`, so there each folder
/// is opened for reading, and one this user may not read fails the check (`E_IO`) rather than
/// let it pass unchecked.
#[cfg(target_os = "linux")]
const ANCESTOR_FLAGS: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
#[cfg(not(target_os = "linux"))]
const ANCESTOR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

/// The four path variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MountName {
    Project,
    Bundle,
    Core,
    Output,
}

impl MountName {
    pub const ALL: [Self; 4] = [Self::Project, Self::Bundle, Self::Core, Self::Output];

    pub fn variable(self) -> &'static str {
        match self {
            Self::Project => "{project-root}",
            Self::Bundle => "{bundle-root}",
            Self::Core => "{core-root}",
            Self::Output => "{output-root}",
        }
    }
}

/// One mount: a directory handle and whether the tools may write below it.
#[derive(Debug)]
pub struct Mount {
    pub name: MountName,
    /// The canonical root, used only to translate absolute arguments and to print paths.
    pub root: PathBuf,
    pub writable: bool,
    dir: Dir,
}

impl Mount {
    pub fn open(name: MountName, root: &Path, writable: bool) -> io::Result<Self> {
        let root = root.canonicalize()?;
        let dir = Dir::open_ambient_dir(&root, ambient_authority())?;
        Ok(Self { name, root, writable, dir })
    }

    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Another handle on the same directory: a mount opened once, when the host was built, is
    /// lent to each run this way, so a later change of the path it was opened by changes nothing.
    pub fn try_clone(&self) -> io::Result<Self> {
        Ok(Self { name: self.name, root: self.root.clone(), writable: self.writable, dir: self.dir.try_clone()? })
    }
}

/// Which file something is, whatever name leads to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    device: u64,
    inode: u64,
}

impl Identity {
    fn of(fd: impl AsFd) -> io::Result<Self> {
        let stat = rustix::fs::fstat(fd)?;
        Ok(Self::from_stat(&stat))
    }

    /// The identity of `name` in `folder`, following a symbolic link; `None` when nothing is there.
    fn at(folder: impl AsFd, name: &OsStr, follow: bool) -> Option<Self> {
        let flags = if follow { AtFlags::empty() } else { AtFlags::SYMLINK_NOFOLLOW };
        rustix::fs::statat(folder, name, flags).ok().map(|stat| Self::from_stat(&stat))
    }

    #[allow(clippy::unnecessary_cast, reason = "the stat field types differ between architectures")]
    fn from_stat(stat: &rustix::fs::Stat) -> Self {
        Self { device: stat.st_dev as u64, inode: stat.st_ino as u64 }
    }

    pub fn of_metadata(metadata: &cap_std::fs::Metadata) -> Self {
        Self { device: metadata.dev(), inode: metadata.ino() }
    }
}

/// A directory and the folders above it, nearest first, up to the root: what the kernel says
/// they are (each parent opened by `..`), so symbolic links, bind mounts and renames before the
/// check cannot hide that a folder lies inside a protected one.
fn ancestry(dir: impl AsFd) -> io::Result<Vec<Identity>> {
    let mut chain = vec![Identity::of(&dir)?];
    let mut current: OwnedFd = rustix::fs::openat(&dir, ".", ANCESTOR_FLAGS, Mode::empty())?;
    while chain.len() < MAX_ANCESTRY {
        let parent = rustix::fs::openat(&current, "..", ANCESTOR_FLAGS, Mode::empty())?;
        let identity = Identity::of(&parent)?;
        if chain.last() == Some(&identity) {
            return Ok(chain);
        }
        chain.push(identity);
        current = parent;
    }
    Err(io::Error::other("the folder tree is deeper than switchyard follows"))
}

/// One protected place: the nearest folder above it that existed when the host was built, opened
/// then, and the name below that folder that leads to the place (the place itself, or the first
/// of its folders still missing, so creating the way to it is refused as well).
#[derive(Debug)]
struct Place {
    folder: Dir,
    folder_identity: Identity,
    name: OsString,
}

impl Place {
    fn open(path: &Path) -> Option<Self> {
        let path = std::path::absolute(path).ok()?;
        let mut leading = path.as_path();
        loop {
            let (parent, name) = (leading.parent()?, leading.file_name()?);
            if let Ok(folder) = Dir::open_ambient_dir(parent, ambient_authority()) {
                let folder_identity = Identity::of(&folder).ok()?;
                return Some(Self { folder, folder_identity, name: name.to_owned() });
            }
            leading = parent;
        }
    }

    /// What the place is now (following a symbolic link, as switchyard itself opens it).
    fn identity(&self) -> Option<Identity> {
        Identity::at(&self.folder, &self.name, true)
    }

    /// Whether `name` in a folder of identity `folder` is the place's name there. Compared without
    /// ASCII case, because on a case-insensitive file system `SWITCHYARD.TOML` is the same file.
    fn is_named(&self, folder: Identity, name: &OsStr) -> bool {
        self.folder_identity == folder && self.name.as_encoded_bytes().eq_ignore_ascii_case(name.as_encoded_bytes())
    }

    fn shown(&self) -> String {
        self.name.to_string_lossy().into_owned()
    }
}

/// What the file tools must leave alone whatever the mounts say: places never written (nor
/// created), secret places never read, listed or written, and the output root, written only
/// through `{output-root}` (the run's own folder), never around it through another mount.
#[derive(Debug, Default)]
pub struct Guard {
    unwritable: Vec<Place>,
    secret: Vec<Place>,
    output_root: Option<Place>,
}

impl Guard {
    /// Opens the places now; one that cannot be reached at all (no folder above it exists) is
    /// left out, as nothing can be written there either.
    pub fn new(unwritable: &[PathBuf], secret: &[PathBuf], output_root: Option<&Path>) -> Self {
        Self {
            unwritable: unwritable.iter().filter_map(|path| Place::open(path)).collect(),
            secret: secret.iter().filter_map(|path| Place::open(path)).collect(),
            output_root: output_root.and_then(Place::open),
        }
    }

    /// Refuses writing (or creating) `name` in `folder`, whose ancestry is `chain` (nearest first),
    /// when that is a protected place or lies inside one.
    fn check_write(
        &self,
        through: MountName,
        folder: &Dir,
        chain: &[Identity],
        name: &OsStr,
        shown: &str,
    ) -> Result<(), ToolError> {
        let entry = Identity::at(folder, name, false);
        let around_output = self.output_root.iter().filter(|_| through != MountName::Output);
        for place in self.unwritable.iter().chain(&self.secret).chain(around_output) {
            let reached = place.is_named(chain[0], name)
                || place.identity().is_some_and(|identity| chain.contains(&identity) || entry == Some(identity));
            if reached {
                return Err(protected(shown, &place.shown(), "written"));
            }
        }
        Ok(())
    }

    /// Every file and folder a secret place holds now, bounded; `Err` names the place when it
    /// holds more than is compared, so reads are refused rather than let through unchecked.
    fn secret_identities(&self) -> Result<Vec<Identity>, String> {
        let mut found = Vec::new();
        for place in &self.secret {
            let Some(identity) = place.identity() else { continue };
            found.push(identity);
            let Ok(folder) = place.folder.open_dir(&place.name) else { continue };
            let mut stack = vec![(folder, 0usize)];
            while let Some((folder, depth)) = stack.pop() {
                let entries = folder.entries().map_err(|_| place.shown())?;
                for entry in entries.filter_map(Result::ok) {
                    if found.len() > MAX_SECRET_ENTRIES {
                        return Err(place.shown());
                    }
                    let Ok(metadata) = entry.metadata() else { continue };
                    found.push(Identity::of_metadata(&metadata));
                    if metadata.is_dir()
                        && depth + 1 < MAX_SECRET_DEPTH
                        && let Ok(child) = entry.open_dir()
                    {
                        stack.push((child, depth + 1));
                    }
                }
            }
        }
        Ok(found)
    }

    /// Refuses reading what `identity` is when it is (or is in) a secret place.
    fn check_read(&self, identity: Identity, shown: &str) -> Result<(), ToolError> {
        match self.secret_identities() {
            Ok(secrets) if !secrets.contains(&identity) => Ok(()),
            Ok(_) => Err(protected(shown, "", "read")),
            Err(place) => Err(protected(shown, &place, "read")),
        }
    }

    /// Refuses listing a folder (of ancestry `chain`) inside a secret place.
    fn check_list(&self, chain: &[Identity], shown: &str) -> Result<(), ToolError> {
        for place in &self.secret {
            if place.identity().is_some_and(|identity| chain.contains(&identity)) {
                return Err(protected(shown, &place.shown(), "listed"));
            }
        }
        Ok(())
    }
}

/// The refusal of a protected place.
fn protected(shown: &str, place: &str, action: &str) -> ToolError {
    let which = if place.is_empty() { String::new() } else { format!(" (`{place}`)") };
    ToolError::security(
        codes::PROTECTED,
        format!(
            "{shown} is switchyard's own{which}: its configuration, workflow folders, keys and store are never {action} through the file tools, whatever the mounts allow; write your files under {{output-root}}"
        ),
    )
}

/// The mounts of one run.
#[derive(Debug, Default)]
pub struct Mounts {
    pub mounts: Vec<Mount>,
    /// What no mount reaches, whatever it says.
    pub guard: Arc<Guard>,
    /// The zip archive a run's workflow was loaded from: `{bundle-root}` is then the archive's
    /// contents ([`crate::archive::BundleArchive`]), not a folder, and has no mount.
    pub bundle_archive: Option<PathBuf>,
}

/// A path argument resolved to a mount and a relative path without `..`.
#[derive(Debug)]
pub struct Resolved<'m> {
    pub mount: &'m Mount,
    guard: &'m Guard,
    /// Relative to the mount root; `.` for the root itself.
    pub relative: PathBuf,
}

impl Resolved<'_> {
    /// How the path is shown to agents and in logs: `{output-root}/notes/a.md`.
    pub fn display(&self) -> String {
        if self.relative == Path::new(".") {
            self.mount.name.variable().to_owned()
        } else {
            format!("{}/{}", self.mount.name.variable(), self.relative.display())
        }
    }

    /// Reads a regular file with a single link, of at most `limit` bytes, never a secret place.
    pub fn read(&self, limit: u64) -> Result<Vec<u8>, ToolError> {
        // The type is looked at before opening: opening a device or a FIFO can block or act.
        let before = self.mount.dir.metadata(&self.relative).map_err(|error| self.kernel_error(&error))?;
        self.check_readable_type(&before)?;
        let mut options = OpenOptions::new();
        // A file swapped for a FIFO or a terminal between the type check and the open must neither
        // block the open nor become the controlling terminal.
        options.read(true).custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits().cast_signed());
        let file = self.mount.dir.open_with(&self.relative, &options).map_err(|error| self.kernel_error(&error))?;
        // And again on the handle, for a file swapped between the look and the open.
        let metadata = file.metadata().map_err(|error| self.kernel_error(&error))?;
        self.check_readable_type(&metadata)?;
        self.guard.check_read(Identity::of_metadata(&metadata), &self.display())?;
        // Checked on the open handle, so a link made after any earlier check is seen too. The
        // kernel cannot tell where a file's other names are: one may be outside every mount.
        if metadata.nlink() > 1 {
            return Err(ToolError::security(
                codes::HARDLINK,
                format!(
                    "{} has {} hard links, so it may be a file outside {}; it is not read: copy it into the mount",
                    self.display(),
                    metadata.nlink(),
                    self.mount.name.variable()
                ),
            ));
        }
        if metadata.len() > limit {
            return Err(ToolError::new(
                codes::TOO_LARGE,
                format!("{} is {} bytes; the read limit is {limit}: read a line range", self.display(), metadata.len()),
            ));
        }
        // Bounded by the bytes read, not by the length the metadata claims.
        let mut bytes = Vec::new();
        file.into_std().take(limit + 1).read_to_end(&mut bytes).map_err(|error| self.kernel_error(&error))?;
        if bytes.len() as u64 > limit {
            return Err(ToolError::new(
                codes::TOO_LARGE,
                format!("{} grew past the read limit {limit}", self.display()),
            ));
        }
        Ok(bytes)
    }

    fn check_readable_type(&self, metadata: &cap_std::fs::Metadata) -> Result<(), ToolError> {
        if metadata.is_dir() {
            return Err(ToolError::new(
                codes::IS_DIRECTORY,
                format!("{} is a directory: use list_files", self.display()),
            ));
        }
        if !metadata.is_file() {
            return Err(ToolError::security(
                codes::SPECIAL_FILE,
                format!("{} is a device, FIFO or socket; only regular files can be read", self.display()),
            ));
        }
        Ok(())
    }

    /// Opens the folder to list, refusing special files and secret places.
    pub fn open_listed_dir(&self) -> Result<Dir, ToolError> {
        let metadata = self.mount.dir.metadata(&self.relative).map_err(|error| self.kernel_error(&error))?;
        if !metadata.is_dir() && !metadata.is_file() {
            return Err(ToolError::security(
                codes::SPECIAL_FILE,
                format!("{} is a device, FIFO or socket, not a folder to list", self.display()),
            ));
        }
        let dir = self.mount.dir.open_dir(&self.relative).map_err(|error| self.kernel_error(&error))?;
        let chain = ancestry(&dir).map_err(|error| self.kernel_error(&error))?;
        self.guard.check_list(&chain, &self.display())?;
        Ok(dir)
    }

    /// The identities a listing leaves out (secret places and what they hold).
    pub fn unlisted(&self) -> Result<Vec<Identity>, ToolError> {
        self.guard.secret_identities().map_err(|place| protected(&self.display(), &place, "listed"))
    }

    /// Refuses a write target that is not a plain file with one link, that leads outside, or
    /// that is (or lies in, or leads to) a protected place.
    pub fn check_write_target(&self) -> Result<(), ToolError> {
        if !self.mount.writable {
            return Err(ToolError::security(
                codes::READ_ONLY,
                format!("{} is read-only: write under {{output-root}}", self.mount.name.variable()),
            ));
        }
        let target = match self.mount.dir.symlink_metadata(&self.relative) {
            Ok(metadata) if metadata.is_symlink() => {
                // Following it inside the mount is allowed for reads only; find out whether it
                // even stays inside, to log an escape as one.
                match self.mount.dir.metadata(&self.relative) {
                    Err(error) if !is_not_found(&error) => Err(self.kernel_error(&error)),
                    _ => Err(ToolError::security(
                        codes::SYMLINK_ESCAPE,
                        format!("{} is a symbolic link; write to the file itself", self.display()),
                    )),
                }
            }
            Ok(metadata) if metadata.is_dir() => {
                Err(ToolError::new(codes::IS_DIRECTORY, format!("{} is a directory", self.display())))
            }
            Ok(metadata) if !metadata.is_file() => Err(ToolError::security(
                codes::SPECIAL_FILE,
                format!("{} is a device, FIFO or socket; it cannot be written", self.display()),
            )),
            Ok(metadata) if metadata.nlink() > 1 => Err(ToolError::security(
                codes::HARDLINK,
                format!(
                    "{} has {} hard links; writing it could change a file elsewhere",
                    self.display(),
                    metadata.nlink()
                ),
            )),
            Ok(_) => Ok(()),
            Err(error) if is_not_found(&error) => Ok(()),
            Err(error) => Err(self.kernel_error(&error)),
        };
        target?;
        // Before anything is read or locked for the write: a protected place is refused first.
        self.open_folder_for_write(false).map(|_| ())
    }

    /// Writes atomically: temporary file in the same folder, fsync, rename, folder fsync. The
    /// folders on the way are opened (and created) one at a time, each checked against the
    /// [`Guard`] before anything is created in it, and the file is written through the last
    /// folder's handle, the one that was checked.
    pub fn write_atomic(&self, bytes: &[u8]) -> Result<(), ToolError> {
        self.check_write_target()?;
        let Some((folder, name)) = self.open_folder_for_write(true)? else {
            return Err(self.not_found());
        };
        folder.atomic_write(name, bytes).map_err(|error| self.kernel_error(&error))
    }

    /// The folder to write the file in and the file's name, each folder on the way checked
    /// against the [`Guard`] before it is opened or created; without `create`, only what exists
    /// is walked (`None` at the first missing folder, once its name is checked).
    fn open_folder_for_write(&self, create: bool) -> Result<Option<(Dir, &OsStr)>, ToolError> {
        let fail = |error: io::Error| self.kernel_error(&error);
        let names: Vec<&OsStr> = self.relative.iter().filter(|name| *name != OsStr::new(".")).collect();
        let Some((name, folders)) = names.split_last() else {
            return Err(ToolError::new(codes::IS_DIRECTORY, format!("{} is a directory", self.display())));
        };
        let shown = self.display();
        let mut folder = self.mount.dir.try_clone().map_err(fail)?;
        let mut chain = ancestry(&folder).map_err(fail)?;
        for part in folders {
            self.guard.check_write(self.mount.name, &folder, &chain, part, &shown)?;
            let child = match folder.open_dir(part) {
                Err(error) if is_not_found(&error) && !create => return Ok(None),
                Err(error) if is_not_found(&error) => match folder.create_dir(part) {
                    Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(fail(error)),
                    _ => folder.open_dir(part).map_err(fail)?,
                },
                opened => opened.map_err(fail)?,
            };
            // A plain child extends the ancestry; one reached through a symbolic link (its `..`
            // is elsewhere) has its own, read again from the kernel.
            if Identity::at(&child, OsStr::new(".."), true) == Some(chain[0]) {
                chain.insert(0, Identity::of(&child).map_err(fail)?);
            } else {
                chain = ancestry(&child).map_err(fail)?;
            }
            folder = child;
        }
        self.guard.check_write(self.mount.name, &folder, &chain, name, &shown)?;
        Ok(Some((folder, name)))
    }

    /// Turns what the kernel said into a coded error; escapes are security events.
    pub fn kernel_error(&self, error: &io::Error) -> ToolError {
        let shown = self.display();
        // The kernel's answers by name (`rustix`), since their numbers differ between systems.
        match Errno::from_io_error(error) {
            Some(Errno::XDEV) => {
                return ToolError::security(
                    codes::SYMLINK_ESCAPE,
                    format!("{shown} leads outside {} through a symbolic link", self.mount.name.variable()),
                );
            }
            Some(Errno::LOOP) => {
                return ToolError::security(
                    codes::SYMLINK_ESCAPE,
                    format!("{shown} goes through too many symbolic links (a loop?)"),
                );
            }
            Some(Errno::NAMETOOLONG) => {
                return ToolError::new(codes::INVALID_PATH, format!("a name in {shown} is too long"));
            }
            Some(Errno::ISDIR) => return ToolError::new(codes::IS_DIRECTORY, format!("{shown} is a directory")),
            Some(Errno::NOTDIR) => return self.not_found(),
            _ => {}
        }
        if is_not_found(error) {
            return self.not_found();
        }
        if error.kind() == io::ErrorKind::PermissionDenied && error.to_string().contains("outside") {
            return ToolError::security(
                codes::SYMLINK_ESCAPE,
                format!("{shown} leads outside {} through a symbolic link", self.mount.name.variable()),
            );
        }
        ToolError::new(codes::IO, format!("{shown}: {error}"))
    }

    /// `E_NOT_FOUND` with the names that exist in the nearest existing folder.
    pub fn not_found(&self) -> ToolError {
        let mut folder = self.relative.parent().map(Path::to_path_buf).unwrap_or_default();
        let wanted = self.relative.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        let entries = loop {
            let at = if folder.as_os_str().is_empty() { PathBuf::from(".") } else { folder.clone() };
            if let Ok(entries) = self.mount.dir.read_dir(&at) {
                break entries;
            }
            if !folder.pop() {
                return ToolError::new(codes::NOT_FOUND, format!("{} does not exist", self.display()));
            }
        };
        let entries: Vec<String> = entries
            .filter_map(Result::ok)
            .take(1000)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        let names: Vec<String> =
            suggest::nearest(&wanted, entries.iter().map(String::as_str), 10)
                .into_iter()
                .map(|name| {
                    if folder.as_os_str().is_empty() { name.to_owned() } else { format!("{}/{name}", folder.display()) }
                })
                .collect();
        let message = if names.is_empty() {
            format!("{} does not exist", self.display())
        } else {
            format!("{} does not exist; nearby: {}", self.display(), names.join(", "))
        };
        ToolError::new(codes::NOT_FOUND, message).with_details(serde_json::json!({ "nearby": names }))
    }
}

fn is_not_found(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::NotFound
}

impl Mounts {
    pub fn get(&self, name: MountName) -> Option<&Mount> {
        self.mounts.iter().find(|mount| mount.name == name)
    }

    /// The path inside the run's bundle archive that a `{bundle-root}/…` argument names, checked
    /// as [`Mounts::resolve`] checks paths; `None` when the argument is not under `{bundle-root}`
    /// or the bundle is not an archive.
    pub fn in_bundle_archive(&self, raw: &str) -> Option<Result<(&Path, PathBuf), ToolError>> {
        let archive = self.bundle_archive.as_deref()?;
        let rest = raw.strip_prefix(MountName::Bundle.variable())?;
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        let checked = check_argument(raw).and_then(|()| below(raw, rest.trim_start_matches('/')));
        Some(checked.map(|relative| (archive, relative)))
    }

    /// Resolves a path argument: `{variable}/rest`, an absolute path under a mount root, or a
    /// path relative to `default`. Refuses NUL bytes, `..`, absolute paths outside every mount,
    /// and (with `write`) read-only mounts. The kernel checks the rest at the moment of use.
    pub fn resolve(&self, raw: &str, default: MountName, write: bool) -> Result<Resolved<'_>, ToolError> {
        check_argument(raw)?;
        let (mount, rest) = if let Some(after) = raw.strip_prefix('{') {
            let Some((variable, rest)) = after.split_once('}') else {
                return Err(ToolError::new(
                    codes::INVALID_PATH,
                    format!("`{raw}` opens a path variable it never closes"),
                ));
            };
            let Some(name) = MountName::ALL.into_iter().find(|name| name.variable() == format!("{{{variable}}}"))
            else {
                return Err(ToolError::new(
                    codes::INVALID_PATH,
                    format!(
                        "unknown path variable `{{{variable}}}`; use one of {{project-root}}, {{bundle-root}}, {{core-root}}, {{output-root}}"
                    ),
                ));
            };
            let mount = self.get(name).ok_or_else(|| match (&self.bundle_archive, name) {
                (Some(_), MountName::Bundle) if write => ToolError::security(
                    codes::READ_ONLY,
                    format!("`{raw}` is read-only ({{bundle-root}}): write under {{output-root}}"),
                ),
                (Some(archive), MountName::Bundle) => ToolError::new(
                    codes::NOT_FOUND,
                    format!(
                        "{{bundle-root}} is the zip archive {}: read its files with read_file, list_files or preload_workflow",
                        archive.display()
                    ),
                ),
                _ => ToolError::new(codes::NOT_FOUND, format!("{} is not available for this run", name.variable())),
            })?;
            (mount, rest.trim_start_matches('/').to_owned())
        } else if Path::new(raw).is_absolute() {
            let path = Path::new(raw);
            let Some((mount, rest)) = self
                .mounts
                .iter()
                .filter_map(|mount| path.strip_prefix(&mount.root).ok().map(|rest| (mount, rest)))
                .max_by_key(|(mount, _)| mount.root.as_os_str().len())
            else {
                return Err(ToolError::security(
                    codes::OUTSIDE_MOUNT,
                    format!("`{raw}` is outside every mount; use a path variable such as {{output-root}}/<file>"),
                ));
            };
            (mount, rest.to_string_lossy().into_owned())
        } else {
            let mount = self.get(default).ok_or_else(|| {
                ToolError::new(codes::NOT_FOUND, format!("{} is not available for this run", default.variable()))
            })?;
            (mount, raw.to_owned())
        };
        let relative = below(raw, &rest)?;
        let resolved = Resolved { mount, guard: &self.guard, relative };
        if write && !mount.writable {
            return Err(ToolError::security(
                codes::READ_ONLY,
                format!("{} is read-only ({}): write under {{output-root}}", resolved.display(), mount.name.variable()),
            ));
        }
        Ok(resolved)
    }
}

/// Refuses NUL bytes and overlong path arguments.
fn check_argument(raw: &str) -> Result<(), ToolError> {
    if raw.contains('\0') {
        return Err(ToolError::security(codes::INVALID_PATH, "the path contains a NUL byte"));
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(ToolError::new(
            codes::INVALID_PATH,
            format!("the path is {} bytes; the limit is {MAX_PATH_BYTES}", raw.len()),
        ));
    }
    Ok(())
}

/// `rest` (the part of `raw` below its mount) as a relative path of plain names; `.` for the
/// mount itself. `..` and roots are refused, so nothing climbs out before the kernel looks.
fn below(raw: &str, rest: &str) -> Result<PathBuf, ToolError> {
    let mut relative = PathBuf::new();
    for component in Path::new(rest).components() {
        match component {
            Component::Normal(part) => relative.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(ToolError::security(
                    codes::TRAVERSAL,
                    format!("`{raw}` contains `..`; name files below a mount without going up"),
                ));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(ToolError::security(codes::OUTSIDE_MOUNT, format!("`{raw}` is not below its mount")));
            }
        }
    }
    if relative.as_os_str().is_empty() {
        relative.push(".");
    }
    Ok(relative)
}
