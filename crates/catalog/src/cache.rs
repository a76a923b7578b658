//! The process-wide compile cache: built-in workflows compile once per process, a workflow file
//! compiles again only when its text (or the routines it calls) changed, and a text's format
//! (workflow or other YAML) is detected once per distinct text.
//!
//! The cache is a process-wide static rather than a field of [`Catalog`](super::Catalog), so
//! every catalog (the CLI's, the runtime's, and the one `Runtime::for_workspace` derives per MCP
//! call) shares it without being told.
//!
//! A cached file is checked against its text, not against file stamps (inode, length,
//! modification time): discovery reads every file anyway to tell workflows from other YAML, and
//! two writes of the same length within one timestamp tick would leave the stamp unchanged.
//! Compiling is a pure function of the source name, its text and its routine texts, so a match
//! on all three gives the same result, diagnostics included.
//!
//! Bundles are not cached: one inside a project also compiles with files from the project root
//! that only the compiler knows it needs (`project.rs`).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

use switchyard_compiler::{Compiled, Format, Source, compile, compile_with, detect_format, routines_from};

/// The most workflow files kept; the least recently used goes first.
pub const MAX_CACHED_FILES: usize = 256;

/// The most source bytes (workflow and routine texts) kept, so a few large files cannot pin
/// [`MAX_CACHED_FILES`] times the largest source size.
pub const MAX_CACHED_BYTES: usize = 64 * 1024 * 1024;

/// One compiled workflow file, under the name it compiled as (its path).
#[derive(Debug)]
struct FileEntry {
    text: String,
    routines: Vec<String>,
    compiled: Compiled,
    /// How often this process compiled a source under this name.
    compiles: u64,
    last_used: u64,
}

impl FileEntry {
    fn bytes(&self) -> usize {
        self.text.len() + self.routines.iter().map(String::len).sum::<usize>()
    }
}

/// The most source formats remembered; past it the memo starts again (an entry is 33 bytes).
const MAX_CACHED_FORMATS: usize = 4096;

#[derive(Debug, Default)]
struct Cache {
    files: HashMap<String, FileEntry>,
    /// [`detect_format`] of source texts, by the text's SHA-256.
    formats: HashMap<[u8; 32], Option<Format>>,
    builtins: HashMap<&'static str, Compiled>,
    /// Source bytes held by `files`.
    bytes: usize,
    /// Counts uses, to find the least recently used entry.
    uses: u64,
}

