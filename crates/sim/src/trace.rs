//! Optional traces, streamed to files as the run goes (memory stays bounded): CSV for
//! queue samples, per-packet events, congestion signals (drops and marks) and cwnd; pcap (LINKTYPE_RAW IPv4, headers only)
//! for Wireshark. When no trace is asked for, none of this is touched.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::packet::{Pkt, flags};

pub struct Traces {
    pub dir: PathBuf,
    pub queue: Option<BufWriter<File>>,
    pub packets: Option<BufWriter<File>>,
    /// Congestion signals only: drops and ECN marks.
    pub drops: Option<BufWriter<File>>,
    pub cwnd: Option<BufWriter<File>>,
    /// BBR's state of the traced BBR flows, at each change.
    pub bbr: Option<BufWriter<File>>,
    /// The last row written of each flow (by flow id).
    bbr_last: Vec<Option<BbrRow>>,
    /// One pcap writer per traced link direction (indexed by direction, None if not traced).
    pub pcap: Vec<Option<BufWriter<File>>>,
    /// Names of link directions.
    pub names: Vec<String>,
    pub error: Option<std::io::Error>,
}

fn csv(dir: &Path, name: &str, header: &str) -> Result<BufWriter<File>> {
    let mut w = BufWriter::with_capacity(1 << 16, File::create(dir.join(name))?);
    writeln!(w, "{header}")?;
    Ok(w)
}

/// Which CSV traces a run writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceFiles {
    pub queue: bool,
    pub packets: bool,
    pub drops: bool,
    pub cwnd: bool,
    /// Some flow in `cwnd` is a BBR flow.
    pub bbr: bool,
}

/// One row of the BBR trace (`bbr.csv`): the mode, the model (b/s, s), the pacing
/// rate (b/s), the gains and the window (packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrRow {
    pub mode: &'static str,
    pub btl_bw_bps: f64,
    pub rt_prop: f64,
    pub pacing_rate_bps: f64,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub cwnd: f64,
}

/// What a pcap record needs of a packet's flow: its end nodes (addresses 10.0.x.y),
/// whether it is TCP, and its data packet size (TCP sequence numbers count bytes).
#[derive(Clone, Copy, Debug)]
pub struct PcapFlow {
    pub src: u16,
    pub dst: u16,
    pub tcp: bool,
    pub data_size: u32,
}

impl Traces {
    /// Open the files of the traces asked for in `dir`: which CSV traces are on
    /// (`on`), and the link directions written to pcap files.
    pub fn open(
        dir: &Path,
        on: TraceFiles,
        pcap_dirs: &[usize],
        names: Vec<String>,
    ) -> Result<Traces> {
        std::fs::create_dir_all(dir)?;
        let mut pcap: Vec<Option<BufWriter<File>>> = (0..names.len()).map(|_| None).collect();
        for &d in pcap_dirs {
            let fname = format!("{}.pcap", names[d].replace("->", "_to_"));
            let mut w = BufWriter::new(File::create(dir.join(fname))?);
            // Global header: magic, v2.4, tz 0, sigfigs 0, snaplen 65535, LINKTYPE_RAW (101); nanosecond magic.
            w.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
            w.write_all(&2u16.to_le_bytes())?;
            w.write_all(&4u16.to_le_bytes())?;
            w.write_all(&0i32.to_le_bytes())?;
            w.write_all(&0u32.to_le_bytes())?;
            w.write_all(&65535u32.to_le_bytes())?;
            w.write_all(&101u32.to_le_bytes())?;
            pcap[d] = Some(w);
        }
        Ok(Traces {
            dir: dir.to_path_buf(),
            queue: if on.queue {
                Some(csv(dir, "queue.csv", "time,link,queue,avg")?)
            } else {
                None
            },
            packets: if on.packets {
                Some(csv(dir, "packets.csv", "time,link,event,flow,seq,size,ack,ce")?)
            } else {
                None
            },
            drops: if on.drops {
                Some(csv(dir, "drops.csv", "time,link,flow,seq,event")?)
            } else {
                None
            },
            cwnd: if on.cwnd {
                Some(csv(dir, "cwnd.csv", "time,flow,cwnd,ssthresh")?)
            } else {
                None
            },
            bbr: if on.bbr {
                let header =
                    "time,flow,mode,btl_bw_bps,rt_prop,pacing_rate_bps,pacing_gain,cwnd_gain,cwnd";
                Some(csv(dir, "bbr.csv", header)?)
            } else {
                None
            },
            pcap,
            names,
            bbr_last: Vec::new(),
            error: None,
        })
    }

    fn keep(&mut self, r: std::io::Result<()>) {
        if let Err(e) = r
            && self.error.is_none()
        {
            self.error = Some(e);
        }
    }

    pub fn queue(&mut self, t: u64, d: usize, q: u32, avg: f64) {
        if let Some(w) = self.queue.as_mut() {
            let r = writeln!(w, "{:.9},{},{},{}", t as f64 * 1e-9, self.names[d], q, avg);
            self.keep(r);
        }
    }

