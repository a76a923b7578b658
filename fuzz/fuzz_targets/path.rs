//! Sandbox path arguments: any string resolves inside a mount or is refused, never a panic and
//! never a path that climbs out.

#![no_main]

use std::path::Component;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use switchyard_files::sandbox::{Mount, MountName, Mounts};

struct Fixture {
    _roots: Vec<tempfile::TempDir>,
    mounts: Mounts,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let roots = vec![tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut mounts = Mounts::default();
    mounts.mounts.push(Mount::open(MountName::Output, roots[0].path(), true).unwrap());
    mounts.mounts.push(Mount::open(MountName::Project, roots[1].path(), false).unwrap());
    Fixture { _roots: roots, mounts }
});

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let raw = String::from_utf8_lossy(rest);
    let default = if flags & 1 == 0 { MountName::Output } else { MountName::Project };
    if let Ok(resolved) = FIXTURE.mounts.resolve(&raw, default, flags & 2 != 0) {
        assert!(
            resolved.relative.components().all(|part| matches!(part, Component::Normal(_) | Component::CurDir)),
            "`{raw}` resolved to {}",
            resolved.relative.display()
        );
    }
});