fn cache() -> MutexGuard<'static, Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    // A panic while the lock was held left at worst a missing entry, never a wrong one: entries
    // are inserted whole.
    CACHE.get_or_init(Mutex::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The built-in workflow `name`, compiled on first use.
pub(super) fn builtin(name: &'static str, source: &Source) -> Compiled {
    if let Some(compiled) = cache().builtins.get(name) {
        return compiled.clone();
    }
    let compiled = compile(source);
    cache().builtins.entry(name).or_insert(compiled).clone()
}

/// The workflow file compiled as `name` from `text`, with the routine texts it calls.
pub(super) fn file(name: &str, text: String, routines: Vec<String>) -> Compiled {
    {
        let mut cache = cache();
        cache.uses += 1;
        let uses = cache.uses;
        if let Some(entry) = cache.files.get_mut(name)
            && entry.text == text
            && entry.routines == routines
        {
            entry.last_used = uses;
            return entry.compiled.clone();
        }
    }
    // Compiled outside the lock, so one slow file does not hold up every other caller.
    let source = Source { name: name.to_owned(), text };
    let compiled = compile_with(&source, &routines_from(routines.iter().map(String::as_str)));
    let mut cache = cache();
    cache.uses += 1;
    let last_used = cache.uses;
    let compiles = match cache.files.remove(name) {
        Some(previous) => {
            cache.bytes -= previous.bytes();
            previous.compiles + 1
        }
        None => 1,
    };
    let entry = FileEntry { text: source.text, routines, compiled: compiled.clone(), compiles, last_used };
    cache.bytes += entry.bytes();
    cache.files.insert(name.to_owned(), entry);
    cache.evict();
    compiled
}

/// The format of a source text ([`detect_format`]), remembered by the text's SHA-256. Telling a
/// workflow from other YAML parses a YAML document whole (a JSON text is scanned more cheaply,
/// but whole too), and discovery asks it of every file on every listing; hashing a text costs a
/// small fraction of that.
pub(super) fn format_of(text: &str) -> Option<Format> {
    let key = switchyard_core::hash::sha256(text.as_bytes());
    if let Some(format) = cache().formats.get(&key) {
        return *format;
    }
    let format = detect_format(text);
    let mut cache = cache();
    if cache.formats.len() >= MAX_CACHED_FORMATS {
        cache.formats.clear();
    }
    cache.formats.insert(key, format);
    format
}

/// How often this process compiled the workflow file that compiles as `name` (its path), while
/// the cache has held it; 0 for one it does not hold.
pub fn compiles_of(name: &str) -> u64 {
    cache().files.get(name).map_or(0, |entry| entry.compiles)
}

impl Cache {
    fn evict(&mut self) {
        while self.files.len() > MAX_CACHED_FILES || (self.bytes > MAX_CACHED_BYTES && self.files.len() > 1) {
            let Some(oldest) = self.files.iter().min_by_key(|(_, entry)| entry.last_used).map(|(name, _)| name.clone())
            else {
                return;
            };
            if let Some(entry) = self.files.remove(&oldest) {
                self.bytes -= entry.bytes();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use switchyard_compiler::Format;

    use super::*;

    fn entry(text_bytes: usize, last_used: u64) -> FileEntry {
        let compiled = Compiled {
            workflow: None,
            diagnostics: Vec::new(),
            format: Format::Native,
            references: Vec::new(),
            declared_limits: switchyard_compiler::DeclaredLimits::default(),
        };
        FileEntry { text: "x".repeat(text_bytes), routines: Vec::new(), compiled, compiles: 1, last_used }
    }

    fn filled(entries: impl IntoIterator<Item = (usize, u64)>) -> Cache {
        let mut cache = Cache::default();
        for (text_bytes, last_used) in entries {
            let entry = entry(text_bytes, last_used);
            cache.bytes += entry.bytes();
            cache.files.insert(format!("{last_used}.yaml"), entry);
        }
        cache.evict();
        cache
    }

    #[test]
    fn a_remembered_format_is_the_detected_one() {
        let texts = [
            "id: remembered-native\nsteps:\n  - id: a\n    prompt: A\n",
            r#"{"id": "remembered-workrail", "name": "W", "version": "1.0.0", "steps": [{"id": "a", "title": "A", "prompt": "A"}]}"#,
            "stages:\n  - id: plan\n",
            "not_a_workflow: true\n",
            ": not yaml [\n",
        ];
        for text in texts {
            let detected = detect_format(text);
            assert_eq!(format_of(text), detected, "{text}");
            assert_eq!(format_of(text), detected, "remembered: {text}");
            assert!(cache().formats.contains_key(&switchyard_core::hash::sha256(text.as_bytes())));
        }
    }

    #[test]
    fn the_least_recently_used_file_goes_first_past_the_entry_bound() {
        let cache = filled((0..=MAX_CACHED_FILES as u64).map(|last_used| (1, last_used)));
        assert_eq!(cache.files.len(), MAX_CACHED_FILES);
        assert!(!cache.files.contains_key("0.yaml"));
        assert!(cache.files.contains_key("1.yaml"));
        assert_eq!(cache.bytes, MAX_CACHED_FILES);
    }

    #[test]
    fn the_least_recently_used_file_goes_first_past_the_byte_bound() {
        let half = MAX_CACHED_BYTES / 2;
        let cache = filled([(half, 2), (half, 0), (1, 1)]);
        assert_eq!(
            cache.files.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(),
            ["1.yaml", "2.yaml"].into()
        );
        assert_eq!(cache.bytes, half + 1);
    }
}
