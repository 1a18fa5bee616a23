//! Behaviour profiles: each a named set of existing scenario keys that makes aqmlab
//! behave as one peer does, `rfc` (the default: every key at its default, the RFCs'
//! rules), `ns2` (ns-2 2.35's defaults), `ns3` (ns-3 3.37's rules where it departs
//! from the RFCs, as the peer benchmark measured them) and `linux` (Linux 6.x's TCP).
//!
//! A scenario names a profile at its top (`profile = "ns2"`), on a flow or on a queue
//! table; a key written in the file wins over the profile, a flow's or queue's profile
//! over the scenario's, and either over the defaults (the scenario reader applies them,
//! `scenario::profiles`). A profile holds the keys it sets for TCP flows, for queues by
//! their `type`, and for links (the scenario's profile only). Each key's value comes
//! with the peer's name for it, so that what a profile sets can be read against the
//! peer's code (`aqmlab profiles NAME` prints it).

use toml::{Table, Value};

/// A key's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
}

impl Val {
    /// As a TOML value.
    pub fn value(self) -> Value {
        match self {
            Val::Bool(b) => Value::Boolean(b),
            Val::Int(i) => Value::Integer(i),
            Val::Float(x) => Value::Float(x),
            Val::Str(s) => Value::String(s.to_string()),
        }
    }
}

/// One key a profile sets: its name, its value, and where the peer sets it.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub key: &'static str,
    pub val: Val,
    pub why: &'static str,
}

const fn k(key: &'static str, val: Val, why: &'static str) -> Key {
    Key { key, val, why }
}

/// The keys a profile gives the queues of some types.
#[derive(Clone, Copy, Debug)]
pub struct QueueKeys {
    pub types: &'static [&'static str],
    pub keys: &'static [Key],
}

/// A profile.
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    pub name: &'static str,
    /// What it is, in one sentence.
    pub about: &'static str,
    /// Keys of TCP flows (`tcp`, `telnet`, `web`).
    pub tcp: &'static [Key],
    /// Keys of queues, by type.
    pub queues: &'static [QueueKeys],
    /// Keys of links (from the scenario's profile).
    pub link: &'static [Key],
}

use Val::{Bool, Float, Int, Str};

/// ns-2's RED (and Adaptive RED's) rules (`Queue/RED` in `ns-default.tcl`, `red.cc`).
/// Not `queue_in_bytes_ true` nor `bytes_ true`: aqmlab's `queue_in_bytes` takes the
/// thresholds in bytes and its `byte_mode` scales by size / `max_pkt_size`, where ns-2
/// keeps the thresholds in packets of `mean_pktsize_` (`th_min = thresh_ *
/// mean_pktsize_`) and scales by size / `mean_pktsize_`; a scenario's thresholds in
/// packets would become bytes.
const NS2_RED: &[Key] = &[
    k("gentle", Bool(true), "gentle_ true"),
    k("min_backlog", Int(2), "red.cc: no early drop unless qlen > 1"),
    k("mark_method", Str("ns2_wait"), "wait_ true"),
    k("mean_pkt_size", Int(500), "mean_pktsize_ 500"),
    k(
        "idle_rule",
        Str("ns2"),
        "red.cc: idle from Queue::resume's empty deque(); m = int(ptc * idle)",
    ),
];

/// ns-2's Adaptive RED (`adaptive_ 1` in `red.cc`), besides [`NS2_RED`].
const NS2_ARED: &[Key] = &[k(
    "adapt_rule",
    Str("ns2"),
    "red.cc: estimator() runs updateMaxP once now > lastset + interval_, unclamped; \
     v_c, v_d from the initial max_p",
)];

