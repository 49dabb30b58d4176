//! The split-copy search of spec 2.6 step 4, for every anchor of a target
//! group at once.
//!
//! The reference searches each identifier anchor separately: from every
//! start position of the group's later members it makes an attempt over
//! up to 8 members, asking each for `frag` (the longest run of whole tokens
//! that spells the identifier from the current position). Two observations
//! make that equivalent to one pass over the group:
//!
//! * An attempt is decided by its first member whose `frag` from position 0
//!   is at least 3 (its *starter*) and the at most 3 members right after it,
//!   so the search's outcome is that of the first starter whose attempt
//!   completes the identifier (or, holding it whole, ends the search empty).
//! * `frag` for many identifiers at once is a walk in a trie of the
//!   identifiers: each token start of a member is followed down the trie
//!   and the nodes reached at token ends are recorded; an identifier's
//!   `frag` is the depth of the deepest recorded node on its path.
//!
//! So for each starter, the identifiers sharing the deepest recorded node
//! form one class that continues together into the next member, walked from
//! that node; deeper recorded nodes are *holes* cut out of the class (their
//! identifiers belong to the deeper class). An identifier is only looked at
//! when a walk reaches its last character, so the cost is the length of the
//! walks, not members × identifiers.

/// The lower-cased ASCII letter/digit runs of a text (spec 2.6 `tokens`),
/// concatenated, with the offset where each token starts and, last, the end.
#[derive(Default)]
pub(super) struct TokenRuns {
    joined: Vec<u8>,
    bounds: Vec<u32>,
}

impl TokenRuns {
    pub(super) fn of(text: &str) -> TokenRuns {
        let mut runs = TokenRuns::default();
        runs.refill(text);
        runs
    }

    /// Replaces the runs with those of `text`, keeping the buffers: the
    /// split search reads every event of a group, and allocating two
    /// vectors per event (growing one of them push by push) cost more than
    /// the scan itself.
    pub(super) fn refill(&mut self, text: &str) {
        let TokenRuns { joined, bounds } = self;
        joined.clear();
        bounds.clear();
        // At most the text's length; growing byte by byte cost more than the scan.
        joined.reserve(text.len());
        let mut in_token = false;
        for &b in text.as_bytes() {
            if b.is_ascii_alphanumeric() {
                if !in_token {
                    bounds.push(joined.len() as u32);
                    in_token = true;
                }
                joined.push(b.to_ascii_lowercase());
            } else {
                // Bytes of non-ASCII characters are never ASCII alphanumeric,
                // so they separate tokens like the characters they belong to.
                in_token = false;
            }
        }
        bounds.push(joined.len() as u32);
    }

    #[cfg(test)]
    pub(super) fn from_tokens(tokens: &[String]) -> TokenRuns {
        let mut joined = Vec::new();
        let mut bounds = Vec::new();
        for t in tokens.iter().filter(|t| !t.is_empty()) {
            bounds.push(joined.len() as u32);
            joined.extend_from_slice(t.as_bytes());
        }
        bounds.push(joined.len() as u32);
        TokenRuns { joined, bounds }
    }
}

const ROOT: u32 = 0;

/// A trie of identifiers with nodes numbered in preorder, so a node's
/// subtree is the id range `n .. n + size`, and a node with children has
/// its first one at `n + 1`.
pub(super) struct IdentifierTrie {
    /// By node, plus a sentinel holding the end of `ends`.
    nodes: Vec<Node>,
    /// Children of nodes with two or more: bytes and nodes, by byte.
    edge_byte: Vec<u8>,
    edge_node: Vec<u32>,
    /// Anchors whose identifier ends at each node, by node.
    ends: Vec<u32>,
    /// The nodes one, two and three bytes below the root, by their path
    /// ([`SHALLOW`] layout; `ROOT` for none). Every token start of every
    /// text is walked from the root and most walks end within three bytes;
    /// these 190 KB stay in cache where the preorder records of the top
    /// levels, spread over the whole trie, do not.
    shallow: Vec<u32>,
}

/// Token and identifier bytes are ASCII letters and digits, lower-cased:
/// 36 symbols, numbered digits first.
const SYMBOLS: usize = 36;

/// Where the nodes `depth` bytes below the root start in `shallow`.
const SHALLOW: [usize; 4] = [0, 0, SYMBOLS, SYMBOLS + SYMBOLS * SYMBOLS];

fn symbol(b: u8) -> usize {
    match b {
        b'0'..=b'9' => usize::from(b - b'0'),
        _ => usize::from(b.wrapping_sub(b'a')) % 26 + 10,
    }
}

