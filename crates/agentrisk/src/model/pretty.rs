//! Indented JSON as `serde_json::to_writer_pretty` writes it, byte for
//! byte (two spaces a level: the layout of Python's `json.dumps(indent=2)`),
//! with the long lists of a report written on several threads where the
//! build has them.
//!
//! A long trace's report is about five times the trace (105 MB for the
//! bench's 20 MB trace), nearly all of it in four lists. Each list's items
//! are written in pieces, side by side ([`crate::util::map_in_order`]), a
//! window of pieces at a time so that only a few megabytes are held.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io::{self, Write};

/// `serde_json`'s `PrettyFormatter` with two-space indentation, started at
/// any level, writing each line break and its indentation at once.
pub(crate) struct Indented {
    level: usize,
    has_value: bool,
}

/// A line break and the indentation of the deepest level written at once.
const BREAK: &[u8] = b"\n                                                                ";

impl Indented {
    /// For a value that starts at `level` (0 for a whole document).
    pub(crate) fn at(level: usize) -> Indented {
        Indented { level, has_value: false }
    }

    fn line_break<W: ?Sized + Write>(&self, out: &mut W) -> io::Result<()> {
        match BREAK.get(..1 + 2 * self.level) {
            Some(bytes) => out.write_all(bytes),
            None => {
                out.write_all(b"\n")?;
                (0..self.level).try_for_each(|_| out.write_all(b"  "))
            }
        }
    }

    /// An array's or object's opening bracket; its items go a level deeper.
    fn open<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    /// The closing bracket, on a line of its own after any item.
    fn close<W: ?Sized + Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line_break(out)?;
        }
        out.write_all(bracket)
    }

    /// What comes before an item at this level: a comma after the first,
    /// then a line break.
    fn item<W: ?Sized + Write>(&self, out: &mut W, first: bool) -> io::Result<()> {
        if !first {
            out.write_all(b",")?;
        }
        self.line_break(out)
    }
}

impl Formatter for Indented {
    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.item(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.item(out, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Writes `value`, starting at `level`.
pub(crate) fn write_at<T: Serialize + ?Sized, W: Write>(value: &T, level: usize, out: W) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(out, Indented::at(level));
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// Pieces written side by side before they are handed on.
const WINDOW: usize = 8;

/// Writes `items` as the array value of a key at `level`, exactly as the
/// array would be written in place, `piece` items by one thread at a time
/// (so that a window of pieces holds a megabyte or two).
pub(crate) fn write_list<T: Serialize + Sync>(
    items: &[T],
    level: usize,
    piece: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    if items.is_empty() {
        return out.write_all(b"[]");
    }
    out.write_all(b"[")?;
    let items_at = Indented::at(level + 1);
    let piece = piece.max(1);
    for (w, window) in items.chunks(piece * WINDOW).enumerate() {
        let pieces: Vec<&[T]> = window.chunks(piece).collect();
        let written = crate::util::map_in_order(&pieces, |p, piece| -> io::Result<Vec<u8>> {
            let mut bytes = Vec::new();
            for (i, item) in piece.iter().enumerate() {
                items_at.item(&mut bytes, w + p + i == 0)?;
                write_at(item, level + 1, &mut bytes)?;
            }
            Ok(bytes)
        });
        for bytes in written {
            out.write_all(&bytes?)?;
        }
    }
    Indented::at(level).line_break(out)?;
    out.write_all(b"]")
}

/// [`write_list`] on this thread, each item straight to `out`: for a few
/// large items (nothing of them is held).
pub(crate) fn write_list_in_place<T: Serialize>(items: &[T], level: usize, out: &mut dyn Write) -> io::Result<()> {
    if items.is_empty() {
        return out.write_all(b"[]");
    }
    out.write_all(b"[")?;
    let items_at = Indented::at(level + 1);
    for (i, item) in items.iter().enumerate() {
        items_at.item(out, i == 0)?;
        write_at(item, level + 1, &mut *out)?;
    }
    Indented::at(level).line_break(out)?;
    out.write_all(b"]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pretty(value: &impl Serialize) -> Vec<u8> {
        serde_json::to_vec_pretty(value).unwrap()
    }

    fn indented(value: &impl Serialize) -> Vec<u8> {
        let mut out = Vec::new();
        write_at(value, 0, &mut out).unwrap();
        out
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let deep = (0..40).fold(json!([1, {"k": []}]), |inner, i| json!({ format!("level {i}"): [inner, {}] }));
        for value in [
            json!({}),
            json!([]),
            json!({"a": [], "b": {}, "c": [[], [{}], {"d": [1, 2.5, "x\ny"]}], "e": null, "f": true}),
            json!([[[[]]]]),
            deep,
        ] {
            assert_eq!(String::from_utf8(indented(&value)).unwrap(), String::from_utf8(pretty(&value)).unwrap());
        }
    }

    #[test]
    fn a_list_written_in_pieces_is_the_list_written_in_place() {
        let item = |i: usize| json!({"id": i, "steps": [{"at": i, "to": ["a", "b"]}], "empty": [], "note": "é\"\\"});
        const PIECE: usize = 5;
        for n in [0, 1, 2, PIECE - 1, PIECE, PIECE + 1, PIECE * WINDOW, PIECE * WINDOW * 2 + 3] {
            let items: Vec<serde_json::Value> = (0..n).map(item).collect();
            for level in [0, 1, 2, 3] {
                let mut wrapped = json!(items);
                for _ in 0..level {
                    wrapped = json!({ "list": wrapped });
                }
                // The list inside `level` objects is the value of a key at `level`.
                let whole = pretty(&wrapped);
                let in_place = String::from_utf8(whole).unwrap();
                let mut out = Vec::new();
                write_list(&items, level, PIECE, &mut out).unwrap();
                let mut one_by_one = Vec::new();
                write_list_in_place(&items, level, &mut one_by_one).unwrap();
                assert_eq!(out, one_by_one);
                let list = String::from_utf8(out).unwrap();
                assert!(in_place.contains(&list), "{n} items at level {level}");
                if level == 0 {
                    assert_eq!(in_place, list);
                }
            }
        }
    }
}