    /// `ev`: 'a' arrival (accepted), 'd' departure (start of transmission), 'x' drop, 'm' marked arrival.
    pub fn packet(&mut self, t: u64, d: usize, ev: char, p: &Pkt) {
        if let Some(w) = self.packets.as_mut() {
            let r = writeln!(
                w,
                "{:.9},{},{},{},{},{},{},{}",
                t as f64 * 1e-9,
                self.names[d],
                ev,
                p.flow,
                p.seq,
                p.size,
                (p.flags & flags::ACK != 0) as u8,
                (p.flags & flags::CE != 0) as u8
            );
            self.keep(r);
        }
    }

    /// A congestion signal at direction `d`: `ev` 'x' (a drop: early, forced or
    /// evicted) or 'm' (an ECN mark).
    pub fn signal(&mut self, t: u64, d: usize, ev: char, p: &Pkt) {
        if let Some(w) = self.drops.as_mut() {
            let r =
                writeln!(w, "{:.9},{},{},{},{}", t as f64 * 1e-9, self.names[d], p.flow, p.seq, ev);
            self.keep(r);
        }
    }

    pub fn cwnd(&mut self, t: u64, flow: usize, cwnd: f64, ssthresh: f64) {
        if let Some(w) = self.cwnd.as_mut() {
            let ss = if ssthresh >= 1e9 { -1.0 } else { ssthresh };
            let r = writeln!(w, "{:.9},{},{},{}", t as f64 * 1e-9, flow, cwnd, ss);
            self.keep(r);
        }
    }

    /// BBR's state of flow `flow` at `t`, if it changed (the window aside).
    pub fn bbr(&mut self, t: u64, flow: usize, s: &BbrRow) {
        if self.bbr_last.len() <= flow {
            self.bbr_last.resize(flow + 1, None);
        }
        let last = &mut self.bbr_last[flow];
        if last.is_some_and(|r| BbrRow { cwnd: s.cwnd, ..r } == *s) {
            return;
        }
        *last = Some(*s);
        if let Some(w) = self.bbr.as_mut() {
            let r = writeln!(
                w,
                "{:.9},{},{},{},{},{},{},{},{}",
                t as f64 * 1e-9,
                flow,
                s.mode,
                s.btl_bw_bps,
                s.rt_prop,
                s.pacing_rate_bps,
                s.pacing_gain,
                s.cwnd_gain,
                s.cwnd
            );
            self.keep(r);
        }
    }

    /// A packet of flow `f` leaves link direction `d` at `t`: IPv4 + TCP (or UDP)
    /// headers.
    pub fn pcap(&mut self, t: u64, d: usize, p: &Pkt, f: &PcapFlow) {
        let &PcapFlow { src, dst, tcp, data_size } = f;
        let Some(w) = self.pcap[d].as_mut() else { return };
        let ip = |n: u16| [10u8, 0, (n >> 8) as u8, n as u8];
        let (sip, dip) = if p.is_ack() { (ip(dst), ip(src)) } else { (ip(src), ip(dst)) };
        let len = p.size.min(65535) as u16;
        let mut h = [0u8; 40];
        h[0] = 0x45;
        h[2..4].copy_from_slice(&len.to_be_bytes());
        h[8] = 64;
        h[9] = if tcp { 6 } else { 17 };
        if p.flags & flags::CE != 0 {
            h[1] = 3;
        } else if p.flags & flags::ECT != 0 {
            h[1] = 2;
        }
        h[12..16].copy_from_slice(&sip);
        h[16..20].copy_from_slice(&dip);
        let mut sum: u32 = 0;
        for i in (0..20).step_by(2) {
            sum += u16::from_be_bytes([h[i], h[i + 1]]) as u32;
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        h[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        let port = (10000 + (p.flow % 50000)) as u16;
        let (sp, dp) = if p.is_ack() { (80u16, port) } else { (port, 80u16) };
        h[20..22].copy_from_slice(&sp.to_be_bytes());
        h[22..24].copy_from_slice(&dp.to_be_bytes());
        let caplen;
        if tcp {
            let bseq = p.seq.wrapping_mul(data_size);
            if p.is_ack() {
                h[28..32].copy_from_slice(&bseq.to_be_bytes());
                h[33] = 0x10 | if p.flags & flags::ECE != 0 { 0x40 } else { 0 };
            } else {
                h[24..28].copy_from_slice(&bseq.to_be_bytes());
                h[33] = 0x18 | if p.flags & flags::CWR != 0 { 0x80 } else { 0 };
            }
            h[32] = 5 << 4;
            h[34..36].copy_from_slice(&65535u16.to_be_bytes());
            caplen = 40;
        } else {
            h[24..26].copy_from_slice(&(len.saturating_sub(20)).to_be_bytes());
            caplen = 28;
        }
        let caplen = caplen.min(len as usize);
        let r = (|| {
            w.write_all(&((t / 1_000_000_000) as u32).to_le_bytes())?;
            w.write_all(&((t % 1_000_000_000) as u32).to_le_bytes())?;
            w.write_all(&(caplen as u32).to_le_bytes())?;
            w.write_all(&(len as u32).to_le_bytes())?;
            w.write_all(&h[..caplen])
        })();
        self.keep(r);
    }

    pub fn finish(&mut self) -> Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        for w in [
            self.queue.as_mut(),
            self.packets.as_mut(),
            self.drops.as_mut(),
            self.cwnd.as_mut(),
            self.bbr.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            w.flush()?;
        }
        for w in self.pcap.iter_mut().flatten() {
            w.flush()?;
        }
        Ok(())
    }
}
