//! What `switchyard doctor` asks about a store: whether it opens, its schema version, and what
//! `verify` finds. It never creates a store file that is not there (a database must exist; the
//! schema is created in it as any server's open would).

use std::path::Path;

use switchyard_store::VerifyReport;

use crate::error::Error;
use crate::store::Location;

/// A store that opened.
#[derive(Debug)]
pub struct StoreHealth {
    /// The schema version the store is at once opened (opening refuses a newer one than this
    /// build knows, and brings an older one up to it).
    pub schema_version: i64,
    /// Every session's hash chain and every projection, checked.
    pub verify: VerifyReport,
}

/// Opens the store at `path` and verifies it; `None` when there is no store there yet (the first
/// run creates it).
pub async fn store_health(path: &Path) -> Result<Option<StoreHealth>, Error> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::StoreUnreadable { path: path.to_owned(), source }),
        Ok(_) => {}
    }
    location_health(&Location::Sqlite(path.to_owned())).await.map(Some)
}

/// Opens the PostgreSQL store `url` names (applying the migrations it lacks, as every server's
/// open does) and verifies it.
pub async fn database_health(url: &str) -> Result<StoreHealth, Error> {
    location_health(&Location::Postgres(url.to_owned())).await
}

async fn location_health(location: &Location) -> Result<StoreHealth, Error> {
    let verify = location.open().await?.verify().await?;
    Ok(StoreHealth { schema_version: location.schema_version(), verify })
}
