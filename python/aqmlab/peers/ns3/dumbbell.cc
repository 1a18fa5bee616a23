// aqmlab peer benchmark: the dumbbell of benchmarks/peers/scenarios.py in ns-3 3.37.
//
//   dumbbell PARAMS_FILE
//
// PARAMS_FILE holds "key value..." lines written by scenarios.py (Case.params()).
// Prints one JSON line with the results of the measurement window
// [t_measure, duration] on stdout (same keys as ns2/dumbbell.tcl).
// Every ns-3 default that differs from ns-2 is overridden explicitly below;
// docs/peers.md explains each choice.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/queue-disc.h"

// RED keeps its average (m_qAvg) and current max_p (m_curMaxP) private and has
// no trace source for them in 3.37: open the class to read them (read only).
// TcpSocketBase is opened to restart its retransmission timer at fast
// retransmit (see RestartRtoOnRecovery below).
#define private public
#define protected public
#include "ns3/red-queue-disc.h"
#include "ns3/pie-queue-disc.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-cubic.h"
#include "ns3/tcp-bbr.h"
#include "ns3/bulk-send-application.h"
#undef protected
#undef private

#include "ns3/applications-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

#include "params.h"

// ---------------------------------------------------------------- measurement state
static Ptr<QueueDisc> g_qdisc;
static Ptr<RedQueueDisc> g_red;
static double g_qInt = 0;          // integral of (qdisc + device queue) packets dt
static uint32_t g_qdiscLen = 0, g_devLen = 0;
static double g_qLast = 0;
static uint64_t g_txPkts = 0, g_txBytes = 0;
static double g_redSum = 0;
static uint64_t g_redN = 0;
static double g_sampleInterval, g_duration;
// Sojourn times (s) of packets leaving the bottleneck's queue disc inside the
// measurement window: the queueing delay of the modern-AQM cases.
static std::vector<double> g_sojourn;
static bool g_inWindow = false;
static void Sojourn(Time t)
{
    if (g_inWindow)
        g_sojourn.push_back(t.GetSeconds());
}

static void QAdvance()
{
    double now = Simulator::Now().GetSeconds();
    g_qInt += (double)(g_qdiscLen + g_devLen) * (now - g_qLast);
    g_qLast = now;
}
static void QdiscLen(uint32_t, uint32_t n) { QAdvance(); g_qdiscLen = n; }
static void DevLen(uint32_t, uint32_t n) { QAdvance(); g_devLen = n; }
static void PhyTxEnd(Ptr<const Packet> p)
{
    g_txPkts++;
    g_txBytes += p->GetSize() - 2; // PPP header is not part of the IP packet
}
// Two places where ns-3 3.37's NewReno without SACK departs from ns-2's, both
// reproduced here from a trace callback so that the peers run the same TCP:
//
// 1. ns-2 restarts the retransmission timer when it fast-retransmits
//    (TcpAgent::dupack_action -> reset_rtx_timer(1,0)); ns-3 keeps the timer armed
//    from the last new ACK, so with a 0.2 s minimum RTO and 100-160 ms RTTs it
//    fires spuriously during fast recovery.
// 2. ns-2 fast-retransmits on the third duplicate ACK only if highest_ack_ >
//    recover_ (the highest packet sent at the last loss event, RFC 6582 s.3.2
//    step 2); ns-3 clears m_recoverActive on the full ACK that ends recovery and
//    then accepts any three duplicate ACKs, so the duplicates that the partial-ACK
//    retransmissions leave in flight start a spurious recovery, which makes more
//    duplicates: a self-sustaining cascade that halves goodput.  On the first
//    duplicate ACK at exactly the old recovery point, re-arm the check with
//    recover + 1 so that ns-3 needs ack > recover, as ns-2.
static void NewRenoAsNs2(Ptr<TcpSocketBase> sock, TcpSocketState::TcpCongState_t oldS,
                         TcpSocketState::TcpCongState_t newS)
{
    if (newS == TcpSocketState::CA_RECOVERY && oldS != TcpSocketState::CA_RECOVERY)
    {
        sock->m_retxEvent.Cancel();
        sock->m_retxEvent = Simulator::Schedule(sock->m_rto.Get(), &TcpSocketBase::ReTxTimeout, sock);
    }
    else if (newS == TcpSocketState::CA_DISORDER && oldS == TcpSocketState::CA_OPEN &&
             !sock->m_recoverActive && sock->m_highRxAckMark.Get() == sock->m_recover)
    {
        sock->m_recoverActive = true;
        sock->m_recover = sock->m_recover + 1;
    }
}
static void HookSocket(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (!sock)
    {
        std::cerr << "no TCP socket to hook" << std::endl;
        std::exit(3);
    }
    sock->TraceConnectWithoutContext("CongState", MakeBoundCallback(&NewRenoAsNs2, sock));
}

