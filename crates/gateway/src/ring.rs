//! PACKET_MMAP rings (TPACKET_V2) on a packet socket: the kernel writes each received
//! frame into a slot of a ring shared with the gateway and hands the slot over with
//! its status word, so frames are read without a system call; frames to send are
//! written into a transmit ring and one `send` hands all of them to the kernel.
//! Linux only (`Documentation/networking/packet_mmap.rst`).
//!
//! TPACKET_V2, not V3: V2 hands each frame over as soon as it is written (and wakes a
//! sleeping reader per frame), so a frame never waits for a block to fill or time
//! out, and the "drained" test of the event loop (is the next slot still the
//! kernel's?) is exact. V3's blocks are handed over only when full or after their
//! timeout (1 ms at least), which at 10 Mb/s would hide every frame for up to that
//! long. The ring's slot holds the interface's MTU; a longer frame is truncated by the
//! kernel and reported as such.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sock::SLOT;

const PACKET_VERSION: libc::c_int = 10;
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_TX_RING: libc::c_int = 13;
const PACKET_LOSS: libc::c_int = 14;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_VNET_HDR: libc::c_int = 15;
/// `struct virtio_net_hdr` (linux/virtio_net.h): flags, gso_type, hdr_len, gso_size,
/// csum_start, csum_offset; little-endian on a packet socket.
const VNET_HDR_LEN: usize = 10;
const TPACKET_V2: libc::c_int = 1;

const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
const TP_STATUS_AVAILABLE: u32 = 0;
const TP_STATUS_SEND_REQUEST: u32 = 1;
const TP_STATUS_WRONG_FORMAT: u32 = 4;

/// `struct tpacket2_hdr` (linux/if_packet.h), at the start of every slot.
#[repr(C)]
struct Tpacket2Hdr {
    tp_status: u32,
    tp_len: u32,
    tp_snaplen: u32,
    tp_mac: u16,
    tp_net: u16,
    tp_sec: u32,
    tp_nsec: u32,
    tp_vlan_tci: u16,
    tp_vlan_tpid: u16,
    tp_padding: [u8; 4],
}

/// The header rounded up to TPACKET_ALIGNMENT (16): a receive slot's `sockaddr_ll`
/// follows it; a transmit slot's frame starts there.
const HDR_ALIGNED: usize = (std::mem::size_of::<Tpacket2Hdr>() + 15) & !15;
/// The kernel puts a received frame at most this far into its slot (header,
/// `sockaddr_ll`, alignment and the 16-byte minimum link header room).
const RX_HEADROOM: usize = 128;

/// The ring's geometry, chosen from the interface's MTU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// Bytes per slot (a power of two).
    pub frame_size: usize,
    /// Slots per ring.
    pub frames: usize,
    /// Bytes per block (the kernel's allocation unit; a whole number of slots).
    pub block_size: usize,
}

impl Geometry {
    /// Slots that hold an Ethernet frame of `mtu` bytes of payload (plus header and a
    /// VLAN tag, at most [`SLOT`] bytes of frame), `ring_bytes` per ring.
    pub fn for_mtu(mtu: usize, ring_bytes: usize) -> Geometry {
        let frame = (mtu + 18).min(SLOT);
        let frame_size = (frame + RX_HEADROOM).next_power_of_two();
        let block_size = frame_size.max(1 << 16);
        let blocks = (ring_bytes / block_size).max(1);
        Geometry { frame_size, frames: blocks * block_size / frame_size, block_size }
    }

    fn bytes(&self) -> usize {
        self.frames * self.frame_size
    }

    fn request(&self) -> libc::tpacket_req {
        libc::tpacket_req {
            tp_block_size: self.block_size as u32,
            tp_block_nr: (self.bytes() / self.block_size) as u32,
            tp_frame_size: self.frame_size as u32,
            tp_frame_nr: self.frames as u32,
        }
    }
}

