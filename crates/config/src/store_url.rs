//! What the configuration knows of a store URL: whether a value names a database rather than a
//! file. Whether the URL is one the Postgres store can open is checked by the runtime, which
//! links that store (`switchyard_runtime::store::check_url`), with the place it was written.

use crate::error::Error;

/// Whether `text` names a database rather than a file.
pub fn is_url(text: &str) -> bool {
    ["postgres://", "postgresql://"].iter().any(|scheme| text.starts_with(scheme))
}

/// Refuses a store URL `named` (a file and key, a variable, or the flag) gave that is no
/// PostgreSQL URL at all.
pub(crate) fn check(url: &str, named: &str) -> Result<(), Error> {
    if is_url(url) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{named} is not a PostgreSQL URL; write postgres://user@host:5432/database (the password from PGPASSWORD or ~/.pgpass), or set [store] path for a SQLite file"
        )))
    }
}
