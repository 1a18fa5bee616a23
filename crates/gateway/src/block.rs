//! A TPACKET_V3 receive ring for `count`, the benchmark's receiver: the kernel copies
//! each frame into a block shared with the reader and hands the block over when it is
//! full or when its timeout passes, so the reader is woken once per block, not once
//! per frame, and no buffer is queued on the socket per frame. Both are work the
//! kernel does in the sender's context (on a veth, the gateway's), so a cheap
//! receiver leaves the gateway's CPU to the gateway. Not for the gateway itself: a
//! frame would wait for its block to close, 1 ms at least (see [`crate::ring`]).
//! Linux only (`Documentation/networking/packet_mmap.rst`).

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, Ordering};

const PACKET_VERSION: libc::c_int = 10;
const PACKET_RX_RING: libc::c_int = 5;
const TPACKET_V3: libc::c_int = 2;
const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
/// `struct tpacket3_hdr` rounded up to TPACKET_ALIGNMENT: its `sockaddr_ll` follows.
const HDR3_ALIGNED: usize = (std::mem::size_of::<libc::tpacket3_hdr>() + 15) & !15;

/// The shape of a block ring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blocks {
    /// Bytes per block (a multiple of the page size).
    pub size: usize,
    /// Blocks in the ring.
    pub count: usize,
    /// A block that has not filled is handed over this long after its first frame, ms.
    pub timeout_ms: u32,
}

impl Blocks {
    /// 16 blocks of 256 KiB (4 MiB, as the gateway's ring), closed after 10 ms at most.
    pub const COUNTER: Blocks = Blocks { size: 1 << 18, count: 16, timeout_ms: 10 };

    fn request(&self) -> libc::tpacket_req3 {
        // The kernel checks the frame fields for consistency only (V3 packs frames of
        // any length); 2048-byte "frames" fill the blocks exactly.
        let frame = 2048;
        libc::tpacket_req3 {
            tp_block_size: self.size as u32,
            tp_block_nr: self.count as u32,
            tp_frame_size: frame,
            tp_frame_nr: (self.size * self.count) as u32 / frame,
            tp_retire_blk_tov: self.timeout_ms,
            tp_sizeof_priv: 0,
            tp_feature_req_word: 0,
        }
    }
}

/// The block ring of one socket, mapped.
pub struct BlockRing {
    base: *mut u8,
    shape: Blocks,
    /// The next block to look at.
    head: usize,
}

impl Drop for BlockRing {
    fn drop(&mut self) {
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.shape.size * self.shape.count) };
    }
}

fn setsockopt<T>(fd: RawFd, opt: libc::c_int, v: &T) -> io::Result<()> {
    let (p, len) = (v as *const T as *const libc::c_void, std::mem::size_of::<T>());
    let r = unsafe { libc::setsockopt(fd, libc::SOL_PACKET, opt, p, len as libc::socklen_t) };
    if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

impl BlockRing {
    /// Set TPACKET_V3 and a ring of `shape` on socket `fd` (bound, before any
    /// traffic is read) and map it.
    pub fn setup(fd: RawFd, shape: Blocks) -> io::Result<BlockRing> {
        setsockopt(fd, PACKET_VERSION, &TPACKET_V3)?;
        setsockopt(fd, PACKET_RX_RING, &shape.request())?;
        let len = shape.size * shape.count;
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_SHARED | libc::MAP_POPULATE;
        let base = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, fd, 0) };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(BlockRing { base: base as *mut u8, shape, head: 0 })
    }

    /// Give each frame of the next block the kernel has handed over to `f` (its
    /// bytes, and whether this host sent it), then give the block back. Returns
    /// whether there was such a block.
    pub fn next_block(&mut self, mut f: impl FnMut(&[u8], bool)) -> bool {
        let block = unsafe { self.base.add(self.head * self.shape.size) };
        let desc = unsafe { &*(block as *const libc::tpacket_block_desc) };
        let status =
            unsafe { AtomicU32::from_ptr(&desc.hdr.bh1.block_status as *const u32 as *mut u32) };
        if status.load(Ordering::Acquire) & TP_STATUS_USER == 0 {
            return false;
        }
        let bh = unsafe { &desc.hdr.bh1 };
        let mut off = bh.offset_to_first_pkt as usize;
        for _ in 0..bh.num_pkts {
            let p = unsafe { block.add(off) };
            let h = unsafe { &*(p as *const libc::tpacket3_hdr) };
            let sll = unsafe { &*(p.add(HDR3_ALIGNED) as *const libc::sockaddr_ll) };
            let len = (h.tp_snaplen as usize).min(self.shape.size - off - h.tp_mac as usize);
            let data = unsafe { std::slice::from_raw_parts(p.add(h.tp_mac as usize), len) };
            f(data, sll.sll_pkttype == libc::PACKET_OUTGOING);
            off += h.tp_next_offset as usize;
        }
        status.store(TP_STATUS_KERNEL, Ordering::Release);
        self.head = (self.head + 1) % self.shape.count;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counters_ring_holds_whole_pages_and_frames_fill_its_blocks() {
        let b = Blocks::COUNTER;
        assert_eq!(b.size % 4096, 0);
        let r = b.request();
        assert_eq!(r.tp_block_size % r.tp_frame_size, 0);
        assert_eq!(r.tp_frame_nr * r.tp_frame_size, r.tp_block_size * r.tp_block_nr);
        // A 1514-byte frame and its headers fit many times in a block.
        assert!(HDR3_ALIGNED + std::mem::size_of::<libc::sockaddr_ll>() + 1514 < b.size / 64);
    }

    #[test]
    fn the_header_is_the_kernels() {
        // struct tpacket3_hdr (linux/if_packet.h) is 48 bytes, aligned to 16.
        assert_eq!(std::mem::size_of::<libc::tpacket3_hdr>(), 48);
        assert_eq!(HDR3_ALIGNED, 48);
    }
}