/// Every profile, `rfc` first.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "rfc",
        about: "The RFCs (the default): every key at its default.",
        tcp: &[],
        queues: &[],
        link: &[],
    },
    Profile {
        name: "ns2",
        about: "ns-2 2.35's defaults: Agent/TCP's window, timers and ticks, and Queue/RED's \
                rules (tcl/lib/ns-default.tcl, tcp.cc, red.cc).",
        tcp: &[
            k("max_window", Int(20), "window_ 20"),
            k("init_cwnd", Int(2), "windowInit_ 2"),
            k("tick", Float(0.01), "tcpTick_ 0.01"),
            k("min_rto", Float(0.2), "minrto_ 0.2"),
            k("initial_rto", Float(3.0), "rtxcur_init_ 3"),
            k("max_rto", Float(60.0), "maxrto_ 60"),
            k("packet_size", Int(1040), "packetSize_ 1000 plus 40 header bytes (useHeaders_)"),
            k("limited_transmit", Bool(true), "singledup_ 1"),
            k("recover_rule", Str("beyond"), "bug_fix_: highest_ack_ > recover_"),
            k("loss_ssthresh", Str("cwnd"), "slowdown(): window() / 2"),
            k(
                "recovery_window",
                Str("ns2"),
                "precisionReduce_ true: cwnd_ = windowd() / 2; dupwnd_",
            ),
            k("app_limited", Str("grow"), "opencwnd() on every new ACK"),
            k("newreno_timer", Str("impatient"), "newreno_changes1_ 1"),
            k("rtt_sampling", Str("segment"), "rtt_seq_: one timed segment"),
            k("rto_estimator", Str("ns2"), "rtt_update, rtt_timeout, rtt_backoff in ticks"),
            k("fast_retransmit_timer", Str("restart"), "dupack_action: reset_rtx_timer"),
        ],
        queues: &[
            QueueKeys { types: &["red", "ared", "feng_ared"], keys: NS2_RED },
            QueueKeys { types: &["ared"], keys: NS2_ARED },
        ],
        link: &[],
    },
    Profile {
        name: "ns3",
        about: "ns-3 3.37's rules where it departs from the RFCs, as the peer benchmark \
                measured them (docs/peers.md 6.2, 6.3).",
        tcp: &[
            k("cubic_reno_friendly", Bool(false), "TcpCubic keeps no W_est"),
            k("cubic_growth", Str("segments"), "TcpCubic::Update: cnt, m_delayMin"),
            k("cubic_slow_start", Str("acked"), "TcpCubic::SlowStart: segmentsAcked"),
            k("cubic_timeout", Str("reset"), "TcpCubic::CongestionStateSet(CA_LOSS)"),
            k("rto_backoff", Str("ack"), "any new ACK recomputes the RTO"),
            k("recover_rule", Str("beyond"), "ack > recover (the peer benchmark's hook)"),
            k("rtt_sampling", Str("ack"), "RttHistory: a sample per ACK"),
            k("fast_retransmit_timer", Str("keep"), "no timer restart at fast retransmit"),
            k("loss_ssthresh", Str("pipe"), "GetSsThresh(BytesInFlight())"),
            k("limited_transmit", Bool(true), "sends while cwnd exceeds the pipe"),
            k("app_limited", Str("grow"), "IncreaseWindow on every new ACK"),
        ],
        queues: &[
            QueueKeys {
                types: &["red", "ared", "feng_ared"],
                keys: &[k("min_backlog", Int(2), "RedQueueDisc: no drop unless qlen > 1")],
            },
            QueueKeys {
                types: &["pie"],
                keys: &[
                    k("burst_reset", Str("quiet"), "PieQueueDisc's burst state machine"),
                    k("derandomize", Bool(false), "UseDerandomization false"),
                ],
            },
            QueueKeys {
                types: &["codel", "fq_codel"],
                keys: &[k("maxpacket", Int(1499), "MinBytes 1500: a drop needs >= 1500 B")],
            },
        ],
        link: &[k("device_queue", Int(1), "the point-to-point device's queue under the qdisc")],
    },
    Profile {
        name: "linux",
        about: "Linux 6.x's TCP with its default sysctls: CUBIC with SACK, IW10, HyStart, \
                PRR, RACK-TLP, delayed ACKs with quick-ack, timestamps' RTT samples, a \
                receive window that is not the limit; BBR's gains in tcp_bbr.c's fixed point \
                and its ACK-aggregation allowance.",
        tcp: &[
            k("variant", Str("cubic"), "net.ipv4.tcp_congestion_control = cubic"),
            k("sack", Bool(true), "net.ipv4.tcp_sack = 1"),
            k("init_cwnd", Int(10), "TCP_INIT_CWND 10"),
            k("hystart", Bool(true), "tcp_cubic.hystart = 1 (here RFC 9406's HyStart++)"),
            k(
                "reno_growth",
                Str("segments"),
                "tcp_reno_cong_avoid: tcp_slow_start, tcp_cong_avoid_ai",
            ),
            k("prr", Bool(true), "tcp_cwnd_reduction (RFC 6937)"),
            k("rack", Bool(true), "net.ipv4.tcp_recovery = 1, tcp_early_retrans = 3"),
            k("rto_sack", Str("keep"), "tcp_timeout_mark_lost: SACKed stays SACKed"),
            k(
                "fast_retransmit_timer",
                Str("head"),
                "tcp_xmit_retransmit_queue: skb == rtx_head re-arms the RTO",
            ),
            k("limited_transmit", Bool(true), "SACKed packets leave the flight"),
            k(
                "cubic_growth",
                Str("linux"),
                "bictcp_update: cnt, kept HZ / 32 jiffies while cwnd stays",
            ),
            k("cubic_reno_alpha", Str("fixed"), "bictcp_update: tcp_friendliness, beta_scale"),
            k(
                "cubic_timeout",
                Str("linux"),
                "tcp_enter_loss; cubictcp_state(TCP_CA_Loss): bictcp_reset, bictcp_hystart_reset",
            ),
            k("delayed_ack", Bool(true), "__tcp_ack_snd_check: every second segment"),
            k("delack_interval", Float(0.04), "TCP_DELACK_MIN 40 ms"),
            k("quickack", Bool(true), "tcp_incr_quickack: TCP_MAX_QUICKACKS 16"),
            k("min_rto", Float(0.2), "TCP_RTO_MIN 200 ms (tcp_rto_min: rttvar's floor)"),
            k("rto_estimator", Str("linux"), "tcp_rtt_estimator, __tcp_set_rto"),
            k("tick", Float(0.004), "CONFIG_HZ=250: jiffies of 4 ms"),
            k("initial_rto", Float(1.0), "TCP_TIMEOUT_INIT 1 s"),
            k("max_rto", Float(120.0), "TCP_RTO_MAX 120 s"),
            k("max_backoff", Int(1024), "icsk_rto doubles up to TCP_RTO_MAX"),
            k("rtt_sampling", Str("ack"), "net.ipv4.tcp_timestamps = 1: a sample per ACK"),
            k("rto_backoff", Str("ack"), "timestamps: a retransmission's ACK is a sample"),
            k("newreno_timer", Str("steady"), "tcp_clean_rtx_queue: any ACK of data re-arms"),
            k("bbr_high_gain", Float(739.0 / 256.0), "tcp_bbr.c: BBR_UNIT * 2885 / 1000 + 1"),
            k("bbr_drain_gain", Float(88.0 / 256.0), "tcp_bbr.c: BBR_UNIT * 1000 / 2885"),
            k("bbr_extra_acked", Bool(true), "tcp_bbr.c: bbr_extra_acked_gain = BBR_UNIT"),
            k(
                "bbr_min_rtt_strict",
                Bool(true),
                "tcp_bbr.c bbr_update_min_rtt: rtt_us < min_rtt_us",
            ),
            k("bbr_lt_bw", Bool(true), "tcp_bbr.c: bbr_lt_bw_sampling (policer detection)"),
            k("bbr_rate_newest_sent", Bool(true), "tcp_rate_skb_delivered: tcp_skb_sent_after"),
        ],
        queues: &[QueueKeys {
            types: &["red"],
            keys: &[
                k("queue_in_bytes", Bool(true), "red.h: qavg of the backlog in bytes"),
                k("efficient", Bool(true), "red.h: one random number per mark (Fig. 17)"),
            ],
        }],
        link: &[],
    },
];

