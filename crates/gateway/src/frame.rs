//! Reading Ethernet frames: what kind of frame it is, the IP packet's size, its flow
//! (hash of the 5-tuple) and ECN field, and setting Congestion Experienced in place.
//!
//! Nothing here panics on any input: every length is checked before it is read
//! (the property test in this module feeds random bytes).

/// Ethernet header length, bytes (no VLAN tag: tagged frames are non-IP here).
pub const ETH_HLEN: usize = 14;
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;

const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_SCTP: u8 = 132;
const PROTO_UDPLITE: u8 = 136;

/// ECN field values (RFC 3168).
pub const ECN_NOT_ECT: u8 = 0;
pub const ECN_ECT1: u8 = 1;
pub const ECN_ECT0: u8 = 2;
pub const ECN_CE: u8 = 3;

/// Why a frame was not forwarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Shorter than an Ethernet header.
    Runt,
    /// An EtherType other than IPv4, IPv6 or ARP (VLAN-tagged frames included).
    NonIp,
    /// IP header inconsistent: wrong version, header length, total length past the
    /// end of the frame (truncated), or a bad IPv4 header checksum.
    Malformed,
}

/// The IP packet of a frame, as far as the gateway needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpMeta {
    /// Offset of the IP header in the frame (always [`ETH_HLEN`]).
    pub l3: usize,
    pub v6: bool,
    /// IP datagram length, bytes (what the line rate and the AQM count).
    pub ip_len: u32,
    /// The two ECN bits.
    pub ecn: u8,
    pub key: FlowKey,
    /// `key.flow_id()`, computed once (the AQM asks for it at every step).
    pub flow: u32,
}

/// A frame's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// ARP: forwarded unqueued so that the two sides resolve each other.
    Arp,
    Ip(IpMeta),
    Invalid(Invalid),
}

/// The 5-tuple (ports 0 for protocols without them and for non-first fragments).
/// IPv4 addresses are stored in the first 4 bytes of the 16-byte arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub v6: bool,
    pub src: [u8; 16],
    pub dst: [u8; 16],
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    /// The flow id given to the AQM: FNV-1a over the 5-tuple, folded to 32 bits.
    /// Deterministic (same tuple, same id, every run), so FRED's state is reproducible.
    pub fn flow_id(&self) -> u32 {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut h = OFFSET;
        let mut eat = |b: u8| {
            h ^= b as u64;
            h = h.wrapping_mul(PRIME);
        };
        let n = if self.v6 { 16 } else { 4 };
        eat(self.v6 as u8);
        self.src[..n].iter().for_each(|&b| eat(b));
        self.dst[..n].iter().for_each(|&b| eat(b));
        eat(self.proto);
        self.sport.to_be_bytes().iter().for_each(|&b| eat(b));
        self.dport.to_be_bytes().iter().for_each(|&b| eat(b));
        (h ^ (h >> 32)) as u32
    }

    /// "10.0.0.1:5201" / "[fd00::1]:5201" / "10.0.0.1" (no ports).
    pub fn endpoint(&self, src: bool) -> String {
        let (a, port) = if src { (&self.src, self.sport) } else { (&self.dst, self.dport) };
        let has_ports = matches!(self.proto, PROTO_TCP | PROTO_UDP | PROTO_SCTP | PROTO_UDPLITE);
        let addr = if self.v6 {
            std::net::Ipv6Addr::from(*a).to_string()
        } else {
            std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
        };
        match (has_ports, self.v6) {
            (false, _) => addr,
            (true, false) => format!("{addr}:{port}"),
            (true, true) => format!("[{addr}]:{port}"),
        }
    }

    pub fn proto_name(&self) -> String {
        match self.proto {
            PROTO_TCP => "tcp".into(),
            PROTO_UDP => "udp".into(),
            PROTO_SCTP => "sctp".into(),
            p => p.to_string(),
        }
    }
}

#[inline]
fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The EtherType, or `None` for a runt.
#[inline]
pub fn ethertype(frame: &[u8]) -> Option<u16> {
    if frame.len() < ETH_HLEN { None } else { be16(frame, 12) }
}

