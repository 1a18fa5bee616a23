//! One interface's frames in and out: a packet socket read and written through
//! PACKET_MMAP rings ([`crate::ring`]), or, where the kernel refuses the rings, with
//! `recvmmsg` / `sendmmsg` ([`crate::sock`]). The event loop sees the same frames
//! either way.

use std::io;

use crate::config::IoMode;
use crate::error::Result;
use crate::ring::{self, Geometry, Rings, RxFrame};
use crate::sock::{self, PacketSocket, RecvBatch};

/// Bytes of each ring (receive and transmit): what the kernel can hold for the
/// gateway, as the socket buffers of the `recvmmsg` path.
pub const RING_BYTES: usize = 4 << 20;

enum Io {
    Rings(Rings),
    Mmsg(RecvBatch),
}

/// A bound packet socket and the way its frames are read and written.
pub struct Port {
    pub sock: PacketSocket,
    io: Io,
}

impl Port {
    /// Open a socket on `ifname` read and written as `mode` says; with `recvmmsg` /
    /// `sendmmsg` where the kernel refuses the rings.
    pub fn open(ifname: &str, mode: IoMode) -> Result<Port> {
        let sock = sock::open(ifname)?;
        let io = match mode {
            IoMode::Mmsg => Io::Mmsg(RecvBatch::new()),
            IoMode::Rings => {
                let mtu = ring::mtu(sock.fd, ifname).unwrap_or(1500);
                match Rings::setup(sock.fd, Geometry::for_mtu(mtu, RING_BYTES)) {
                    Ok(rings) => Io::Rings(rings),
                    // A fresh socket: the refused one may be half set up.
                    Err(_) => {
                        return Ok(Port {
                            sock: sock::open(ifname)?,
                            io: Io::Mmsg(RecvBatch::new()),
                        });
                    }
                }
            }
        };
        Ok(Port { sock, io })
    }

    /// How frames are read and written: "rings" or "mmsg".
    pub fn kind(&self) -> &'static str {
        match self.io {
            Io::Rings(_) => "rings",
            Io::Mmsg(_) => "mmsg",
        }
    }

    /// Give each waiting frame to `f`, at most `max` of them. Returns whether every
    /// frame that was waiting has been read (the socket is drained).
    pub fn receive(&mut self, max: usize, mut f: impl FnMut(RxFrame<'_>)) -> io::Result<bool> {
        match &mut self.io {
            Io::Rings(rings) => {
                for _ in 0..max {
                    match rings.peek() {
                        Some(fr) => f(fr),
                        None => return Ok(true),
                    }
                    rings.release();
                }
                Ok(rings.peek().is_none())
            }
            Io::Mmsg(batch) => {
                let mut read = 0;
                while read < max {
                    let n = self.sock.recv(batch)?;
                    for i in 0..n {
                        let (data, truncated) = batch.frame(i);
                        let stamp_ns = batch.timestamp_ns(i);
                        f(RxFrame { data, truncated, stamp_ns, outgoing: batch.outgoing(i) });
                    }
                    read += n;
                    if n < sock::BATCH {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
        }
    }

    /// Send `frames` without waiting; returns how many the kernel took.
    pub fn send(&mut self, frames: &[Vec<u8>]) -> usize {
        match &mut self.io {
            Io::Rings(rings) => rings.send(frames),
            Io::Mmsg(_) => self.sock.send(frames),
        }
    }

    /// Frames the kernel took but could not send (bad format), found so far.
    pub fn tx_rejected(&self) -> u64 {
        match &self.io {
            Io::Rings(rings) => rings.tx_rejected,
            Io::Mmsg(_) => 0,
        }
    }
}