// Each flow's congestion window (bytes) integrated over the measurement window
// [g_cwndFrom, end]: the time average in segments is what aqmlab's mean_cwnd reports.
// The window with fast recovery's inflation (CongestionWindowInflated), as aqmlab's
// and ns-2's is; ns-3's CongestionWindow leaves it out.
static double g_cwndFrom = 0;
static std::vector<double> g_cwndInt, g_cwndLast, g_cwndSince;
static void CwndAdvance(size_t f, double now)
{
    double from = std::max(g_cwndSince[f], g_cwndFrom);
    if (now > from)
        g_cwndInt[f] += g_cwndLast[f] * (now - from);
    g_cwndSince[f] = now;
}
static void CwndChange(size_t f, uint32_t o, uint32_t n)
{
    CwndAdvance(f, Simulator::Now().GetSeconds());
    g_cwndLast[f] = n;
}
// DUMBBELL_CUBIC_TRACE=1: every change of a CUBIC sender's window (flow, time, cwnd
// and inflated window in segments, ssthresh, congestion state, and TcpCubic's W_max,
// K, origin point, epoch start, minimum RTT and ACK counter) on stderr, one "cubic"
// line each, to compare the two simulators' CUBIC cycle by cycle.
static void CubicTrace(size_t f, Ptr<TcpSocketBase> sock, uint32_t o, uint32_t n)
{
    Ptr<TcpCubic> c = DynamicCast<TcpCubic>(sock->m_congestionControl);
    if (!c)
        return;
    const double seg = sock->m_tcb->m_segmentSize;
    const Time e = c->m_epochStart;
    std::fprintf(stderr, "cubic %zu %.6f %.4f %.4f %.4f %d %u %.6f %u %.6f %.6f %u\n", f,
                 Simulator::Now().GetSeconds(), n / seg, sock->m_tcb->m_cWndInfl.Get() / seg,
                 sock->m_tcb->m_ssThresh.Get() / seg, (int)sock->m_tcb->m_congState.Get(),
                 c->m_lastMaxCwnd, c->m_bicK, c->m_bicOriginPoint,
                 e == Time::Min() ? -1.0 : e.GetSeconds(),
                 c->m_delayMin == Time::Min() ? -1.0 : c->m_delayMin.GetSeconds(), c->m_cWndCnt);
}

static void HookCwnd(Ptr<BulkSendApplication> app, size_t f)
{
    Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
    if (!sock)
    {
        std::cerr << "no TCP socket to trace" << std::endl;
        std::exit(3);
    }
    g_cwndLast[f] = sock->m_tcb->m_cWndInfl.Get();
    g_cwndSince[f] = Simulator::Now().GetSeconds();
    sock->TraceConnectWithoutContext("CongestionWindowInflated",
                                     MakeBoundCallback(&CwndChange, f));
    if (std::getenv("DUMBBELL_CUBIC_TRACE"))
        sock->TraceConnectWithoutContext("CongestionWindow",
                                         MakeBoundCallback(&CubicTrace, f, sock));
}

