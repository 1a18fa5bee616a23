//! The `[[event]]` section: links going down or up, or changing their rate.

use aqm::Time;

use super::links::{MAX_LINK_BPS, Network};
use super::read::{SPACING, rate, secs, ticks};
use super::spec::{Action, EventSpec};
use super::{LinkAction, LinkDef, LinkEvent};
use crate::error::{Result, SimError};

/// Read the `[[event]]` tables.
pub(super) fn read(specs: &[EventSpec], net: &Network) -> Result<Vec<LinkEvent>> {
    let mut events = Vec::with_capacity(specs.len());
    for (i, e) in specs.iter().enumerate() {
        let p = format!("event[{i}]");
        let a = net.node(&e.a, &format!("{p}.a"))?;
        let b = net.node(&e.b, &format!("{p}.b"))?;
        let link = net
            .link_between(a, b)
            .ok_or_else(|| SimError::at(&p, format!("no [[link]] joins {} and {}", e.a, e.b)))?;
        let at = secs(&e.at, &format!("{p}.at"))?;
        let rp = format!("{p}.rate");
        let action = match (e.action, &e.rate) {
            (Action::Rate, Some(q)) => {
                let bps = rate(q, &rp)?;
                if !(1.0..=MAX_LINK_BPS).contains(&bps) {
                    let allowed = format!("a rate in [1, {MAX_LINK_BPS:e}] b/s");
                    return Err(SimError::invalid(&rp, bps, allowed));
                }
                LinkAction::Rate(bps)
            }
            (Action::Rate, None) => {
                let msg = "missing; action = \"rate\" needs the new rate (e.g. \"5Mbps\")";
                return Err(SimError::at(&rp, msg));
            }
            (Action::Down | Action::Up, Some(_)) => {
                return Err(SimError::at(&rp, "allowed only with action = \"rate\""));
            }
            (Action::Down, None) => LinkAction::Down,
            (Action::Up, None) => LinkAction::Up,
        };
        events.push(LinkEvent { at: Time::from_secs_f64(at), link, action });
    }
    Ok(events)
}

/// Every rate an event sets must send the smallest packet of the scenario (`size`
/// bytes, given at `who`) in a time that rounds to at least 1 ns, as a link's rate.
pub(super) fn check_rates(events: &[LinkEvent], size: u32, who: &str) -> Result<()> {
    for (i, e) in events.iter().enumerate() {
        if let LinkAction::Rate(bps) = e.action
            && ticks(8.0 * size as f64 / bps) < 1
        {
            let allowed = format!(
                "a rate <= {:.6e} b/s: the smallest packet ({size} B, {who}) must take at \
                 least 1 ns on the line ({SPACING})",
                8.0 * size as f64 / 0.5e-9
            );
            return Err(SimError::invalid(&format!("event[{i}].rate"), bps, allowed));
        }
    }
    Ok(())
}

/// The links, each at the fastest rate it has during the run (its own, or one an
/// event sets): what the memory budget counts on the lines.
pub(super) fn fastest(links: &[LinkDef], events: &[LinkEvent]) -> Vec<LinkDef> {
    let mut out = links.to_vec();
    for e in events {
        if let LinkAction::Rate(bps) = e.action {
            out[e.link].rate_bps = out[e.link].rate_bps.max(bps);
        }
    }
    out
}