/// One trie node, in 14 bytes: the walks read a node's children, subtree
/// and ends from one place. Most nodes below the first few levels have a
/// single child, `n + 1`, whose byte is kept here, so following an
/// identifier down its own chain reads consecutive records (with a million
/// events the trie no longer fits in cache, and three arrays per step cost
/// three misses). Packed: a long trace's identifiers make hundreds of
/// thousands of nodes, built at the obscured-copy pass's memory peak, and
/// padding to 16 bytes was an eighth of them.
#[derive(Clone, Copy, Default)]
#[repr(C, packed(2))]
struct Node {
    /// Start of the children in `edge_byte`/`edge_node` (two or more children).
    edges: u32,
    size: u32,
    /// Start of the node's anchors in `ends` (they end at the next node's start).
    ends: u32,
    children: u8,
    /// The byte of the only child, when there is one.
    only: u8,
}

impl IdentifierTrie {
    /// The trie of `identifiers` (anchor position, identifier).
    pub(super) fn new(identifiers: &[(usize, &str)]) -> IdentifierTrie {
        let mut items: Vec<(&[u8], u32)> = identifiers.iter().map(|&(pos, g)| (g.as_bytes(), pos as u32)).collect();
        crate::util::sort(&mut items);
        // Inserting sorted strings creates nodes in preorder, and each
        // node's children in byte order: one per byte after the prefix
        // shared with the previous string, counted first so that no list
        // grows by doubling (a long trace's analysis peaks in memory here).
        let count = 1 + items
            .iter()
            .scan(&[][..], |previous: &mut &[u8], &(g, _)| {
                let common = previous.iter().zip(g).take_while(|(a, b)| a == b).count();
                *previous = g;
                Some(g.len() - common)
            })
            .sum::<usize>();
        let mut parent: Vec<u32> = Vec::with_capacity(count);
        parent.push(ROOT);
        let mut byte: Vec<u8> = Vec::with_capacity(count);
        byte.push(0);
        let mut path: Vec<u32> = vec![ROOT];
        let mut end_nodes: Vec<u32> = Vec::with_capacity(items.len());
        let mut ends = Vec::with_capacity(items.len());
        let mut shallow = vec![ROOT; SHALLOW[3] + SYMBOLS.pow(3)];
        let mut previous: &[u8] = &[];
        for &(g, pos) in &items {
            let common = previous.iter().zip(g).take_while(|(a, b)| a == b).count();
            path.truncate(common + 1);
            for (depth, &b) in g.iter().enumerate().skip(common) {
                let node = parent.len() as u32;
                parent.push(path[path.len() - 1]);
                byte.push(b);
                path.push(node);
                if depth < 3 {
                    let key = g[..=depth].iter().fold(0, |key, &b| key * SYMBOLS + symbol(b));
                    shallow[SHALLOW[depth + 1] + key] = node;
                }
            }
            // Identifiers come sorted, so each node's anchors are consecutive.
            end_nodes.push(path[g.len()]);
            ends.push(pos);
            previous = g;
        }
        let n = parent.len();
        let mut nodes = vec![Node { size: 1, ..Node::default() }; n + 1];
        for node in (1..n).rev() {
            let p = parent[node] as usize;
            nodes[p].size += nodes[node].size;
            nodes[p].children += 1;
            nodes[p].only = byte[node];
        }
        // Children of branching nodes, grouped by parent in node order
        // (each parent's in byte order). `edges` serves as the fill cursor.
        let mut total = 0;
        for record in &mut nodes {
            if record.children >= 2 {
                record.edges = total;
                total += u32::from(record.children);
            }
        }
        let mut edge_byte = vec![0u8; total as usize];
        let mut edge_node = vec![0u32; total as usize];
        for node in 1..n {
            let record = &mut nodes[parent[node] as usize];
            if record.children >= 2 {
                edge_byte[record.edges as usize] = byte[node];
                edge_node[record.edges as usize] = node as u32;
                record.edges += 1;
            }
        }
        let mut at = 0;
        for (node, record) in nodes.iter_mut().enumerate() {
            if record.children >= 2 {
                record.edges -= u32::from(record.children);
            }
            while at < end_nodes.len() && (end_nodes[at] as usize) < node {
                at += 1;
            }
            record.ends = at as u32;
        }
        IdentifierTrie { nodes, edge_byte, edge_node, ends, shallow }
    }

