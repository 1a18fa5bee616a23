//! A TCP flow's parameters from its keys, defaults those of [`TcpParams::default`].

use super::read::{above, bytes, int_in, pos_secs, secs, ticks};
use super::spec::{InitialWindow, TcpSpec};
use crate::error::{Result, SimError};
use crate::tcp::{
    BbrParams, CubicParams, CubicRules, LedbatParams, PacingParams, PragueParams, Rules, TcpParams,
    UNLIMITED, Variant,
};

/// Bytes of IP and TCP headers in a packet: the MSS is `packet_size` less these.
const HEADERS: u32 = 40;

/// The TCP parameters of the flow at `p` (`flow[3]`); `ecn` is the flow's ECN
/// capability (DCTCP's and Prague's flows have it whatever `ecn` says; Prague's carry
/// ECT(1) whatever `ect1` says).
pub(super) fn params(t: &TcpSpec, ecn: bool, packet_size: u32, p: &str) -> Result<TcpParams> {
    let fp = |k: &str| format!("{p}.{k}");
    let max_window = match t.max_window {
        Some(w) => int_in(w, &fp("max_window"), 1, 1 << 30)? as u32,
        None => UNLIMITED,
    };
    let init_cwnd = initial_window(t, packet_size, p)?;
    // Infinite is allowed (no threshold); NaN is not.
    if t.ssthresh.is_nan() || t.ssthresh < 2.0 {
        return Err(SimError::invalid(&fp("ssthresh"), t.ssthresh, ">= 2 packets"));
    }
    let count = |v: i64, k: &str, lo: i64, hi: i64| int_in(v, &fp(k), lo, hi).map(|v| v as u32);
    let half = u32::MAX as i64 / 2;
    let tp = TcpParams {
        variant: t.variant,
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
        sack: t.sack,
        sack_blocks: count(t.sack_blocks, "sack_blocks", 1, 4)?,
        ect1: t.ect1 || t.variant == Variant::Prague,
        cubic: CubicParams {
            c: above(t.cubic_c, 0.0, true, &fp("cubic_c"), "> 0 packets/s^3")?,
            beta: open01(t.cubic_beta, &fp("cubic_beta"))?,
            fast_convergence: t.fast_convergence,
        },
        dctcp_g: match t.dctcp_g {
            g if g > 0.0 && g <= 1.0 => g,
            g => return Err(SimError::invalid(&fp("dctcp_g"), g, "in (0, 1]")),
        },
        ledbat: ledbat(t, p)?,
        pacing: pacing(t, p)?,
        bbr: bbr(t, p)?,
        prague: prague(t, p)?,
        drop: {
            let mut v = (t.drop.iter().enumerate())
                .map(|(i, s)| count(*s, &format!("drop[{i}]"), 0, half))
                .collect::<Result<Vec<u32>>>()?;
            v.sort_unstable();
            v
        },
        rules: rules(t),
    };
    check(&tp, ecn, &fp)?;
    Ok(tp)
}

/// The checks across keys of the flow's parameters `tp` (`fp` names a key's path).
fn check(tp: &TcpParams, ecn: bool, fp: &dyn Fn(&str) -> String) -> Result<()> {
    if tp.min_rto > tp.max_rto {
        let max_rto = tp.max_rto;
        return Err(SimError::invalid(
            &fp("min_rto"),
            tp.min_rto,
            format!("<= max_rto ({max_rto})"),
        ));
    }
    if tp.sack && tp.variant == Variant::Tahoe {
        return Err(SimError::invalid(
            &fp("sack"),
            true,
            "with variant reno, newreno, cubic, dctcp, ledbat or bbr (not tahoe)",
        ));
    }
    if tp.variant == Variant::Bbr && !tp.sack {
        return Err(SimError::invalid(
            &fp("sack"),
            false,
            "true with variant bbr (its delivery-rate samples count SACKed packets, tcp_rate.c)",
        ));
    }
    for (on, key, rfc) in [
        (tp.rules.prr, "prr", "RFC 6937's DeliveredData counts SACKed packets"),
        (tp.rules.rack, "rack", "RFC 8985 detects losses from SACKs"),
    ] {
        if on && !tp.sack {
            return Err(SimError::invalid(
                &fp(key),
                true,
                format!("true only with sack = true ({rfc})"),
            ));
        }
    }
    if tp.ect1 && !ecn {
        return Err(SimError::invalid(&fp("ect1"), true, "true only with ecn = true"));
    }
    Ok(())
}

