//! The writer's VFS: the platform's own SQLite VFS (`unix` here), except that the frames a commit
//! appends to the write-ahead log reach the file in one write instead of two per page, and that
//! it notes the wal-index header each commit leaves.
//!
//! SQLite writes each frame of a commit as two calls, the frame's 24-byte header and then its
//! page, and syncs the log after the last one. An advance commits some 22 pages, so 44 `pwrite`
//! calls, and they took about a sixth of a server's CPU (BENCHMARKS.md, "Then: a commit's frames
//! in one write"). Here a log file keeps its writes in memory while each continues the one before,
//! and writes them as one:
//!
//! - before the log is synced, read, truncated, sized, given a file control or closed, so SQLite
//!   never finds the file behind what it wrote;
//! - before a write that does not continue them (SQLite overwriting a frame of the same
//!   transaction), so writes reach the file in the order they were made;
//! - when the commit is published: SQLite writes the new wal-index header twice with a memory
//!   barrier between the copies (`xShmBarrier`, a method of the database file, so that file is
//!   wrapped too), and a reader takes the header only once both copies agree. The frames are in
//!   the file before any other connection can look for them, whatever `synchronous` says;
//! - once they reach [`MOST_PENDING`] bytes.
//!
//! The database file's wrapper also notes the wal-index header (the start of SQLite's shared
//! memory for the file, which every commit by any connection changes) when the connection
//! releases the log's write lock, that is right after its commits: [`released_header`]. While
//! [`index_header_is`] finds it unchanged, no connection has committed since, which the writer's
//! held rows (`recent.rs`) take as their check before a lookup, without the read transaction that
//! `PRAGMA data_version` needs.
//!
//! Durability is SQLite's: the writer runs with `synchronous = FULL`, so each commit's sync comes
//! after its frames are written, and the answer after the sync. A process that dies before the
//! sync loses the frames of that commit, which no one was told had committed; SQLite's recovery
//! would have thrown away an unsynced commit after a power cut just the same.
//!
//! A write that fails when the frames are published (only possible without `synchronous =
//! FULL`, where nothing is pending by then) cannot be reported to SQLite there: the log then
//! answers every later call with that error, so the connection stops instead of going on past it.
//!
//! Every other file the connection opens (temporary files, a rollback journal) is the base VFS's
//! own, untouched; so is every other method.
//!
//! This is the one module of switchyard with `unsafe` code: a VFS is a table of C functions over
//! memory SQLite allocates. Each function's safety rests on SQLite's contract for that method: it
//! passes back the `sqlite3_file` that `open` set up, one call at a time per connection.

use std::ffi::{CStr, c_int, c_void};
use std::mem::size_of;
use std::ptr;
use std::sync::OnceLock;

use rusqlite::ffi;
use switchyard_store::Error;

/// The name connections open the VFS by.
pub(crate) const NAME: &CStr = c"switchyard";

/// The most bytes a log keeps before writing them: 31 frames of 4 KiB pages, more than an
/// advance's commit. SQLite's unix VFS writes at most 128 KiB - 1 bytes in one call (it masks the
/// length to 17 bits), so this is its limit too. A larger commit (an import, a group of concurrent
/// advances) is written in pieces of this size.
pub(crate) const MOST_PENDING: usize = 128 * 1024 - 1;

/// Registers the VFS once per process, over the default VFS, and says why if it cannot.
pub(crate) fn register() -> Result<(), Error> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            // SAFETY: `sqlite3_vfs_find` initializes SQLite if needed and returns the default VFS,
            // which lives for the process. The copy keeps its methods and points back at it; the
            // box is leaked because SQLite keeps the pointer for the process too.
            unsafe {
                let base = ffi::sqlite3_vfs_find(ptr::null());
                if base.is_null() {
                    return Err("SQLite has no default VFS".to_owned());
                }
                let mut vfs = ptr::read(base);
                vfs.szOsFile = c_int::try_from(INNER_AT).expect("the wrappers are a few words") + (*base).szOsFile;
                vfs.pNext = ptr::null_mut();
                vfs.zName = NAME.as_ptr();
                vfs.pAppData = base.cast();
                vfs.xOpen = Some(open);
                let code = ffi::sqlite3_vfs_register(Box::into_raw(Box::new(vfs)), 0);
                if code != ffi::SQLITE_OK {
                    return Err(format!("registering the writer's VFS failed (SQLite code {code})"));
                }
                Ok(())
            }
        })
        .clone()
        .map_err(|message| Error::Io { message })
}

