//! AF_PACKET raw sockets bound to one interface, read and written in batches
//! (`recvmmsg` / `sendmmsg`). Linux only.

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;

use crate::error::GatewayError;

/// Largest frame read whole; longer frames are counted as oversize and dropped.
pub const SLOT: usize = 9216;
/// Frames per `recvmmsg` / `sendmmsg` call.
pub const BATCH: usize = 64;

const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(r) }
}

/// A raw packet socket on one interface (all EtherTypes, promiscuous).
pub struct PacketSocket {
    pub fd: RawFd,
    pub ifindex: i32,
    pub name: String,
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        unsafe { libc::close(self.fd) };
    }
}

/// Receive buffers for one batch.
pub struct RecvBatch {
    buf: Vec<u8>,
    iov: Vec<libc::iovec>,
    addr: Vec<libc::sockaddr_ll>,
    /// Control-message space per frame (the kernel's receive timestamp).
    ctrl: Vec<[u64; CTRL_WORDS]>,
    hdr: Vec<libc::mmsghdr>,
}

const CTRL_WORDS: usize = 8;

impl Default for RecvBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl RecvBatch {
    pub fn new() -> RecvBatch {
        RecvBatch {
            buf: vec![0u8; SLOT * BATCH],
            iov: Vec::with_capacity(BATCH),
            addr: vec![unsafe { std::mem::zeroed() }; BATCH],
            ctrl: vec![[0u64; CTRL_WORDS]; BATCH],
            hdr: Vec::with_capacity(BATCH),
        }
    }

    /// Frame `i` of the last receive: its bytes (at most [`SLOT`]) and whether it
    /// was longer than the slot (truncated).
    pub fn frame(&self, i: usize) -> (&[u8], bool) {
        let len = self.hdr[i].msg_len as usize;
        let trunc = len > SLOT || self.hdr[i].msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
        (&self.buf[i * SLOT..i * SLOT + len.min(SLOT)], trunc)
    }

    /// When the kernel received frame `i` (CLOCK_REALTIME, ns), if it said.
    pub fn timestamp_ns(&self, i: usize) -> Option<i128> {
        let mh = &self.hdr[i].msg_hdr;
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(mh);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let ts: libc::timespec =
                        std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    return Some(ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128);
                }
                c = libc::CMSG_NXTHDR(mh, c);
            }
        }
        None
    }

    /// Whether frame `i` is one this host sent (seen when PACKET_IGNORE_OUTGOING is
    /// not supported).
    pub fn outgoing(&self, i: usize) -> bool {
        self.addr[i].sll_pkttype == libc::PACKET_OUTGOING
    }
}

/// Kernel counters of a packet socket (PACKET_STATISTICS, reset on read).
#[derive(Clone, Copy, Debug, Default)]
pub struct KernelStats {
    pub packets: u64,
    pub drops: u64,
}

/// [`PacketSocket::open`], the error naming the interface.
pub fn open(ifname: &str) -> crate::error::Result<PacketSocket> {
    PacketSocket::open(ifname)
        .map_err(|source| GatewayError::Open { iface: ifname.to_string(), source })
}

