//! Drop Tail and Random Drop.

use aqm::{DropReason, DropTail, Limit, PacketInfo, Queue, RandomDrop, Time};

fn p(flow: u32, size: u32) -> PacketInfo {
    PacketInfo { size, flow, ecn_capable: false, ect1: false, ce: false }
}

// Drop Tail with a packet limit drops exactly the arrivals that find the buffer full.
#[test]
fn droptail_packet_limit() {
    let mut q: Queue<PacketInfo, DropTail> =
        Queue::new(DropTail::new(Limit::new(Some(5), None).unwrap(), false));
    let mut dropped = vec![];
    for f in 0..8 {
        q.enqueue(Time(0), p(f, 100), |x, r| {
            assert_eq!(r, DropReason::Overflow);
            dropped.push(x.flow)
        });
    }
    assert_eq!(dropped, vec![5, 6, 7]);
    assert_eq!(q.dequeue(Time(1)).unwrap().flow, 0);
}

// Drop Tail with a byte limit accepts a packet only if it fits in the remaining bytes.
#[test]
fn droptail_byte_limit() {
    let mut q: Queue<PacketInfo, DropTail> =
        Queue::new(DropTail::new(Limit::new(None, Some(2500)).unwrap(), false));
    let mut dropped = vec![];
    for (f, s) in [(0, 1000), (1, 1000), (2, 1000), (3, 500), (4, 40)] {
        q.enqueue(Time(0), p(f, s), |x, _| dropped.push(x.flow));
    }
    assert_eq!(dropped, vec![2, 4]);
    assert_eq!(q.len_bytes(), 2500);
}

// Drop-front with a byte limit evicts head packets until the arrival fits.
#[test]
fn drop_front_byte_limit_evicts_until_fit() {
    let mut q: Queue<PacketInfo, DropTail> =
        Queue::new(DropTail::new(Limit::new(None, Some(3000)).unwrap(), true));
    let mut dropped = vec![];
    for (f, s) in [(0, 500), (1, 500), (2, 1000), (3, 1000), (4, 1500)] {
        q.enqueue(Time(0), p(f, s), |x, _| dropped.push(x.flow));
    }
    assert_eq!(dropped, vec![0, 1, 2]);
    assert!(q.len_bytes() <= 3000);
    assert_eq!(q.iter().map(|x| x.flow).collect::<Vec<_>>(), vec![3, 4]);
}

// Random Drop picks its victim uniformly among the queued packets and the arrival.
#[test]
fn random_drop_victim_uniform() {
    let limit = 9u32;
    let trials = 20_000;
    let mut hits = vec![0u32; limit as usize + 1];
    let mut q: Queue<PacketInfo, RandomDrop> =
        Queue::new(RandomDrop::new(Limit::new(Some(limit as u64), None).unwrap(), 5));
    for f in 0..limit {
        q.enqueue(Time(0), p(f, 100), |_, _| panic!());
    }
    for t in 0..trials {
        // positions 0..limit-1 are queued packets, `limit` is the arrival
        let mut victim = None;
        let before: Vec<u32> = q.iter().map(|x| x.flow).collect();
        q.enqueue(Time(t), p(1000 + t as u32, 100), |x, _| victim = Some(x.flow));
        let v = victim.unwrap();
        let pos = before.iter().position(|&f| f == v).unwrap_or(limit as usize);
        hits[pos] += 1;
        assert_eq!(q.len_packets(), limit as usize);
    }
    let e = trials as f64 / (limit + 1) as f64;
    let chi: f64 = hits.iter().map(|&h| (h as f64 - e).powi(2) / e).sum();
    assert!(chi < 30.0, "chi-square {chi} with 9 dof: {hits:?}");
}

// Limits must be positive; at least one must be given.
#[test]
fn invalid_limits_named() {
    assert_eq!(Limit::new(Some(0), None).unwrap_err().param(), Some("limit"));
    assert_eq!(Limit::new(None, Some(0)).unwrap_err().param(), Some("limit_bytes"));
    assert_eq!(Limit::new(None, None).unwrap_err().param(), Some("limit"));
}
