//! Counters the console can show: calls, failures, security violations, time spent, and how
//! often zip bundles were read from disk or reused.

use std::sync::atomic::{AtomicU64, Ordering};

/// Cumulative counters of one file host.
#[derive(Debug, Default)]
pub struct Counters {
    calls: AtomicU64,
    failures: AtomicU64,
    violations: AtomicU64,
    micros: AtomicU64,
    archive_reads: AtomicU64,
    archive_reuses: AtomicU64,
}

/// A copy of the counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CounterSnapshot {
    pub calls: u64,
    pub failures: u64,
    pub violations: u64,
    pub total_micros: u64,
    /// Zip bundles opened and decompressed.
    pub archive_reads: u64,
    /// Zip bundles served from memory, unchanged on disk since they were read.
    pub archive_reuses: u64,
}

impl Counters {
    pub(crate) fn record(&self, micros: u64, failed: bool, violation: bool) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.micros.fetch_add(micros, Ordering::Relaxed);
        if failed {
            self.failures.fetch_add(1, Ordering::Relaxed);
        }
        if violation {
            self.violations.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn record_archive_read(&self) {
        self.archive_reads.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn record_archive_reuse(&self) {
        self.archive_reuses.fetch_add(1, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> CounterSnapshot {
        CounterSnapshot {
            calls: self.calls.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            violations: self.violations.load(Ordering::Relaxed),
            total_micros: self.micros.load(Ordering::Relaxed),
            archive_reads: self.archive_reads.load(Ordering::Relaxed),
            archive_reuses: self.archive_reuses.load(Ordering::Relaxed),
        }
    }
}