/// Classify a frame (see [`Class`]).
pub fn classify(frame: &[u8]) -> Class {
    match ethertype(frame) {
        None => Class::Invalid(Invalid::Runt),
        Some(ETHERTYPE_ARP) => Class::Arp,
        Some(ETHERTYPE_IPV4) => ipv4(frame).map_or(Class::Invalid(Invalid::Malformed), Class::Ip),
        Some(ETHERTYPE_IPV6) => ipv6(frame).map_or(Class::Invalid(Invalid::Malformed), Class::Ip),
        Some(_) => Class::Invalid(Invalid::NonIp),
    }
}

fn ports(l4: &[u8], proto: u8) -> (u16, u16) {
    match proto {
        PROTO_TCP | PROTO_UDP | PROTO_SCTP | PROTO_UDPLITE => match (be16(l4, 0), be16(l4, 2)) {
            (Some(s), Some(d)) => (s, d),
            _ => (0, 0),
        },
        _ => (0, 0),
    }
}

fn ipv4(frame: &[u8]) -> Option<IpMeta> {
    let ip = &frame[ETH_HLEN..];
    if ip.len() < 20 || ip[0] >> 4 != 4 {
        return None;
    }
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let total = be16(ip, 2)? as usize;
    // Ethernet pads short frames: the datagram may be shorter than the frame, never longer.
    if ihl < 20 || total < ihl || total > ip.len() {
        return None;
    }
    if checksum(&ip[..ihl]) != 0 {
        return None;
    }
    let proto = ip[9];
    let frag_off = be16(ip, 6)? & 0x1fff;
    let (sport, dport) = if frag_off == 0 { ports(&ip[ihl..total], proto) } else { (0, 0) };
    let mut key = FlowKey { v6: false, src: [0; 16], dst: [0; 16], proto, sport, dport };
    key.src[..4].copy_from_slice(&ip[12..16]);
    key.dst[..4].copy_from_slice(&ip[16..20]);
    let (ecn, flow) = (ip[1] & 3, key.flow_id());
    Some(IpMeta { l3: ETH_HLEN, v6: false, ip_len: total as u32, ecn, key, flow })
}

fn ipv6(frame: &[u8]) -> Option<IpMeta> {
    let ip = &frame[ETH_HLEN..];
    if ip.len() < 40 || ip[0] >> 4 != 6 {
        return None;
    }
    let total = 40 + be16(ip, 4)? as usize;
    if total > ip.len() {
        return None;
    }
    let pkt = &ip[..total];
    let mut next = pkt[6];
    let mut off = 40;
    let mut first_fragment = true;
    // Walk at most 8 extension headers to the transport header.
    for _ in 0..8 {
        match next {
            0 | 43 | 60 => {
                let len = (*pkt.get(off + 1)? as usize + 1) * 8;
                next = *pkt.get(off)?;
                off += len;
            }
            44 => {
                let frag = be16(pkt, off + 2)?;
                first_fragment = frag >> 3 == 0;
                next = *pkt.get(off)?;
                off += 8;
            }
            _ => break,
        }
    }
    if off > pkt.len() {
        return None;
    }
    let (sport, dport) = if first_fragment { ports(&pkt[off..], next) } else { (0, 0) };
    let mut key = FlowKey { v6: true, src: [0; 16], dst: [0; 16], proto: next, sport, dport };
    key.src.copy_from_slice(&pkt[8..24]);
    key.dst.copy_from_slice(&pkt[24..40]);
    let (ecn, flow) = ((pkt[1] >> 4) & 3, key.flow_id());
    Some(IpMeta { l3: ETH_HLEN, v6: true, ip_len: total as u32, ecn, key, flow })
}

