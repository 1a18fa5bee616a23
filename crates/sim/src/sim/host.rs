//! The hosts at a flow's ends: packets arriving at their destination, the TCP sender
//! and receiver driven by them and by their timers, and what the hosts send.
//!
//! TCP's state machines live in [`crate::tcp`]; here they are told the time and the
//! packet, append what they send to `Sim::out`, and expose deadlines. A timer is a
//! deadline: one event per flow and side is kept pending at or before it (`sync`) and
//! re-checks it when it fires, so an ACK that restarts the timer costs no event.

use aqm::Time;
use rand::Rng;

use super::Sim;
use super::event::Kind;
use super::flow::{expo, ns};
use crate::packet::Pkt;
use crate::tcp::TcpSender;
use crate::trace::Traces;

impl Sim {
    /// Send every packet in `self.out` from `node`.
    #[inline(always)]
    pub(super) fn flush(&mut self, node: usize) {
        let (from, to) = (self.out_from, self.out.len());
        if from == to {
            return;
        }
        // (a host acting within another's flush appends behind it and sends only its own)
        self.out_from = to;
        for i in from..to {
            if self.has_web
                && let Some(w) = self.flows[self.out[i].flow as usize].web.as_ref()
            {
                // (other flows' epoch byte is theirs: a SACK ACK's tag)
                self.out[i].epoch = w.epoch;
            }
            // (a whole copy, never one changed field by field: so the packet is handed
            // on as it lies, not rebuilt from its fields)
            let p = self.out[i];
            self.forward(node, p);
        }
        self.out.truncate(from);
        self.out_from = from;
    }

    /// A packet reached its destination node.
    #[inline]
    pub(super) fn receive(&mut self, pkt: Pkt) {
        let now = self.now;
        let f = pkt.flow as usize;
        let in_win = now >= self.w0 && now <= self.w1;
        let fl = &mut self.flows[f];
        if self.has_web && fl.web.as_ref().is_some_and(|w| w.epoch != pkt.epoch) {
            return; // a straggler of an earlier transfer on this connection
        }
        if fl.tcp.is_none() {
            if in_win {
                fl.mon.delivered += 1;
                fl.mon.delivered_bytes += pkt.size as u64;
            }
        } else if pkt.is_ack() {
            self.ack_arrives(f, &pkt, in_win);
        } else {
            self.data_arrives(f, &pkt, in_win);
        }
    }