/// The database file: the base VFS's file, the log it publishes (null while none is open), and
/// what [`index_header_is`] compares against.
#[repr(C)]
struct DbFile {
    base: ffi::sqlite3_file,
    wal: *mut WalFile,
    /// The first region of the wal-index, SQLite's shared memory for the file, once mapped (null
    /// before and after).
    index: *const u8,
    /// The wal-index header as it stood when this connection last released the log's write lock.
    released: Option<IndexHeader>,
}

/// One copy of the wal-index header: 48 bytes at the start of the shared memory, followed by a
/// second copy. A commit writes the second copy, a memory barrier, then the first; a reader takes
/// the header only when the two agree. Every commit changes it (the log's last frame, its
/// checksum and a change counter), and starting the log over changes its salts.
pub(crate) type IndexHeader = [u8; INDEX_HEADER];
const INDEX_HEADER: usize = 48;

/// The wal-index lock a writer holds from its write transaction's start to its end (SQLite's
/// `WAL_WRITE_LOCK`, slot 0 of `xShmLock`).
const WRITE_LOCK: c_int = 0;

/// A write-ahead log: the base VFS's file, and the writes it has not passed on yet.
#[repr(C)]
struct WalFile {
    base: ffi::sqlite3_file,
    db: *mut DbFile,
    pending: Pending,
    /// A write that failed where it could not be reported ([`db_shm_barrier`]): every later call
    /// answers it. `SQLITE_OK` otherwise.
    failed: c_int,
}

/// Writes that continue each other, held to be written as one.
#[derive(Debug, Default)]
struct Pending {
    /// The file offset of the first byte held.
    at: i64,
    bytes: Vec<u8>,
}

impl Pending {
    /// Holds `data`, written at `offset`, if it continues what is held and fits in
    /// [`MOST_PENDING`]; otherwise writes what is held first, through `write`. A write larger than
    /// [`MOST_PENDING`] goes straight through. The first error of `write`, if there is one.
    fn write(&mut self, offset: i64, data: &[u8], mut write: impl FnMut(i64, &[u8]) -> c_int) -> c_int {
        let continues = !self.bytes.is_empty() && Some(offset) == self.end();
        if !continues || self.bytes.len() + data.len() > MOST_PENDING {
            let code = self.flush(&mut write);
            if code != ffi::SQLITE_OK {
                return code;
            }
        }
        if data.len() > MOST_PENDING {
            return write(offset, data);
        }
        if self.bytes.is_empty() {
            self.at = offset;
        }
        if self.bytes.capacity() == 0 {
            // All at once: grown by doubling, every smaller buffer it outgrew would stay resident
            // in the allocator beside it (some 120 KiB more for a commit that creates the
            // schema). Only the pages a commit fills are touched, and it never grows again.
            self.bytes.reserve_exact(MOST_PENDING);
        }
        self.bytes.extend_from_slice(data);
        ffi::SQLITE_OK
    }

    /// Writes what is held through `write`, and lets go of it whether or not that worked: a
    /// failed write is SQLite's to handle, as if its own write had failed.
    fn flush(&mut self, mut write: impl FnMut(i64, &[u8]) -> c_int) -> c_int {
        if self.bytes.is_empty() {
            return ffi::SQLITE_OK;
        }
        let code = write(self.at, &self.bytes);
        self.bytes.clear();
        code
    }

    /// The offset just past what is held.
    fn end(&self) -> Option<i64> {
        i64::try_from(self.bytes.len()).ok().and_then(|length| self.at.checked_add(length))
    }
}

/// Where the base VFS's file starts in the memory SQLite allocates for one file.
const INNER_AT: usize = {
    let larger = if size_of::<DbFile>() > size_of::<WalFile>() { size_of::<DbFile>() } else { size_of::<WalFile>() };
    larger.next_multiple_of(16)
};

/// The base VFS's file behind one of ours.
///
/// SAFETY: `file` is a file this VFS opened as a database or a log.
unsafe fn inner(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    unsafe { file.cast::<u8>().add(INNER_AT).cast() }
}

/// The base VFS's methods for its file behind `file`.
///
/// SAFETY: as [`inner`]; the base file was opened successfully, so its methods are set.
unsafe fn methods<'a>(file: *mut ffi::sqlite3_file) -> (&'a ffi::sqlite3_io_methods, *mut ffi::sqlite3_file) {
    unsafe {
        let inner = inner(file);
        (&*(*inner).pMethods, inner)
    }
}

unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite passes this VFS, whose `pAppData` is the base VFS, and `szOsFile` bytes at
    // `file`, zeroed: room for a wrapper and the base's file behind it.
    unsafe {
        let base = (*vfs).pAppData.cast::<ffi::sqlite3_vfs>();
        let Some(base_open) = (*base).xOpen else { return ffi::SQLITE_CANTOPEN };
        let methods = if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
            &DB_METHODS
        } else if flags & ffi::SQLITE_OPEN_WAL != 0 {
            &WAL_METHODS
        } else {
            // Any other file is the base's own, at the start of the memory.
            return base_open(base, name, file, flags, out_flags);
        };
        let inner = inner(file);
        let code = base_open(base, name, inner, flags, out_flags);
        if code != ffi::SQLITE_OK {
            // SQLite closes a file whose `pMethods` is set even when opening it failed; ours stays
            // unset, so close the base's here if it set its own.
            if !(*inner).pMethods.is_null()
                && let Some(close) = (*(*inner).pMethods).xClose
            {
                close(inner);
            }
            return code;
        }
        if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
            ptr::write(
                file.cast::<DbFile>(),
                DbFile {
                    base: ffi::sqlite3_file { pMethods: methods },
                    wal: ptr::null_mut(),
                    index: ptr::null(),
                    released: None,
                },
            );
        } else {
            let db = ffi::sqlite3_database_file_object(name).cast::<DbFile>();
            let db = if !db.is_null() && ptr::eq((*db).base.pMethods, &DB_METHODS) { db } else { ptr::null_mut() };
            let wal = file.cast::<WalFile>();
            ptr::write(
                wal,
                WalFile {
                    base: ffi::sqlite3_file { pMethods: methods },
                    db,
                    pending: Pending::default(),
                    failed: ffi::SQLITE_OK,
                },
            );
            if !db.is_null() {
                (*db).wal = wal;
            }
        }
        ffi::SQLITE_OK
    }
}

/// Writes what `wal` holds.
///
/// SAFETY: `wal` is an open log of this VFS.
unsafe fn flush(wal: *mut WalFile) -> c_int {
    unsafe {
        let write = write_through(wal.cast());
        (*wal).pending.flush(write)
    }
}

/// The base VFS's write to the file behind `file`.
///
/// SAFETY: `file` is an open log of this VFS, and outlives the closure.
unsafe fn write_through(file: *mut ffi::sqlite3_file) -> impl FnMut(i64, &[u8]) -> c_int {
    move |offset, data| {
        // SAFETY: as the function's; `data` is at most `MOST_PENDING` bytes or one write of
        // SQLite's, so its length fits a `c_int`.
        unsafe {
            let (base, inner) = methods(file);
            let Ok(length) = c_int::try_from(data.len()) else { return ffi::SQLITE_IOERR_WRITE };
            base.xWrite.map_or(ffi::SQLITE_IOERR_WRITE, |write| write(inner, data.as_ptr().cast(), length, offset))
        }
    }
}

/// Writes what `file` holds before a call that must see the file as SQLite wrote it; the error
/// of the write, or of an earlier one the log could not report, if there is one.
///
/// SAFETY: `file` is an open log of this VFS.
unsafe fn settle(file: *mut ffi::sqlite3_file) -> c_int {
    unsafe {
        let wal = file.cast::<WalFile>();
        if (*wal).failed != ffi::SQLITE_OK {
            return (*wal).failed;
        }
        flush(wal)
    }
}

static WAL_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(wal_close),
    xRead: Some(wal_read),
    xWrite: Some(wal_write),
    xTruncate: Some(wal_truncate),
    xSync: Some(wal_sync),
    xFileSize: Some(wal_file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(wal_file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

unsafe extern "C" fn wal_close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite closes a log it opened here once, and never uses it again.
    unsafe {
        let wal = file.cast::<WalFile>();
        let written = flush(wal);
        if !(*wal).db.is_null() {
            (*(*wal).db).wal = ptr::null_mut();
        }
        let (base, inner) = methods(file);
        let closed = base.xClose.map_or(ffi::SQLITE_OK, |close| close(inner));
        ptr::drop_in_place(wal);
        if written != ffi::SQLITE_OK { written } else { closed }
    }
}

unsafe extern "C" fn wal_write(file: *mut ffi::sqlite3_file, data: *const c_void, amount: c_int, offset: i64) -> c_int {
    // SAFETY: an open log of this VFS; `data` holds `amount` bytes (SQLite's contract).
    unsafe {
        let wal = file.cast::<WalFile>();
        if (*wal).failed != ffi::SQLITE_OK {
            return (*wal).failed;
        }
        let Ok(length) = usize::try_from(amount) else { return ffi::SQLITE_IOERR_WRITE };
        let data = std::slice::from_raw_parts(data.cast::<u8>(), length);
        let write = write_through(file);
        (*wal).pending.write(offset, data, write)
    }
}

/// A method passed to the base VFS's file: `$name(file, $argument…)` calls the base's `$method`,
/// or answers `$missing` if it has none. Marked `settled`, a log's method first writes what the
/// log holds (or answers the error of a write it could not report), so the base finds the file as
/// SQLite wrote it.
macro_rules! forward {
    (settled $name:ident, $method:ident, $missing:expr $(, $argument:ident: $type:ty)*) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file $(, $argument: $type)*) -> c_int {
            // SAFETY: an open log of this VFS; the arguments are SQLite's.
            unsafe {
                let code = settle(file);
                if code != ffi::SQLITE_OK {
                    return code;
                }
                let (base, inner) = methods(file);
                base.$method.map_or($missing, |method| method(inner $(, $argument)*))
            }
        }
    };
    ($name:ident, $method:ident, $missing:expr $(, $argument:ident: $type:ty)*) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file $(, $argument: $type)*) -> c_int {
            // SAFETY: a file this VFS opened as a database or a log; the arguments are SQLite's.
            unsafe {
                let (base, inner) = methods(file);
                base.$method.map_or($missing, |method| method(inner $(, $argument)*))
            }
        }
    };
}

