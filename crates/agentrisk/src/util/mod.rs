//! Small pieces every part of the crate may use: the hash maps, Python's
//! float spelling, a byte-counting writer, how a JSON value is named
//! in an error, a top-level member of a JSON object found without parsing it, and stable sorting that stays small in wasm. Nothing here knows about
//! traces, detectors or scores, and nothing here imports from the rest of
//! the crate, so any module can depend on it without forming a cycle.

mod byte_count;
mod fx;
mod json_kind;
mod parallel;
mod pyfloat;
mod sort;
mod top_level;

pub use byte_count::{json_len, ByteCount};
pub(crate) use fx::{FxMap, FxSet};
pub(crate) use json_kind::json_kind;
pub use parallel::map_in_order;
pub(crate) use parallel::meanwhile;
pub use pyfloat::py_float_repr;
pub use sort::{btree_map, btree_set, sort, sort_by, sort_by_key};
pub(crate) use top_level::has_top_level;
