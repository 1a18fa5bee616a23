//! The `[[link]]` section: the links, the nodes they name (in order of appearance)
//! and the lookups of nodes and link directions by name that later sections use.

use std::collections::BTreeMap;

use aqm::config::{BuildContext, DropTailConfig};
use aqm::{QueueConfig, Time};

use super::read::{SPACING, int_in, rate, secs, ticks};
use super::spec::LinkSpec;
use super::{DEFAULT_QUEUE_LIMIT, LinkDef};
use crate::error::{Result, SimError};

/// The network the links define.
pub(super) struct Network {
    /// Node names; a node's id is its index.
    pub nodes: Vec<String>,
    pub links: Vec<LinkDef>,
    ids: BTreeMap<String, usize>,
    /// Link direction names ("a->b"), by index.
    dirs: Vec<String>,
}

impl Network {
    /// Read the `[[link]]` tables.
    pub fn read(specs: &[LinkSpec]) -> Result<Network> {
        if specs.is_empty() {
            return Err(SimError::at("link", "missing; a scenario needs at least one [[link]]"));
        }
        let mut net = Network {
            nodes: Vec::new(),
            links: Vec::new(),
            ids: BTreeMap::new(),
            dirs: Vec::new(),
        };
        let mut pairs = BTreeMap::new();
        for (i, l) in specs.iter().enumerate() {
            let p = format!("link[{i}]");
            let a = net.add_node(&l.a, &format!("{p}.a"))?;
            let b = net.add_node(&l.b, &format!("{p}.b"))?;
            if a == b {
                return Err(SimError::invalid(
                    &format!("{p}.b"),
                    format!("{:?}", l.b),
                    format!("a node other than a ({:?})", l.a),
                ));
            }
            if let Some(j) = pairs.insert((a.min(b), a.max(b)), i) {
                return Err(SimError::at(
                    &p,
                    format!("joins {} and {} like link[{j}]; one link per pair of nodes", l.a, l.b),
                ));
            }
            net.links.push(link(l, a, b, &p)?);
        }
        if net.nodes.len() > u16::MAX as usize {
            let n = net.nodes.len();
            return Err(SimError::at("link", format!("{n} nodes; at most {}", u16::MAX)));
        }
        if net.links.len() >= (u16::MAX / 2) as usize {
            let n = net.links.len();
            return Err(SimError::at("link", format!("{n} links; at most {}", u16::MAX / 2 - 1)));
        }
        net.dirs =
            (0..2 * net.links.len()).map(|d| super::dir_name(&net.nodes, &net.links, d)).collect();
        Ok(net)
    }

    /// The id of node `name` (`path` is where the name was given), adding it if new.
    fn add_node(&mut self, name: &str, path: &str) -> Result<usize> {
        if name.is_empty() {
            return Err(SimError::invalid(path, "\"\"", "a non-empty node name"));
        }
        if let Some(&i) = self.ids.get(name) {
            return Ok(i);
        }
        self.nodes.push(name.to_string());
        self.ids.insert(name.to_string(), self.nodes.len() - 1);
        Ok(self.nodes.len() - 1)
    }

    /// The id of the node named `name`, given at `path`.
    pub fn node(&self, name: &str, path: &str) -> Result<usize> {
        self.ids.get(name).copied().ok_or_else(|| {
            SimError::invalid(
                path,
                format!("{name:?}"),
                format!("a node named in a [[link]]: {}", self.nodes.join(", ")),
            )
        })
    }

    /// The link direction named `name` ("a->b"), given at `path`.
    pub fn dir(&self, name: &str, path: &str) -> Result<usize> {
        self.dirs.iter().position(|d| d == name).ok_or_else(|| {
            SimError::invalid(
                path,
                format!("{name:?}"),
                "a link direction written \"a->b\" for a [[link]] between nodes a and b",
            )
        })
    }

    /// The link joining nodes `a` and `b`, either way.
    pub fn link_between(&self, a: usize, b: usize) -> Option<usize> {
        self.links.iter().position(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a))
    }
}

