//! Finding the program: `argv[0]` looked up on the scrubbed `PATH` as a shell would look it up, then
//! executed directly, so no shell ever reads the argv.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::Error;

/// The file `program` names. A name with a slash is a path (relative to the workspace, the
/// command's working directory); any other name is looked up in `path`'s folders in order.
/// Relative entries of `path` (`.`, or an empty one) are skipped: they would mean the working
/// directory, where an agent can plant a `cargo` of its own.
pub(crate) fn resolve(program: &str, path: Option<&OsStr>, workspace: &Path) -> Result<PathBuf, Error> {
    if program.contains('/') {
        let candidate = workspace.join(program);
        return if is_executable(&candidate) {
            Ok(candidate)
        } else {
            Err(Error::NotFound {
                program: program.to_owned(),
                searched: format!("{} is not an executable file", candidate.display()),
            })
        };
    }
    let Some(path) = path else {
        return Err(Error::NotFound { program: program.to_owned(), searched: "PATH is not set".to_owned() });
    };
    let found = std::env::split_paths(path)
        .filter(|folder| folder.is_absolute())
        .map(|folder| folder.join(program))
        .find(|candidate| is_executable(candidate));
    found.ok_or_else(|| Error::NotFound {
        program: program.to_owned(),
        searched: format!("no executable file of that name in PATH's folders ({})", path.to_string_lossy()),
    })
}

fn is_executable(candidate: &Path) -> bool {
    std::fs::metadata(candidate).is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}
