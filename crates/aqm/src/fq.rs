//! The flow-queue scheduler of FQ-CoDel (RFC 8290 Sections 4-5), generic over the AQM
//! that manages each flow's queue ([`FlowAqm`]): FQ-CoDel is `Fq<P, CodelCore>`, and
//! FQ-PIE is `Fq<P, PieFlow>` ([`crate::fq_pie`]).
//!
//! - **Classification (Section 4.1.1).** A packet's flow id ([`PacketInfo::flow`]) is
//!   hashed with a salt drawn from the scheduler's seed into one of `flows` buckets;
//!   each bucket is a flow queue with its own AQM state. Flows that hash alike share a
//!   queue, as in the RFC.
//! - **Enqueue (Section 4.1).** The packet is timestamped and appended to its flow's
//!   queue; a flow that is on neither list joins the tail of the new-flows list with a
//!   deficit of one `quantum`. When the scheduler then holds more than `limit` packets
//!   or more than `memory_limit` bytes, packets are dropped from the head of the flow
//!   with the most bytes queued (the fattest), up to `drop_batch_size` of them or until
//!   half of that flow's bytes are gone (Section 4.1 and Linux's batch drop).
//! - **Dequeue (Section 4.2).** The first flow of the new list, else of the old list:
//!   if its deficit is not positive it earns a `quantum` and moves to the tail of the
//!   old list, and the search starts again. Otherwise its AQM dequeues a packet (after
//!   any drops of its own); the packet's size is charged to the deficit. A flow whose
//!   queue is empty moves from the new list to the tail of the old list (so that a flow
//!   cannot stay new by sending just enough to empty its queue each round), or, when it
//!   came from the old list, leaves the lists until its next packet.
//!
//! Where the RFC leaves room (see `docs/algorithms.md`): the hash is the 64-bit SplitMix
//! finaliser of `flow XOR salt`, scaled to `flows` by a multiply-shift (Linux hashes the
//! 5-tuple with a random perturbation); an empty new flow always moves to the old list,
//! as the RFC says (Linux removes it instead when the old list is empty); memory is
//! counted as the packets' sizes (Linux counts the buffers' truesize); one batch is
//! dropped per arrival, as Linux and ns-3 do; the fattest flow's CoDel count is left
//! alone by the batch (Linux adds the batch to it, ns-3 does not).

use std::collections::VecDeque;
use std::fmt;

use crate::common::{self, Limit};
use crate::error::{AqmError, Result, check};
use crate::packet::{Backlog, DropReason, Packet, PacketInfo, Verdict};
use crate::qdisc::{Dequeued, Held, PacketQueue, Qdisc};
use crate::queue::{QueueStats, SignalKind};
use crate::time::{Duration, Time};

