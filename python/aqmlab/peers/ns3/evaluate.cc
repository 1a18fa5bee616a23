// aqmlab peer benchmark: one RFC 7928 scenario of `aqmlab evaluate` in ns-3 3.37.
//
//   evaluate PARAMS_FILE
//
// PARAMS_FILE holds "key value..." lines written by benchmarks/peers/evaluate_cases.py
// from the scenario dict that aqmlab.evaluate.scenarios.build() gives (one value per
// flow in the flow_* lists). Topology: one sender node and one receiver node per flow,
// each with its own access links (rate, delay, Drop Tail limit), routers l and r, the
// bottleneck l->r with the AQM under test as root queue disc over a one-packet device
// queue, Drop Tail on r->l. Prints one JSON line with the results of the window
// [warmup, duration]: per-flow goodput (bytes delivered in order, counted in
// 1500-byte packets as aqmlab does), arrivals and drops at the bottleneck's queue
// disc, the bottleneck's utilization, arrivals, drops and
// the queueing delay (arrival at the queue disc to the start of transmission, as
// aqmlab's mean_delay / delay_p95). Optional parameters `trace_drops 1`, `trace_marks 1`,
// `trace_cwnd 1`, `trace_queue 1` and `trace_tx 1` write drops, ECN marks, TCP windows and
// states, the queue disc's length and each transmission's flow and queueing delay to
// stderr. docs/peers.md (section 6.3) explains each choice.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

#include "params.h"

// ---------------------------------------------------------------- measurement state
static Ptr<QueueDisc> g_qdisc;
static bool g_inWindow = false;
static std::unordered_map<uint64_t, double> g_enq; // packet uid -> arrival at the queue disc
static std::vector<double> g_delay;                // queueing delays of packets sent in the window
static uint64_t g_txPkts = 0;
static double g_busy = 0; // transmission time (s) of packets started in the window

// per flow (by destination address), arrivals at and drops by the queue disc in the window
static std::map<Ipv4Address, long> g_flowOf;
static std::vector<uint64_t> g_flowArr, g_flowDrops;
static long FlowOf(Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip)
        return -1;
    auto it = g_flowOf.find(ip->GetHeader().GetDestination());
    return it == g_flowOf.end() ? -1 : it->second;
}
static uint64_t g_arrivals = 0; // every arrival at the queue disc, numbered for `trace_marks`
static void Arrival(Ptr<const QueueDiscItem> item)
{
    g_arrivals++;
    long f = FlowOf(item);
    if (g_inWindow && f >= 0)
        g_flowArr[f]++;
}
// `trace_tx 1`: each transmission in the window on stderr (time, flow, queueing delay)
static bool g_traceTx = false;
static std::unordered_map<uint64_t, long> g_enqFlow; // packet uid -> flow (`trace_tx` only)
static void Enqueue(Ptr<const QueueDiscItem> item)
{
    g_enq[item->GetPacket()->GetUid()] = Simulator::Now().GetSeconds();
    if (g_traceTx)
        g_enqFlow[item->GetPacket()->GetUid()] = FlowOf(item);
    Arrival(item);
}
// (an arrival the queue disc drops before enqueueing it: no Enqueue event)
static bool g_traceDrops = false; // `trace_drops 1`: each drop in the window on stderr
static void DroppedOnArrival(Ptr<const QueueDiscItem> item, const char* reason)
{
    Arrival(item);
    if (g_inWindow && g_traceDrops)
        std::fprintf(stderr, "reason %.9f %ld %s\n", Simulator::Now().GetSeconds(), FlowOf(item), reason);
}
// `trace_queue 1`: the queue disc's packet count at each change, on stderr
static void QueueChange(uint32_t, uint32_t n)
{
    std::fprintf(stderr, "queue %.9f %u\n", Simulator::Now().GetSeconds(), n);
}
// `trace_cwnd 1`: each TCP flow's congestion window, state and bytes in flight (pipe)
// at each change, on stderr
static void CwndChange(long f, uint32_t, uint32_t w)
{
    std::fprintf(stderr, "cwnd %.9f %ld %u\n", Simulator::Now().GetSeconds(), f, w);
}
static void InflightChange(long f, uint32_t, uint32_t b)
{
    std::fprintf(stderr, "inflight %.9f %ld %u\n", Simulator::Now().GetSeconds(), f, b);
}
static void StateChange(long f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t s)
{
    std::fprintf(stderr, "state %.9f %ld %d\n", Simulator::Now().GetSeconds(), f, (int)s);
}
static void TraceCwnd(long f, uint32_t node)
{
    std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(base + "CongestionWindow", MakeBoundCallback(&CwndChange, f));
    Config::ConnectWithoutContext(base + "CongState", MakeBoundCallback(&StateChange, f));
    Config::ConnectWithoutContext(base + "BytesInFlight", MakeBoundCallback(&InflightChange, f));
}
// `trace_marks 1`: each ECN mark in the window on stderr (time, flow, the number of arrivals before it,
// the queue disc's reason); marks with consecutive numbers mark consecutive arrivals
static void Marked(Ptr<const QueueDiscItem> item, const char* reason)
{
    if (g_inWindow)
        std::fprintf(stderr, "mark %.9f %ld %llu %s\n", Simulator::Now().GetSeconds(), FlowOf(item),
                     (unsigned long long)g_arrivals, reason);
}
static void Drop(Ptr<const QueueDiscItem> item)
{
    g_enq.erase(item->GetPacket()->GetUid());
    g_enqFlow.erase(item->GetPacket()->GetUid());
    long f = FlowOf(item);
    if (g_inWindow && f >= 0)
        g_flowDrops[f]++;
    if (g_inWindow && g_traceDrops)
        std::fprintf(stderr, "drop %.9f %ld\n", Simulator::Now().GetSeconds(), f);
}

