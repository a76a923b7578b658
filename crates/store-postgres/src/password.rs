//! Where the password comes from when the store URL has none, as PostgreSQL's own tools look for
//! it: the `PGPASSWORD` variable, then a password file (`PGPASSFILE`, else `~/.pgpass`) of
//! `host:port:database:user:password` lines. The password is only ever handed to the driver,
//! whose configuration prints it as `_`.

use std::path::{Path, PathBuf};

use tokio_postgres::config::Host;

/// The password for `config` from the environment or the password file, when the URL gave none.
/// `file` overrides where the password file is.
pub(crate) fn find(config: &tokio_postgres::Config, file: Option<&Path>) -> Option<String> {
    if let Ok(password) = std::env::var("PGPASSWORD")
        && !password.is_empty()
    {
        return Some(password);
    }
    let file = match file {
        Some(file) => file.to_owned(),
        None => match std::env::var_os("PGPASSFILE") {
            Some(file) => PathBuf::from(file),
            None => std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass"))?,
        },
    };
    let text = readable_only_by_owner(&file)?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        _ => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432).to_string();
    let user = config.get_user()?;
    let database = config.get_dbname().unwrap_or(user);
    lookup(&text, [host.as_str(), &port, database, user])
}

/// The file's text, unless others may read it (PostgreSQL ignores such a file too).
fn readable_only_by_owner(file: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::metadata(file).ok()?;
    if metadata.permissions().mode() & 0o077 != 0 {
        tracing::warn!(file = %file.display(), "the password file is ignored: others may read it; run `chmod 600` on it");
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The password of the first line whose four fields match `wanted` (`*` matches anything).
fn lookup(text: &str, wanted: [&str; 4]) -> Option<String> {
    text.lines().filter(|line| !line.trim_start().starts_with('#')).find_map(|line| {
        let fields = split(line);
        let [host, port, database, user, password] = fields.as_slice() else { return None };
        let matches =
            [host, port, database, user].iter().zip(wanted).all(|(field, want)| *field == "*" || *field == want);
        matches.then(|| password.clone())
    })
}

/// Splits a line at unescaped `:`; `\:` and `\\` stand for `:` and `\`.
fn split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut characters = line.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => {
                if let Some(next) = characters.next() {
                    fields.last_mut().expect("one field at least").push(next);
                }
            }
            ':' => fields.push(String::new()),
            other => fields.last_mut().expect("one field at least").push(other),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn the_first_matching_line_gives_the_password() {
        let text = "# team servers\n\
                    db.example:5432:other:alice:wrong\n\
                    db.example:*:teamstore:alice:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(lookup(text, ["db.example", "5432", "teamstore", "alice"]).as_deref(), Some("pa:ss\\word"));
        assert_eq!(lookup(text, ["elsewhere", "5433", "x", "bob"]).as_deref(), Some("fallback"));
        assert_eq!(lookup("host:5432:db:user\n", ["host", "5432", "db", "user"]), None, "a line without a password");
    }
}
