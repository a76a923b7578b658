//! The key file that signs tokens: created on first use with mode 0600, rotated on request.
//!
//! `$SWITCHYARD_HOME/keys/keyring.json` holds `{v: 1, current, previous}`, each key 32 random bytes
//! in base64url. Writes go through a temporary file, fsync, rename and a directory fsync, so a
//! crash leaves either the old file or the new one. Creation and rotation hold an exclusive
//! `flock` on `keys/.keyring.lock`, so processes racing on a new home agree on one key.

use std::fs;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use data_encoding::BASE64URL_NOPAD;
use serde::{Deserialize, Serialize};
use switchyard_core::token::{Keyring, SigningKey};

use crate::clock::IdSource;
use crate::error::Error;
use switchyard_config::atomic_file::{Durability, Readers, write_atomically};

#[derive(Serialize, Deserialize)]
struct KeyFile {
    v: u32,
    current: String,
    previous: Option<String>,
}

/// Where the key file lives under a switchyard home.
pub fn key_file_path(home: &Path) -> PathBuf {
    home.join("keys").join("keyring.json")
}

/// Loads the keyring, creating it with a fresh key if there is none yet.
///
/// Processes starting together on a new home all end up with the same key: the key file is
/// created under an exclusive lock, and only if it is still missing once the lock is held.
pub fn load_or_create(home: &Path, ids: &dyn IdSource) -> Result<Keyring, Error> {
    let path = key_file_path(home);
    if let Some(keyring) = read(&path)? {
        return Ok(keyring);
    }
    let _lock = lock(&path)?;
    if let Some(keyring) = read(&path)? {
        return Ok(keyring);
    }
    let keyring = Keyring { current: fresh_key(ids), previous: None };
    write(&path, &keyring)?;
    Ok(keyring)
}

/// Makes a new current key; the old current key becomes the previous one, so tokens minted
/// before the rotation keep working until the next rotation. Under the same lock as creation, so
/// two rotations in parallel each rotate what the other left.
pub fn rotate(home: &Path, ids: &dyn IdSource) -> Result<Keyring, Error> {
    let path = key_file_path(home);
    let _lock = lock(&path)?;
    let current = match read(&path)? {
        Some(keyring) => keyring.current,
        None => fresh_key(ids),
    };
    let rotated = Keyring { current: fresh_key(ids), previous: Some(current) };
    write(&path, &rotated)?;
    Ok(rotated)
}

/// What the key file is like, for `switchyard doctor`: read, never created or changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyFileStatus {
    /// No key file yet: the first command that signs a token creates it.
    Missing,
    /// Present, private to its owner, and readable as a keyring.
    Usable,
    /// Other users may read or change it; `mode` holds its permission bits.
    OpenToOthers { mode: u32 },
    /// Present but not usable; the message says why and what to do.
    Unusable(String),
}

/// The state of the key file under `home` (see [`KeyFileStatus`]).
pub fn status(home: &Path) -> KeyFileStatus {
    let path = key_file_path(home);
    let metadata = match fs::metadata(&path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return KeyFileStatus::Missing,
        Err(error) => return KeyFileStatus::Unusable(format!("cannot read key file {}: {error}", path.display())),
    };
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return KeyFileStatus::OpenToOthers { mode };
    }
    match read(&path) {
        Ok(Some(_)) => KeyFileStatus::Usable,
        Ok(None) => KeyFileStatus::Missing,
        Err(error) => KeyFileStatus::Unusable(error.to_string()),
    }
}

/// The keyring in the key file, or `None` when there is no key file yet.
fn read(path: &Path) -> Result<Option<Keyring>, Error> {
    match fs::read(path) {
        Ok(bytes) => {
            check_private(path)?;
            parse(path, &bytes).map(Some)
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(Error::KeyFile(format!("cannot read key file {}: {error}", path.display()))),
    }
}

/// Creates the keys folder (private) and holds an exclusive lock on `keys/.keyring.lock` until the
/// returned file is dropped; a process dying with it releases it.
fn lock(path: &Path) -> Result<fs::File, Error> {
    let directory = path.parent().expect("key file path has a parent");
    let io = |what: &str, error: &dyn std::fmt::Display| {
        Error::KeyFile(format!("cannot {what} {}: {error}", directory.display()))
    };
    fs::create_dir_all(directory).map_err(|error| io("create the key folder", &error))?;
    fs::set_permissions(directory, fs::Permissions::from_mode(0o700))
        .map_err(|error| io("protect the key folder", &error))?;
    let lock_file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(directory.join(".keyring.lock"))
        .map_err(|error| io("open the lock file in", &error))?;
    rustix::fs::flock(&lock_file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|error| io("lock the key file in", &error))?;
    Ok(lock_file)
}

fn fresh_key(ids: &dyn IdSource) -> SigningKey {
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&ids.bytes16());
    key[16..].copy_from_slice(&ids.bytes16());
    SigningKey::new(key)
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Keyring, Error> {
    let broken = |why: &str| {
        Error::KeyFile(format!(
            "key file {} is unusable ({why}); restore it from a backup, or move it away to start with a new key (tokens already handed out will stop working)",
            path.display()
        ))
    };
    let file: KeyFile = serde_json::from_slice(bytes).map_err(|_| broken("not valid JSON of the expected shape"))?;
    if file.v != 1 {
        return Err(broken("unknown version"));
    }
    let decode = |text: &str| -> Result<SigningKey, Error> {
        let bytes = BASE64URL_NOPAD.decode(text.as_bytes()).map_err(|_| broken("a key is not base64url"))?;
        let key: [u8; 32] = bytes.try_into().map_err(|_| broken("a key is not 32 bytes"))?;
        Ok(SigningKey::new(key))
    };
    Ok(Keyring { current: decode(&file.current)?, previous: file.previous.as_deref().map(decode).transpose()? })
}

fn check_private(path: &Path) -> Result<(), Error> {
    let mode = fs::metadata(path)
        .map_err(|error| Error::KeyFile(format!("cannot stat key file {}: {error}", path.display())))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(Error::KeyFile(format!(
            "key file {} is readable by other users (mode {:o}); run `chmod 600 {}`",
            path.display(),
            mode & 0o777,
            path.display()
        )));
    }
    Ok(())
}

