//! The `[[event]]` section: links going down or up.

use aqm::Time;

use super::LinkEvent;
use super::links::Network;
use super::read::secs;
use super::spec::{Action, EventSpec};
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
        events.push(LinkEvent { at: Time::from_secs_f64(at), link, up: e.action == Action::Up });
    }
    Ok(events)
}