static double g_wireRate = 0; // bits/s on the wire (PPP header included)
static void TxBegin(Ptr<const Packet> p)
{
    double now = Simulator::Now().GetSeconds();
    auto it = g_enq.find(p->GetUid());
    double d = 0;
    if (it != g_enq.end())
    {
        d = now - it->second;
        g_enq.erase(it);
    }
    g_txPkts++;
    if (g_traceTx)
    {
        auto f = g_enqFlow.find(p->GetUid());
        if (g_inWindow && f != g_enqFlow.end())
            std::fprintf(stderr, "tx %.9f %ld %.9f\n", now, f->second, d);
        if (f != g_enqFlow.end())
            g_enqFlow.erase(f);
    }
    if (g_inWindow)
    {
        g_delay.push_back(d);
        g_busy += p->GetSize() * 8.0 / g_wireRate;
    }
}

struct Snap
{
    double t;
    uint64_t arr, drops, marks;
    std::vector<uint64_t> rx;
};
static std::vector<Ptr<PacketSink>> g_sinks;
static Snap g_snap[2];

static void Snapshot(int tag)
{
    g_inWindow = tag == 0;
    Snap& s = g_snap[tag];
    s.t = Simulator::Now().GetSeconds();
    const QueueDisc::Stats& st = g_qdisc->GetStats();
    s.arr = st.nTotalReceivedPackets;
    s.drops = st.nTotalDroppedPackets;
    s.marks = st.nTotalMarkedPackets;
    s.rx.clear();
    for (auto& k : g_sinks)
        s.rx.push_back(k->GetTotalRx());
}

