//! File helpers shared by the layers: saves, learned decks and fitted models
//! are all written the same crash-safe way.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file (or its temp file, or its folder) that failed.
    pub path: PathBuf,
    /// The OS error.
    pub source: std::io::Error,
}

/// Writes `bytes` to `path` atomically: a temp file in the same directory is
/// written and fsynced, then renamed over the target, then the directory is
/// synced. A crash leaves either the old file or the new one, never half.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_then(path, bytes, || Ok(()))
}

/// [`write_atomic`], running `before_rename` once the temp file is written
/// whole and before it replaces `path`: what must happen only when the new
/// file is sure to land (moving older files aside), and never when a full
/// disk stopped it. When `before_rename` fails the temp file is removed.
pub fn write_atomic_then(
    path: &Path,
    bytes: &[u8],
    before_rename: impl FnOnce() -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let fail = |p: &Path| {
        let path = p.to_path_buf();
        move |source| WriteError { path, source }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(fail(dir))?;
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = PathBuf::from(tmp_name);
    let written = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    if let Err(source) = written {
        // A half-written temp file (a full disk) is of no use to anyone.
        let _ = fs::remove_file(&tmp);
        return Err(WriteError { path: tmp, source });
    }
    if let Err(e) = before_rename() {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if let Err(source) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(WriteError {
            path: path.to_path_buf(),
            source,
        });
    }
    if let Ok(d) = fs::File::open(dir) {
        // Not all platforms can fsync a directory; the rename is done either way.
        let _ = d.sync_all();
    }
    Ok(())
}

/// Text that is not UTF-8: where its first odd byte is, to name it as a
/// parse error is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8 {
    /// 1-based line of the byte.
    pub line: usize,
    /// 1-based column (in characters) of the byte.
    pub column: usize,
    /// The byte.
    pub byte: u8,
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "byte 0x{:02X} is not UTF-8 text (save the file as UTF-8)",
            self.byte
        )
    }
}

/// `bytes` as text, or where the first byte that is not UTF-8 lies.
pub fn utf8_text(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let start = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[start..]).chars().count() + 1;
        let byte = e.as_bytes().get(good.len()).copied().unwrap_or(0);
        NotUtf8 { line, column, byte }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_the_file_whole_and_leave_no_temp_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("sub").join("a.bin");
        write_atomic(&path, b"first").unwrap_or_else(|e| panic!("{e}"));
        write_atomic(&path, b"second").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fs::read(&path).unwrap_or_default(), b"second");
        assert!(!dir.path().join("sub").join("a.bin.tmp").exists());
    }

    #[test]
    fn a_byte_that_is_not_utf8_is_placed() {
        assert_eq!(utf8_text(b"ok".to_vec()).ok().as_deref(), Some("ok"));
        let bad = utf8_text(b"ab\ncd\xE9f".to_vec()).err();
        assert_eq!(
            bad,
            Some(NotUtf8 {
                line: 2,
                column: 3,
                byte: 0xE9
            })
        );
    }

    #[test]
    fn a_failure_names_the_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let blocker = dir.path().join("file");
        fs::write(&blocker, b"x").unwrap_or_else(|e| panic!("{e}"));
        let err = write_atomic(&blocker.join("inside.bin"), b"y").err();
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("file"), "{msg}");
    }
}

/// What [`unique_keys`] says of a key written twice, after the key's name
/// (error readers look for it to place the second one).
pub const WRITTEN_TWICE: &str = "is written twice in one map";

/// Deserializes a map whose keys must each be written once. Serde keeps the
/// last of two equal keys without a word, so a ruleset that sets a number
/// twice would quietly lose one of them (`#[serde(deserialize_with = ...)]`).
pub fn unique_keys<'de, D, K, V>(d: D) -> Result<std::collections::BTreeMap<K, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    K: serde::Deserialize<'de> + Ord + std::fmt::Display,
    V: serde::Deserialize<'de>,
{
    struct UniqueKeys<K, V>(std::marker::PhantomData<(K, V)>);
    impl<'de, K, V> serde::de::Visitor<'de> for UniqueKeys<K, V>
    where
        K: serde::Deserialize<'de> + Ord + std::fmt::Display,
        V: serde::Deserialize<'de>,
    {
        type Value = std::collections::BTreeMap<K, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = std::collections::BTreeMap::new();
            while let Some((k, v)) = map.next_entry::<K, V>()? {
                if out.contains_key(&k) {
                    return Err(serde::de::Error::custom(format!(
                        "`{k}` {WRITTEN_TWICE} (keep one: only one value can count)"
                    )));
                }
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(UniqueKeys(std::marker::PhantomData))
}

#[cfg(test)]
mod unique_keys_tests {
    use std::collections::BTreeMap;

    #[derive(serde::Deserialize, Debug)]
    struct Numbers {
        #[serde(deserialize_with = "super::unique_keys")]
        numbers: BTreeMap<String, i64>,
    }

    #[test]
    fn a_key_written_twice_is_refused_by_name_and_place() {
        let text = "(numbers: {\n  \"range\": 6,\n  \"range\": 8,\n})";
        let e = ron::from_str::<Numbers>(text).expect_err("duplicate key taken");
        assert!(
            e.code.to_string().contains("`range` is written twice"),
            "{e}"
        );
        assert_eq!(e.span.start.line, 3, "{e}");
    }

    #[test]
    fn distinct_keys_are_kept() {
        let n: Numbers = ron::from_str("(numbers: {\"a\": 1, \"b\": 2})").expect("parses");
        assert_eq!(n.numbers.len(), 2);
        assert_eq!(n.numbers["b"], 2);
    }
}
