//! A TCP flow's parameters from its keys, defaults those of [`TcpParams::default`].

use super::read::{above, bytes, int_in, pos_secs};
use super::spec::TcpSpec;
use crate::error::{Result, SimError};
use crate::tcp::TcpParams;

/// The TCP parameters of the flow at `p` (`flow[3]`).
pub(super) fn params(t: &TcpSpec, ecn: bool, packet_size: u32, p: &str) -> Result<TcpParams> {
    let fp = |k: &str| format!("{p}.{k}");
    let max_window = int_in(t.max_window, &fp("max_window"), 1, 1 << 30)? as u32;
    let init_cwnd = above(t.init_cwnd, 1.0, false, &fp("init_cwnd"), ">= 1 packet")?;
    // Infinite is allowed (no threshold); NaN is not.
    if t.ssthresh.is_nan() || t.ssthresh < 2.0 {
        return Err(SimError::invalid(&fp("ssthresh"), t.ssthresh, ">= 2 packets"));
    }
    let count = |v: i64, k: &str, lo: i64, hi: i64| int_in(v, &fp(k), lo, hi).map(|v| v as u32);
    let half = u32::MAX as i64 / 2;
    let tp = TcpParams {
        variant: t.variant,
        newreno: t.newreno,
        newreno_timer: t.newreno_timer,
        max_window,
        init_cwnd,
        ssthresh: t.ssthresh,
        packets: count(t.packets.unwrap_or(0), "packets", 0, half)? as u64,
        packet_size,
        ack_size: bytes(&t.ack_size, &fp("ack_size"))?,
        delayed_ack: t.delayed_ack,
        delack_interval: pos_secs(&t.delack_interval, &fp("delack_interval"))?,
        min_rto: pos_secs(&t.min_rto, &fp("min_rto"))?,
        max_rto: pos_secs(&t.max_rto, &fp("max_rto"))?,
        initial_rto: pos_secs(&t.initial_rto, &fp("initial_rto"))?,
        tick: pos_secs(&t.tick, &fp("tick"))?,
        max_backoff: count(t.max_backoff, "max_backoff", 1, 1 << 20)?,
        dupack_threshold: count(t.dupack_threshold, "dupack_threshold", 1, 1000)?,
        ecn,
        tiny_window: t.tiny_window,
        drop: {
            let mut v = (t.drop.iter().enumerate())
                .map(|(i, s)| count(*s, &format!("drop[{i}]"), 0, half))
                .collect::<Result<Vec<u32>>>()?;
            v.sort_unstable();
            v
        },
    };
    if tp.min_rto > tp.max_rto {
        let max_rto = tp.max_rto;
        return Err(SimError::invalid(
            &fp("min_rto"),
            tp.min_rto,
            format!("<= max_rto ({max_rto})"),
        ));
    }
    Ok(tp)
}