// The TCP settings of aqmlab's evaluate flows (docs/evaluate.md): SACK, no delayed
// ACKs, 1460-byte segments (1500-byte packets), classic (not PRR) recovery, aqmlab's
// timer constants, no timestamps, no limited transmit, a receiver window that never
// limits.
static void TcpDefaults()
{
    const long seg = I("segment_size"), maxWin = I("max_window");
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(maxWin * seg));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(maxWin * seg));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(maxWin * seg));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(D("init_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(I("sack") != 0));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit",
                       BooleanValue(I("limited_transmit") != 0));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(D("min_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(D("tcp_tick"))));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(D("init_rto"))));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(I("ecn") ? "On" : "Off"));
    // CUBIC as aqmlab's: C 0.4, beta 0.7, fast convergence, no HyStart (aqmlab has none)
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(true));
    Config::SetDefault("ns3::TcpCubic::Beta", DoubleValue(0.7));
    Config::SetDefault("ns3::TcpCubic::C", DoubleValue(0.4));
}

// The bottleneck's queue disc with aqmlab's parameters of the queue table. `limit`
// packets may wait in aqmlab; here limit - 1 in the queue disc and one in the device
// queue below it (as ns3/dumbbell.cc).
static void SetBottleneck(TrafficControlHelper& tch, const std::string& q, double rate, double delay)
{
    const long limit = I("limit");
    const QueueSizeValue lim(QueueSize(QueueSizeUnit::PACKETS, limit - 1));
    const bool ecn = I("queue_ecn") != 0;
    if (q == "droptail")
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", lim);
    else if (q == "red")
        // Ns1Compat: count restarts after a forced drop, as in Floyd & Jacobson 1993 (Fig. 2
        // resets count on every mark) and aqmlab; without it ns-3 3.37 keeps counting, and
        // the first arrival after the average falls below max_th is dropped for certain
        tch.SetRootQueueDisc(
            "ns3::RedQueueDisc", "MaxSize", lim, "MeanPktSize", UintegerValue(I("red_mean_pkt_size")),
            "IdlePktSize", UintegerValue(I("red_mean_pkt_size")), "Wait", BooleanValue(false),
            "Gentle", BooleanValue(I("red_gentle") != 0), "MinTh", DoubleValue(D("red_min_th")),
            "MaxTh", DoubleValue(D("red_max_th")), "QW", DoubleValue(D("red_w_q")), "LInterm",
            DoubleValue(1.0 / D("red_max_p")), "Ns1Compat", BooleanValue(true), "LinkBandwidth",
            DataRateValue(DataRate((uint64_t)rate)), "LinkDelay", TimeValue(Seconds(delay)),
            "UseEcn", BooleanValue(ecn), "UseHardDrop", BooleanValue(true), "ARED",
            BooleanValue(false), "AdaptMaxP", BooleanValue(false), "FengAdaptive",
            BooleanValue(false), "NLRED", BooleanValue(false));
    else if (q == "codel")
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", lim, "Target",
                             TimeValue(Seconds(D("codel_target"))), "Interval",
                             TimeValue(Seconds(D("codel_interval"))), "MinBytes",
                             UintegerValue(I("codel_maxpacket")), "UseEcn", BooleanValue(ecn));
    else if (q == "pie")
        tch.SetRootQueueDisc(
            "ns3::PieQueueDisc", "MaxSize", lim, "MeanPktSize", UintegerValue(I("pie_mean_pkt_size")),
            "QueueDelayReference", TimeValue(Seconds(D("pie_target"))), "Tupdate",
            TimeValue(Seconds(D("pie_tupdate"))), "A", DoubleValue(D("pie_alpha")), "B",
            DoubleValue(D("pie_beta")), "MaxBurstAllowance", TimeValue(Seconds(D("pie_max_burst"))),
            "UseDequeueRateEstimator", BooleanValue(I("pie_rate_estimator") != 0),
            "DequeueThreshold", UintegerValue(I("pie_dq_threshold")), "UseCapDropAdjustment",
            BooleanValue(true), "UseDerandomization", BooleanValue(I("pie_derandomize") != 0),
            "UseEcn", BooleanValue(ecn), "MarkEcnThreshold", DoubleValue(D("pie_mark_ecn_th")));
    else if (q == "fq_codel")
        tch.SetRootQueueDisc(
            "ns3::FqCoDelQueueDisc", "MaxSize", lim, "Target",
            StringValue(std::to_string(D("codel_target") * 1e3) + "ms"), "Interval",
            StringValue(std::to_string(D("codel_interval") * 1e3) + "ms"), "Flows",
            UintegerValue(I("fq_flows")), "DropBatchSize", UintegerValue(I("fq_drop_batch")),
            "Perturbation", UintegerValue(I("seed")), "UseEcn", BooleanValue(ecn));
    else
    {
        std::cerr << "unknown queue " << q << " (droptail, red, codel, pie, fq_codel)" << std::endl;
        std::exit(2);
    }
}

