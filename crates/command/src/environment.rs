//! The environment a command gets: none of the runner's, except a small base set, the names its
//! caller passes through, and a private temporary folder. Switchyard's own variables and anything
//! named like a key are refused even when asked for, because an agent's command would read them.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

/// Passed through from the runner's environment when set: what programs need to find each other,
/// the user's home and locale.
const BASE: [&str; 7] = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ"];

/// Set by switchyard itself, whatever the caller asks: no terminal to draw on (output is
/// captured), and temporary files in the command's own folder.
const OWN: [&str; 4] = ["TERM", "TMPDIR", "TMP", "TEMP"];

/// Words that mark a variable as a credential; matched anywhere in the name, case-insensitively.
const SECRET_WORDS: [&str; 5] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "DATABASE_URL"];

/// Whether `name` looks like one of switchyard's variables or like a credential, and so is never
/// passed to a command. Deliberately broad: a `MONKEY_COUNT` refused costs a rename, a key leaked
/// to an agent costs a rotation.
pub(crate) fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("SWITCHYARD_") || SECRET_WORDS.iter().any(|word| upper.contains(word))
}

/// The command's whole environment: the base set and `pass_through` as `lookup` (the runner's
/// environment) has them, then switchyard's own variables, with `temporary` as the temporary
/// folder.
pub(crate) fn scrubbed(
    pass_through: &[String],
    temporary: &Path,
    lookup: impl Fn(&str) -> Option<OsString>,
) -> BTreeMap<OsString, OsString> {
    let mut environment = BTreeMap::new();
    for name in BASE {
        if let Some(value) = lookup(name) {
            environment.insert(OsString::from(name), value);
        }
    }
    for name in pass_through {
        if BASE.contains(&name.as_str()) || OWN.contains(&name.as_str()) {
            continue;
        }
        if name.is_empty() || name.contains(['=', '\0']) {
            tracing::warn!(variable = %name, "not passed to the command: not a valid variable name");
            continue;
        }
        if looks_secret(name) {
            tracing::warn!(
                variable = %name,
                "not passed to the command: the name looks like switchyard's own or a credential's"
            );
            continue;
        }
        if let Some(value) = lookup(name) {
            environment.insert(OsString::from(name), value);
        }
    }
    environment.insert("TERM".into(), "dumb".into());
    for name in ["TMPDIR", "TMP", "TEMP"] {
        environment.insert(name.into(), temporary.as_os_str().to_owned());
    }
    environment
}