/// Every profile as data ([`Profile::table`] with its `name`), `rfc` first.
pub fn tables() -> Vec<Table> {
    PROFILES
        .iter()
        .map(|p| {
            let mut t = p.table();
            t.insert("name".into(), Value::String(p.name.into()));
            t
        })
        .collect()
}

/// The profile named `name`.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// The profiles' names, for messages.
pub fn names() -> String {
    PROFILES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

impl Profile {
    /// The profile as data: `about`, `tcp`, `queue` (by type) and `link`, each key with
    /// `value` and `why` (what `aqmlab profiles` prints).
    pub fn table(&self) -> Table {
        let keys = |ks: &[Key]| -> Table {
            let mut t = Table::new();
            for key in ks {
                let mut e = Table::new();
                e.insert("value".into(), key.val.value());
                e.insert("why".into(), Value::String(key.why.into()));
                t.insert(key.key.into(), Value::Table(e));
            }
            t
        };
        // (a type in several groups takes the keys of each)
        let mut queues = Table::new();
        for q in self.queues {
            for ty in q.types {
                if let Value::Table(t) = queues.entry(*ty).or_insert(Value::Table(Table::new())) {
                    t.extend(keys(q.keys));
                }
            }
        }
        let mut t = Table::new();
        t.insert("about".into(), Value::String(self.about.into()));
        t.insert("tcp".into(), Value::Table(keys(self.tcp)));
        t.insert("queue".into(), Value::Table(queues));
        t.insert("link".into(), Value::Table(keys(self.link)));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every profile's keys are distinct within each group, and names are unique.
    #[test]
    fn keys_are_unique() {
        let mut names: Vec<_> = PROFILES.iter().map(|p| p.name).collect();
        names.dedup();
        assert_eq!(names.len(), PROFILES.len());
        for p in PROFILES {
            let groups = std::iter::once(p.tcp)
                .chain(p.queues.iter().map(|q| q.keys))
                .chain(std::iter::once(p.link));
            for g in groups {
                let mut ks: Vec<_> = g.iter().map(|k| k.key).collect();
                ks.sort_unstable();
                ks.dedup();
                assert_eq!(ks.len(), g.len(), "{}", p.name);
            }
        }
        assert_eq!(PROFILES[0].name, "rfc");
        assert!(PROFILES[0].tcp.is_empty() && PROFILES[0].queues.is_empty());
    }
}