/// Link `l` (at `p`, `link[i]`) between nodes `a` and `b`.
fn link(l: &LinkSpec, a: usize, b: usize, p: &str) -> Result<LinkDef> {
    let rate_bps = rate(&l.rate, &format!("{p}.rate"))?;
    if !(1.0..=MAX_LINK_BPS).contains(&rate_bps) {
        let allowed = format!("a rate in [1, {MAX_LINK_BPS:e}] b/s");
        return Err(SimError::invalid(&format!("{p}.rate"), rate_bps, allowed));
    }
    let delay = secs(&l.delay, &format!("{p}.delay"))?;
    let read = |t: &Option<aqm::config::QueueTable>, key: &str| -> Result<Option<QueueConfig>> {
        Ok(match t {
            Some(t) => Some(t.config(&format!("{p}.{key}"))?),
            None => None,
        })
    };
    let both = read(&l.queue, "queue")?.unwrap_or_else(|| {
        QueueConfig::DropTail(DropTailConfig {
            limit: Some(DEFAULT_QUEUE_LIMIT),
            ..Default::default()
        })
    });
    let queue_ab = read(&l.queue_ab, "queue_ab")?.unwrap_or_else(|| both.clone());
    let queue_ba = read(&l.queue_ba, "queue_ba")?.unwrap_or_else(|| both.clone());
    // A queue is checked under the key that gave it.
    let given =
        |side: &str, own: bool| if own { format!("{p}.{side}") } else { format!("{p}.queue") };
    let queue_paths =
        [given("queue_ab", l.queue_ab.is_some()), given("queue_ba", l.queue_ba.is_some())];
    check_queue(&queue_ab, rate_bps, &queue_paths[0])?;
    check_queue(&queue_ba, rate_bps, &queue_paths[1])?;
    let cost = int_in(l.cost.unwrap_or(1), &format!("{p}.cost"), 1, 1 << 20)? as u32;
    let device_queue =
        int_in(l.device_queue.unwrap_or(0), &format!("{p}.device_queue"), 0, MAX_DEVICE_QUEUE)?
            as u32;
    let delay = Time::from_secs_f64(delay);
    Ok(LinkDef { a, b, rate_bps, delay, queue_ab, queue_ba, queue_paths, cost, device_queue })
}

/// The fastest link, b/s (a link direction keeps its rate as a whole number of b/s
/// in [1, 1e15]).
pub const MAX_LINK_BPS: f64 = 1e15;

/// The most packets a link's device queue (`device_queue`) may hold.
pub const MAX_DEVICE_QUEUE: i64 = 1024;

/// Every link must send the smallest packet of the scenario (`size` bytes, given at
/// `who`) in a time that rounds to at least 1 ns.
pub(super) fn check_rates(links: &[LinkDef], size: u32, who: &str) -> Result<()> {
    for (i, l) in links.iter().enumerate() {
        if ticks(8.0 * size as f64 / l.rate_bps) < 1 {
            let allowed = format!(
                "a rate <= {:.6e} b/s: the smallest packet ({size} B, {who}) must take at \
                 least 1 ns on the line ({SPACING})",
                8.0 * size as f64 / 0.5e-9
            );
            return Err(SimError::invalid(&format!("link[{i}].rate"), l.rate_bps, allowed));
        }
    }
    Ok(())
}

/// Check a queue configuration by building it as the run will: a discipline that
/// holds its packets (CoDel, FQ-CoDel, ...) as a qdisc, the others on arrival.
fn check_queue(q: &QueueConfig, rate_bps: f64, path: &str) -> Result<()> {
    let r = std::panic::catch_unwind(|| {
        let ctx = BuildContext { link_rate_bps: Some(rate_bps), seed: Some(1) };
        if q.holds_packets() {
            q.build_qdisc::<aqm::PacketInfo>(&ctx).map(drop)
        } else {
            q.build(&ctx).map(drop)
        }
    });
    match r {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e.at(path).into()),
        Err(_) => Err(SimError::at(
            path,
            format!("the {} discipline is not available in this build", q.kind()),
        )),
    }
}