static void DbgCwnd(uint32_t o, uint32_t n)
{
    std::cerr << "cwnd " << Simulator::Now().GetSeconds() << " " << n << std::endl;
}
static void DbgState(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    std::cerr << "state " << Simulator::Now().GetSeconds() << " " << TcpSocketState::TcpCongStateName[n] << std::endl;
}
static void DbgRto(Time o, Time n)
{
    std::cerr << "rto " << Simulator::Now().GetSeconds() << " " << n.GetSeconds() << std::endl;
}
static void DbgDrop(Ptr<const QueueDiscItem> item)
{
    std::cerr << "drop " << Simulator::Now().GetSeconds() << " q=" << g_qdiscLen << " dev=" << g_devLen << " " << *item << std::endl;
}
static void DbgInflight(uint32_t o, uint32_t n)
{
    std::cerr << "inflight " << Simulator::Now().GetSeconds() << " " << n << std::endl;
}
static void DbgTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
{
    std::cerr << "tx " << Simulator::Now().GetSeconds() << " seq=" << h.GetSequenceNumber() << " len=" << p->GetSize() << " flags=" << (int)h.GetFlags() << std::endl;
}
static void DbgRx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
{
    std::cerr << "rx " << Simulator::Now().GetSeconds() << " ack=" << h.GetAckNumber() << " win=" << h.GetWindowSize() << std::endl;
}
static void DbgConnect(uint32_t node)
{
    g_qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&DbgDrop));
    std::ostringstream o;
    o << "/NodeList/" << node << "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(o.str() + "CongestionWindow", MakeCallback(&DbgCwnd));
    Config::ConnectWithoutContext(o.str() + "CongState", MakeCallback(&DbgState));
    Config::ConnectWithoutContext(o.str() + "RTO", MakeCallback(&DbgRto));
    Config::ConnectWithoutContext(o.str() + "BytesInFlight", MakeCallback(&DbgInflight));
    Config::ConnectWithoutContext(o.str() + "Tx", MakeCallback(&DbgTx));
    Config::ConnectWithoutContext(o.str() + "Rx", MakeCallback(&DbgRx));
}
// DUMBBELL_PIE_TRACE=1: PIE's drop probability and the queue delay it used, printed
// on stderr ("pie t p qdelay_s") every sample interval, to set beside aqmlab's queue trace.
static void PieTrace(Ptr<PieQueueDisc> pie, double every)
{
    std::fprintf(stderr, "pie %.6f %.6g %.6g\n", Simulator::Now().GetSeconds(), pie->m_dropProb,
                 pie->m_qDelay.GetSeconds());
    Simulator::Schedule(Seconds(every), &PieTrace, pie, every);
}

static void SampleRed()
{
    g_redSum += g_red->m_qAvg;
    g_redN++;
    double t = Simulator::Now().GetSeconds() + g_sampleInterval;
    if (t < g_duration - 1e-9)
        Simulator::Schedule(Seconds(g_sampleInterval), &SampleRed);
}

struct Snap
{
    double t, qint;
    uint64_t arr, drops, txPkts, txBytes;
    std::vector<uint64_t> rx;
};
static std::vector<Ptr<PacketSink>> g_sinks;
static Snap g_snap[2];

static void Snapshot(int tag)
{
    QAdvance();
    g_inWindow = tag == 0;
    Snap& s = g_snap[tag];
    s.t = Simulator::Now().GetSeconds();
    s.qint = g_qInt;
    const QueueDisc::Stats& st = g_qdisc->GetStats();
    s.arr = st.nTotalReceivedPackets;
    s.drops = st.nTotalDroppedPackets;
    s.txPkts = g_txPkts;
    s.txBytes = g_txBytes;
    s.rx.clear();
    for (auto& k : g_sinks)
        s.rx.push_back(k->GetTotalRx());
}

