//! The simulated packet: a 16-byte `Copy` struct, stored by value in the link FIFOs.

use aqm::PacketInfo;

/// Flag bits of [`Pkt::flags`].
pub mod flags {
    /// A TCP acknowledgement (else data).
    pub const ACK: u8 = 1;
    /// ECN-capable transport.
    pub const ECT: u8 = 2;
    /// Congestion experienced (set by a marking queue).
    pub const CE: u8 = 4;
    /// ECN echo, on ACKs.
    pub const ECE: u8 = 8;
    /// Congestion window reduced, on data.
    pub const CWR: u8 = 16;
    /// A retransmission (for traces), on data.
    pub const RETX: u8 = 32;
    /// AccECN's AE flag, on ACKs (the ACE field's high bit; ECE and CWR its others).
    pub const AE: u8 = 32;
    /// Set on a link direction's own copy of a packet already handed to the next
    /// direction (an express hop): no delivery event waits for it.
    pub const EXPRESS: u8 = 64;
    /// ECT(1): a scalable (L4S) sender (RFC 9331); set together with `ECT`.
    pub const ECT1: u8 = 128;
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pkt {
    /// Flow id (index of the flow in the scenario).
    pub flow: u32,
    /// Data: packet sequence number (from 0). ACK: the next packet expected (cumulative).
    pub seq: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// Destination node.
    pub dst: u16,
    pub flags: u8,
    /// Connection epoch (web mice reuse a connection for successive transfers).
    pub epoch: u8,
}

impl Pkt {
    #[inline]
    pub fn info(&self) -> PacketInfo {
        PacketInfo {
            size: self.size,
            flow: self.flow,
            ecn_capable: self.flags & flags::ECT != 0,
            ect1: self.flags & flags::ECT1 != 0,
            ce: self.flags & flags::CE != 0,
        }
    }
    #[inline]
    pub fn is_ack(&self) -> bool {
        self.flags & flags::ACK != 0
    }
}

impl aqm::Packet for Pkt {
    #[inline]
    fn info(&self) -> PacketInfo {
        Pkt::info(self)
    }
}