impl PacketSocket {
    /// Open and bind a socket on `ifname`. Needs CAP_NET_RAW.
    pub fn open(ifname: &str) -> io::Result<PacketSocket> {
        let c = CString::new(ifname)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name"))?;
        let ifindex = unsafe { libc::if_nametoindex(c.as_ptr()) } as i32;
        if ifindex == 0 {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no interface named {ifname:?} in this network namespace"),
            ));
        }
        let proto = (libc::ETH_P_ALL as u16).to_be() as libc::c_int;
        let fd = cvt(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                proto,
            )
        })?;
        let s = PacketSocket { fd, ifindex, name: ifname.to_string() };
        let one: libc::c_int = 1;
        // Best effort: older kernels lack them. Outgoing frames are then filtered by
        // pkttype; frames sent go through the interface's qdisc (a veth has none) and
        // past the other packet sockets listening on it.
        for opt in [PACKET_IGNORE_OUTGOING, PACKET_QDISC_BYPASS] {
            let p = &one as *const _ as *const libc::c_void;
            unsafe { libc::setsockopt(fd, libc::SOL_PACKET, opt, p, 4) };
        }
        for (opt, forced) in
            [(libc::SO_RCVBUF, libc::SO_RCVBUFFORCE), (libc::SO_SNDBUF, libc::SO_SNDBUFFORCE)]
        {
            let size: libc::c_int = 4 << 20;
            let p = &size as *const _ as *const libc::c_void;
            unsafe {
                if libc::setsockopt(fd, libc::SOL_SOCKET, forced, p, 4) != 0 {
                    libc::setsockopt(fd, libc::SOL_SOCKET, opt, p, 4);
                }
            }
        }
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex;
        cvt(unsafe {
            libc::bind(
                fd,
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        })?;
        let mut mr: libc::packet_mreq = unsafe { std::mem::zeroed() };
        mr.mr_ifindex = ifindex;
        mr.mr_type = libc::PACKET_MR_PROMISC as u16;
        cvt(unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                libc::PACKET_ADD_MEMBERSHIP,
                &mr as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::packet_mreq>() as u32,
            )
        })?;
        // Receive timestamps: arrival times survive the gateway being descheduled.
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_TIMESTAMPNS,
                &one as *const _ as *const libc::c_void,
                4,
            );
        }
        Ok(s)
    }

    /// Receive up to [`BATCH`] frames without blocking; 0 when none is waiting.
    pub fn recv(&self, b: &mut RecvBatch) -> io::Result<usize> {
        b.iov.clear();
        b.hdr.clear();
        let base = b.buf.as_mut_ptr();
        for i in 0..BATCH {
            b.iov.push(libc::iovec {
                iov_base: unsafe { base.add(i * SLOT) } as *mut libc::c_void,
                iov_len: SLOT,
            });
        }
        for i in 0..BATCH {
            let mut h: libc::mmsghdr = unsafe { std::mem::zeroed() };
            h.msg_hdr.msg_name = &mut b.addr[i] as *mut _ as *mut libc::c_void;
            h.msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as u32;
            h.msg_hdr.msg_iov = &mut b.iov[i];
            h.msg_hdr.msg_iovlen = 1;
            h.msg_hdr.msg_control = b.ctrl[i].as_mut_ptr() as *mut libc::c_void;
            h.msg_hdr.msg_controllen = std::mem::size_of::<[u64; CTRL_WORDS]>();
            b.hdr.push(h);
        }
        let n = unsafe {
            libc::recvmmsg(
                self.fd,
                b.hdr.as_mut_ptr(),
                BATCH as u32,
                libc::MSG_DONTWAIT | libc::MSG_TRUNC,
                std::ptr::null_mut(),
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(0),
                _ => Err(e),
            };
        }
        b.hdr.truncate(n as usize);
        Ok(n as usize)
    }

    /// Send `frames` (whole Ethernet frames) in batches without blocking. Returns
    /// how many were sent; the rest were refused by the kernel (counted by the caller).
    pub fn send<T: AsRef<[u8]>>(&self, frames: &[T]) -> usize {
        let mut sent = 0;
        for chunk in frames.chunks(BATCH) {
            let mut iov: Vec<libc::iovec> = chunk
                .iter()
                .map(|f| libc::iovec {
                    iov_base: f.as_ref().as_ptr() as *mut libc::c_void,
                    iov_len: f.as_ref().len(),
                })
                .collect();
            let mut hdr: Vec<libc::mmsghdr> = (0..chunk.len())
                .map(|i| {
                    let mut h: libc::mmsghdr = unsafe { std::mem::zeroed() };
                    h.msg_hdr.msg_iov = &mut iov[i];
                    h.msg_hdr.msg_iovlen = 1;
                    h
                })
                .collect();
            let mut off = 0;
            while off < chunk.len() {
                let n = unsafe {
                    libc::sendmmsg(
                        self.fd,
                        hdr[off..].as_mut_ptr(),
                        (chunk.len() - off) as u32,
                        libc::MSG_DONTWAIT,
                    )
                };
                if n <= 0 {
                    let e = io::Error::last_os_error().raw_os_error();
                    if n < 0 && e == Some(libc::EINTR) {
                        continue;
                    }
                    if n < 0 && (e == Some(libc::EAGAIN) || e == Some(libc::ENOBUFS)) {
                        break;
                    }
                    // A frame the driver refuses (too long, ...): skip it, go on.
                    off += 1;
                    continue;
                }
                off += n as usize;
                sent += n as usize;
            }
        }
        sent
    }

    /// Read (and reset) the kernel's counters for this socket.
    pub fn kernel_stats(&self) -> KernelStats {
        let mut st: libc::tpacket_stats = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tpacket_stats>() as libc::socklen_t;
        let r = unsafe {
            libc::getsockopt(
                self.fd,
                libc::SOL_PACKET,
                libc::PACKET_STATISTICS,
                &mut st as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if r != 0 {
            return KernelStats::default();
        }
        KernelStats { packets: st.tp_packets as u64, drops: st.tp_drops as u64 }
    }
}

/// Wait until one of `fds` is readable or `timeout_ns` passes (ppoll: nanosecond
/// timeout, unlike poll/epoll_wait). Returns early on a signal.
pub fn wait_readable(fds: &[RawFd], timeout_ns: u64) {
    let mut p: Vec<libc::pollfd> =
        fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    unsafe {
        libc::ppoll(p.as_mut_ptr(), p.len() as libc::nfds_t, &ts, std::ptr::null());
    }
}

/// CLOCK_REALTIME now, ns (the clock of the kernel's receive timestamps).
pub fn realtime_ns() -> i128 {
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128
}