int main(int argc, char* argv[])
{
    if (argc != 2)
    {
        std::cerr << "usage: dumbbell PARAMS_FILE" << std::endl;
        return 2;
    }
    ReadParams(argv[1]);
    const std::string name = S("name"), queue = S("queue");
    const long flows = I("flows"), paths = I("paths");
    const double rate = D("bottleneck_rate"), bdelay = D("bottleneck_delay");
    const double arate = D("access_rate");
    const long limit = I("limit"), alimit = I("access_limit");
    const long pkt = I("packet_size"), hdr = I("header"), maxWin = I("max_window");
    const long seg = pkt - hdr;
    const double tMeasure = D("t_measure");
    g_duration = D("duration");
    g_sampleInterval = D("sample_interval");
    std::vector<double> adelay, starts;
    std::vector<long> fpath;
    for (auto& x : P["access_delays"])
        adelay.push_back(std::stod(x));
    for (auto& x : P["starts"])
        starts.push_back(std::stod(x));
    for (auto& x : P["flow_paths"])
        fpath.push_back(std::stol(x));
    if ((long)adelay.size() != paths || (long)starts.size() != flows || (long)fpath.size() != flows)
    {
        std::cerr << "inconsistent parameter lists" << std::endl;
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(I("seed"));

    // ------------------------------------------------------------ TCP (match ns-2)
    // tcp: newreno (default), cubic or bbr. ns-3 3.37's CUBIC has no Reno-friendly region;
    // HyStart is turned off (the other peers have none).
    const std::string tcp = P.count("tcp") ? S("tcp") : "newreno";
    if (tcp == "cubic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
        Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(true));
        Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(0.7));
        Config::SetDefault("ns3::TcpCubic::C", DoubleValue(0.4));
    }
    else if (tcp == "bbr")
    {
        // TcpBbr at its defaults (high gain 2.89, 10-round and 10-s filters, 200 ms
        // ProbeRTT), with the pacing it needs; the case turns SACK on (ns3_sack)
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpBbr::GetTypeId()));
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }
    else if (tcp == "newreno")
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    else
    {
        std::cerr << "unknown tcp " << tcp << std::endl;
        return 2;
    }
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(I("init_window")));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                       UintegerValue(maxWin * seg));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(maxWin * seg));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(maxWin * seg));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(D("init_rto"))));
    // SACK off as in ns-2; an optional "ns3_sack 1" line in the parameter file turns
    // it on (diagnosis only: the other peers have no SACK).
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(Dopt("ns3_sack", 0) != 0));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(I("limited_transmit") != 0));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(D("min_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(D("tcp_tick"))));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(D("init_rto"))));

    // ------------------------------------------------------------ RED (match ns-2)
    // ns-2 2.35's RED lets `limit` packets wait (its Drop Tail only limit - 1);
    // the device queue holds one more below the queue disc.
    Config::SetDefault("ns3::RedQueueDisc::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit - 1)));
    Config::SetDefault("ns3::RedQueueDisc::MeanPktSize", UintegerValue(pkt));
    Config::SetDefault("ns3::RedQueueDisc::IdlePktSize", UintegerValue(pkt));
    Config::SetDefault("ns3::RedQueueDisc::Wait", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::Gentle", BooleanValue(I("gentle") != 0));
    Config::SetDefault("ns3::RedQueueDisc::MinTh", DoubleValue(D("min_th")));
    Config::SetDefault("ns3::RedQueueDisc::MaxTh", DoubleValue(D("max_th")));
    Config::SetDefault("ns3::RedQueueDisc::QW", DoubleValue(D("w_q")));
    Config::SetDefault("ns3::RedQueueDisc::LInterm", DoubleValue(1.0 / D("max_p")));
    Config::SetDefault("ns3::RedQueueDisc::Ns1Compat", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::LinkBandwidth", DataRateValue(DataRate((uint64_t)rate)));
    Config::SetDefault("ns3::RedQueueDisc::LinkDelay", TimeValue(Seconds(bdelay)));
    Config::SetDefault("ns3::RedQueueDisc::UseEcn", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::UseHardDrop", BooleanValue(true));
    // ARED=true would overwrite min_th, max_th and w_q: adapt max_p only.
    Config::SetDefault("ns3::RedQueueDisc::ARED", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::FengAdaptive", BooleanValue(false));
    Config::SetDefault("ns3::RedQueueDisc::NLRED", BooleanValue(false));
    const bool ared = queue == "ared";
    Config::SetDefault("ns3::RedQueueDisc::AdaptMaxP", BooleanValue(ared));
    Config::SetDefault("ns3::RedQueueDisc::Interval", TimeValue(Seconds(D("ared_interval"))));
    Config::SetDefault("ns3::RedQueueDisc::Alpha", DoubleValue(D("ared_alpha")));
    Config::SetDefault("ns3::RedQueueDisc::Beta", DoubleValue(D("ared_beta")));
    Config::SetDefault("ns3::RedQueueDisc::Top", DoubleValue(D("ared_top")));
    Config::SetDefault("ns3::RedQueueDisc::Bottom", DoubleValue(D("ared_bottom")));
    Config::SetDefault("ns3::RedQueueDisc::LastSet", TimeValue(Seconds(0)));

    // ------------------------------------------------------------ topology
    // PPP adds 2 bytes to every packet: raise each link's rate by (pkt+2)/pkt so that
    // a packet_size IP packet is serialised in exactly packet_size*8/rate, as in ns-2.
    auto wire = [pkt](double r) { return DataRate((uint64_t)std::llround(r * (pkt + 2) / pkt)); };

    NodeContainer routers;
    routers.Create(2);
    NodeContainer srcs, dsts;
    srcs.Create(paths);
    dsts.Create(paths);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bott;
    bott.SetDeviceAttribute("DataRate", DataRateValue(wire(rate)));
    bott.SetChannelAttribute("Delay", TimeValue(Seconds(bdelay)));
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer bdev = bott.Install(routers.Get(0), routers.Get(1));

    TrafficControlHelper tchFifo;
    tchFifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, alimit)));
    TrafficControlHelper tchBott;
    // ns-2 2.35's Drop Tail lets limit - 1 packets wait (limit counts the one on
    // the wire); queue disc limit - 2 plus the one-packet device queue.
    // The modern AQMs let limit - 1 packets wait in the queue disc (one more in the
    // device queue), as RED; their parameters come from the case (scenarios.py).
    const QueueSizeValue aqmLimit(QueueSize(QueueSizeUnit::PACKETS, limit - 1));
    if (queue == "droptail")
        tchBott.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit - 2)));
    else if (queue == "codel")
        tchBott.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", aqmLimit, "Target",
                                 TimeValue(Seconds(D("aqm_target"))), "Interval",
                                 TimeValue(Seconds(D("aqm_interval"))), "MinBytes",
                                 UintegerValue(I("codel_min_bytes")), "UseEcn",
                                 BooleanValue(false));
    else if (queue == "fq_codel")
        tchBott.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", aqmLimit, "Target",
                                 StringValue(std::to_string(D("aqm_target") * 1e3) + "ms"),
                                 "Interval",
                                 StringValue(std::to_string(D("aqm_interval") * 1e3) + "ms"),
                                 "Flows", UintegerValue(I("fq_flows")), "DropBatchSize",
                                 UintegerValue(I("fq_drop_batch")), "Perturbation",
                                 UintegerValue(I("seed")), "UseEcn", BooleanValue(false));
    else if (queue == "pie")
        tchBott.SetRootQueueDisc(
            "ns3::PieQueueDisc", "MaxSize", aqmLimit, "MeanPktSize", UintegerValue(pkt),
            "QueueDelayReference", TimeValue(Seconds(D("aqm_target"))), "Tupdate",
            TimeValue(Seconds(D("pie_tupdate"))), "A", DoubleValue(D("pie_alpha")), "B",
            DoubleValue(D("pie_beta")), "MaxBurstAllowance", TimeValue(Seconds(D("pie_max_burst"))),
            "UseDequeueRateEstimator", BooleanValue(false), "UseCapDropAdjustment",
            BooleanValue(true), "UseDerandomization", BooleanValue(I("pie_derandomize") != 0),
            "UseEcn", BooleanValue(false));
    else
        tchBott.SetRootQueueDisc("ns3::RedQueueDisc");
    TrafficControlHelper tchRev;
    tchRev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, limit - 2)));

    // Root queue discs are installed before the addresses are assigned, so that
    // Ipv4AddressHelper does not install its default (FqCoDel) on these devices.
    QueueDiscContainer bq = tchBott.Install(bdev.Get(0));
    tchRev.Install(bdev.Get(1));
    g_qdisc = bq.Get(0);
    if (queue == "red" || queue == "ared")
        g_red = DynamicCast<RedQueueDisc>(g_qdisc);
    if (queue == "fq_codel")
        DynamicCast<FqCoDelQueueDisc>(g_qdisc)->SetQuantum(I("fq_quantum"));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bdev);
    addr.NewNetwork();
    std::vector<Ipv4Address> dstAddr(paths);
    PointToPointHelper acc;
    acc.SetDeviceAttribute("DataRate", DataRateValue(wire(arate)));
    for (long i = 0; i < paths; i++)
    {
        acc.SetChannelAttribute("Delay", TimeValue(Seconds(adelay[i])));
        NetDeviceContainer a = acc.Install(srcs.Get(i), routers.Get(0));
        NetDeviceContainer b = acc.Install(routers.Get(1), dsts.Get(i));
        for (NetDeviceContainer* c : {&a, &b})
            for (uint32_t j = 0; j < 2; j++)
            {
                tchFifo.Install(c->Get(j));
            }
        addr.Assign(a);
        addr.NewNetwork();
        Ipv4InterfaceContainer bi = addr.Assign(b);
        addr.NewNetwork();
        dstAddr[i] = bi.GetAddress(1);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // ------------------------------------------------------------ flows
    g_cwndFrom = tMeasure;
    g_cwndInt.assign(flows, 0.0);
    g_cwndLast.assign(flows, 0.0);
    g_cwndSince.assign(flows, 0.0);
    for (long f = 0; f < flows; f++)
    {
        long p = fpath[f];
        uint16_t port = 5000 + f;
        PacketSinkHelper sinkH("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(dsts.Get(p));
        sa.Start(Seconds(0));
        g_sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        BulkSendHelper bs("ns3::TcpSocketFactory", InetSocketAddress(dstAddr[p], port));
        bs.SetAttribute("MaxBytes", UintegerValue(0));
        bs.SetAttribute("SendSize", UintegerValue(seg));
        ApplicationContainer ca = bs.Install(srcs.Get(p));
        ca.Start(Seconds(starts[f]));
        if (I("newreno_as_ns2"))
            Simulator::Schedule(Seconds(starts[f]) + NanoSeconds(1), &HookSocket,
                                DynamicCast<BulkSendApplication>(ca.Get(0)));
        Simulator::Schedule(Seconds(starts[f]) + NanoSeconds(1), &HookCwnd,
                            DynamicCast<BulkSendApplication>(ca.Get(0)), (size_t)f);
    }

    // ------------------------------------------------------------ measurement
    g_qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QdiscLen));
    g_qdisc->TraceConnectWithoutContext("SojournTime", MakeCallback(&Sojourn));
    Ptr<PointToPointNetDevice> bnd = DynamicCast<PointToPointNetDevice>(bdev.Get(0));
    bnd->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&DevLen));
    bnd->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&PhyTxEnd));
    Simulator::Schedule(Seconds(tMeasure), &Snapshot, 0);
    if (g_red)
        Simulator::Schedule(Seconds(tMeasure), &SampleRed);
    Simulator::Schedule(Seconds(g_duration), &Snapshot, 1);
    if (std::getenv("DUMBBELL_DEBUG"))
        Simulator::Schedule(Seconds(starts[0] + 0.001), &DbgConnect, srcs.Get(fpath[0])->GetId());
    if (std::getenv("DUMBBELL_PIE_TRACE") && queue == "pie")
        Simulator::Schedule(Seconds(tMeasure), &PieTrace, DynamicCast<PieQueueDisc>(g_qdisc),
                            D("pie_tupdate"));
    Simulator::Stop(Seconds(g_duration));
    Simulator::Run();

    // ------------------------------------------------------------ results
    const Snap &a = g_snap[0], &b = g_snap[1];
    double W = b.t - a.t;
    uint64_t arr = b.arr - a.arr, drops = b.drops - a.drops, dep = b.txPkts - a.txPkts;
    double util = (b.txBytes - a.txBytes) * 8.0 / (rate * W);
    double meanq = (b.qint - a.qint) / W;
    double dropRate = arr ? (double)drops / arr : 0.0;
    double sum = 0, sum2 = 0;
    std::ostringstream gp;
    for (long f = 0; f < flows; f++)
    {
        // goodput counted in wire bytes (packet_size per delivered segment), as ns-2
        double x = (double)(b.rx[f] - a.rx[f]) / seg * pkt * 8.0 / W / 1e6;
        sum += x;
        sum2 += x * x;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.6f", f ? ", " : "", x);
        gp << buf;
    }
    double jain = sum2 > 0 ? sum * sum / (flows * sum2) : 0.0;
    double cwndSum = 0;
    for (long f = 0; f < flows; f++)
    {
        CwndAdvance(f, g_duration);
        cwndSum += g_cwndInt[f] / W / seg;
    }
    double meanCwnd = flows ? cwndSum / flows : 0.0;
    double dMean = 0, dP95 = 0;
    if (!g_sojourn.empty())
    {
        for (double d : g_sojourn)
            dMean += d;
        dMean /= g_sojourn.size();
        // the smallest sample with at least 95% of the samples at or below it
        size_t k = (size_t)std::ceil(0.95 * g_sojourn.size()) - 1;
        std::nth_element(g_sojourn.begin(), g_sojourn.begin() + k, g_sojourn.end());
        dP95 = g_sojourn[k];
    }
    char ravg[64] = "null", maxp[64] = "null";
    if (g_red)
    {
        std::snprintf(ravg, sizeof ravg, "%.4f", g_redN ? g_redSum / g_redN : 0.0);
        std::snprintf(maxp, sizeof maxp, "%.6g", g_red->m_curMaxP);
    }
    std::printf("{\"sim\": \"ns3\", \"case\": \"%s\", \"utilization\": %.6f, \"mean_queue\": %.4f, "
                "\"mean_red_avg\": %s, \"drop_rate\": %.6f, \"jain\": %.6f, \"goodput_mbps\": %.4f, "
                "\"arrivals\": %llu, \"departures\": %llu, \"drops\": %llu, \"departures_total\": %llu, "
                "\"final_max_p\": %s, \"mean_delay\": %.6f, \"delay_p95\": %.6f, "
                "\"mean_cwnd\": %.4f, \"window\": [%g, %g], \"flow_goodput_mbps\": [%s]}\n",
                name.c_str(), util, meanq, ravg, dropRate, jain, sum, (unsigned long long)arr,
                (unsigned long long)dep, (unsigned long long)drops, (unsigned long long)b.txPkts,
                maxp, dMean, dP95, meanCwnd, tMeasure, g_duration, gp.str().c_str());
    std::fflush(stdout);
    if (std::getenv("DUMBBELL_DEBUG"))
        std::cerr << g_qdisc->GetStats() << std::endl;
    Simulator::Destroy();
    return 0;
}
