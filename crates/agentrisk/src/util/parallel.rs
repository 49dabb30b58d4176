//! The one place the core may use several threads.
//!
//! With the `parallel` feature (the native CLI turns it on) the items go to
//! rayon's pool; without it (the browser's wasm, the npm package) they are
//! mapped one after another. Either way the results come back in the
//! items' order, so no caller can tell the two apart but by the clock.
//! [`meanwhile`] is the one exception to "in order": work whose result
//! nobody waits for (it fills a cache that is also filled on demand).

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

/// Starts `f` on another thread of the pool and returns at once; `f` must
/// only do what would otherwise be done on demand (its result is not
/// waited for, so nothing may depend on when it runs).
#[cfg(feature = "parallel")]
pub fn meanwhile(f: impl FnOnce() + Send + 'static) {
    rayon::spawn(f);
}

/// Without threads there is no other thread: the work is left to be done
/// on demand.
#[cfg(not(feature = "parallel"))]
pub fn meanwhile(f: impl FnOnce() + Send + 'static) {
    drop(f);
}
