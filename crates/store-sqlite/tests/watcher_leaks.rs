//! Many stores subscribed to and dropped leave no thread and no file descriptor behind: the
//! cross-process watcher each starts ends with its store. Alone in its binary, so no other test's
//! threads or files move the counts.

use switchyard_store::Store;
use switchyard_store::conformance::fixture::{SessionScript, node_id};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").expect("/proc/self/fd").count()
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").expect("/proc/self/task").count()
}

#[test]
fn subscribing_and_dropping_many_stores_leaks_no_thread_or_descriptor() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("store.db");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let cycle = || {
        let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
        let receivers: Vec<_> = (0..20).map(|_| runtime.block_on(store.subscribe())).collect();
        drop(receivers);
        let _still_listening = runtime.block_on(store.subscribe());
        assert!(store.watches_other_processes());
    };
    runtime.block_on(async {
        let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
        store.append(SessionScript::new(1).start(node_id(101))).await.expect("append");
    });
    // One cycle first, so what stays for the life of the process (the runtime's blocking pool)
    // is in the baseline.
    cycle();
    let (descriptors, threads_before) = (open_descriptors(), threads());

    for _ in 0..50 {
        cycle();
    }

    assert_eq!(open_descriptors(), descriptors, "file descriptors left open");
    // A thread that has been joined may still be listed for an instant as it exits; fifty cycles
    // leaking one each would be far above this.
    assert!(threads() <= threads_before + 2, "threads: {} before, {} after", threads_before, threads());
}
