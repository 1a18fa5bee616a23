//! The extension point for AQMs from outside the crate: a kind registered under an
//! external `type` is read from a table, built over a FIFO (arrival only) or as a
//! queue asked at dequeue, and gives the verdicts it decides.

use aqm::config::{BuildContext, QueueConfig, parse_queue};
use aqm::external::{self, DequeueVerdict, ExternalAqm, ExternalConfig, ExternalKind};
use aqm::{AnyQdisc, Backlog, DropReason, Limit, PacketInfo, Qdisc, Time, Verdict};

/// Drop Tail at `limit` packets; with `head_drop_over` it also drops at dequeue every
/// packet that waited longer than that many ns.
#[derive(Debug)]
struct Tail {
    limit: u32,
    head_drop_over: Option<u64>,
}

impl ExternalAqm for Tail {
    fn kind(&self) -> &'static str {
        "plugin"
    }
    fn on_arrival(&mut self, _now: Time, _pkt: &PacketInfo, backlog: Backlog) -> Verdict {
        if backlog.packets >= self.limit {
            Verdict::Drop(DropReason::Overflow)
        } else {
            Verdict::Enqueue
        }
    }
    fn decides_at_dequeue(&self) -> bool {
        self.head_drop_over.is_some()
    }
    fn on_dequeue(&mut self, now: Time, _p: &PacketInfo, at: Time, _b: Backlog) -> DequeueVerdict {
        match self.head_drop_over {
            Some(d) if now.0 - at.0 > d => DequeueVerdict::Drop,
            _ => DequeueVerdict::Send,
        }
    }
    fn limit(&self) -> Limit {
        Limit { packets: Some(self.limit), bytes: None }
    }
    fn share(&self) -> Box<dyn ExternalAqm> {
        Box::new(Tail { ..*self })
    }
}

struct TailKind;

impl ExternalKind for TailKind {
    fn name(&self) -> &'static str {
        "plugin"
    }
    fn target_key(&self) -> &'static str {
        "path"
    }
    fn probe(&self, cfg: &ExternalConfig) -> aqm::Result<bool> {
        match cfg.target.as_str() {
            "tail" => Ok(false),
            "tail-at-dequeue" => Ok(true),
            t => Err(aqm::AqmError::config("path", format!("{t}: not a plugin"))),
        }
    }
    fn build(
        &self,
        cfg: &ExternalConfig,
        _ctx: &BuildContext,
    ) -> aqm::Result<Box<dyn ExternalAqm>> {
        let limit = cfg.limit()?.packets.unwrap_or(u32::MAX);
        let head_drop_over = cfg.holds_packets.then_some(1000);
        Ok(Box::new(Tail { limit, head_drop_over }))
    }
}

fn read(text: &str) -> aqm::Result<QueueConfig> {
    static KIND: TailKind = TailKind;
    external::register(&KIND);
    let table: toml::Table = toml::from_str(text).unwrap();
    parse_queue(toml::Value::Table(table), "link[0].queue")
}

#[test]
fn an_arrival_only_kind_runs_over_a_fifo() {
    let cfg = read(
        r#"type = "plugin"
path = "tail"
limit = 3
other = 1.5"#,
    )
    .unwrap();
    assert_eq!(cfg.kind(), "plugin");
    assert!(!cfg.holds_packets());
    assert_eq!(cfg.limit_packets(), Some(3));
    let QueueConfig::External(e) = &cfg else { panic!("{cfg:?}") };
    assert_eq!(e.params.len(), 2);
    let mut q: AnyQdisc<PacketInfo> = cfg.build_qdisc(&BuildContext::default()).unwrap();
    assert!(matches!(q, AnyQdisc::Fifo(_)) && q.external().is_some());
    let mut dropped = 0;
    let v: Vec<Verdict> = (0..5)
        .map(|i| q.enqueue(Time(i), PacketInfo::new(100, 0), &mut |_, _| dropped += 1))
        .collect();
    assert_eq!(v[2], Verdict::Enqueue);
    assert_eq!(v[3], Verdict::Drop(DropReason::Overflow));
    assert_eq!((dropped, q.backlog().packets, q.stats().overflow_drops), (2, 3, 2));
    assert_eq!(q.kind(), "plugin");
}

#[test]
fn a_kind_that_decides_at_dequeue_holds_its_packets() {
    let cfg = read("type = \"plugin\"\npath = \"tail-at-dequeue\"\nlimit = 10").unwrap();
    assert!(cfg.holds_packets());
    assert!(cfg.build(&BuildContext::default()).is_err());
    let mut q: AnyQdisc<PacketInfo> = cfg.build_qdisc(&BuildContext::default()).unwrap();
    assert!(matches!(q, AnyQdisc::External(_)));
    let mut drops = Vec::new();
    // two packets at 0 and one at 5000 ns; at 5500 ns the first two waited over 1000 ns
    for t in [0, 0, 5000] {
        q.enqueue(Time(t), PacketInfo::new(100, t as u32), &mut |p, r| drops.push((p, r)));
    }
    let d = q.dequeue(Time(5500), &mut |p, r| drops.push((p, r))).unwrap();
    assert_eq!((d.pkt.flow, d.enqueued_at), (5000, Time(5000)));
    assert_eq!(drops.len(), 2);
    assert!(drops.iter().all(|(_, r)| *r == DropReason::Early));
    let s = q.stats();
    assert_eq!((s.arrivals, s.enqueued, s.early_drops, s.departures), (3, 3, 2, 1));
    assert!(q.dequeue(Time(6000), &mut |_, _| ()).is_none());
}

#[test]
fn errors_name_the_key() {
    let e = read("type = \"plugin\"\npath = \"nope\"").unwrap_err().to_string();
    assert!(e.contains("link[0].queue.path") && e.contains("not a plugin"), "{e}");
    let e = read("type = \"plugin\"").unwrap_err().to_string();
    assert!(e.contains("link[0].queue.path") && e.contains("missing"), "{e}");
    let e = read("type = \"plugin\"\npath = \"tail\"\nlimit = -1").unwrap_err().to_string();
    assert!(e.contains("link[0].queue.limit"), "{e}");
    let e = read("type = \"plugin\"\npath = \"tail\"\nx = [1]").unwrap_err().to_string();
    assert!(e.contains("link[0].queue.x"), "{e}");
}
