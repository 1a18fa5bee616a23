# aqmlab peer benchmark: the dumbbell of benchmarks/peers/scenarios.py in ns-2 2.35.
#
#   ns dumbbell.tcl PARAMS_FILE
#
# PARAMS_FILE holds "key value..." lines written by scenarios.py (Case.params()).
# Prints one JSON line with the results of the measurement window
# [t_measure, duration] on stdout.  Every ns-2 default that matters is set
# explicitly below; docs/peers.md explains each choice.

if {$argc != 1} {
    puts stderr "usage: ns dumbbell.tcl PARAMS_FILE"
    exit 2
}
set f [open [lindex $argv 0] r]
while {[gets $f line] >= 0} {
    set line [string trim $line]
    if {$line == "" || [string index $line 0] == "#"} continue
    set P([lindex $line 0]) [lrange $line 1 end]
}
close $f
foreach k {name flows paths bottleneck_rate bottleneck_delay access_rate access_limit limit
           queue min_th max_th w_q max_p gentle ared_interval ared_alpha ared_beta ared_top
           ared_bottom duration t_measure packet_size ack_size max_window init_window
           min_rto tcp_tick init_rto limited_transmit sample_interval seed} {
    set $k [lindex $P($k) 0]
}
set ns2_defaults [expr {[info exists P(ns2_defaults)] ? [lindex $P(ns2_defaults) 0] : 0}]
set access_delays $P(access_delays)
set flow_paths $P(flow_paths)
set starts $P(starts)

global defaultRNG
$defaultRNG seed $seed

# ------------------------------------------------------------------ TCP
# NewReno, no SACK (plain Agent/TCP/Newreno), one ACK per packet (Agent/TCPSink).
# With `ns2_defaults 1` (the -ns2mode cases, aqmlab in its `ns2` profile) only the
# case's numbers are set: the window and the packet size on the wire (packetSize_ is
# the payload, useHeaders_ true adds 40 bytes); every other variable keeps ns-2 2.35's
# default (tcl/lib/ns-default.tcl: singledup_ 1, maxburst_ 0, syn_ true, ...).
Agent/TCP set window_ $max_window
if {$ns2_defaults} {
    Agent/TCP set packetSize_ [expr {$packet_size - [Agent/TCP set tcpip_base_hdr_size_]}]
} else {
    Agent/TCP set windowInit_ $init_window
    Agent/TCP set packetSize_ $packet_size
    Agent/TCP set useHeaders_ false
    Agent/TCP set tcpTick_ $tcp_tick
    Agent/TCP set minrto_ $min_rto
    Agent/TCP set rtxcur_init_ $init_rto
    Agent/TCP set maxburst_ 0
    Agent/TCP set singledup_ $limited_transmit
    Agent/TCP set timestamps_ false
    Agent/TCP set overhead_ 0
    Agent/TCP set maxcwnd_ 0
    Agent/TCP set ssthresh_ 0          ;# 0: initial ssthresh = window_
    Agent/TCP set numdupacks_ 3
    Agent/TCP set bugFix_ true         ;# no fast retransmit unless highest_ack_ > recover_
    Agent/TCP set maxrto_ 60
    # ns-2 2.35 defaults kept (and pinned here): the first packet stands for a SYN
    # (cwnd 1 for the first RTT, then windowInit_), NewReno's "impatient" timer
    # (restarted on the first partial ACK only) and partial window deflation.
    Agent/TCP set syn_ true
    Agent/TCP set delay_growth_ true
    Agent/TCP/Newreno set newreno_changes1_ 1
    Agent/TCP/Newreno set partial_window_deflation_ 1
    Agent/TCP/Newreno set exit_recovery_fix_ 0
    Agent/TCPSink set packetSize_ $ack_size
}

# ------------------------------------------------------------------ RED
# Class defaults, so the bottleneck queue is created with them.
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set thresh_ $min_th
Queue/RED set maxthresh_ $max_th
Queue/RED set q_weight_ $w_q
Queue/RED set linterm_ [expr {1.0 / $max_p}]
Queue/RED set gentle_ [expr {$gentle ? "true" : "false"}]
if {!$ns2_defaults} {
    # (ns2_defaults: ns-2's wait_ true and mean_pktsize_ 500, as the `ns2` profile has them)
    Queue/RED set mean_pktsize_ $packet_size
    Queue/RED set wait_ false
}
Queue/RED set setbit_ false
Queue/RED set drop_tail_ true
Queue/RED set drop_front_ false
Queue/RED set drop_rand_ false
Queue/RED set ns1_compat_ false
Queue/RED set cautious_ 0
Queue/RED set feng_adaptive_ 0
if {$queue == "ared"} {
    Queue/RED set adaptive_ 1
    Queue/RED set interval_ $ared_interval
    Queue/RED set alpha_ $ared_alpha
    Queue/RED set beta_ $ared_beta
    Queue/RED set top_ $ared_top
    Queue/RED set bottom_ $ared_bottom
} else {
    Queue/RED set adaptive_ 0
}
Queue/DropTail set drop_front_ false
Queue/DropTail set queue_in_bytes_ false