/// The AQM of one flow queue under [`Fq`]: per-flow state, parameters shared by all
/// flows and passed to every call. It may decide on arrival ([`FlowAqm::on_enqueue`]),
/// must pick the packet to send at dequeue ([`FlowAqm::dequeue`], which may drop first),
/// and may need periodic work on every flow ([`FlowAqm::period`], [`FlowAqm::poll`]).
pub trait FlowAqm: Clone + fmt::Debug {
    /// The parameters all flows share (validated before the scheduler is built).
    type Params: Clone + fmt::Debug + PartialEq;
    /// The state of flow queue `index` (0 to `flows` - 1), which has never held a
    /// packet (the index lets a randomised AQM give each flow its own stream).
    fn new(params: &Self::Params, index: u32) -> Self;
    /// Decide on a packet arriving to this flow's queue, which holds `queue` before it:
    /// [`Verdict::Enqueue`], [`Verdict::Mark`] or [`Verdict::Drop`].
    fn on_enqueue(
        &mut self,
        _params: &Self::Params,
        _now: Time,
        _pkt: &PacketInfo,
        _queue: Backlog,
    ) -> Verdict {
        Verdict::Enqueue
    }
    /// The next packet of `queue` to send at `now`, after any drops, each handed to
    /// `dropped` and counted in `stats` (with any marks made here). `None` only when
    /// the queue is or becomes empty.
    fn dequeue<P: Packet>(
        &mut self,
        params: &Self::Params,
        now: Time,
        queue: &mut PacketQueue<P>,
        stats: &mut QueueStats,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>>;
    /// The period of [`FlowAqm::poll`] on every flow, if the AQM has periodic work.
    fn period(_params: &Self::Params) -> Option<Duration> {
        None
    }
    /// Periodic work at `now` on a flow whose queue holds `queue`.
    fn poll(&mut self, _params: &Self::Params, _now: Time, _queue: Backlog) {}
    /// Packets of this flow were dropped from its head at `now` because the scheduler
    /// was full ([`Overflow::FattestFlow`]'s batch; once per batch). CAKE's COBALT takes
    /// it as BLUE's queue-full event; CoDel and PIE ignore it.
    fn on_overflow(&mut self, _params: &Self::Params, _now: Time) {}
    /// The flow's congestion signal (CoDel's count, PIE's probability).
    fn signal(&self) -> f64 {
        0.0
    }
    /// What [`FlowAqm::signal`] measures.
    fn signal_kind() -> SignalKind {
        SignalKind::None
    }
}

/// Validated, immutable scheduler parameters (RFC 8290 Section 5; Linux's defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct FqParams {
    /// Number of flow queues (hash buckets), 1 to 65536 (Section 5.2.4; 1024).
    pub flows: u32,
    /// DRR quantum, bytes (Section 5.2.3; 1514 = Ethernet MTU + 14 in Linux).
    pub quantum: u32,
    /// Packets the scheduler holds in all, at most (Section 5.2.5; 10240).
    pub limit: u32,
    /// Bytes the scheduler holds in all, at most (Linux; 32 MB).
    pub memory_limit: u64,
    /// Packets dropped at most from the fattest flow per overflow (Linux; 64).
    pub drop_batch_size: u32,
    /// What a full scheduler drops: the fattest flow's head (RFC 8290, FQ-CoDel) or
    /// the arrival (Linux's FQ-PIE).
    pub overflow: Overflow,
    /// Seed of the hash salt.
    pub seed: u64,
}

/// What [`Fq`] drops when it holds `limit` packets or `memory_limit` bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Overflow {
    /// A batch from the head of the flow with the most bytes, after enqueueing the
    /// arrival (RFC 8290 Section 4.1; Linux's and ns-3's FQ-CoDel).
    #[default]
    FattestFlow,
    /// The arriving packet, before it is queued (Linux's `sch_fq_pie`).
    Arrival,
}

impl Default for FqParams {
    fn default() -> Self {
        FqParams {
            flows: 1024,
            quantum: 1514,
            limit: 10240,
            memory_limit: 32 << 20,
            drop_batch_size: 64,
            overflow: Overflow::FattestFlow,
            seed: crate::config::DEFAULT_SEED,
        }
    }
}

/// The largest `flows` (Linux's limit).
pub const MAX_FLOWS: u32 = 65536;

impl FqParams {
    /// Check every parameter; the error names the first one that is wrong.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_FLOWS).contains(&self.flows) {
            return Err(AqmError::invalid("flows", self.flows, format!("1..={MAX_FLOWS}")));
        }
        check::positive_int("quantum", self.quantum as u64)?;
        check::positive_int("limit", self.limit as u64)?;
        check::positive_int("memory_limit", self.memory_limit)?;
        check::positive_int("drop_batch_size", self.drop_batch_size as u64)?;
        Ok(())
    }
}

/// Which list a flow is on (Section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowList {
    /// On neither list: it joins the new list with its next packet.
    Inactive,
    New,
    Old,
}

/// One flow queue: its packets, DRR deficit, list and AQM state.
#[derive(Clone, Debug)]
pub struct Flow<P, A> {
    pub queue: PacketQueue<P>,
    /// DRR deficit, bytes (may go negative by up to one packet).
    pub deficit: i64,
    pub list: FlowList,
    pub aqm: A,
}

/// The flow-queue scheduler over per-flow AQMs `A` (see the module documentation).
#[derive(Clone, Debug)]
pub struct Fq<P, A: FlowAqm> {
    params: FqParams,
    aqm: A::Params,
    /// Salt of the flow hash, drawn from `params.seed`.
    salt: u64,
    flows: Vec<Flow<P, A>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    backlog: Backlog,
    stats: QueueStats,
    /// When the flows' periodic work is next due.
    next_poll: Option<Time>,
}

