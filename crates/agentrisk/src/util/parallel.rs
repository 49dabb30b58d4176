//! The one place the core may use several threads.
//!
//! With the `parallel` feature (the native CLI turns it on) the items go to
//! rayon's pool; without it (the browser's wasm, the npm package) they are
//! mapped one after another. Either way the results come back in the
//! items' order, so no caller can tell the two apart but by the clock.

/// `f(position, item)` for every item, results in the items' order.
#[cfg(feature = "parallel")]
pub fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    use rayon::prelude::*;
    items.par_iter().enumerate().map(|(i, item)| f(i, item)).collect()
}

/// `f(position, item)` for every item, results in the items' order.
#[cfg(not(feature = "parallel"))]
pub fn map_in_order<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    items.iter().enumerate().map(|(i, item)| f(i, item)).collect()
}
