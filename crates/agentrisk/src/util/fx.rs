//! The crate's hash maps and sets: FxHash (`rustc-hash`), as in rustc. The
//! keys are short strings, for which SipHash's collision resistance buys
//! nothing here and costs most of a lookup.

pub(crate) type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub(crate) type FxSet<K> = rustc_hash::FxHashSet<K>;