    fn child(&self, node: u32, b: u8) -> Option<u32> {
        let record = &self.nodes[node as usize];
        match record.children {
            0 => None,
            1 => (record.only == b).then_some(node + 1),
            count => {
                let range = record.edges as usize..record.edges as usize + usize::from(count);
                let bytes = &self.edge_byte[range.clone()];
                let i = if bytes.len() <= 8 {
                    bytes.iter().position(|&x| x == b)?
                } else {
                    bytes.binary_search(&b).ok()?
                };
                Some(self.edge_node[range.start + i])
            }
        }
    }

    /// Whether `inner` is `outer` or below it.
    fn holds(&self, outer: u32, inner: u32) -> bool {
        outer <= inner && inner < outer + self.nodes[outer as usize].size
    }

    /// Per node, the earliest `first_seen` (indexed by anchor) of the
    /// anchors whose identifier ends in its subtree (`u32::MAX` for none;
    /// positions fit in `u32`, as [`super::obscured::Scanned`] keeps them).
    /// An attempt can only record anchors first seen before its starter, so
    /// a class whose subtree holds none is not followed.
    pub(super) fn earliest_below(&self, first_seen: &[usize]) -> Vec<u32> {
        let n = self.nodes.len() - 1;
        let mut earliest = vec![u32::MAX; n];
        for node in (0..n).rev() {
            let own = self.ends_at(node as u32).iter().map(|&a| first_seen[a as usize]).min();
            let mut e = own.map_or(u32::MAX, |f| f as u32);
            // Children in preorder: the first at `node + 1`, each next one
            // past the previous one's subtree.
            let end = node + self.nodes[node].size as usize;
            let mut child = node + 1;
            while child < end {
                e = e.min(earliest[child]);
                child += self.nodes[child].size as usize;
            }
            earliest[node] = e;
        }
        earliest
    }

    /// The anchors whose identifier ends at `node`.
    fn ends_at(&self, node: u32) -> &[u32] {
        &self.ends[self.nodes[node as usize].ends as usize..self.nodes[node as usize + 1].ends as usize]
    }

