//! Many needles searched at once, reporting which occur in a haystack at
//! token boundaries — the many-needle form of
//! [`contains_at_token_boundaries`](super::contains_at_token_boundaries),
//! which keeps the whole-trace passes (anchors, coalescing) near-linear
//! instead of needles × events.
//!
//! Most needles (finding values) begin and end with an alphanumeric
//! character. Such a needle can only occur at token boundaries starting at
//! the start of a maximal alphanumeric run of the haystack, and that run
//! must be exactly the needle's own first run. So these needles are hashed
//! by their first run: per haystack run, one lookup finds the lengths worth
//! trying and one lookup per length confirms a needle. Building that costs
//! a hash insert per needle, where an Aho–Corasick automaton over hundreds
//! of thousands of values costs seconds. The few other needles (starting or
//! ending with punctuation, like `(514) 555-0199` or `125000,`) go into an
//! Aho–Corasick automaton.

use crate::pyunicode::is_alnum;
use crate::util::FxMap;

const NONE: u32 = u32::MAX;

/// Marks a [`Lengths`] entry that is an index into `Lengths::many`.
const MANY: u32 = 1 << 31;

/// Byte lengths of the needles sharing a first run, by first run. Almost
/// every run has one length, kept in the map itself (a map entry of 24
/// bytes instead of 40: the whole-trace passes hold ~100 000 of them); the
/// others point into `many`.
#[derive(Default)]
struct Lengths<'n> {
    by_run: FxMap<&'n str, u32>,
    many: Vec<Vec<u32>>,
}

impl<'n> Lengths<'n> {
    fn get(&self, run: &str) -> Option<&[u32]> {
        let entry = self.by_run.get(run)?;
        Some(if entry & MANY == 0 { std::slice::from_ref(entry) } else { &self.many[(entry & !MANY) as usize] })
    }

    fn add(&mut self, run: &'n str, len: u32) {
        match self.by_run.get(run).copied() {
            None if len & MANY == 0 => {
                self.by_run.insert(run, len);
            }
            None => {
                self.by_run.insert(run, MANY | self.many.len() as u32);
                self.many.push(vec![len]);
            }
            Some(entry) if entry & MANY != 0 => {
                let known = &mut self.many[(entry & !MANY) as usize];
                if !known.contains(&len) {
                    known.push(len);
                }
            }
            Some(single) if single != len => {
                self.by_run.insert(run, MANY | self.many.len() as u32);
                self.many.push(vec![single, len]);
            }
            Some(_) => {}
        }
    }

    fn is_empty(&self) -> bool {
        self.by_run.is_empty()
    }
}

pub(crate) struct TokenMatcher<'n> {
    /// Needle text → its first index; further equal needles chain through `same`.
    first_index: FxMap<&'n str, u32>,
    same: Vec<u32>,
    /// First alphanumeric run → the lengths of the needles that start with it.
    lengths: Lengths<'n>,
    /// The other non-empty needles, with their indexes.
    others: Option<(aho_corasick::AhoCorasick, Vec<u32>)>,
    /// The needles of `others`, searched one by one if the automaton could
    /// not be built (it has a size limit): slow but never wrong.
    fallback: Vec<(&'n str, u32)>,
}

/// The end of the maximal alphanumeric run starting at `start`.
fn run_end(s: &str, start: usize) -> usize {
    s[start..].char_indices().find(|&(_, c)| !is_alnum(c)).map_or(s.len(), |(i, _)| start + i)
}

fn alnum_at_start(s: &str) -> bool {
    s.chars().next().is_some_and(is_alnum)
}

fn alnum_at_end(s: &str) -> bool {
    s.chars().next_back().is_some_and(is_alnum)
}

