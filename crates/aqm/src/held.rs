//! A FIFO of held packets with its byte count: the buffer the packet-holding qdiscs of
//! this crate (PIE, CHOKe, DualPI2's two queues) keep their packets in, each packet with
//! its enqueue time and whether it was marked at enqueue.

use std::collections::VecDeque;

use crate::packet::{Backlog, Packet};
use crate::qdisc::{Dequeued, Held};
use crate::time::Time;

/// Packets waiting, head first, with their total size.
#[derive(Clone, Debug)]
pub struct HeldQueue<P> {
    buf: VecDeque<Held<P>>,
    /// Bytes waiting.
    bytes: u64,
}

impl<P> Default for HeldQueue<P> {
    fn default() -> Self {
        HeldQueue { buf: VecDeque::new(), bytes: 0 }
    }
}

impl<P: Packet> HeldQueue<P> {
    /// Packets and bytes waiting.
    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog { packets: self.buf.len() as u32, bytes: self.bytes }
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    /// Add a packet at the tail.
    #[inline]
    pub fn push(&mut self, now: Time, pkt: P, marked: bool) {
        self.bytes += pkt.info().size as u64;
        self.buf.push_back(Held { pkt, marked, enqueued_at: now });
    }
    /// Take the head packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Dequeued<P>> {
        let h = self.buf.pop_front()?;
        self.bytes -= h.pkt.info().size as u64;
        Some(Dequeued { pkt: h.pkt, marked: h.marked, enqueued_at: h.enqueued_at })
    }
    /// The head packet, if any.
    pub fn head(&self) -> Option<&Held<P>> {
        self.buf.front()
    }
    /// The packet at position `idx` (0 = head).
    pub fn get(&self, idx: usize) -> Option<&Held<P>> {
        self.buf.get(idx)
    }
    /// Remove the packet at position `idx` (0 = head).
    pub fn remove(&mut self, idx: usize) -> Option<Held<P>> {
        let h = self.buf.remove(idx)?;
        self.bytes -= h.pkt.info().size as u64;
        Some(h)
    }
    /// The packets waiting, head first.
    pub fn iter(&self) -> impl Iterator<Item = &Held<P>> {
        self.buf.iter()
    }
}
