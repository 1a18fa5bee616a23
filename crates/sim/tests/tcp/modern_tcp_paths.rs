//! The TCP extensions under the simulator's fast paths: the same results hop by hop
//! and on two threads (SACK's log is shared by a flow's two ends, which may run on
//! different threads).

use super::*;

fn dumbbell(express: bool, threads: u32, queue: &str) -> String {
    let mut t = format!(
        "duration = \"15s\"\nwarmup = \"3s\"\nseed = 9\nexpress_hops = {express}\nthreads = {threads}\n"
    );
    t += &format!(
        "[[link]]\na = \"r1\"\nb = \"r2\"\nrate = \"8Mbps\"\ndelay = \"10ms\"\nqueue_ab = {queue}\nqueue_ba = {{ type = \"droptail\", limit = 25 }}\n"
    );
    let flows = [
        "variant = \"cubic\"\nsack = true",
        "variant = \"dctcp\"\nect1 = true\ndelayed_ack = true",
        "variant = \"newreno\"\nsack = true\nlimited_transmit = true\ninitial_window = 10",
        "variant = \"reno\"\nsack = true\ndelayed_ack = true",
        "variant = \"cubic\"\nlimited_transmit = true\necn = true",
        "variant = \"dctcp\"\nsack = true",
        "variant = \"newreno\"\nsack = true\nprep_delay = 0.002",
    ];
    for (i, f) in flows.iter().enumerate() {
        t += &format!(
            "[[link]]\na = \"s{i}\"\nb = \"r1\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n[[link]]\na = \"r2\"\nb = \"k{i}\"\nrate = \"100Mbps\"\ndelay = \"{}ms\"\n",
            1 + 3 * i,
            2 + i
        );
        t += &format!(
            "[[flow]]\nsrc = \"s{i}\"\ndst = \"k{i}\"\nmax_window = 200\nstart = {{ uniform = [0, 1] }}\n{f}\n"
        );
    }
    t
}

fn summary(toml: &str) -> Summary {
    let mut s = run(toml);
    (s.wall_seconds, s.events) = (0.0, 0);
    s
}

#[test]
fn same_results_hop_by_hop_and_on_two_threads() {
    for queue in [
        r#"{ type = "red", limit = 60, min_th = 5, max_th = 15, w_q = 0.002, max_p = 0.1, gentle = true, ecn = true }"#,
        r#"{ type = "droptail", limit = 20 }"#,
    ] {
        let base = summary(&dumbbell(true, 1, queue));
        assert!(base.flows.iter().all(|f| f.goodput_bps > 0.0), "{base:?}");
        assert!(base.flows.iter().any(|f| f.retransmits > 0), "{queue}: no loss to recover");
        assert_eq!(base, summary(&dumbbell(false, 1, queue)), "{queue}: hop by hop");
        assert_eq!(base, summary(&dumbbell(true, 2, queue)), "{queue}: two threads");
    }
}
