//! Mounts and kernel-checked access. A path variable is resolved once to a mount (an open
//! directory handle); every access below it goes through cap-std, which resolves with openat2
//! `RESOLVE_BENEATH` (or an equivalent walk), so `..`, absolute and symlink escapes are refused
//! by the kernel at the moment of use, not by comparing strings beforehand.

use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, MetadataExt, OpenOptions, OpenOptionsExt};
use cap_std_ext::dirext::CapStdExtDirExt;

use crate::error::{ToolError, codes};

/// The longest path argument accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;
/// `O_NONBLOCK` on Linux: opening a FIFO must not block before its type is checked.
const O_NONBLOCK: i32 = 0o4000;
/// errno values the kernel answers escapes with.
const EXDEV: i32 = 18;
const ELOOP: i32 = 40;
const ENAMETOOLONG: i32 = 36;
const ENOTDIR: i32 = 20;
const EISDIR: i32 = 21;

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
}

/// The mounts of one run.
#[derive(Debug, Default)]
pub struct Mounts {
    pub mounts: Vec<Mount>,
    /// The zip archive a run's workflow was loaded from: `{bundle-root}` is then the archive's
    /// contents ([`crate::archive::BundleArchive`]), not a folder, and has no mount.
    pub bundle_archive: Option<PathBuf>,
}

/// A path argument resolved to a mount and a relative path without `..`.
#[derive(Debug)]
pub struct Resolved<'m> {
    pub mount: &'m Mount,
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

    /// Reads a regular file with a single link, of at most `limit` bytes.
    pub fn read(&self, limit: u64) -> Result<Vec<u8>, ToolError> {
        let mut options = OpenOptions::new();
        options.read(true).custom_flags(O_NONBLOCK);
        let file = self.mount.dir.open_with(&self.relative, &options).map_err(|error| self.kernel_error(&error))?;
        let metadata = file.metadata().map_err(|error| self.kernel_error(&error))?;
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
        let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
        file.into_std().take(limit + 1).read_to_end(&mut bytes).map_err(|error| self.kernel_error(&error))?;
        if bytes.len() as u64 > limit {
            return Err(ToolError::new(
                codes::TOO_LARGE,
                format!("{} grew past the read limit {limit}", self.display()),
            ));
        }
        Ok(bytes)
    }

    /// Refuses a write target that is not a plain file with one link, or that leads outside.
    pub fn check_write_target(&self) -> Result<(), ToolError> {
        if !self.mount.writable {
            return Err(ToolError::security(
                codes::READ_ONLY,
                format!("{} is read-only: write under {{output-root}}", self.mount.name.variable()),
            ));
        }
        match self.mount.dir.symlink_metadata(&self.relative) {
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
        }
    }

    /// Writes atomically: temporary file in the same folder, fsync, rename, folder fsync.
    pub fn write_atomic(&self, bytes: &[u8]) -> Result<(), ToolError> {
        self.check_write_target()?;
        if let Some(parent) = self.relative.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            self.mount.dir.create_dir_all(parent).map_err(|error| self.kernel_error(&error))?;
        }
        self.mount.dir.atomic_write(&self.relative, bytes).map_err(|error| self.kernel_error(&error))
    }

    /// Turns what the kernel said into a coded error; escapes are security events.
    pub fn kernel_error(&self, error: &io::Error) -> ToolError {
        let shown = self.display();
        match error.raw_os_error() {
            Some(EXDEV) => {
                return ToolError::security(
                    codes::SYMLINK_ESCAPE,
                    format!("{shown} leads outside {} through a symbolic link", self.mount.name.variable()),
                );
            }
            Some(ELOOP) => {
                return ToolError::security(
                    codes::SYMLINK_ESCAPE,
                    format!("{shown} goes through too many symbolic links (a loop?)"),
                );
            }
            Some(ENAMETOOLONG) => return ToolError::new(codes::INVALID_PATH, format!("a name in {shown} is too long")),
            Some(EISDIR) => return ToolError::new(codes::IS_DIRECTORY, format!("{shown} is a directory")),
            Some(ENOTDIR) => return self.not_found(),
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
        let mut nearby: Vec<(f64, String)> = entries
            .filter_map(Result::ok)
            .take(1000)
            .map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let shown =
                    if folder.as_os_str().is_empty() { name.clone() } else { format!("{}/{name}", folder.display()) };
                (strsim::normalized_levenshtein(&wanted, &name), shown)
            })
            .collect();
        nearby.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let names: Vec<String> = nearby.into_iter().take(10).map(|(_, name)| name).collect();
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
        let resolved = Resolved { mount, relative };
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