/// The Internet checksum (RFC 1071) of `data`: 0 when `data` holds a valid checksum.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        sum += (*b as u32) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// RFC 1624 eq. 3: the checksum after one 16-bit word of the covered data changes
/// from `old` to `new`: `HC' = ~(~HC + ~m + m')` in one's-complement arithmetic.
pub fn checksum_update(hc: u16, old: u16, new: u16) -> u16 {
    let mut sum = (!hc as u32) + (!old as u32 & 0xffff) + new as u32;
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Set Congestion Experienced on the IP packet of `frame` if it is ECN-capable
/// (ECT(0) or ECT(1)); fix the IPv4 header checksum incrementally (IPv6 has none).
/// Returns whether the frame now carries a CE mark it did not carry before.
pub fn set_ce(frame: &mut [u8], meta: &IpMeta) -> bool {
    if meta.ecn == ECN_NOT_ECT || meta.ecn == ECN_CE {
        return false;
    }
    let l3 = meta.l3;
    if meta.v6 {
        match frame.get_mut(l3 + 1) {
            Some(b) => {
                *b |= 0x30;
                true
            }
            None => false,
        }
    } else {
        if frame.len() < l3 + 20 {
            return false;
        }
        let old = u16::from_be_bytes([frame[l3], frame[l3 + 1]]);
        frame[l3 + 1] |= ECN_CE;
        let new = u16::from_be_bytes([frame[l3], frame[l3 + 1]]);
        let hc = u16::from_be_bytes([frame[l3 + 10], frame[l3 + 11]]);
        let hc2 = checksum_update(hc, old, new);
        frame[l3 + 10..l3 + 12].copy_from_slice(&hc2.to_be_bytes());
        true
    }
}

/// Test and benchmark helpers: build well-formed frames.
pub mod build {
    use super::*;

    /// An Ethernet + IPv4 + UDP/TCP frame of `ip_len` IP bytes (>= 28 for UDP, >= 40 for TCP).
    pub fn ipv4(
        src: [u8; 4],
        dst: [u8; 4],
        proto: u8,
        sport: u16,
        dport: u16,
        ecn: u8,
        ip_len: usize,
    ) -> Vec<u8> {
        let ip_len = ip_len.max(if proto == PROTO_TCP { 40 } else { 28 });
        let mut f = vec![0u8; ETH_HLEN + ip_len];
        f[0..6].copy_from_slice(&[0x02, 0, 0, 0, 0, 2]);
        f[6..12].copy_from_slice(&[0x02, 0, 0, 0, 0, 1]);
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        let ip = &mut f[ETH_HLEN..];
        ip[0] = 0x45;
        ip[1] = ecn & 3;
        ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
        ip[6] = 0x40; // DF
        ip[8] = 64;
        ip[9] = proto;
        ip[12..16].copy_from_slice(&src);
        ip[16..20].copy_from_slice(&dst);
        let c = checksum(&ip[..20]);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        ip[20..22].copy_from_slice(&sport.to_be_bytes());
        ip[22..24].copy_from_slice(&dport.to_be_bytes());
        if proto == PROTO_UDP {
            ip[24..26].copy_from_slice(&((ip_len - 20) as u16).to_be_bytes());
        }
        f
    }

    /// An Ethernet + IPv6 + TCP/UDP frame of `ip_len` IP bytes (>= 48).
    pub fn ipv6(
        src: [u8; 16],
        dst: [u8; 16],
        proto: u8,
        sport: u16,
        dport: u16,
        ecn: u8,
        ip_len: usize,
    ) -> Vec<u8> {
        let ip_len = ip_len.max(48);
        let mut f = vec![0u8; ETH_HLEN + ip_len];
        f[12..14].copy_from_slice(&ETHERTYPE_IPV6.to_be_bytes());
        let ip = &mut f[ETH_HLEN..];
        ip[0] = 0x60;
        ip[1] = (ecn & 3) << 4;
        ip[4..6].copy_from_slice(&((ip_len - 40) as u16).to_be_bytes());
        ip[6] = proto;
        ip[7] = 64;
        ip[8..24].copy_from_slice(&src);
        ip[24..40].copy_from_slice(&dst);
        ip[40..42].copy_from_slice(&sport.to_be_bytes());
        ip[42..44].copy_from_slice(&dport.to_be_bytes());
        f
    }

    /// A broadcast ARP request frame.
    pub fn arp() -> Vec<u8> {
        let mut f = vec![0u8; 42];
        f[0..6].copy_from_slice(&[0xff; 6]);
        f[12..14].copy_from_slice(&ETHERTYPE_ARP.to_be_bytes());
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn meta(f: &[u8]) -> IpMeta {
        match classify(f) {
            Class::Ip(m) => m,
            c => panic!("not IP: {c:?}"),
        }
    }

    #[test]
    fn parses_ipv4_udp() {
        let f = build::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 17, 1234, 5201, ECN_ECT0, 1000);
        let m = meta(&f);
        assert_eq!(m.ip_len, 1000);
        assert_eq!(m.ecn, ECN_ECT0);
        assert_eq!((m.key.sport, m.key.dport, m.key.proto), (1234, 5201, 17));
        assert_eq!(m.key.endpoint(true), "10.0.0.1:1234");
        assert_eq!(m.key.endpoint(false), "10.0.0.2:5201");
    }

    #[test]
    fn parses_ipv6_tcp_through_an_extension_header() {
        let mut f = build::ipv6([1; 16], [2; 16], 0, 0, 0, ECN_ECT1, 100);
        // Hop-by-hop header (8 bytes) then TCP ports 80 -> 443.
        let ip = &mut f[ETH_HLEN..];
        ip[40] = 6;
        ip[41] = 0;
        ip[48..50].copy_from_slice(&80u16.to_be_bytes());
        ip[50..52].copy_from_slice(&443u16.to_be_bytes());
        let m = meta(&f);
        assert!(m.v6);
        assert_eq!((m.key.proto, m.key.sport, m.key.dport), (6, 80, 443));
        assert_eq!(m.ecn, ECN_ECT1);
        assert_eq!(m.ip_len, 100);
    }

    #[test]
    fn ethernet_padding_is_not_part_of_the_packet() {
        let mut f = build::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 17, 1, 2, 0, 28);
        f.resize(60, 0);
        assert_eq!(meta(&f).ip_len, 28);
    }

    #[test]
    fn classifies_bad_frames() {
        assert_eq!(classify(&[0u8; 5]), Class::Invalid(Invalid::Runt));
        assert_eq!(classify(&build::arp()), Class::Arp);
        let mut vlan = build::ipv4([1, 1, 1, 1], [2, 2, 2, 2], 6, 1, 2, 0, 60);
        vlan[12..14].copy_from_slice(&0x8100u16.to_be_bytes());
        assert_eq!(classify(&vlan), Class::Invalid(Invalid::NonIp));
        let full = build::ipv4([1, 1, 1, 1], [2, 2, 2, 2], 6, 1, 2, 0, 1500);
        assert_eq!(classify(&full[..800]), Class::Invalid(Invalid::Malformed), "truncated");
        let mut bad_sum = full.clone();
        bad_sum[ETH_HLEN + 8] ^= 1; // TTL changed, checksum not
        assert_eq!(classify(&bad_sum), Class::Invalid(Invalid::Malformed));
        let v6 = build::ipv6([1; 16], [2; 16], 6, 1, 2, 0, 200);
        assert_eq!(classify(&v6[..100]), Class::Invalid(Invalid::Malformed));
    }

    #[test]
    fn checksum_update_matches_full_recomputation() {
        // RFC 1624 section 4's example: the other octets sum to 0xCD7A, so HC = 0xDD2F;
        // m = 0x5555 -> m' = 0x3285 makes the sum 0xFFFF and the checksum 0x0000 (eq. 1
        // of RFC 1141 gets 0xFFFF here).
        assert_eq!(checksum_update(0xDD2F, 0x5555, 0x3285), 0x0000);
        for tos in 0..=255u8 {
            for ttl in [1u8, 64, 255] {
                let mut f =
                    build::ipv4([192, 168, 1, 1], [172, 16, 0, ttl], 6, 9, 10, tos & 3, 576);
                f[ETH_HLEN + 1] = tos & !3 | ECN_ECT0;
                f[ETH_HLEN + 8] = ttl;
                f[ETH_HLEN + 10..ETH_HLEN + 12].fill(0);
                let c = checksum(&f[ETH_HLEN..ETH_HLEN + 20]);
                f[ETH_HLEN + 10..ETH_HLEN + 12].copy_from_slice(&c.to_be_bytes());
                let m = meta(&f);
                assert!(set_ce(&mut f, &m));
                assert_eq!(f[ETH_HLEN + 1] & 3, ECN_CE);
                assert_eq!(f[ETH_HLEN + 1] & !3, tos & !3, "DSCP kept");
                assert_eq!(checksum(&f[ETH_HLEN..ETH_HLEN + 20]), 0, "tos {tos} ttl {ttl}");
                assert_eq!(meta(&f).ecn, ECN_CE);
            }
        }
    }

    #[test]
    fn ce_only_on_ect_packets() {
        let mut f = build::ipv4([1, 1, 1, 1], [2, 2, 2, 2], 6, 1, 2, ECN_NOT_ECT, 100);
        let before = f.clone();
        assert!(!set_ce(&mut f, &meta(&before)));
        assert_eq!(f, before);
        let mut f6 = build::ipv6([1; 16], [2; 16], 6, 1, 2, ECN_ECT0, 100);
        let m6 = meta(&f6);
        assert!(set_ce(&mut f6, &m6));
        assert_eq!(meta(&f6).ecn, ECN_CE);
        assert_eq!(f6[ETH_HLEN] & 0x0f, 0, "traffic class high bits untouched");
    }

    #[test]
    fn flow_id_depends_on_every_field_of_the_tuple() {
        let k = meta(&build::ipv4([10, 0, 0, 1], [10, 0, 0, 2], 6, 1000, 5201, 0, 100)).key;
        let id = k.flow_id();
        assert_eq!(id, k.flow_id(), "deterministic");
        let variants = [
            FlowKey { sport: 1001, ..k },
            FlowKey { dport: 5202, ..k },
            FlowKey { proto: 17, ..k },
            FlowKey {
                src: {
                    let mut s = k.src;
                    s[3] = 3;
                    s
                },
                ..k
            },
            FlowKey {
                dst: {
                    let mut s = k.dst;
                    s[3] = 3;
                    s
                },
                ..k
            },
            FlowKey { v6: true, ..k },
        ];
        for v in variants {
            assert_ne!(v.flow_id(), id, "{v:?}");
        }
        // Over many ports the ids hardly collide.
        let ids: std::collections::HashSet<u32> =
            (0..10_000u16).map(|p| FlowKey { sport: p, ..k }.flow_id()).collect();
        assert!(ids.len() >= 9_990);
    }

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), ety in 0usize..4) {
            let mut f = bytes;
            if f.len() >= ETH_HLEN {
                let t = [ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_ARP, 0x1234][ety];
                f[12..14].copy_from_slice(&t.to_be_bytes());
                if let Some(b) = f.get_mut(ETH_HLEN) {
                    match ety {
                        0 => *b = 0x45 | (*b & 0x0f),
                        1 => *b = 0x60,
                        _ => {}
                    }
                }
            }
            if let Class::Ip(m) = classify(&f) {
                prop_assert!(m.ip_len as usize + ETH_HLEN <= f.len());
                let _ = m.key.flow_id();
                set_ce(&mut f, &m);
            }
        }

        #[test]
        fn truncations_of_valid_frames_never_panic(cut in 0usize..1514, v6 in any::<bool>()) {
            let f = if v6 { build::ipv6([1; 16], [2; 16], 17, 1, 2, 2, 1500) } else { build::ipv4([1; 4], [2; 4], 17, 1, 2, 2, 1500) };
            let c = classify(&f[..cut.min(f.len())]);
            if cut < f.len() { prop_assert!(!matches!(c, Class::Ip(_))); }
        }
    }
}
