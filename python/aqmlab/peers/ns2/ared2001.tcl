# aqmlab peer check: the scenarios of Floyd, Gummadi & Shenker 2001 (Adaptive RED) in
# ns-2 2.35, as benchmarks/peers/ared2001.py writes them from aqmlab's own scenarios.
#
#   ns ared2001.tcl PARAMS_FILE
#
# A dumbbell r1 = r2 whose two directions hold the same RED (or Adaptive RED) queue;
# left nodes L(i) hang on r1, right nodes R(j) on r2. PARAMS_FILE holds "key value..."
# lines (see ared2001.py). Prints one JSON line: per measurement window [t0, t1] the
# arrivals, departures, drops, the time-average queue and the mean of RED's ave_
# (sampled every 20 ms) of the queue r1->r2. With a `trace FILE` line, ns-2's packet
# trace of both directions of r1-r2 goes to FILE.

if {$argc != 1} {
    puts stderr "usage: ns ared2001.tcl PARAMS_FILE"
    exit 2
}
set f [open [lindex $argv 0] r]
while {[gets $f line] >= 0} {
    set line [string trim $line]
    if {$line == "" || [string index $line 0] == "#"} continue
    set P([lindex $line 0]) [lrange $line 1 end]
}
close $f
foreach k {name rate rate_bps delay limit queue min_th max_th w_q max_p access_rate packet_size
           duration seed} {
    set $k [lindex $P($k) 0]
}
set left_delays $P(left_delays)
set right_delays $P(right_delays)
set windows $P(windows)

global defaultRNG
$defaultRNG seed $seed

# ------------------------------------------------------------------ TCP and RED
# ns-2 2.35's own defaults (tcl/lib/ns-default.tcl), as aqmlab's profile `ns2` has them:
# Agent/TCP windowInit_ 2, tcpTick_ 0.01, minrto_ 0.2, rtxcur_init_ 3, maxrto_ 60,
# singledup_ 1 (limited transmit), useHeaders_ true (40 header bytes over packetSize_),
# Newreno newreno_changes1_ 1; Queue/RED gentle_ true, wait_ true, mean_pktsize_ 500.
# Only what the scenario says is set here: the packet size on the wire (packetSize_ is
# the payload), each flow's window_, the thresholds, w_q and max_p, ECN. The scenario's
# queue limit and thresholds are packets, so RED counts packets: ns-2 2.35's default
# queue_in_bytes_ / bytes_ true would read them as multiples of mean_pktsize_ (500 B),
# and aqmlab's profile does not set its own byte keys either (crates/sim/src/profile.rs).
Agent/TCP set packetSize_ [expr {$packet_size - [Agent/TCP set tcpip_base_hdr_size_]}]
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set thresh_ $min_th
Queue/RED set maxthresh_ $max_th
Queue/RED set linterm_ [expr {1.0 / $max_p}]
if {$queue == "ared"} {
    Queue/RED set adaptive_ 1
    Queue/RED set q_weight_ 0          ;# automatic: 1 - exp(-1/C), C for 500-byte packets
    Queue/RED set interval_ 0.5
    Queue/RED set alpha_ 0.01
    Queue/RED set beta_ 0.9
    Queue/RED set top_ 0.5
    Queue/RED set bottom_ 0.01         ;# the paper's range of max_p, [0.01, 0.5] (ns-2: 0, its own)
} else {
    Queue/RED set adaptive_ 0
    Queue/RED set q_weight_ $w_q
}
# ECN (`ecn 1`: every TCP flow ECN-capable, the RED queues mark)
if {[info exists P(ecn)] && [lindex $P(ecn) 0]} {
    Agent/TCP set ecn_ 1
    Queue/RED set setbit_ true
}
# `tcp_set NAME VALUE ...`: Agent/TCP variables away from ns-2's defaults (an experiment's
# switch, e.g. `tcp_set precisionReduce_ false`; dumbbell40.py --ns2-set)
if {[info exists P(tcp_set)]} {
    foreach {k v} $P(tcp_set) { Agent/TCP set $k $v }
}

set ns [new Simulator]

# ------------------------------------------------------------------ topology
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 $rate $delay RED
$ns queue-limit $r1 $r2 $limit
$ns queue-limit $r2 $r1 $limit
set bq [[$ns link $r1 $r2] queue]
set i 0
foreach d $left_delays {
    set L($i) [$ns node]
    $ns duplex-link $L($i) $r1 $access_rate $d DropTail
    $ns queue-limit $L($i) $r1 1000
    $ns queue-limit $r1 $L($i) 1000
    incr i
}
set i 0
foreach d $right_delays {
    set R($i) [$ns node]
    $ns duplex-link $r2 $R($i) $access_rate $d DropTail
    $ns queue-limit $r2 $R($i) 1000
    $ns queue-limit $R($i) $r2 1000
    incr i
}
# `trace FILE`: ns-2's packet trace (+ enqueue, - dequeue, d drop, r receive) of both
# directions of r1-r2
if {[info exists P(trace)]} {
    set tracefile [open [lindex $P(trace) 0] w]
    $ns trace-queue $r1 $r2 $tracefile
    $ns trace-queue $r2 $r1 $tracefile
}
set qmon [[$ns link $r1 $r2] init-monitor $ns "" 0.1]
set pint [$qmon get-pkts-integrator]