impl<'n> TokenMatcher<'n> {
    pub(crate) fn new<S: AsRef<str>>(needles: &'n [S]) -> TokenMatcher<'n> {
        let mut first_index: FxMap<&str, u32> = FxMap::default();
        let mut same = vec![NONE; needles.len()];
        let mut lengths = Lengths::default();
        let mut others: Vec<(&str, u32)> = Vec::new();
        for (i, needle) in needles.iter().enumerate() {
            let (needle, i) = (needle.as_ref(), i as u32);
            if needle.is_empty() {
                continue;
            }
            if !(alnum_at_start(needle) && alnum_at_end(needle)) {
                others.push((needle, i));
                continue;
            }
            match first_index.get(needle) {
                Some(&first) => {
                    // Keep the chain in index order: append at its end.
                    let mut at = first as usize;
                    while same[at] != NONE {
                        at = same[at] as usize;
                    }
                    same[at] = i;
                    continue;
                }
                None => {
                    first_index.insert(needle, i);
                }
            }
            let first_run = &needle[..run_end(needle, 0)];
            lengths.add(first_run, needle.len() as u32);
        }
        let (others, fallback) = if others.is_empty() {
            (None, Vec::new())
        } else {
            let texts: Vec<&str> = others.iter().map(|(n, _)| *n).collect();
            // A contiguous NFA, as for the other value automata: the DFA
            // the automatic choice takes for few needles costs more to build
            // than a small trace takes to search.
            let builder = aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .match_kind(aho_corasick::MatchKind::Standard)
                .build(&texts);
            match builder {
                Ok(ac) => (Some((ac, others.iter().map(|(_, i)| *i).collect())), Vec::new()),
                Err(_) => (None, others),
            }
        };
        TokenMatcher { first_index, same, lengths, others, fallback }
    }

    /// Indexes of the needles found in `haystack` at token boundaries, ascending.
    pub(crate) fn indexes_in(&self, haystack: &str) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let bounded = |start: usize, end: usize| !alnum_at_end(&haystack[..start]) && !alnum_at_start(&haystack[end..]);
        if !self.lengths.is_empty() {
            // Event texts are mostly ASCII: there a character is a byte and
            // `isalnum` is the ASCII test, so runs are found byte by byte.
            let bytes = haystack.as_bytes();
            let ascii = haystack.is_ascii();
            let mut at = 0;
            while at < haystack.len() {
                if ascii {
                    if !bytes[at].is_ascii_alphanumeric() {
                        at += 1;
                        continue;
                    }
                } else {
                    let Some(c) = haystack[at..].chars().next() else { break };
                    if !is_alnum(c) {
                        at += c.len_utf8();
                        continue;
                    }
                }
                // `at` starts a maximal alphanumeric run.
                let end = if ascii {
                    bytes[at..].iter().position(|b| !b.is_ascii_alphanumeric()).map_or(bytes.len(), |i| at + i)
                } else {
                    run_end(haystack, at)
                };
                if let Some(lengths) = self.lengths.get(&haystack[at..end]) {
                    for &len in lengths {
                        let stop = at + len as usize;
                        let Some(candidate) = haystack.get(at..stop) else { continue };
                        if !alnum_at_start(&haystack[stop..]) {
                            let mut next = self.first_index.get(candidate).copied().unwrap_or(NONE);
                            while next != NONE {
                                out.push(next as usize);
                                next = self.same[next as usize];
                            }
                        }
                    }
                }
                at = end;
            }
        }
        if let Some((ac, indexes)) = &self.others {
            for m in ac.find_overlapping_iter(haystack) {
                if bounded(m.start(), m.end()) {
                    out.push(indexes[m.pattern().as_usize()] as usize);
                }
            }
        }
        for &(needle, i) in &self.fallback {
            if super::contains_at_token_boundaries(haystack, needle) {
                out.push(i as usize);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::contains_at_token_boundaries;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The matcher finds exactly the needles that occur at token boundaries.
        #[test]
        fn finds_exactly_the_bounded_needles(
            haystack in "([ab1]{1,3}|[ .,(-]|²|é|x){0,12}",
            needles in proptest::collection::vec("([ab1]{1,3}|[ .,(-]|²|é){0,4}", 0..12),
        ) {
            let matcher = TokenMatcher::new(&needles);
            let expected: Vec<usize> =
                (0..needles.len()).filter(|&i| contains_at_token_boundaries(&haystack, &needles[i])).collect();
            proptest::prop_assert_eq!(matcher.indexes_in(&haystack), expected);
        }
    }

    #[test]
    fn equal_needles_are_all_reported() {
        let needles = ["ab", "x", "ab", "(x", "ab"];
        assert_eq!(TokenMatcher::new(&needles).indexes_in("y ab (x."), vec![0, 1, 2, 3, 4]);
        assert_eq!(TokenMatcher::new(&needles).indexes_in("y ab(x"), vec![0, 1, 2, 4]);
        assert!(TokenMatcher::new(&needles).indexes_in("abab").is_empty());
    }
}
