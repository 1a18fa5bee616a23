//! Drop Tail (`limit` packets) that panics at its `panic_at`-th arrival, or in its
//! constructor with `panic_in_new = true`: the plugin of the tests' bad cases.

use aqm::common::Limit;
use aqm::config::BuildContext;
use aqm::plugin::{Params, PluginAqm};
use aqm::{Backlog, DropReason, PacketInfo, QueueDiscipline, Result, Time, Verdict};

#[derive(Clone)]
pub struct Probe {
    limit: u32,
    panic_at: u64,
    arrivals: u64,
}

impl PluginAqm for Probe {
    fn new(p: &Params, _ctx: &BuildContext) -> Result<Probe> {
        p.only(&["limit", "panic_at", "panic_in_new"])?;
        if p.bool("panic_in_new", false)? {
            panic!("asked to panic in new");
        }
        let limit = p.u64("limit", Some(100))?.unwrap_or(100) as u32;
        Ok(Probe { limit, panic_at: p.u64("panic_at", Some(0))?.unwrap_or(0), arrivals: 0 })
    }
}

impl QueueDiscipline for Probe {
    fn on_arrival(&mut self, _now: Time, _pkt: &PacketInfo, q: Backlog) -> Verdict {
        self.arrivals += 1;
        if self.arrivals == self.panic_at {
            panic!("asked to panic at arrival {}", self.arrivals);
        }
        if q.packets >= self.limit { Verdict::Drop(DropReason::Overflow) } else { Verdict::Enqueue }
    }
    fn on_removed(&mut self, _now: Time, _pkt: &PacketInfo, _after: Backlog, _departed: bool) {}
    fn limit(&self) -> Limit {
        Limit { packets: Some(self.limit), bytes: None }
    }
}

aqm::export_aqm!(Probe);
