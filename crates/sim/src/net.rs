//! Static shortest-path routing.
//!
//! Link direction `d` of link `l` is `2 l` (a -> b) or `2 l + 1` (b -> a). Routes
//! minimise the sum of link `cost`s (1 per link by default: hop count, as ns-2's
//! static routing does); ties go to the lowest link direction index. A link that is
//! down carries no route; giving the primary path a lower cost than an alternate one
//! makes the alternate a lower-precedence route that takes over only while the primary
//! is down (ARED Fig. 18).
//!
//! Routing sees a link only as an [`Edge`] (its ends and cost); the scenario turns its
//! links into edges (`Scenario::edges`, `Scenario::routes`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NONE: u16 = u16::MAX;

/// A link as routing sees it: the nodes at its ends (ids) and its cost. Link `l`'s
/// direction `2 l` goes from `a` to `b`, `2 l + 1` back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub a: usize,
    pub b: usize,
    pub cost: u32,
}

/// Next-hop table: for each (node, destination), the outgoing link direction.
#[derive(Clone, Debug)]
pub struct Routes {
    n: usize,
    /// Link direction per (node, destination); u16 keeps the table small (cache).
    next: Vec<u16>,
    /// The links the table was computed over.
    edges: Vec<Edge>,
}

impl Routes {
    /// The routes among `nodes` nodes over the links `edges` that are up (`up[l]`).
    pub fn compute(nodes: usize, edges: &[Edge], up: &[bool]) -> Routes {
        let n = nodes;
        // Outgoing directions per node: (dir, to, cost).
        let mut out: Vec<Vec<(u16, usize, u64)>> = vec![Vec::new(); n];
        for (i, l) in edges.iter().enumerate() {
            if !up[i] {
                continue;
            }
            out[l.a].push((2 * i as u16, l.b, l.cost as u64));
            out[l.b].push((2 * i as u16 + 1, l.a, l.cost as u64));
        }
        let mut next = vec![NONE; n * n];
        let mut dist = vec![u64::MAX; n];
        for dst in 0..n {
            // Dijkstra from dst (links are symmetric in cost).
            dist.iter_mut().for_each(|d| *d = u64::MAX);
            dist[dst] = 0;
            let mut heap = BinaryHeap::new();
            heap.push(Reverse((0u64, dst)));
            while let Some(Reverse((d, v))) = heap.pop() {
                if d > dist[v] {
                    continue;
                }
                for &(_, w, c) in &out[v] {
                    let nd = d + c;
                    if nd < dist[w] {
                        dist[w] = nd;
                        heap.push(Reverse((nd, w)));
                    }
                }
            }
            for v in 0..n {
                if v == dst || dist[v] == u64::MAX {
                    continue;
                }
                let mut best: Option<(u64, u16)> = None;
                for &(dir, w, c) in &out[v] {
                    if dist[w] == u64::MAX {
                        continue;
                    }
                    let cand = (c + dist[w], dir);
                    if best.is_none_or(|b| cand < b) {
                        best = Some(cand);
                    }
                }
                if let Some((_, dir)) = best {
                    next[v * n + dst] = dir;
                }
            }
        }
        Routes { n, next, edges: edges.to_vec() }
    }

    /// The number of nodes.
    pub fn nodes(&self) -> usize {
        self.n
    }

    /// The links the routes were computed over.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The link direction leaving `node` towards `dst`, if any.
    #[inline]
    pub fn next(&self, node: usize, dst: usize) -> Option<usize> {
        let d = self.next[node * self.n + dst];
        if d == NONE { None } else { Some(d as usize) }
    }

    /// The link directions from `src` to `dst`, in order (empty if unreachable).
    pub fn path(&self, src: usize, dst: usize) -> Vec<usize> {
        let mut p = Vec::new();
        let mut v = src;
        while v != dst {
            let Some(d) = self.next(v, dst) else { return Vec::new() };
            p.push(d);
            let l = &self.edges[d / 2];
            v = if d % 2 == 0 { l.b } else { l.a };
            if p.len() > self.n {
                return Vec::new();
            }
        }
        p
    }
}