forward!(settled wal_read, xRead, ffi::SQLITE_IOERR_READ, buffer: *mut c_void, amount: c_int, offset: i64);
forward!(settled wal_truncate, xTruncate, ffi::SQLITE_IOERR_TRUNCATE, size: i64);
forward!(settled wal_sync, xSync, ffi::SQLITE_IOERR_FSYNC, flags: c_int);
forward!(settled wal_file_size, xFileSize, ffi::SQLITE_IOERR_FSTAT, size: *mut i64);
forward!(settled wal_file_control, xFileControl, ffi::SQLITE_NOTFOUND, operation: c_int, argument: *mut c_void);
forward!(lock, xLock, ffi::SQLITE_IOERR_LOCK, level: c_int);
forward!(unlock, xUnlock, ffi::SQLITE_IOERR_UNLOCK, level: c_int);
forward!(check_reserved_lock, xCheckReservedLock, ffi::SQLITE_IOERR_CHECKRESERVEDLOCK, out: *mut c_int);
forward!(sector_size, xSectorSize, 4096);
forward!(device_characteristics, xDeviceCharacteristics, 0);

static DB_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(db_close),
    xRead: Some(db_read),
    xWrite: Some(db_write),
    xTruncate: Some(db_truncate),
    xSync: Some(db_sync),
    xFileSize: Some(db_file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(db_file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(db_shm_map),
    xShmLock: Some(db_shm_lock),
    xShmBarrier: Some(db_shm_barrier),
    xShmUnmap: Some(db_shm_unmap),
    xFetch: Some(db_fetch),
    xUnfetch: Some(db_unfetch),
};

unsafe extern "C" fn db_close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite closes a database it opened here once (its log first), and never uses it
    // again.
    unsafe {
        let db = file.cast::<DbFile>();
        if !(*db).wal.is_null() {
            (*(*db).wal).db = ptr::null_mut();
        }
        let (base, inner) = methods(file);
        base.xClose.map_or(ffi::SQLITE_OK, |close| close(inner))
    }
}

forward!(db_read, xRead, ffi::SQLITE_IOERR_READ, buffer: *mut c_void, amount: c_int, offset: i64);
forward!(db_write, xWrite, ffi::SQLITE_IOERR_WRITE, data: *const c_void, amount: c_int, offset: i64);
forward!(db_truncate, xTruncate, ffi::SQLITE_IOERR_TRUNCATE, size: i64);
forward!(db_sync, xSync, ffi::SQLITE_IOERR_FSYNC, flags: c_int);
forward!(db_file_size, xFileSize, ffi::SQLITE_IOERR_FSTAT, size: *mut i64);
forward!(db_file_control, xFileControl, ffi::SQLITE_NOTFOUND, operation: c_int, argument: *mut c_void);
forward!(base_shm_map, xShmMap, ffi::SQLITE_IOERR_SHMMAP, page: c_int, page_size: c_int, extend: c_int, out: *mut *mut c_void);
forward!(base_shm_lock, xShmLock, ffi::SQLITE_IOERR_SHMLOCK, offset: c_int, count: c_int, flags: c_int);
forward!(base_shm_unmap, xShmUnmap, ffi::SQLITE_OK, delete: c_int);