int main(int argc, char* argv[])
{
    const auto wall0 = std::chrono::steady_clock::now();
    if (argc != 2)
    {
        std::cerr << "usage: evaluate PARAMS_FILE" << std::endl;
        return 2;
    }
    ReadParams(argv[1]);
    const std::string name = S("name"), queue = S("queue");
    const long flows = I("flows"), pkt = I("packet_size");
    const double rate = D("bottleneck_rate"), bdelay = D("bottleneck_delay");
    const double warmup = D("warmup"), duration = D("duration");
    const std::vector<std::string>& type = L("flow_type");
    const std::vector<std::string>& variant = L("flow_variant");
    const std::vector<std::string>& fname = L("flow_name");
    const auto iw = DL("flow_iw", flows), start = DL("flow_start", flows);
    const auto stop = DL("flow_stop", flows), cbr = DL("flow_rate", flows);
    const auto sdelay = DL("flow_src_delay", flows), ddelay = DL("flow_dst_delay", flows);
    const auto srate = DL("flow_src_rate", flows), drate = DL("flow_dst_rate", flows);
    const auto slimit = DL("flow_src_limit", flows), dlimit = DL("flow_dst_limit", flows);
    if ((long)type.size() != flows || (long)variant.size() != flows || (long)fname.size() != flows)
    {
        std::cerr << "inconsistent flow lists" << std::endl;
        return 2;
    }
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(I("seed"));
    TcpDefaults();

    // PPP adds 2 bytes to every packet: raise each link's rate by (pkt+2)/pkt so that
    // a packet_size IP packet is serialised in exactly packet_size*8/rate (as aqmlab).
    auto wire = [pkt](double r) { return DataRate((uint64_t)std::llround(r * (pkt + 2) / pkt)); };
    g_wireRate = wire(rate).GetBitRate();

    NodeContainer routers, srcs, dsts;
    routers.Create(2);
    srcs.Create(flows);
    dsts.Create(flows);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bott;
    bott.SetDeviceAttribute("DataRate", DataRateValue(wire(rate)));
    bott.SetChannelAttribute("Delay", TimeValue(Seconds(bdelay)));
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer bdev = bott.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tchBott, tchRev;
    SetBottleneck(tchBott, queue, rate, bdelay);
    tchRev.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, I("reverse_limit") - 1)));
    // queue discs before addresses, so that Ipv4AddressHelper installs no FqCoDel
    g_qdisc = tchBott.Install(bdev.Get(0)).Get(0);
    tchRev.Install(bdev.Get(1));
    if (queue == "fq_codel")
        DynamicCast<FqCoDelQueueDisc>(g_qdisc)->SetQuantum(I("fq_quantum"));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    addr.Assign(bdev);
    addr.NewNetwork();
    std::vector<Ipv4Address> dstAddr(flows);
    for (long i = 0; i < flows; i++)
    {
        // per-flow access links: each with its own rate, delay and Drop Tail limit
        NetDeviceContainer c[2];
        for (int side = 0; side < 2; side++)
        {
            PointToPointHelper acc;
            acc.SetDeviceAttribute("DataRate", DataRateValue(wire(side ? drate[i] : srate[i])));
            acc.SetChannelAttribute("Delay", TimeValue(Seconds(side ? ddelay[i] : sdelay[i])));
            c[side] = side ? acc.Install(routers.Get(1), dsts.Get(i))
                           : acc.Install(srcs.Get(i), routers.Get(0));
            TrafficControlHelper fifo;
            fifo.SetRootQueueDisc(
                "ns3::FifoQueueDisc", "MaxSize",
                QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, (uint32_t)(side ? dlimit[i] : slimit[i]))));
            fifo.Install(c[side]);
        }
        addr.Assign(c[0]);
        addr.NewNetwork();
        dstAddr[i] = addr.Assign(c[1]).GetAddress(1);
        g_flowOf[dstAddr[i]] = i;
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    for (long f = 0; f < flows; f++)
    {
        uint16_t port = 5000 + f;
        const bool tcp = type[f] == "tcp";
        const char* factory = tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        PacketSinkHelper sinkH(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(dsts.Get(f));
        sa.Start(Seconds(0));
        g_sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        ApplicationContainer ca;
        if (tcp)
        {
            // each flow has its own sender node: its TCP variant and IW are that node's
            Ptr<TcpL4Protocol> l4 = srcs.Get(f)->GetObject<TcpL4Protocol>();
            if (variant[f] == "cubic")
                l4->SetAttribute("SocketType", TypeIdValue(TcpCubic::GetTypeId()));
            else if (variant[f] == "newreno")
                l4->SetAttribute("SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
            else
            {
                std::cerr << "flow " << f << ": unknown TCP variant " << variant[f] << std::endl;
                return 2;
            }
            Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue((uint32_t)iw[f]));
            BulkSendHelper bs(factory, InetSocketAddress(dstAddr[f], port));
            bs.SetAttribute("MaxBytes", UintegerValue(0));
            bs.SetAttribute("SendSize", UintegerValue(I("segment_size")));
            ca = bs.Install(srcs.Get(f));
            // the socket is created at Start: keep this flow's IW until then
            Simulator::Schedule(Seconds(start[f]), [iwf = iw[f]]() {
                Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue((uint32_t)iwf));
            });
            if (Dopt("trace_cwnd", 0) != 0)
                Simulator::Schedule(Seconds(start[f] + 1e-6), &TraceCwnd, f, srcs.Get(f)->GetId());
        }
        else if (type[f] == "cbr")
        {
            // constant bit rate: one packet_size IP packet every packet_size*8/rate s
            const long payload = pkt - 28;
            if (!(cbr[f] > 0))
            {
                std::cerr << "flow " << f << ": flow_rate must be > 0 for cbr" << std::endl;
                return 2;
            }
            OnOffHelper oo(factory, InetSocketAddress(dstAddr[f], port));
            oo.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1e9]"));
            oo.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
            oo.SetAttribute("PacketSize", UintegerValue(payload));
            oo.SetAttribute("DataRate", DataRateValue(DataRate((uint64_t)std::llround(cbr[f] * payload / pkt))));
            ca = oo.Install(srcs.Get(f));
        }
        else
        {
            std::cerr << "flow " << f << ": unsupported type " << type[f] << " (tcp, cbr)" << std::endl;
            return 2;
        }
        ca.Start(Seconds(start[f]));
        if (stop[f] > 0)
            ca.Stop(Seconds(stop[f]));
    }

    g_qdisc->TraceConnectWithoutContext("Enqueue", MakeCallback(&Enqueue));
    g_qdisc->TraceConnectWithoutContext("Drop", MakeCallback(&Drop));
    g_traceDrops = Dopt("trace_drops", 0) != 0;
    g_traceTx = Dopt("trace_tx", 0) != 0;
    if (Dopt("trace_marks", 0) != 0)
        g_qdisc->TraceConnectWithoutContext("Mark", MakeCallback(&Marked));
    if (Dopt("trace_queue", 0) != 0)
        g_qdisc->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueChange));
    g_flowArr.assign(flows, 0);
    g_flowDrops.assign(flows, 0);
    g_qdisc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&DroppedOnArrival));
    Ptr<PointToPointNetDevice> bnd = DynamicCast<PointToPointNetDevice>(bdev.Get(0));
    bnd->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TxBegin));
    Simulator::Schedule(Seconds(warmup), &Snapshot, 0);
    Simulator::Schedule(Seconds(duration), &Snapshot, 1);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    const Snap &a = g_snap[0], &b = g_snap[1];
    const double W = b.t - a.t;
    const uint64_t arr = b.arr - a.arr, drops = b.drops - a.drops, marks = b.marks - a.marks;
    std::ostringstream gp, fa, fd;
    for (long f = 0; f < flows; f++)
    {
        // goodput in packet_size packets per delivered payload, as aqmlab counts it
        const double payload = type[f] == "tcp" ? I("segment_size") : pkt - 28;
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s%.1f", f ? ", " : "",
                      (double)(b.rx[f] - a.rx[f]) / payload * pkt * 8.0 / W);
        gp << buf;
        fa << (f ? ", " : "") << g_flowArr[f];
        fd << (f ? ", " : "") << g_flowDrops[f];
    }
    double dMean = 0, dP95 = 0;
    if (!g_delay.empty())
    {
        for (double d : g_delay)
            dMean += d;
        dMean /= g_delay.size();
        size_t k = (size_t)std::ceil(0.95 * g_delay.size()) - 1; // nearest rank
        std::nth_element(g_delay.begin(), g_delay.begin() + k, g_delay.end());
        dP95 = g_delay[k];
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("{\"sim\": \"ns3\", \"case\": \"%s\", \"utilization\": %.6f, \"arrivals\": %llu, "
                "\"drops\": %llu, \"marks\": %llu, \"loss_rate\": %.6g, \"delay_mean\": %.6g, "
                "\"delay_p95\": %.6g, \"departures_total\": %llu, \"window\": [%g, %g], "
                "\"wall_time\": %.3f, \"flow_goodput_bps\": [%s], \"flow_arrivals\": [%s], "
                "\"flow_drops\": [%s]}\n",
                name.c_str(), g_busy / W, (unsigned long long)arr, (unsigned long long)drops,
                (unsigned long long)marks, arr ? (double)drops / arr : 0.0, dMean, dP95,
                (unsigned long long)g_txPkts, warmup, duration, wall, gp.str().c_str(),
                fa.str().c_str(), fd.str().c_str());
    std::fflush(stdout);
    Simulator::Destroy();
    return 0;
}