proc node_of {side k} {
    global L R
    if {$side == "L"} { return $L($k) } else { return $R($k) }
}

# ------------------------------------------------------------------ long-lived flows
# "flow SIDE_SRC K_SRC SIDE_DST K_DST START STOP WINDOW" (STOP < 0: none)
set nflow 0
foreach spec $P(flows) {
    foreach {ss ks sd kd start stop window} $spec break
    set tcp [new Agent/TCP/Newreno]
    $tcp set window_ $window
    $tcp set fid_ $nflow
    set sink [new Agent/TCPSink]
    $ns attach-agent [node_of $ss $ks] $tcp
    $ns attach-agent [node_of $sd $kd] $sink
    $ns connect $tcp $sink
    set ftp [$tcp attach-app FTP]
    $ns at $start "$ftp start"
    if {$stop >= 0} { $ns at $stop "$ftp stop" }
    incr nflow
}

# ------------------------------------------------------------------ web traffic
# "SIDE_SRC K_SRC SIDE_DST K_DST WINDOW {TIME PACKETS ...}": the transfers aqmlab runs
# (ared2001.py draws them from the scenario's seed as aqmlab does, web_transfers.py),
# each a fresh NewReno connection that sends PACKETS packets from TIME. An agent made
# while the simulation runs is reset once, when it is made (TcpAgent's
# delay_bind_init_all), with the class's window_ (20): its ssthresh_ (reset(): int(wnd_))
# would stay 20 whatever window_ it is given after. `$ns run` resets every agent that
# exists before it starts, after the script has set its window (the long-lived flows'
# ssthresh_ is their window_); the transfer's agent is reset the same way here.
proc web_transfer {ss ks sd kd window n} {
    global ns nflow
    set tcp [new Agent/TCP/Newreno]
    $tcp set window_ $window
    $tcp reset
    $tcp set fid_ $nflow
    incr nflow
    set sink [new Agent/TCPSink]
    $ns attach-agent [node_of $ss $ks] $tcp
    $ns attach-agent [node_of $sd $kd] $sink
    $ns connect $tcp $sink
    $tcp advanceby $n
}
foreach spec $P(web) {
    if {$spec == "none"} continue
    foreach {ss ks sd kd window list} $spec break
    foreach {t n} $list {
        $ns at $t "web_transfer $ss $ks $sd $kd $window $n"
    }
}

# ------------------------------------------------------------------ measurement
set S(n) 0
proc sample_ave {} {
    global ns bq AV
    set t [$ns now]
    set AV($t) [$bq set ave_]
    $ns at [expr {$t + 0.02}] "sample_ave"
}
proc snapshot {t} {
    global ns qmon pint S
    $pint newpoint $t [$qmon set pkts_]
    set S($t,qint) [$pint set sum_]
    set S($t,arr) [$qmon set parrivals_]
    set S($t,dep) [$qmon set pdepartures_]
    set S($t,drop) [$qmon set pdrops_]
    set S($t,bytes) [$qmon set bdepartures_]
}
set times {}
foreach {t0 t1} $windows { lappend times $t0 $t1 }
foreach t [lsort -real -unique $times] { $ns at $t "snapshot $t" }
$ns at 0.0 "sample_ave"

proc finish {} {
    global ns S windows AV rate_bps name
    global tracefile
    if {[info exists tracefile]} { close $tracefile }
    set out {}
    foreach {t0 t1} $windows {
        set W [expr {$t1 - $t0}]
        set arr [expr {$S($t1,arr) - $S($t0,arr)}]
        set dep [expr {$S($t1,dep) - $S($t0,dep)}]
        set drops [expr {$S($t1,drop) - $S($t0,drop)}]
        set util [expr {($S($t1,bytes) - $S($t0,bytes)) * 8.0 / ($rate_bps * $W)}]
        set qint [expr {($S($t1,qint) - $S($t0,qint)) / $W}]
        set sum 0.0
        set n 0
        foreach t [array names AV] {
            if {$t >= $t0 - 1e-9 && $t < $t1 - 1e-9} {
                set sum [expr {$sum + $AV($t)}]
                incr n
            }
        }
        set ave [expr {$n > 0 ? $sum / $n : 0.0}]
        lappend out [format "{\"t0\": %g, \"t1\": %g, \"arrivals\": %d, \"departures\": %d, \"drops\": %d, \"utilization\": %.6f, \"mean_queue\": %.4f, \"mean_avg\": %.4f}" \
            $t0 $t1 $arr $dep $drops $util $qint $ave]
    }
    puts [format "{\"sim\": \"ns2\", \"case\": \"%s\", \"windows\": \[%s\]}" $name [join $out ", "]]
    exit 0
}
$ns at [expr {$duration + 1e-6}] "finish"
$ns run
