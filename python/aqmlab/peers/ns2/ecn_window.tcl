# aqmlab peer check: how ns-2 2.35's TCP answers ECN-Echo. One NewReno flow (ECN on) from
# n0 over 100 Mb/s 1 ms to n1, then 1.5 Mb/s 20 ms with RED (min_th 5, max_th 15,
# w_q 0.002, max_p 0.1, marking) to n2, for 20 s; cwnd_, ssthresh_ and ack_ are traced
# to the file named on the command line.
#
#   ns ecn_window.tcl TRACE_FILE
#
# docs/notes/2026-11-24-evaluate-against-ns3.md reads the trace: after each halving the window stays flat until the
# ACK of the first packet sent after the reduction.
if {$argc != 1} {
    puts stderr "usage: ns ecn_window.tcl TRACE_FILE"
    exit 2
}
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
Queue/RED set setbit_ true
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Queue/RED set gentle_ false
$ns duplex-link $n0 $n1 100Mb 1ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms RED
$ns queue-limit $n1 $n2 100
Agent/TCP set ecn_ 1
Agent/TCP set window_ 100
Agent/TCP set packetSize_ 1000
set tcp [new Agent/TCP/Newreno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
set f [open [lindex $argv 0] w]
$tcp attach $f
$tcp trace cwnd_
$tcp trace ssthresh_
$tcp trace ack_
$ns at 0.1 "$ftp start"
$ns at 20 "close $f; exit 0"
$ns run