    /// The anchors whose identifier `runs` spells exactly as a run of whole
    /// tokens, ascending.
    pub(super) fn spelled_by(&self, runs: &TokenRuns) -> Vec<usize> {
        let mut reached = Vec::new();
        self.walk(ROOT, 0, runs, &mut reached);
        let mut out: Vec<usize> =
            reached.iter().flat_map(|&(node, _)| self.ends_at(node)).map(|&a| a as usize).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The nodes (with their depth) reached at a token end when each token
    /// start of `runs` is followed down from `from` (at depth `from_depth`),
    /// sorted and without repeats.
    fn walk(&self, from: u32, from_depth: u32, runs: &TokenRuns, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let bounds = &runs.bounds;
        for i in 0..bounds.len().saturating_sub(1) {
            let (start, mut next) = (bounds[i] as usize, i + 1);
            let mut node = from;
            let mut key = 0;
            for (at, &b) in runs.joined.iter().enumerate().skip(start) {
                let depth = at - start;
                node = if from == ROOT && depth < 3 {
                    key = key * SYMBOLS + symbol(b);
                    match self.shallow[SHALLOW[depth + 1] + key] {
                        ROOT => break,
                        child => child,
                    }
                } else {
                    let Some(child) = self.child(node, b) else { break };
                    child
                };
                if at + 1 == bounds[next] as usize {
                    out.push((node, from_depth + (at + 1 - start) as u32));
                    next += 1;
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// An attempt reads its starter and at most the 3 members after it.
const ATTEMPT_MEMBERS: usize = 4;

/// One group's search state.
struct GroupSearch<'a> {
    trie: &'a IdentifierTrie,
    /// Event indexes of the group's members, in trace order.
    members: &'a [usize],
    /// Fills in the tokens of member `i`.
    runs_of: &'a dyn Fn(usize, &mut TokenRuns),
    /// The tokens of members `window_start..`, only as many as the current
    /// attempt can read (all members' tokens at once would take about the
    /// size of the group's texts).
    window: std::collections::VecDeque<TokenRuns>,
    window_start: usize,
    /// Buffers of members that left the window, refilled for the next ones.
    spare: Vec<TokenRuns>,
    first_seen: &'a [usize],
    /// [`IdentifierTrie::earliest_below`].
    earliest: &'a [u32],
    /// Anchors whose search is decided, by anchor position.
    decided: Vec<bool>,
    found: Vec<(usize, Vec<usize>)>,
}

impl GroupSearch<'_> {
    /// The first resolving attempt of an anchor decides its search; the
    /// starter must come after the anchor was first seen in clear.
    fn resolve(&mut self, anchor: u32, starter: usize, used: Option<&[usize]>) {
        if self.first_seen[anchor as usize] < starter && !self.decided[anchor as usize] {
            self.decided[anchor as usize] = true;
            if let Some(used) = used {
                self.found.push((anchor as usize, used.to_vec()));
            }
        }
    }

    /// Whether the class at `node` holds an anchor first seen before the
    /// starter `t` (only those can be recorded by its attempt).
    fn may_record(&self, node: u32, t: usize) -> bool {
        (self.earliest[node as usize] as usize) < self.members[t]
    }

    fn runs(&self, member: usize) -> &TokenRuns {
        &self.window[member - self.window_start]
    }

    /// Holds the tokens of the members an attempt from starter `t` can read.
    fn slide_to(&mut self, t: usize) {
        while self.window_start < t {
            self.spare.extend(self.window.pop_front());
            self.window_start += 1;
        }
        let end = (t + ATTEMPT_MEMBERS).min(self.members.len());
        while self.window_start + self.window.len() < end {
            let mut next = self.spare.pop().unwrap_or_default();
            (self.runs_of)(self.window_start + self.window.len(), &mut next);
            self.window.push_back(next);
        }
    }

    fn run(&mut self) {
        let mut reached = Vec::new();
        for t in 0..self.members.len() {
            self.slide_to(t);
            self.trie.walk(ROOT, 0, self.runs(t), &mut reached);
            reached.retain(|&(_, depth)| depth >= 3);
            let starter = self.members[t];
            for &(node, depth) in &reached {
                // Held whole as the first fragment: the search ends, empty-handed.
                for &anchor in self.trie.ends_at(node) {
                    self.resolve(anchor, starter, None);
                }
                if t + 1 < self.members.len() && self.may_record(node, t) {
                    let holes: Vec<u32> =
                        reached.iter().map(|&(h, _)| h).filter(|&h| h != node && self.trie.holds(node, h)).collect();
                    self.extend(node, depth, &holes, &[starter], t, t + 1);
                }
            }
        }
    }

    /// Continues the attempt of starter `t` for the class at `node` (minus
    /// `holes`) into member `m`.
    fn extend(&mut self, node: u32, depth: u32, holes: &[u32], used: &[usize], t: usize, m: usize) {
        let mut reached = Vec::new();
        self.trie.walk(node, depth, self.runs(m), &mut reached);
        let mut used = used.to_vec();
        used.push(self.members[m]);
        for &(next, next_depth) in &reached {
            if holes.iter().any(|&h| self.trie.holds(h, next)) {
                continue;
            }
            for &anchor in self.trie.ends_at(next) {
                self.resolve(anchor, self.members[t], Some(&used));
            }
            if next_depth - depth >= 3
                && used.len() < ATTEMPT_MEMBERS
                && m + 1 < self.members.len()
                && self.may_record(next, t)
            {
                let mut deeper = holes.to_vec();
                deeper.extend(reached.iter().map(|&(h, _)| h).filter(|&h| h != next && self.trie.holds(next, h)));
                self.extend(next, next_depth, &deeper, &used, t, m + 1);
            }
        }
    }
}

/// The split copies of one target group: for each anchor whose search
/// ends with a result, (anchor position, the fragment members' event
/// indexes), in anchor order. `runs_of(i, runs)` fills `runs` with the
/// tokens of `members[i]` (asked for once each, in order); `first_seen` is
/// indexed by anchor position, `earliest` is the trie's
/// [`earliest_below`](IdentifierTrie::earliest_below) of it.
pub(super) fn split_copies_in_group(
    trie: &IdentifierTrie,
    members: &[usize],
    runs_of: &dyn Fn(usize, &mut TokenRuns),
    first_seen: &[usize],
    earliest: &[u32],
) -> Vec<(usize, Vec<usize>)> {
    let decided = vec![false; first_seen.len()];
    let window = std::collections::VecDeque::with_capacity(ATTEMPT_MEMBERS);
    let mut search = GroupSearch {
        trie,
        members,
        runs_of,
        window,
        window_start: 0,
        spare: Vec::new(),
        first_seen,
        earliest,
        decided,
        found: Vec::new(),
    };
    search.run();
    let mut found = search.found;
    crate::util::sort_by_key(&mut found, |(anchor, _)| *anchor);
    found
}