/// Maps a region of the wal-index, noting where the first one is.
unsafe extern "C" fn db_shm_map(
    file: *mut ffi::sqlite3_file,
    page: c_int,
    page_size: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    // SAFETY: an open database of this VFS; `out` is SQLite's, set by the base when it answers OK.
    unsafe {
        let code = base_shm_map(file, page, page_size, extend, out);
        if code == ffi::SQLITE_OK && page == 0 {
            (*file.cast::<DbFile>()).index = (*out).cast_const().cast();
        }
        code
    }
}

/// Takes or releases wal-index locks; on releasing the write lock, first notes the header, which
/// no other connection can change while the lock is held.
unsafe extern "C" fn db_shm_lock(file: *mut ffi::sqlite3_file, offset: c_int, count: c_int, flags: c_int) -> c_int {
    // SAFETY: an open database of this VFS. Its first wal-index region is mapped while `index` is
    // set, and holds at least the header's two copies.
    unsafe {
        let db = file.cast::<DbFile>();
        if offset == WRITE_LOCK && flags == ffi::SQLITE_SHM_UNLOCK | ffi::SQLITE_SHM_EXCLUSIVE && !(*db).index.is_null()
        {
            (*db).released = Some(ptr::read_volatile((*db).index.cast::<IndexHeader>()));
        }
        base_shm_lock(file, offset, count, flags)
    }
}

unsafe extern "C" fn db_shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    // SAFETY: an open database of this VFS; nothing reads `index` once it is cleared.
    unsafe {
        let db = file.cast::<DbFile>();
        (*db).index = ptr::null();
        (*db).released = None;
        base_shm_unmap(file, delete)
    }
}

/// The wal-index header as it stood when `connection` last released the log's write lock: right
/// after its last commit, when that is the last thing it did with the lock. `None` when the
/// connection did not open its file through this VFS or has not written yet.
pub(crate) fn released_header(connection: &rusqlite::Connection) -> Option<IndexHeader> {
    // SAFETY: the pointer is the connection's open database file, used on this thread only for
    // this call; only a file of this VFS (whose methods are `DB_METHODS`) is read as a `DbFile`.
    unsafe { database_file(connection).and_then(|db| (*db).released) }
}

/// Whether the wal-index header of `connection`'s file reads `header` now: no connection, in
/// this process or another, committed since it was read. Takes no lock: a commit that lands just
/// after this read is one that came after it.
pub(crate) fn index_header_is(connection: &rusqlite::Connection, header: &IndexHeader) -> bool {
    // SAFETY: as in `released_header`; the first region stays mapped while the connection is
    // open, and it is read the way SQLite's readers read it: the first copy, a barrier, the
    // second, taken only if they agree.
    unsafe {
        let Some(db) = database_file(connection) else { return false };
        let index = (*db).index;
        if index.is_null() {
            return false;
        }
        let first = ptr::read_volatile(index.cast::<IndexHeader>());
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        let second = ptr::read_volatile(index.add(INDEX_HEADER).cast::<IndexHeader>());
        first == second && first == *header
    }
}

/// The database file of `connection`, if this VFS opened it.
///
/// SAFETY: the caller uses the pointer on this thread while the connection stays open.
unsafe fn database_file(connection: &rusqlite::Connection) -> Option<*const DbFile> {
    unsafe { file_of(connection, ffi::SQLITE_FCNTL_FILE_POINTER, &DB_METHODS).ok().flatten() }
        .map(|file| file.cast_const().cast::<DbFile>())
}

/// The file of `connection`'s main database that `opcode` points to (`SQLITE_FCNTL_FILE_POINTER`
/// or `SQLITE_FCNTL_JOURNAL_POINTER`), if this VFS opened it with `methods`; SQLite's code if the
/// file control failed.
///
/// Inlined, so it adds no function of its own outside the hot-code list to what a server runs at
/// rest (its warm-up writes the log ahead).
///
/// SAFETY: `handle` is the connection's open database; the caller uses the pointer on this
/// thread, while the file stays open.
#[inline(always)]
unsafe fn file_of(
    connection: &rusqlite::Connection,
    opcode: c_int,
    methods: &'static ffi::sqlite3_io_methods,
) -> Result<Option<*mut ffi::sqlite3_file>, c_int> {
    unsafe {
        let mut file: *mut ffi::sqlite3_file = ptr::null_mut();
        let code = ffi::sqlite3_file_control(connection.handle(), c"main".as_ptr(), opcode, (&raw mut file).cast());
        if code != ffi::SQLITE_OK {
            return Err(code);
        }
        Ok((!file.is_null() && ptr::eq((*file).pMethods, methods)).then_some(file))
    }
}

