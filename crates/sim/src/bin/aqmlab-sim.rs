//! `aqmlab-sim SCENARIO.toml [TRACE_DIR]`: run a scenario and print the summary's
//! main figures (a development tool; the user-facing command is `aqmlab run`).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: aqmlab-sim SCENARIO.toml [TRACE_DIR]");
        std::process::exit(2);
    }
    let sc = match sim::Scenario::from_file(std::path::Path::new(&args[1])) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = std::time::Instant::now();
    let run = sim::Sim::new(sc, args.get(2).map(std::path::Path::new)).and_then(|mut sim| {
        let s = sim.run()?;
        Ok((s, sim.threads(), sim.fallbacks()))
    });
    let (s, threads, fallbacks) = match run {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let wall = t0.elapsed().as_secs_f64();
    for (name, l) in &s.links {
        if l.arrivals > 0 {
            println!(
                "{name:>14} util {:.4} arr {} dep {} drops {} (early {}) marks {} meanq {:.2} avg {:.2} delay {:.5}",
                l.utilization,
                l.arrivals,
                l.departures,
                l.drops,
                l.early_drops,
                l.marks,
                l.mean_queue,
                l.mean_avg,
                l.mean_delay
            );
        }
    }
    // (a few TCP flows' windows and repairs, to look at one sender)
    if s.flows.len() <= 10 {
        for f in s.flows.iter().filter(|f| f.variant.is_some()) {
            println!(
                "{:>14} goodput {:.4e} mean_cwnd {:.1} timeouts {} fast_retransmits {}",
                f.name, f.goodput_bps, f.mean_cwnd, f.timeouts, f.fast_retransmits
            );
        }
    }
    println!(
        "events {} in {:.3} s: {:.0} events/s; bottleneck {} {} packets: {:.0} packets/s",
        s.events,
        wall,
        s.events as f64 / wall,
        s.bottleneck,
        s.bottleneck_packets,
        s.bottleneck_packets as f64 / wall
    );
    println!("threads {threads}, fall-backs to one thread {fallbacks}");
}