/// SplitMix64's finaliser: a bijective mix of 64 bits.
#[inline]
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl<P: Packet, A: FlowAqm> Fq<P, A> {
    /// A scheduler with `params.flows` empty flows, each managed by `A` with `aqm`
    /// (already validated by the caller).
    pub fn new(params: FqParams, aqm: A::Params) -> Result<Self> {
        params.validate()?;
        let salt = {
            use rand::Rng;
            common::rng_from_seed(params.seed).random::<u64>()
        };
        let flows = (0..params.flows)
            .map(|i| Flow {
                queue: PacketQueue::default(),
                deficit: 0,
                list: FlowList::Inactive,
                aqm: A::new(&aqm, i),
            })
            .collect();
        let next_poll = A::period(&aqm).map(|p| Time::ZERO + p);
        Ok(Fq {
            params,
            aqm,
            salt,
            flows,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            backlog: Backlog::default(),
            stats: QueueStats::default(),
            next_poll,
        })
    }

    pub fn params(&self) -> &FqParams {
        &self.params
    }
    pub fn aqm_params(&self) -> &A::Params {
        &self.aqm
    }

    /// The bucket of flow id `flow` (Section 4.1.1): a salted hash scaled to `flows`.
    #[inline]
    pub fn bucket(&self, flow: u32) -> usize {
        let h = mix64(flow as u64 ^ self.salt);
        ((h as u128 * self.params.flows as u128) >> 64) as usize
    }

    /// The flow queue of bucket `idx`.
    pub fn flow(&self, idx: usize) -> &Flow<P, A> {
        &self.flows[idx]
    }
    /// The flow queue of bucket `idx`, to set up a test or an experiment.
    pub fn flow_mut(&mut self, idx: usize) -> &mut Flow<P, A> {
        &mut self.flows[idx]
    }
    /// The buckets on the new and the old list, head first.
    pub fn lists(&self) -> (Vec<u32>, Vec<u32>) {
        (self.new_flows.iter().copied().collect(), self.old_flows.iter().copied().collect())
    }

    /// Drop a batch from the head of the fattest flow (Section 4.1; Linux's batch):
    /// up to `drop_batch_size` packets, stopping once half of its bytes are gone; its AQM
    /// is told ([`FlowAqm::on_overflow`]). Returns the bucket and the number of packets
    /// dropped.
    fn drop_fattest(&mut self, now: Time, dropped: &mut dyn FnMut(P, DropReason)) -> (usize, u32) {
        let mut fat = 0;
        let mut most = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.queue.bytes() > most {
                most = f.queue.bytes();
                fat = i;
            }
        }
        let threshold = most / 2;
        let mut len = 0u64;
        let mut n = 0u32;
        let flow = &mut self.flows[fat];
        while let Some(h) = flow.queue.pop_front() {
            let size = h.pkt.info().size as u64;
            len += size;
            n += 1;
            self.backlog.packets -= 1;
            self.backlog.bytes -= size;
            self.stats.record_drop(DropReason::Overflow);
            dropped(h.pkt, DropReason::Overflow);
            if n >= self.params.drop_batch_size || len >= threshold {
                break;
            }
        }
        flow.aqm.on_overflow(&self.aqm, now);
        (fat, n)
    }

    /// Run the flows' periodic work due by `now`.
    fn catch_up(&mut self, now: Time) {
        let (Some(mut t), Some(period)) = (self.next_poll, A::period(&self.aqm)) else {
            return;
        };
        while t <= now {
            for f in &mut self.flows {
                f.aqm.poll(&self.aqm, t, f.queue.backlog());
            }
            t += period;
        }
        self.next_poll = Some(t);
    }
}

