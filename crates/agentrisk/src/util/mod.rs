//! Small pieces every part of the crate may use: the hash maps, Python's
//! float spelling and a byte-counting writer. Nothing here knows about
//! traces, detectors or scores, and nothing here imports from the rest of
//! the crate, so any module can depend on it without forming a cycle.

mod byte_count;
mod fx;
mod pyfloat;

pub use byte_count::{json_len, ByteCount};
pub(crate) use fx::{FxMap, FxSet};
pub use pyfloat::py_float_repr;