/// The flow's rules (each key an enum or a switch, checked by its type).
fn rules(t: &TcpSpec) -> Rules {
    Rules {
        newreno: t.newreno,
        newreno_timer: t.newreno_timer,
        rto_backoff: t.rto_backoff,
        fast_retransmit_timer: t.fast_retransmit_timer,
        recover_rule: t.recover_rule,
        rtt_sampling: t.rtt_sampling,
        rto_estimator: t.rto_estimator,
        loss_ssthresh: t.loss_ssthresh,
        recovery_window: t.recovery_window,
        ecn_cwr: t.ecn_cwr,
        app_limited: t.app_limited,
        reno_growth: t.reno_growth,
        rto_sack: t.rto_sack,
        hystart: t.hystart,
        prr: t.prr,
        rack: t.rack,
        quickack: t.quickack,
        tiny_window: t.tiny_window,
        limited_transmit: t.limited_transmit,
        cubic: CubicRules {
            reno_friendly: t.cubic_reno_friendly,
            growth: t.cubic_growth,
            timeout: t.cubic_timeout,
            slow_start: t.cubic_slow_start,
            reno_alpha: t.cubic_reno_alpha,
        },
    }
}

/// LEDBAT's keys, checked whatever the variant; kept for a LEDBAT flow only.
fn ledbat(t: &TcpSpec, p: &str) -> Result<Option<LedbatParams>> {
    let fp = |k: &str| format!("{p}.{k}");
    let target = secs(&t.ledbat_target, &fp("ledbat_target"))?;
    if ticks(target) < 1 || target > 10.0 {
        return Err(SimError::invalid(&fp("ledbat_target"), target, "a time in (0, 10] s"));
    }
    let gain = match t.ledbat_gain {
        g if g > 0.0 && g <= 100.0 => g,
        g => return Err(SimError::invalid(&fp("ledbat_gain"), g, "in (0, 100]")),
    };
    let base_history = int_in(t.ledbat_base_history, &fp("ledbat_base_history"), 1, 1440)? as u32;
    let l = LedbatParams { target, gain, base_history };
    Ok((t.variant == Variant::Ledbat).then_some(l))
}

/// Pacing's keys, checked whatever the variant; kept for a paced flow only (`pacing`
/// given true, or absent for BBR, which cannot go without).
fn pacing(t: &TcpSpec, p: &str) -> Result<Option<PacingParams>> {
    let fp = |k: &str| format!("{p}.{k}");
    let ratio = |v: f64, k: &str| match v {
        v if v > 0.0 && v <= 1000.0 => Ok(v / 100.0),
        v => Err(SimError::invalid(&fp(k), v, "a percentage in (0, 1000]")),
    };
    let pp = PacingParams {
        ss_ratio: ratio(t.pacing_ss_ratio, "pacing_ss_ratio")?,
        ca_ratio: ratio(t.pacing_ca_ratio, "pacing_ca_ratio")?,
    };
    let own = match t.variant {
        Variant::Bbr => Some("bbr (BBR sets the pacing rate, tcp_bbr.c)"),
        Variant::Prague => Some("prague (Prague always paces, tcp_prague.c)"),
        _ => None,
    };
    if let Some(why) = own
        && t.pacing == Some(false)
    {
        return Err(SimError::invalid(
            &fp("pacing"),
            false,
            format!("true or absent with variant {why}"),
        ));
    }
    Ok(t.pacing.unwrap_or(own.is_some()).then_some(pp))
}

