//! Counting the bytes a serialisation writes, without keeping them.

use serde::Serialize;
use std::io;

/// An `io::Write` that keeps only the number of bytes written to it: the
/// size of a JSON document without holding the document.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ByteCount(pub usize);

impl io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How many bytes `value` takes as compact JSON (`serde_json::to_writer`),
/// counted without writing them anywhere.
///
/// A value that cannot be serialised (a map with non-string keys, a
/// `Serialize` impl that fails) counts the bytes written before the failure;
/// writing to a [`ByteCount`] itself never fails.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut count = ByteCount(0);
    // Only the value's own serialisation can fail; see the doc above.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn counts_what_serde_json_writes() {
        let value = serde_json::json!({"name": "Zoë", "scores": [1, 2.5, null], "ok": true});
        let written = serde_json::to_vec(&value).unwrap();
        assert_eq!(json_len(&value), written.len());
        assert_eq!(json_len(&value), 47);
        assert_eq!(json_len("a\"b"), 6);
    }

    #[test]
    fn adds_up_across_writes() {
        let mut count = ByteCount::default();
        count.write_all(b"abc").unwrap();
        count.write_all("é".as_bytes()).unwrap();
        count.flush().unwrap();
        assert_eq!(count, ByteCount(5));
    }
}