fn setsockopt<T>(fd: RawFd, opt: libc::c_int, v: &T) -> io::Result<()> {
    let r = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_PACKET,
            opt,
            v as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

/// The interface's MTU (SIOCGIFMTU), through socket `fd`.
pub fn mtu(fd: RawFd, ifname: &str) -> io::Result<usize> {
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(ifname.bytes().take(libc::IFNAMSIZ - 1)) {
        *d = s as libc::c_char;
    }
    if unsafe { libc::ioctl(fd, libc::SIOCGIFMTU, &mut req) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(unsafe { req.ifr_ifru.ifru_mtu } as usize)
}

/// A receive ring and a transmit ring of one socket, mapped in one region (the
/// receive ring first, as the kernel lays them out).
pub struct Rings {
    base: *mut u8,
    geo: Geometry,
    /// Bytes mapped.
    len: usize,
    /// The next receive slot to look at.
    rx_head: usize,
    /// The next transmit slot to fill.
    tx_head: usize,
    fd: RawFd,
    /// Bytes of virtio_net_hdr before each frame to send (0 without PACKET_VNET_HDR).
    vnet: usize,
    /// Frames the kernel could not send (bad format), found when their slot came
    /// round again.
    pub tx_rejected: u64,
}

impl Drop for Rings {
    fn drop(&mut self) {
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

/// One received frame, borrowed from its slot until [`Rings::release`].
pub struct RxFrame<'a> {
    /// The frame (at most the slot's size).
    pub data: &'a [u8],
    /// Longer than the slot, or than [`SLOT`]: cut.
    pub truncated: bool,
    /// When the kernel received it (CLOCK_REALTIME, ns), if it said.
    pub stamp_ns: Option<i128>,
    /// A frame this host sent (seen where PACKET_IGNORE_OUTGOING is not supported).
    pub outgoing: bool,
}

impl Rings {
    /// Set TPACKET_V2, both rings of `geo` and the transmit options on socket `fd`
    /// (bound, before any traffic is read) and map them.
    pub fn setup(fd: RawFd, geo: Geometry) -> io::Result<Rings> {
        setsockopt(fd, PACKET_VERSION, &TPACKET_V2)?;
        // A frame the kernel cannot send is marked and skipped, not retried forever.
        setsockopt(fd, PACKET_LOSS, &1 as &libc::c_int)?;
        // Best effort: straight to the driver (a veth has no qdisc anyway).
        let _ = setsockopt(fd, PACKET_QDISC_BYPASS, &1 as &libc::c_int);
        // Each frame to send is led by a virtio_net_hdr whose hdr_len is the whole
        // frame: the kernel then copies it into the socket buffer instead of lending
        // the ring's pages, which a veth forwarding into another namespace copies into
        // new pages anyway (`skb_copy_ubufs`), after which the receiver pulls the
        // headers out of them again. (A received frame's slot gets the header too,
        // before the frame; it is not read.)
        let vnet = match setsockopt(fd, PACKET_VNET_HDR, &1 as &libc::c_int) {
            Ok(()) => VNET_HDR_LEN,
            Err(_) => 0,
        };
        setsockopt(fd, PACKET_RX_RING, &geo.request())?;
        // (A socket with a transmit ring sends only from it: sendmsg's data is ignored.)
        setsockopt(fd, PACKET_TX_RING, &geo.request())?;
        let len = 2 * geo.bytes();
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_POPULATE,
                fd,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Rings {
            base: base as *mut u8,
            geo,
            len,
            rx_head: 0,
            tx_head: 0,
            fd,
            vnet,
            tx_rejected: 0,
        })
    }

    fn slot(&self, tx: bool, i: usize) -> *mut u8 {
        let off = (tx as usize) * self.geo.bytes() + i * self.geo.frame_size;
        unsafe { self.base.add(off) }
    }

    /// The status word of a slot (shared with the kernel: atomic, acquire/release).
    fn status(&self, tx: bool, i: usize) -> &AtomicU32 {
        unsafe { AtomicU32::from_ptr(self.slot(tx, i) as *mut u32) }
    }

    /// The next received frame, if the kernel has handed one over. Call
    /// [`Rings::release`] when done with it.
    pub fn peek(&self) -> Option<RxFrame<'_>> {
        let st = self.status(false, self.rx_head).load(Ordering::Acquire);
        if st & TP_STATUS_USER == 0 {
            return None;
        }
        let p = self.slot(false, self.rx_head);
        let h = unsafe { &*(p as *const Tpacket2Hdr) };
        let room = self.geo.frame_size.saturating_sub(h.tp_mac as usize);
        let len = (h.tp_snaplen as usize).min(room).min(SLOT);
        let data = unsafe { std::slice::from_raw_parts(p.add(h.tp_mac as usize), len) };
        let sll = unsafe { &*(p.add(HDR_ALIGNED) as *const libc::sockaddr_ll) };
        Some(RxFrame {
            data,
            truncated: (h.tp_len as usize) > len,
            stamp_ns: Some(h.tp_sec as i128 * 1_000_000_000 + h.tp_nsec as i128),
            outgoing: sll.sll_pkttype == libc::PACKET_OUTGOING,
        })
    }

    /// Give the frame [`Rings::peek`] returned back to the kernel.
    pub fn release(&mut self) {
        self.status(false, self.rx_head).store(TP_STATUS_KERNEL, Ordering::Release);
        self.rx_head = (self.rx_head + 1) % self.geo.frames;
    }

    /// Queue `frames` in the transmit ring and hand them to the kernel with one
    /// `send`, without waiting. Returns how many were queued: the rest found the ring
    /// full, or were too long for a slot (counted by the caller as refused).
    pub fn send<T: AsRef<[u8]>>(&mut self, frames: &[T]) -> usize {
        let room = self.geo.frame_size - HDR_ALIGNED - self.vnet;
        let mut queued = 0;
        for f in frames {
            let f = f.as_ref();
            match self.status(true, self.tx_head).load(Ordering::Acquire) {
                TP_STATUS_AVAILABLE => {}
                TP_STATUS_WRONG_FORMAT => self.tx_rejected += 1,
                _ => break, // the kernel has not sent this slot's frame yet: ring full
            }
            if f.len() > room {
                continue;
            }
            let p = self.slot(true, self.tx_head);
            unsafe {
                let data = p.add(HDR_ALIGNED);
                if self.vnet > 0 {
                    let mut h = [0u8; VNET_HDR_LEN];
                    h[2..4].copy_from_slice(&(f.len() as u16).to_le_bytes());
                    std::ptr::copy_nonoverlapping(h.as_ptr(), data, VNET_HDR_LEN);
                }
                std::ptr::copy_nonoverlapping(f.as_ptr(), data.add(self.vnet), f.len());
                (*(p as *mut Tpacket2Hdr)).tp_len = (self.vnet + f.len()) as u32;
            }
            self.status(true, self.tx_head).store(TP_STATUS_SEND_REQUEST, Ordering::Release);
            self.tx_head = (self.tx_head + 1) % self.geo.frames;
            queued += 1;
        }
        if queued > 0 {
            self.kick();
        }
        queued
    }

    /// Ask the kernel to send what the transmit ring holds (frames it cannot take
    /// now stay queued for the next call).
    fn kick(&self) {
        unsafe {
            libc::sendto(self.fd, std::ptr::null(), 0, libc::MSG_DONTWAIT, std::ptr::null(), 0)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_holds_an_mtu_frame_after_the_kernels_headers() {
        let g = Geometry::for_mtu(1500, 4 << 20);
        assert_eq!(g.frame_size, 2048);
        assert!(1518 + RX_HEADROOM <= g.frame_size);
        assert_eq!(g.block_size % g.frame_size, 0);
        assert_eq!(g.bytes(), 4 << 20);
        // A 9000-byte MTU: 9018-byte frames in 16 KiB slots; past SLOT frames are cut.
        let j = Geometry::for_mtu(9000, 4 << 20);
        assert_eq!(j.frame_size, 16384);
        assert_eq!(Geometry::for_mtu(65535, 4 << 20).frame_size, 16384);
    }

    #[test]
    fn the_header_is_the_kernels() {
        assert_eq!(std::mem::size_of::<Tpacket2Hdr>(), 32);
        assert_eq!(HDR_ALIGNED, 32);
        assert!(HDR_ALIGNED + std::mem::size_of::<libc::sockaddr_ll>() <= RX_HEADROOM);
    }
}