/// Replaces the key file with `keyring`, under the caller's lock: readable by the owner only, and
/// its temporary file removed on every failure (a full disk included).
fn write(path: &Path, keyring: &Keyring) -> Result<(), Error> {
    let file = KeyFile {
        v: 1,
        current: BASE64URL_NOPAD.encode(keyring.current.bytes()),
        previous: keyring.previous.as_ref().map(|key| BASE64URL_NOPAD.encode(key.bytes())),
    };
    let bytes = serde_json::to_vec_pretty(&file).expect("key file serialises");
    write_atomically(path, &bytes, Durability::Synced, Readers::Owner)
        .map_err(|error| Error::KeyFile(format!("cannot write {}: {error}", path.display())))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::clock::RandomIds;

    #[test]
    fn key_file_is_created_private_and_reloaded_identically() {
        let home = tempfile::tempdir().unwrap();
        let first = load_or_create(home.path(), &RandomIds).unwrap();
        let mode = fs::metadata(key_file_path(home.path())).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = load_or_create(home.path(), &RandomIds).unwrap();
        assert_eq!(first.current, again.current);
    }

    #[test]
    fn rotation_keeps_the_old_key_as_previous() {
        let home = tempfile::tempdir().unwrap();
        let first = load_or_create(home.path(), &RandomIds).unwrap();
        let rotated = rotate(home.path(), &RandomIds).unwrap();
        assert_ne!(rotated.current, first.current);
        assert_eq!(rotated.previous, Some(first.current));
    }

    #[test]
    fn a_world_readable_key_file_is_refused_with_the_fix() {
        let home = tempfile::tempdir().unwrap();
        load_or_create(home.path(), &RandomIds).unwrap();
        fs::set_permissions(key_file_path(home.path()), fs::Permissions::from_mode(0o644)).unwrap();
        let error = load_or_create(home.path(), &RandomIds).unwrap_err();
        assert!(error.to_string().contains("chmod 600"), "{error}");
    }

    #[test]
    fn status_tells_a_missing_a_usable_an_open_and_a_corrupt_key_file_apart_and_changes_none() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(status(home.path()), KeyFileStatus::Missing);
        assert!(!home.path().join("keys").exists(), "status creates nothing");
        load_or_create(home.path(), &RandomIds).unwrap();
        assert_eq!(status(home.path()), KeyFileStatus::Usable);
        let path = key_file_path(home.path());
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(status(home.path()), KeyFileStatus::OpenToOthers { mode: 0o644 });
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(&path, b"{not json").unwrap();
        assert!(matches!(status(home.path()), KeyFileStatus::Unusable(message) if message.contains("unusable")));
    }

    /// A small tmpfs, unmounted on drop.
    struct SmallMount(tempfile::TempDir);

    impl Drop for SmallMount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0.path()).status();
        }
    }

    #[test]
    fn a_key_write_on_a_full_disk_fails_and_leaves_no_temporary_file() {
        let folder = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(folder.path())
            .output()
            .is_ok_and(|output| output.status.success());
        if !mounted {
            // CI runs as root and must run this; elsewhere it says loudly that it could not.
            assert!(std::env::var_os("CI").is_none(), "CI must be able to mount a tmpfs (run as root)");
            #[allow(clippy::print_stderr)]
            {
                eprintln!("NOT RUN: mounting a tmpfs needs root; run as root to check key writes on a full disk");
            }
            return;
        }
        let mount = SmallMount(folder);
        let home = mount.0.path();
        fs::create_dir_all(home.join("keys")).unwrap();
        let mut filler = fs::File::create(home.join("filler")).unwrap();
        while filler.write_all(&[0_u8; 4096]).is_ok() {}
        let _ = filler.sync_all();
        let error = load_or_create(home, &RandomIds).unwrap_err();
        assert!(error.to_string().contains("cannot write"), "{error}");
        let left: Vec<_> = fs::read_dir(home.join("keys"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporary files left behind: {left:?}");
        assert!(!key_file_path(home).exists());
    }

    #[test]
    fn a_corrupt_key_file_is_reported_not_replaced() {
        let home = tempfile::tempdir().unwrap();
        load_or_create(home.path(), &RandomIds).unwrap();
        let path = key_file_path(home.path());
        fs::write(&path, b"{not json").unwrap();
        let error = load_or_create(home.path(), &RandomIds).unwrap_err();
        assert!(error.to_string().contains("unusable"), "{error}");
        assert_eq!(fs::read(&path).unwrap(), b"{not json");
    }
}