    /// An ACK reaches flow `f`'s sender.
    #[inline(always)]
    fn ack_arrives(&mut self, f: usize, pkt: &Pkt, in_win: bool) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let s = &mut fl.tcp.as_mut().expect("a TCP flow").0;
        let before = s.cwnd;
        fl.mon.cwnd_change(self.w0, self.w1, now, before);
        let max = if fl.prep_delay > 0.0 { 0 } else { u32::MAX };
        s.on_ack(Time(now), pkt, &mut self.out, max);
        let cw = s.cwnd;
        fl.mon.cwnd_set(cw);
        if fl.trace_cwnd
            && cw != before
            && let Some(t) = self.traces.as_mut()
        {
            trace_window(t, s, fl.packet_size, (now, f));
        }
        let done = s.done_at.is_some();
        let node = fl.src as usize;
        if done && fl.web.as_ref().is_some_and(|w| w.busy) {
            self.web_done(f, in_win);
        }
        self.flush(node);
        self.sync::<true, false>(f);
    }

    /// A data packet reaches flow `f`'s receiver.
    #[inline(always)]
    fn data_arrives(&mut self, f: usize, pkt: &Pkt, in_win: bool) {
        let fl = &mut self.flows[f];
        if fl.mon.first_data.is_none() {
            fl.mon.first_data = Some(self.now);
        }
        let r = &mut fl.tcp.as_mut().expect("a TCP flow").1;
        let n = r.on_data(Time(self.now), pkt, &mut self.out);
        if in_win && n > 0 {
            fl.mon.delivered += n as u64;
            fl.mon.delivered_bytes += n as u64 * fl.packet_size as u64;
        }
        let node = fl.dst as usize;
        self.flush(node);
        self.sync::<false, true>(f);
    }

    /// Make sure a timer event is pending at or before each of the flow's deadlines.
    #[inline]
    pub(super) fn sync_timers(&mut self, f: usize) {
        self.sync::<true, true>(f);
    }

    /// `sync_timers` for the deadlines a side can have moved: the sender's timer and
    /// the preparation delay's send event (`SENDER`), the receiver's delayed ACK
    /// (`RECEIVER`). Each side's events sync only that side, which is also what lets
    /// the two sides of a flow run on different threads (see `parts`).
    #[inline(always)]
    pub(super) fn sync<const SENDER: bool, const RECEIVER: bool>(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let Some(tcp) = fl.tcp.as_ref() else { return };
        if SENDER
            && let Some(d) = tcp.0.rtx_deadline
            && fl.timers.rto_at.is_none_or(|a| a > d.0)
        {
            fl.timers.rto_at = Some(d.0);
            self.q.push(d, Kind::Rto.at(f));
        }
        if RECEIVER
            && let Some(d) = tcp.1.delack_deadline
            && fl.timers.delack_at.is_none_or(|a| a > d.0)
        {
            fl.timers.delack_at = Some(d.0);
            self.q.push(d, Kind::Delack.at(f));
        }
        if SENDER
            && fl.prep_delay > 0.0
            && fl.timers.send_at.is_none()
            && tcp.0.started
            && tcp.0.can_send()
        {
            let at = self.now + ns(fl.rng.random::<f64>() * fl.prep_delay);
            fl.timers.send_at = Some(at);
            self.schedule(at, Kind::Send, f);
        }
    }

    /// Flow `f`'s TCP sender may send: its start, or a send event of the preparation
    /// delay.
    pub(super) fn tcp_send(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        let tcp = fl.tcp.as_mut().expect("a TCP flow");
        fl.timers.send_at = None;
        let max = if fl.prep_delay > 0.0 { 1 } else { u32::MAX };
        if !tcp.0.started {
            fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
            if let super::flow::Source::Telnet { mean } = fl.source {
                let at = now + ns(expo(&mut fl.rng, mean));
                self.q.push(Time(at), Kind::App.at(f));
            }
            tcp.0.start(Time(now), &mut self.out, if fl.prep_delay > 0.0 { 0 } else { max });
        } else {
            tcp.0.send_much(Time(now), &mut self.out, max);
        }
        let node = fl.src as usize;
        self.flush(node);
        self.sync::<true, false>(f);
    }

    /// A TELNET source writes one packet; the next write is `mean` s away on average.
    pub(super) fn telnet_write(&mut self, f: usize, mean: f64) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if let Some(tcp) = fl.tcp.as_mut() {
            tcp.0.app_limit += 1;
            let max = if fl.prep_delay > 0.0 { 0 } else { u32::MAX };
            tcp.0.send_much(Time(now), &mut self.out, max);
        }
        let at = now + ns(expo(&mut fl.rng, mean));
        self.q.push(Time(at), Kind::App.at(f));
        let node = fl.src as usize;
        self.flush(node);
        self.sync::<true, false>(f);
    }

    /// Flow `f`'s retransmission deadline may have passed.
    pub(super) fn on_rto(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.timers.rto_at != Some(now) {
            return;
        }
        fl.timers.rto_at = None;
        let Some(tcp) = fl.tcp.as_mut() else { return };
        if tcp.0.rtx_deadline.is_some_and(|d| d.0 <= now) {
            fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
            let max = if fl.prep_delay > 0.0 { 0 } else { u32::MAX };
            let (timeouts, before) = (tcp.0.stats.timeouts, tcp.0.cwnd);
            tcp.0.on_timeout(Time(now), &mut self.out, max);
            // The retransmission goes out at once, prep delay or not.
            if max == 0 {
                tcp.0.send_much(Time(now), &mut self.out, 1);
            }
            fl.mon.cwnd_change(self.w0, self.w1, now, tcp.0.cwnd);
            // (RACK-TLP's reorder timer and probe share the deadline: not timeouts)
            if tcp.0.stats.timeouts > timeouts && fl.timeout_times.len() < 10_000 {
                fl.timeout_times.push(now);
            }
            // (a paced sender's deadline is also its departure time: no row for a
            // release that changed nothing)
            let quiet = tcp.0.p.pacing.is_some()
                && tcp.0.stats.timeouts == timeouts
                && tcp.0.cwnd == before;
            if fl.trace_cwnd
                && !quiet
                && let Some(t) = self.traces.as_mut()
            {
                t.cwnd(now, f, tcp.0.cwnd, tcp.0.ssthresh);
            }
            let node = fl.src as usize;
            self.flush(node);
        }
        self.sync::<true, false>(f);
    }

    /// Flow `f`'s delayed-ACK deadline may have passed.
    pub(super) fn on_delack(&mut self, f: usize) {
        let now = self.now;
        let fl = &mut self.flows[f];
        if fl.timers.delack_at != Some(now) {
            return;
        }
        fl.timers.delack_at = None;
        let Some(tcp) = fl.tcp.as_mut() else { return };
        if tcp.1.delack_deadline.is_some_and(|d| d.0 <= now) {
            tcp.1.on_delack(&mut self.out);
            let node = fl.dst as usize;
            self.flush(node);
        }
        self.sync::<false, true>(f);
    }
}

/// A traced flow's window changed at an ACK: its row, and BBR's state (at `now`, of
/// flow `f`).
#[inline(never)]
fn trace_window(t: &mut Traces, s: &TcpSender, size: u32, (now, f): (u64, usize)) {
    t.cwnd(now, f, s.cwnd, s.ssthresh);
    if let Some(row) = super::flow::bbr_row(s, size) {
        t.bbr(now, f, &row);
    }
}