set ns [new Simulator]

# ------------------------------------------------------------------ topology
set r1 [$ns node]
set r2 [$ns node]
set qtype [expr {$queue == "droptail" ? "DropTail" : "RED"}]
$ns simplex-link $r1 $r2 $bottleneck_rate $bottleneck_delay $qtype
$ns simplex-link $r2 $r1 $bottleneck_rate $bottleneck_delay DropTail
$ns queue-limit $r1 $r2 $limit
$ns queue-limit $r2 $r1 $limit
set bq [[$ns link $r1 $r2] queue]

for {set i 0} {$i < $paths} {incr i} {
    set d [lindex $access_delays $i]
    set src($i) [$ns node]
    set dst($i) [$ns node]
    $ns duplex-link $src($i) $r1 $access_rate $d DropTail
    $ns duplex-link $r2 $dst($i) $access_rate $d DropTail
    $ns queue-limit $src($i) $r1 $access_limit
    $ns queue-limit $r1 $src($i) $access_limit
    $ns queue-limit $r2 $dst($i) $access_limit
    $ns queue-limit $dst($i) $r2 $access_limit
}

# Queue monitor on the bottleneck: arrivals, departures, drops and the
# time-integral of the queue length (packets waiting, not the one on the wire).
set blink [$ns link $r1 $r2]
set qmon [$blink init-monitor $ns "" 0.1]
set pint [$qmon get-pkts-integrator]

# ------------------------------------------------------------------ flows
for {set i 0} {$i < $flows} {incr i} {
    set p [lindex $flow_paths $i]
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $src($p) $tcp($i)
    $ns attach-agent $dst($p) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at [lindex $starts $i] "$ftp($i) start"
}

# ------------------------------------------------------------------ measurement
set red_sum 0.0
set red_n 0
proc sample_red {} {
    global ns bq red_sum red_n sample_interval duration
    set red_sum [expr {$red_sum + [$bq set ave_]}]
    incr red_n
    set t [expr {[$ns now] + $sample_interval}]
    if {$t < $duration - 1e-9} { $ns at $t "sample_red" }
}

proc snapshot {tag} {
    global ns qmon pint flows tcp S
    set now [$ns now]
    $pint newpoint $now [$qmon set pkts_]
    set S($tag,t) $now
    set S($tag,qint) [$pint set sum_]
    set S($tag,arr) [$qmon set parrivals_]
    set S($tag,dep) [$qmon set pdepartures_]
    set S($tag,drop) [$qmon set pdrops_]
    for {set i 0} {$i < $flows} {incr i} {
        set S($tag,ack,$i) [$tcp($i) set ack_]
    }
}

proc finish {} {
    global ns S flows packet_size bottleneck_rate red_sum red_n queue bq name t_measure duration
    snapshot end
    set W [expr {$S(end,t) - $S(start,t)}]
    set arr [expr {$S(end,arr) - $S(start,arr)}]
    set dep [expr {$S(end,dep) - $S(start,dep)}]
    set drops [expr {$S(end,drop) - $S(start,drop)}]
    # bdepartures_ is a 32-bit int in ns-2 (wraps after 2 GB): use packets, all of
    # which are packet_size-byte data packets on this link.
    set util [expr {double($dep) * $packet_size * 8.0 / ($bottleneck_rate * $W)}]
    set meanq [expr {($S(end,qint) - $S(start,qint)) / $W}]
    set droprate [expr {$arr > 0 ? double($drops) / $arr : 0.0}]
    set sum 0.0
    set sum2 0.0
    set gp {}
    for {set i 0} {$i < $flows} {incr i} {
        set x [expr {($S(end,ack,$i) - $S(start,ack,$i)) * $packet_size * 8.0 / $W / 1e6}]
        lappend gp [format %.6f $x]
        set sum [expr {$sum + $x}]
        set sum2 [expr {$sum2 + $x * $x}]
    }
    set jain [expr {$sum2 > 0 ? $sum * $sum / ($flows * $sum2) : 0.0}]
    if {$queue == "droptail"} {
        set ravg null
        set maxp null
    } else {
        set ravg [format %.4f [expr {$red_n > 0 ? $red_sum / $red_n : 0.0}]]
        set maxp [$bq set cur_max_p_]
    }
    puts [format "{\"sim\": \"ns2\", \"case\": \"%s\", \"utilization\": %.6f, \"mean_queue\": %.4f, \"mean_red_avg\": %s, \"drop_rate\": %.6f, \"jain\": %.6f, \"goodput_mbps\": %.4f, \"arrivals\": %d, \"departures\": %d, \"drops\": %d, \"departures_total\": %d, \"final_max_p\": %s, \"window\": \[%g, %g\], \"flow_goodput_mbps\": \[%s\]}" \
        $name $util $meanq $ravg $droprate $jain $sum $arr $dep $drops $S(end,dep) $maxp \
        $t_measure $duration [join $gp ", "]]
    exit 0
}

$ns at $t_measure "snapshot start"
if {$queue != "droptail"} { $ns at $t_measure "sample_red" }
$ns at $duration "finish"
$ns run