/// BBR's keys, checked whatever the variant; kept for a BBR flow only.
fn bbr(t: &TcpSpec, p: &str) -> Result<Option<BbrParams>> {
    let fp = |k: &str| format!("{p}.{k}");
    let high_gain = match t.bbr_high_gain {
        g if (1.0..=10.0).contains(&g) => g,
        g => return Err(SimError::invalid(&fp("bbr_high_gain"), g, "in [1, 10]")),
    };
    let drain_gain = match t.bbr_drain_gain {
        g if g > 0.0 && g <= 1.0 => g,
        g => return Err(SimError::invalid(&fp("bbr_drain_gain"), g, "in (0, 1]")),
    };
    let b = BbrParams {
        high_gain,
        drain_gain,
        extra_acked: t.bbr_extra_acked,
        strict_min_rtt: t.bbr_min_rtt_strict,
        lt_bw: t.bbr_lt_bw,
        rate_newest_sent: t.bbr_rate_newest_sent,
    };
    Ok((t.variant == Variant::Bbr).then_some(b))
}

/// Prague's keys, checked whatever the variant; kept for a Prague flow only.
fn prague(t: &TcpSpec, p: &str) -> Result<Option<PragueParams>> {
    let fp = |k: &str| format!("{p}.{k}");
    let rtt_target = secs(&t.prague_rtt_target, &fp("prague_rtt_target"))?;
    if !(0.0..=1.0).contains(&rtt_target) {
        return Err(SimError::invalid(
            &fp("prague_rtt_target"),
            rtt_target,
            "a time in [0, 1] s (0: off)",
        ));
    }
    let rtt_transition =
        int_in(t.prague_rtt_transition, &fp("prague_rtt_transition"), 0, 1 << 30)? as u32;
    let q = PragueParams { rtt_target, rtt_transition, ecn_fallback: t.prague_ecn_fallback };
    Ok((t.variant == Variant::Prague).then_some(q))
}

/// A number in (0, 1).
fn open01(v: f64, path: &str) -> Result<f64> {
    if v > 0.0 && v < 1.0 { Ok(v) } else { Err(SimError::invalid(path, v, "in (0, 1)")) }
}

/// The initial window in packets: `init_cwnd`, or `initial_window` (packets, or an
/// RFC's rule in bytes with MSS = `packet_size` - 40: RFC 3390's
/// `min(4 MSS, max(2 MSS, 4380))`, RFC 6928's `min(10 MSS, max(2 MSS, 14600))`, in
/// whole segments), not both; 2 if neither.
fn initial_window(t: &TcpSpec, packet_size: u32, p: &str) -> Result<f64> {
    let fp = |k: &str| format!("{p}.{k}");
    let mss = packet_size.saturating_sub(HEADERS).max(1) as f64;
    let rule = |k: f64, floor: f64| (k * mss).min((2.0 * mss).max(floor)) / mss;
    match (t.init_cwnd, &t.initial_window) {
        (Some(_), Some(_)) => {
            Err(SimError::at(&fp("initial_window"), "give init_cwnd or initial_window, not both"))
        }
        (Some(w), None) => above(w, 1.0, false, &fp("init_cwnd"), ">= 1 packet"),
        (None, None) => Ok(TcpParams::default().init_cwnd),
        (None, Some(InitialWindow::Packets(n))) => {
            Ok(int_in(*n, &fp("initial_window"), 1, 1 << 20)? as f64)
        }
        (None, Some(InitialWindow::Rule(r))) => match r.as_str() {
            "rfc3390" => Ok(rule(4.0, 4380.0).floor()),
            "rfc6928" => Ok(rule(10.0, 14600.0).floor()),
            _ => Err(SimError::invalid(
                &fp("initial_window"),
                format!("{r:?}"),
                "a number of packets, \"rfc3390\" or \"rfc6928\"",
            )),
        },
    }
}