unsafe extern "C" fn db_fetch(
    file: *mut ffi::sqlite3_file,
    offset: i64,
    amount: c_int,
    out: *mut *mut c_void,
) -> c_int {
    // SAFETY: an open database of this VFS; `out` is SQLite's to fill.
    unsafe {
        let (base, inner) = methods(file);
        match base.xFetch {
            Some(fetch) => fetch(inner, offset, amount, out),
            // No memory map: SQLite reads the page instead.
            None => {
                *out = ptr::null_mut();
                ffi::SQLITE_OK
            }
        }
    }
}
forward!(db_unfetch, xUnfetch, ffi::SQLITE_OK, offset: i64, page: *mut c_void);

/// The barrier between the two copies of a new wal-index header: what the log holds goes to the
/// file first, so no reader finds a frame the header promises missing from it.
unsafe extern "C" fn db_shm_barrier(file: *mut ffi::sqlite3_file) {
    // SAFETY: an open database of this VFS; its log, if linked, is open (a log unlinks itself
    // when it closes).
    unsafe {
        let wal = (*file.cast::<DbFile>()).wal;
        if !wal.is_null() && (*wal).failed == ffi::SQLITE_OK {
            let code = flush(wal);
            if code != ffi::SQLITE_OK {
                tracing::error!(code, "writing the write-ahead log before publishing a commit failed");
                (*wal).failed = code;
            }
        }
        let (base, inner) = methods(file);
        if let Some(barrier) = base.xShmBarrier {
            barrier(inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;
    use rusqlite::{Connection, OpenFlags};

    use super::{MOST_PENDING, NAME, Pending, register};

    fn writer(path: &Path, vfs: &std::ffi::CStr) -> Connection {
        register().unwrap();
        let connection = Connection::open_with_flags_and_vfs(path, OpenFlags::default(), vfs).unwrap();
        connection
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
                 CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body BLOB NOT NULL);",
            )
            .unwrap();
        connection
    }

    /// Write calls this thread has made (`syscw` of `/proc/thread-self/io`).
    #[cfg(target_os = "linux")]
    fn writes_by_this_thread() -> u64 {
        let io = std::fs::read_to_string("/proc/thread-self/io").unwrap();
        io.lines().find_map(|line| line.strip_prefix("syscw: ")).unwrap().parse().unwrap()
    }

    /// Write calls of one commit that changes 20 pages: one row of a page's size each.
    #[cfg(target_os = "linux")]
    fn writes_of_a_commit(vfs: &'static std::ffi::CStr) -> u64 {
        std::thread::spawn(move || {
            let folder = tempfile::tempdir().unwrap();
            let connection = writer(&folder.path().join("store.db"), vfs);
            let commit = |first: i64| {
                let transaction = connection.unchecked_transaction().unwrap();
                for id in first..first + 20 {
                    transaction.execute("INSERT INTO t (id, body) VALUES (?1, zeroblob(3000))", [id]).unwrap();
                }
                transaction.commit().unwrap();
            };
            // The first commit writes the log's header and grows the shared memory: not counted.
            commit(0);
            let before = writes_by_this_thread();
            commit(100);
            writes_by_this_thread() - before
        })
        .join()
        .unwrap()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_commit_reaches_the_log_in_one_write() {
        let base = writes_of_a_commit(c"unix");
        let ours = writes_of_a_commit(NAME);
        assert!(base >= 40, "SQLite's own VFS writes a frame in two calls: {base} writes");
        assert_eq!(ours, 1, "the writer's VFS writes the commit's frames as one (SQLite's own: {base})");
    }

    /// The wal-index header a connection's commit leaves reads the same until another connection
    /// commits, whether or not a checkpoint or a reader came between; after that, the
    /// connection's next commit leaves a header of its own again.
    #[test]
    fn the_header_a_commit_leaves_changes_with_the_next_commit_of_any_connection() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.db");
        let connection = writer(&path, NAME);
        connection.execute("INSERT INTO t (id, body) VALUES (1, x'00')", []).unwrap();
        let committed = super::released_header(&connection).expect("a commit releases the write lock");
        assert!(super::index_header_is(&connection, &committed));

        let other = Connection::open(&path).unwrap();
        let read: i64 = other.query_row("SELECT count(*) FROM t", [], |row| row.get(0)).unwrap();
        assert_eq!(read, 1);
        other.execute_batch("PRAGMA wal_checkpoint(PASSIVE);").unwrap();
        assert!(super::index_header_is(&connection, &committed), "a read and a checkpoint write nothing");

        other.execute("INSERT INTO t (id, body) VALUES (2, x'00')", []).unwrap();
        assert!(!super::index_header_is(&connection, &committed), "another connection committed");
        assert_eq!(super::released_header(&connection), Some(committed), "this connection did not write");

        connection.execute("INSERT INTO t (id, body) VALUES (3, x'00')", []).unwrap();
        let next = super::released_header(&connection).unwrap();
        assert_ne!(next, committed);
        assert!(super::index_header_is(&connection, &next));
    }

    /// A transaction larger than the page cache writes frames before it commits and reads them
    /// back; one rolled back leaves frames behind that the next commit overwrites. Both read as
    /// written, by the writer and by another connection.
    #[test]
    fn spilled_and_rolled_back_transactions_read_as_written() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.db");
        let connection = writer(&path, NAME);
        connection.execute_batch("PRAGMA cache_size = 5;").unwrap();
        let fill = |first: i64, count: i64| {
            for id in first..first + count {
                connection.execute("INSERT INTO t (id, body) VALUES (?1, randomblob(900))", [id]).unwrap();
            }
        };
        let transaction = connection.unchecked_transaction().unwrap();
        fill(0, 400);
        let total: i64 = transaction.query_row("SELECT sum(length(body)) FROM t", [], |row| row.get(0)).unwrap();
        assert_eq!(total, 400 * 900);
        transaction.rollback().unwrap();
        let transaction = connection.unchecked_transaction().unwrap();
        fill(1000, 300);
        transaction.commit().unwrap();
        let reader = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        for connection in [&connection, &reader] {
            let (rows, smallest): (i64, i64) = connection
                .query_row("SELECT count(*), min(id) FROM t", [], |row| Ok((row.get(0)?, row.get(1)?)))
                .unwrap();
            assert_eq!((rows, smallest), (300, 1000));
            let check: String = connection.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
            assert_eq!(check, "ok");
        }
    }

    /// Without `synchronous = FULL` a commit is never synced, so nothing writes what the log holds
    /// but the barrier of its publication: another connection finds every commit at once.
    #[test]
    fn a_commit_is_in_the_file_before_it_is_published_without_a_sync() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.db");
        let connection = writer(&path, NAME);
        connection.execute_batch("PRAGMA synchronous = OFF;").unwrap();
        let reader = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        for id in 0..50_i64 {
            connection.execute("INSERT INTO t (id, body) VALUES (?1, randomblob(5000))", [id]).unwrap();
            let (rows, bytes): (i64, i64) = reader
                .query_row("SELECT count(*), sum(length(body)) FROM t", [], |row| Ok((row.get(0)?, row.get(1)?)))
                .unwrap();
            assert_eq!((rows, bytes), (id + 1, (id + 1) * 5000));
        }
        let check: String = reader.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
        assert_eq!(check, "ok");
    }

    #[derive(Debug, Clone)]
    enum Step {
        /// A write of `length` bytes of `byte`, `back` bytes before the end of the file so far
        /// (0: continuing it).
        Write {
            back: usize,
            length: usize,
            byte: u8,
        },
        Flush,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (0..MOST_PENDING / 2, any::<u8>()).prop_map(|(length, byte)| Step::Write { back: 0, length: length + 1, byte }),
            1 => (1..9000_usize, 1..5000_usize, any::<u8>()).prop_map(|(back, length, byte)| Step::Write { back, length, byte }),
            1 => (MOST_PENDING..MOST_PENDING + 10, any::<u8>()).prop_map(|(length, byte)| Step::Write { back: 0, length, byte }),
            1 => Just(Step::Flush),
        ]
    }

    fn write_into(file: &mut Vec<u8>, offset: i64, data: &[u8]) {
        let offset = usize::try_from(offset).unwrap();
        if file.len() < offset + data.len() {
            file.resize(offset + data.len(), 0);
        }
        file[offset..offset + data.len()].copy_from_slice(data);
    }

    proptest! {
        /// Whatever the writes, once flushed the file holds what writing each at once gives, and
        /// held writes never exceed the limit or reach the file out of order.
        #[test]
        fn held_writes_leave_the_file_as_direct_writes_do(steps in prop::collection::vec(step(), 1..40)) {
            let (mut expected, mut file, mut pending) = (Vec::new(), Vec::new(), Pending::default());
            for step in steps {
                let mut write = |offset: i64, data: &[u8]| {
                    write_into(&mut file, offset, data);
                    rusqlite::ffi::SQLITE_OK
                };
                match step {
                    Step::Write { back, length, byte } => {
                        let offset = expected.len().saturating_sub(back) as i64;
                        let data = vec![byte; length];
                        write_into(&mut expected, offset, &data);
                        prop_assert_eq!(pending.write(offset, &data, &mut write), rusqlite::ffi::SQLITE_OK);
                        prop_assert!(pending.bytes.len() <= MOST_PENDING);
                    }
                    Step::Flush => {
                        prop_assert_eq!(pending.flush(&mut write), rusqlite::ffi::SQLITE_OK);
                        prop_assert!(pending.bytes.is_empty());
                        prop_assert_eq!(&file, &expected);
                    }
                }
            }
            pending.flush(|offset, data| {
                write_into(&mut file, offset, data);
                rusqlite::ffi::SQLITE_OK
            });
            prop_assert_eq!(&file, &expected);
        }
    }

    /// The log written ahead with zeros is as SQLite wrote it up to its last frame: the writer,
    /// another connection, and a copy of the files taken while the writer is open (what a crash
    /// leaves) all read every commit, and nothing past it.
    #[test]
    fn a_log_written_ahead_reads_as_written_and_after_a_crash() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.db");
        let log = folder.path().join("store.db-wal");
        let mut connection = writer(&path, NAME);
        // Written ahead as the writer does, holding the write lock.
        let transaction = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        let before = std::fs::metadata(&log).unwrap().len();
        assert!(before < 1 << 20, "the log starts short: {before} bytes");
        // A step writes at most what it is given, and says whether the log reaches as far.
        assert!(!super::reserve_log(&transaction, 1 << 20, 1 << 18).unwrap());
        assert_eq!(std::fs::metadata(&log).unwrap().len(), before + (1 << 18));
        assert!(super::reserve_log(&transaction, 1 << 20, 1 << 20).unwrap());
        assert_eq!(std::fs::metadata(&log).unwrap().len(), 1 << 20);
        transaction.execute("INSERT INTO t (id, body) VALUES (0, randomblob(3000))", []).unwrap();
        transaction.commit().unwrap();
        for id in 1..40_i64 {
            connection.execute("INSERT INTO t (id, body) VALUES (?1, randomblob(3000))", [id]).unwrap();
        }
        // A longer log is left as it is.
        let grown = std::fs::metadata(&log).unwrap().len();
        let transaction = connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).unwrap();
        assert!(super::reserve_log(&transaction, 1 << 10, 1 << 10).unwrap());
        transaction.commit().unwrap();
        assert_eq!(std::fs::metadata(&log).unwrap().len(), grown);
        let copy = tempfile::tempdir().unwrap();
        for name in ["store.db", "store.db-wal"] {
            std::fs::copy(folder.path().join(name), copy.path().join(name)).unwrap();
        }
        let reader = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let crashed = Connection::open(copy.path().join("store.db")).unwrap();
        for connection in [&connection, &reader, &crashed] {
            let (rows, bytes): (i64, i64) = connection
                .query_row("SELECT count(*), sum(length(body)) FROM t", [], |row| Ok((row.get(0)?, row.get(1)?)))
                .unwrap();
            assert_eq!((rows, bytes), (40, 40 * 3000));
            let check: String = connection.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
            assert_eq!(check, "ok");
        }
    }

    /// A connection through SQLite's own VFS has no log of ours: nothing is written.
    #[test]
    fn only_a_log_of_this_vfs_is_written_ahead() {
        let folder = tempfile::tempdir().unwrap();
        let connection = writer(&folder.path().join("store.db"), c"unix");
        let transaction = connection.unchecked_transaction().unwrap();
        transaction.execute("INSERT INTO t (id, body) VALUES (0, x'00')", []).unwrap();
        assert!(super::reserve_log(&transaction, 1 << 20, 1 << 20).unwrap(), "nothing to write ahead");
        transaction.commit().unwrap();
        assert!(std::fs::metadata(folder.path().join("store.db-wal")).unwrap().len() < 1 << 20);
    }

    #[test]
    fn a_failed_write_is_answered_and_lets_go_of_what_was_held() {
        let mut pending = Pending::default();
        assert_eq!(pending.write(0, &[1; 100], |_, _| unreachable!("held")), rusqlite::ffi::SQLITE_OK);
        let failed = |_: i64, _: &[u8]| rusqlite::ffi::SQLITE_FULL;
        assert_eq!(pending.write(5000, &[2; 100], failed), rusqlite::ffi::SQLITE_FULL);
        assert!(pending.bytes.is_empty(), "the failed write's bytes are not written again later");
        assert_eq!(pending.flush(|_, _| unreachable!("nothing held")), rusqlite::ffi::SQLITE_OK);
    }
}
