//! The `[trace]` section: which queues, packets, congestion signals, windows and pcap
//! files to record.

use aqm::Time;

use super::links::Network;
use super::read::{SPACING, int_in, secs, ticks};
use super::spec::{FlowSel, TraceSpec};
use super::{FlowDef, TraceDef};
use crate::error::{Result, SimError};

/// Read the `[trace]` table (no table: no traces).
pub(super) fn read(spec: &Option<TraceSpec>, net: &Network, flows: &[FlowDef]) -> Result<TraceDef> {
    let Some(t) = spec else { return Ok(TraceDef::default()) };
    let dirs = |names: &[String], key: &str| -> Result<Vec<usize>> {
        let path = |i: usize| format!("trace.{key}[{i}]");
        names.iter().enumerate().map(|(i, n)| net.dir(n, &path(i))).collect()
    };
    let queue = dirs(&t.queue, "queue")?;
    let packets = dirs(&t.packets, "packets")?;
    let drops = dirs(&t.drops, "drops")?;
    let pcap = dirs(&t.pcap, "pcap")?;
    let interval = match &t.interval {
        Some(q) => {
            let v = secs(q, "trace.interval")?;
            if v > 0.0 && ticks(v) == 0 {
                let allowed = format!("0 (every arrival) or a time >= 1e-9 s ({SPACING})");
                return Err(SimError::invalid("trace.interval", v, allowed));
            }
            Time::from_secs_f64(v)
        }
        None => Time::from_secs_f64(0.01),
    };
    let cwnd = match &t.cwnd {
        None | Some(FlowSel::All(false)) => Vec::new(),
        Some(FlowSel::All(true)) => (0..flows.len()).filter(|&f| flows[f].kind.is_tcp()).collect(),
        Some(FlowSel::List(l)) => {
            let last = flows.len() as i64 - 1;
            let id = |(i, f): (usize, &i64)| int_in(*f, &format!("trace.cwnd[{i}]"), 0, last);
            l.iter().enumerate().map(|e| id(e).map(|f| f as usize)).collect::<Result<_>>()?
        }
    };
    Ok(TraceDef { queue, interval, packets, drops, cwnd, pcap })
}
