//! Stable sorting with one copy of the sorting code in the viewer's wasm.
//!
//! `slice::sort_by` is generic over the element type and the comparator, so
//! each call site gets its own copy of the standard library's sort (some
//! 3.5 kB of wasm each; forty of them were an eighth of the viewer's code).
//! In wasm, [`sort_by`] sorts the elements' positions with the comparator
//! behind `dyn`, one copy for every caller, then moves the elements into
//! that order; natively it is `slice::sort_by`. Both sorts are stable, so
//! the order is the same either way.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sorts `v` by `compare`, stably (equal elements keep their order).
pub fn sort_by<T>(v: &mut [T], compare: impl FnMut(&T, &T) -> Ordering) {
    #[cfg(target_arch = "wasm32")]
    {
        let mut compare = compare;
        let mut order: Vec<usize> = (0..v.len()).collect();
        let items: &[T] = v;
        sort_positions(&mut order, &mut |a: usize, b: usize| match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => compare(x, y),
            _ => Ordering::Equal,
        });
        permute(v, &order);
    }
    #[cfg(not(target_arch = "wasm32"))]
    v.sort_by(compare);
}

/// Sorts `v` by the key `key` gives each element, stably.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in ascending order, stably.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// A map of `items`, as `collect()` makes it (a later item's value
/// replaces an earlier one's under the same key), built by insertion:
/// `collect()` sorts the items first, with a copy of the standard sort for
/// each key and value type.
pub fn btree_map<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    for (key, value) in items {
        map.insert(key, value);
    }
    map
}

/// A set of `items`, as `collect()` makes it, built by insertion (see
/// [`btree_map`]).
pub fn btree_set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    for item in items {
        set.insert(item);
    }
    set
}

#[cfg(target_arch = "wasm32")]
#[inline(never)]
fn sort_positions(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|a, b| compare(*a, *b));
}

/// Puts `v` in the order `order` gives (position i takes the element at
/// `order[i]`; `order` is a permutation of `v`'s positions), following each
/// cycle of the permutation with swaps.
#[cfg(any(target_arch = "wasm32", test))]
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut placed = vec![false; v.len()];
    for start in 0..v.len() {
        let mut at = start;
        while placed.get(at) == Some(&false) {
            if let Some(p) = placed.get_mut(at) {
                *p = true;
            }
            match order.get(at) {
                Some(&from) if from != start && from < v.len() => {
                    v.swap(at, from);
                    at = from;
                }
                _ => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_puts_each_element_where_the_order_says() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        permute(&mut v, &[2, 0, 1, 4, 3]);
        assert_eq!(v, ['c', 'a', 'b', 'e', 'd']);
        let mut v: Vec<u32> = (0..20).collect();
        let order: Vec<usize> = (0..20).map(|i| (i * 7) % 20).collect();
        permute(&mut v, &order);
        assert_eq!(v, order.iter().map(|&i| i as u32).collect::<Vec<_>>());
    }

    #[test]
    fn sorting_is_stable() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        sort_by_key(&mut v, |p| p.0);
        assert_eq!(v, [(1, 'b'), (1, 'e'), (2, 'd'), (3, 'a'), (3, 'c')]);
        let mut words = vec!["pear", "fig", "apple"];
        sort(&mut words);
        assert_eq!(words, ["apple", "fig", "pear"]);
    }
}