impl<P: Packet, A: FlowAqm> Qdisc<P> for Fq<P, A> {
    fn enqueue(&mut self, now: Time, pkt: P, dropped: &mut dyn FnMut(P, DropReason)) -> Verdict {
        self.catch_up(now);
        self.stats.arrivals += 1;
        let info = pkt.info();
        if self.params.overflow == Overflow::Arrival
            && (self.backlog.packets >= self.params.limit
                || self.backlog.bytes + info.size as u64 > self.params.memory_limit)
        {
            self.stats.record_drop(DropReason::Overflow);
            dropped(pkt, DropReason::Overflow);
            return Verdict::Drop(DropReason::Overflow);
        }
        let idx = self.bucket(info.flow);
        let flow = &mut self.flows[idx];
        let verdict = flow.aqm.on_enqueue(&self.aqm, now, &info, flow.queue.backlog());
        let marked = match verdict {
            Verdict::Drop(r) => {
                self.stats.record_drop(r);
                dropped(pkt, r);
                return verdict;
            }
            Verdict::Mark => true,
            Verdict::Enqueue | Verdict::Evict { .. } => false,
        };
        flow.queue.push(Held { pkt, marked, enqueued_at: now });
        if flow.list == FlowList::Inactive {
            flow.list = FlowList::New;
            flow.deficit = self.params.quantum as i64;
            self.new_flows.push_back(idx as u32);
        }
        self.backlog.packets += 1;
        self.backlog.bytes += info.size as u64;
        self.stats.enqueued += 1;
        if marked {
            self.stats.marks += 1;
        }
        if self.backlog.packets <= self.params.limit
            && self.backlog.bytes <= self.params.memory_limit
        {
            return verdict;
        }
        let own_len = self.flows[idx].queue.len();
        let (fat, n) = self.drop_fattest(now, dropped);
        if fat == idx && n as usize == own_len {
            // The batch took the arrival too (the last packet of its flow): it counts
            // as an arrival dropped, not as one enqueued.
            self.stats.enqueued -= 1;
            if marked {
                self.stats.marks -= 1;
            }
            return Verdict::Drop(DropReason::Overflow);
        }
        Verdict::Evict { victim: 0 }
    }

    fn dequeue(
        &mut self,
        now: Time,
        dropped: &mut dyn FnMut(P, DropReason),
    ) -> Option<Dequeued<P>> {
        self.catch_up(now);
        loop {
            let (from_new, idx) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i as usize),
                (None, Some(&i)) => (false, i as usize),
                (None, None) => return None,
            };
            let flow = &mut self.flows[idx];
            if flow.deficit <= 0 {
                // Section 4.2: the flow has used its quantum; it earns another and
                // goes to the tail of the old list.
                flow.deficit += self.params.quantum as i64;
                flow.list = FlowList::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let before = flow.queue.backlog();
            let out = flow.aqm.dequeue(&self.aqm, now, &mut flow.queue, &mut self.stats, dropped);
            let after = flow.queue.backlog();
            self.backlog.packets -= before.packets - after.packets;
            self.backlog.bytes -= before.bytes - after.bytes;
            let Some(d) = out else {
                // An empty flow: from the new list it goes to the tail of the old
                // list; from the old list it leaves the lists.
                if from_new {
                    self.new_flows.pop_front();
                    self.old_flows.push_back(idx as u32);
                    flow.list = FlowList::Old;
                } else {
                    self.old_flows.pop_front();
                    flow.list = FlowList::Inactive;
                }
                continue;
            };
            let size = d.pkt.info().size;
            flow.deficit -= size as i64;
            self.stats.departures += 1;
            self.stats.departed_bytes += size as u64;
            return Some(d);
        }
    }

    fn backlog(&self) -> Backlog {
        self.backlog
    }
    fn limit(&self) -> Limit {
        Limit { packets: Some(self.params.limit), bytes: Some(self.params.memory_limit) }
    }
    fn stats(&self) -> &QueueStats {
        &self.stats
    }
    fn poll_at(&self) -> Option<Time> {
        self.next_poll
    }
    fn poll(&mut self, now: Time) {
        self.catch_up(now)
    }
    /// The largest signal among the flows on the lists.
    fn signal(&self) -> f64 {
        self.new_flows
            .iter()
            .chain(self.old_flows.iter())
            .map(|&i| self.flows[i as usize].aqm.signal())
            .fold(0.0, f64::max)
    }
    fn signal_kind(&self) -> SignalKind {
        A::signal_kind()
    }
    /// `new_flows` and `old_flows`: the flows on each list.
    fn inspect(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("new_flows", self.new_flows.len() as f64);
        out("old_flows", self.old_flows.len() as f64);
    }
}
