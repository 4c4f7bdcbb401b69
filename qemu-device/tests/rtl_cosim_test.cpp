// SPDX-License-Identifier: MIT
// Co-simulation (hw-rtl/cosim, Config::rtl_blocks): the device with its blocks as Verilated RTL
// must behave exactly as with the C++ twins. Differential: the same frames / RoCE traffic into a
// card with rtl_blocks = all and one with none; host memory (RX ring, writeback, RDMA data, CQs,
// status pages), interrupts, frames on the wire and every counter must be identical. Plus the
// rtl= list parser and the C API check, and a micro-benchmark printing frames/s (SCENIC_SEED
// replays one seed of the random tests).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../hw-rtl/tb/icrc/rxe_frames.hpp"  // captured rxe frames, shared with the testbench
#include "eth_rig.hpp"
#include "rdma_rig.hpp"
#include "scenic/cosim/blocks.hpp"
#include "scenic/dp/icrc.hpp"
#include "scenic/model.h"

namespace scenic::test {
namespace {

using cosim::kRtlAll;
using Bytes = std::vector<uint8_t>;

std::vector<uint64_t> seeds(unsigned n) {
    if (const char* s = std::getenv("SCENIC_SEED"); s && *s) {
        return {std::strtoull(s, nullptr, 0)};
    }
    std::vector<uint64_t> v;
    for (unsigned i = 0; i < n; ++i) v.push_back(1000 + 7919 * i);
    return v;
}

// ---------------------------------------------------------------- the rtl= list

TEST(RtlList, Parses) {
    EXPECT_EQ(cosim::parse_rtl_blocks(""), 0u);
    EXPECT_EQ(cosim::parse_rtl_blocks("none"), 0u);
    EXPECT_EQ(cosim::parse_rtl_blocks("all"), kRtlAll);
    EXPECT_EQ(cosim::parse_rtl_blocks("prefilter"), cosim::kRtlPrefilter);
    EXPECT_EQ(cosim::parse_rtl_blocks("icrc"), cosim::kRtlIcrc);
    EXPECT_EQ(cosim::parse_rtl_blocks("icrc, prefilter"), kRtlAll);
    EXPECT_EQ(cosim::parse_rtl_blocks("prefilter+icrc"), kRtlAll);
    EXPECT_EQ(cosim::rtl_block_names(kRtlAll), "prefilter,icrc");
    EXPECT_EQ(cosim::rtl_block_names(0), "none");
}

TEST(RtlList, UnknownNamesAreRefusedWithTheKnownOnes) {
    for (const char* bad :
         {"tlb", "prefilter,", "prefilter,bogus", ",", "+icrc", "ALL", "all,icrc"}) {
        try {
            (void)cosim::parse_rtl_blocks(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("known: all, none, prefilter,icrc"),
                      std::string::npos)
                << e.what();
        }
    }
    char err[128] = {};
    EXPECT_EQ(scenic_model_rtl_check("prefilter,tlb", err, sizeof err), -1);
    EXPECT_STREQ(err, "unknown RTL block 'tlb' (known: all, none, prefilter,icrc)");
    EXPECT_EQ(scenic_model_rtl_check("all", err, sizeof err), 0);
    EXPECT_EQ(scenic_model_rtl_check(nullptr, err, sizeof err), 0);

    scenic_model_config cfg{};
    cfg.rtl_blocks = "bogus";
    const scenic_host_ops ops{};
    EXPECT_EQ(scenic_model_create(&cfg, &ops), nullptr);
    cfg.rtl_blocks = "all";
    scenic_model* m = scenic_model_create(&cfg, &ops);
    EXPECT_NE(m, nullptr);
    scenic_model_destroy(m);

    Config c;
    c.rtl_blocks = 1u << 7;
    FakeHost host;
    EXPECT_THROW(Device(c, host), std::invalid_argument);
}

// ---------------------------------------------------------------- frames for the ETH path

void put16(Bytes& f, size_t at, uint16_t v) {
    f[at] = static_cast<uint8_t>(v >> 8);
    f[at + 1] = static_cast<uint8_t>(v);
}

// IPv4 / IPv6 UDP frame to port dport (4791: RoCE v2) of len bytes with a random BTH and payload;
// good_icrc: the ICRC is right (the RDMA engine then drops it later, for its QP), else random.
Bytes make_udp(std::mt19937_64& rng, bool v6, uint16_t dport, size_t len, bool good_icrc) {
    Bytes f = make_frame(len, kStation, v6 ? 0x86dd : 0x0800, static_cast<uint8_t>(rng()));
    for (size_t i = 14; i < len; ++i) f[i] = static_cast<uint8_t>(rng());
    const size_t ip = 14;
    size_t udp = 0;
    if (v6) {
        if (len < ip + 40) return f;
        f[ip] = 0x60;
        put16(f, ip + 4, static_cast<uint16_t>(len - ip - 40));
        f[ip + 6] = 17;
        f[ip + 7] = 64;
        udp = ip + 40;
    } else {
        if (len < ip + 20) return f;
        f[ip] = 0x45;
        put16(f, ip + 2, static_cast<uint16_t>(len - ip));
        put16(f, ip + 6, 0x4000);  // DF, offset 0
        f[ip + 8] = 64;
        f[ip + 9] = 17;
        f[ip + 10] = f[ip + 11] = 0;
        uint32_t sum = 0;
        for (size_t i = 0; i < 20; i += 2) sum += uint32_t{f[ip + i]} << 8 | f[ip + i + 1];
        while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
        put16(f, ip + 10, static_cast<uint16_t>(~sum));
        udp = ip + 20;
    }
    if (len < udp + 8) return f;
    put16(f, udp + 2, dport);
    put16(f, udp + 4, static_cast<uint16_t>(len - udp));
    if (len >= udp + 8 + 12) {
        f[udp + 8] = static_cast<uint8_t>(rng() % 2 ? 0x04 : 0x0a);  // SEND ONLY / WRITE ONLY
        f[udp + 9] = 0;                                              // pad 0, version 0
    }
    if (good_icrc && len >= ip + 4) {
        const auto r = dp::icrc_process(std::span<const uint8_t>(f).subspan(ip), true);
        std::copy(r.packet.begin(), r.packet.end(), f.begin() + ip);
    }
    return f;
}

Bytes random_frame(std::mt19937_64& rng) {
    const auto pick = rng() % 12;
    const auto len = [&](size_t lo, size_t hi) { return lo + rng() % (hi - lo + 1); };
    switch (pick) {
        case 0:
        case 1:
        case 2:
            return make_udp(rng, false, 4791, len(14, 1600), pick == 0 ? false : true);
        case 3:
            return make_udp(rng, true, 4791, len(54, 1600), rng() % 2 != 0);
        case 4: {  // TCP v4 / v6
            Bytes f = make_ipv4(6, 80, len(34, 1514));
            if (rng() % 2) {
                f[12] = 0x86;
                f[13] = 0xdd;
                f[14] = 0x60;
                f[20] = 6;
            }
            return f;
        }
        case 5:
            return make_udp(rng, false, 53, len(42, 600), false);  // other UDP
        case 6:
            return make_frame(len(14, 64), kBroadcast, 0x0806);  // ARP
        case 7: {                                                // VLAN-tagged RoCE: other
            Bytes f = make_udp(rng, false, 4791, len(80, 400), true);
            f[12] = 0x81;
            f[13] = 0x00;
            return f;
        }
        case 8: {  // non-first fragment of a RoCE v4 packet: other
            Bytes f = make_udp(rng, false, 4791, len(80, 400), true);
            f[14 + 7] = 0x10;
            return f;
        }
        case 9:
            return make_frame(len(0, 13));  // runt
        case 10:
            return make_udp(rng, false, 4791, len(1519, 2100), true);  // oversize
        default: {                                                     // other station / multicast
            Bytes f = make_ipv4(6, 22, len(60, 300));
            f[5] = 0x77;
            if (rng() % 2) f[0] = 0x33;
            return f;
        }
    }
}

// Every ETH register (reads have no side effects) and the RDMA engine's counters.
std::vector<uint32_t> eth_regs(const Device& dev) {
    std::vector<uint32_t> v;
    for (uint32_t off = 0; off < regs::eth::kSize; off += 4) {
        v.push_back(rd(dev, regs::eth::kOffset + off));
    }
    return v;
}
bool same_rdma_counters(Device& a, Device& b) {
    return std::memcmp(&a.rdma().counters(), &b.rdma().counters(), sizeof(rdma::Counters)) == 0;
}

class EthPair {
  public:
    EthPair() : twin(config(0)), rtl(config(kRtlAll)) {
        for (EthRig* r : {&twin, &rtl}) r->up(16, 2048, 8, 1500, 4, 20);
    }
    static Config config(uint32_t rtl_blocks) {
        Config c = EthRig::make_config();
        c.rtl_blocks = rtl_blocks;
        return c;
    }
    void both(const std::function<void(EthRig&)>& f) {
        f(twin);
        f(rtl);
    }
    void expect_same(const std::string& where) {
        EXPECT_EQ(twin.host.mem, rtl.host.mem) << where;
        EXPECT_EQ(twin.host.irqs, rtl.host.irqs) << where;
        EXPECT_EQ(twin.host.wire, rtl.host.wire) << where;
        EXPECT_EQ(eth_regs(twin.dev), eth_regs(rtl.dev)) << where;
        EXPECT_TRUE(same_rdma_counters(twin.dev, rtl.dev)) << where;
    }
    EthRig twin;
    EthRig rtl;
};

TEST(CosimEth, RandomFramesGiveIdenticalRingsIrqsAndCounters) {
    for (const uint64_t seed : seeds(3)) {
        SCOPED_TRACE("seed " + std::to_string(seed) +
                     " (replay: SCENIC_SEED=" + std::to_string(seed) + ")");
        std::mt19937_64 rng(seed);
        EthPair p;
        const cosim::SimStats before = cosim::rtl_totals();
        for (int step = 0; step < 8; ++step) {
            const bool rdma_en = step % 2 == 1;  // RoCE to the RDMA engine (ICRC checked) or host
            p.both([&](EthRig& r) { wr(r.dev, regs::rdma::kOffset + regs::rdma::kCtrl, rdma_en); });
            for (int i = 0; i < 150; ++i) {
                const Bytes f = random_frame(rng);
                p.both([&](EthRig& r) { r.dev.eth_rx(f); });
                if (rng() % 24 == 0) {  // the driver frees the ring now and then
                    p.both([&](EthRig& r) { r.w(regs::eth::kRxHead, r.r(regs::eth::kRxTail)); });
                }
                if (rng() % 16 == 0) {
                    p.both([&](EthRig& r) { r.host.run_for(r.dev, 30'000); });
                }
            }
            p.both([&](EthRig& r) { r.host.run_for(r.dev, 100'000); });
            p.expect_same("step " + std::to_string(step));
        }
        const auto& c = p.twin.dev.rdma().counters();
        EXPECT_GT(c.rx_drop_icrc, 0u);  // both ICRC outcomes were exercised
        EXPECT_GT(c.rx_drop_icrc + c.rx_drop_malformed, 0u);
        EXPECT_GT(p.twin.r(regs::eth::kRxRoce), 0u);
        EXPECT_GT(p.twin.r(regs::eth::kRxFrames), 100u);
        EXPECT_GT(p.twin.r(regs::eth::kRxDropRingFull), 0u);
        const cosim::SimStats after = cosim::rtl_totals();
        EXPECT_GE(after.transactions - before.transactions, 8u * 150u * 9 / 10)
            << "the RTL blocks did not see the traffic";
    }
}

// ---------------------------------------------------------------- RoCE traffic

struct RdmaRun {
    RdmaPair p;
    std::vector<std::string> wire;  // every packet A<->B: direction, opcode, PSN, length, ICRC
    explicit RdmaRun(uint32_t rtl_blocks) : p(0, 1, rtl_blocks) {
        p.drop = [this](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
            wire.push_back(std::to_string(static_cast<int>(d)) + ":" +
                           std::to_string(pkt.transport.bth.opcode) + ":" +
                           std::to_string(pkt.transport.bth.psn) + ":" +
                           std::to_string(pkt.payload.size()) + ":" + std::to_string(pkt.icrc));
            return false;
        };
    }
};

TEST(CosimRdma, WriteSendReadAtomicsGiveIdenticalMemoryWireAndCounters) {
    constexpr uint32_t kQa = 2, kQb = 3;
    RdmaRun twin(0), rtl(kRtlAll);
    const cosim::SimStats before = cosim::rtl_totals();
    for (RdmaRun* r : {&twin, &rtl}) {
        RdmaPair& p = r->p;
        p.setup(kQa, kQb);
        const uint32_t ka = p.a.reg_mr(Node::kVa, 256 * 1024, kAll);
        const uint32_t kb = p.b.reg_mr(Node::kVa, 256 * 1024, kAll);
        p.a.fill_va(Node::kVa, 200000, 0x11);
        p.b.fill_va(Node::kVa + 131072, 100000, 0x77);
        for (const uint32_t len : {0u, 1u, 1023u, 1024u, 1025u, 4096u, 65537u}) {
            p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa + 3, len, ka)},
                                        Node::kVa + 64 + len, kb));
        }
        p.b.post_recv(kQb, {sge(Node::kVa + 100000, 9000, kb)});
        auto send = make_wqe(SCENIC_WQE_OP_SEND_IMM, {sge(Node::kVa + 7, 5000, ka)});
        send.imm_data_be = 0x12345678;
        p.a.post_send(kQa, send);
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa + 150000, 30000, ka)},
                                    Node::kVa + 131072, kb));
        auto faa =
            make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(Node::kVa + 199992, 8, ka)}, Node::kVa + 8, kb);
        faa.compare_add = 5;
        p.a.post_send(kQa, faa);
        ASSERT_TRUE(p.run());
        EXPECT_EQ(p.bad_frames, 0u);  // the rig checks every frame with the twin's ICRC
        EXPECT_EQ(p.a.sq_completed(kQa), 10u);
    }
    EXPECT_GT(twin.wire.size(), 100u);
    EXPECT_EQ(twin.wire, rtl.wire);
    EXPECT_EQ(twin.p.a.host.mem, rtl.p.a.host.mem);
    EXPECT_EQ(twin.p.b.host.mem, rtl.p.b.host.mem);
    EXPECT_EQ(twin.p.a.host.irqs, rtl.p.a.host.irqs);
    EXPECT_EQ(twin.p.b.host.irqs, rtl.p.b.host.irqs);
    EXPECT_TRUE(same_rdma_counters(twin.p.a.dev, rtl.p.a.dev));
    EXPECT_TRUE(same_rdma_counters(twin.p.b.dev, rtl.p.b.dev));
    EXPECT_EQ(eth_regs(twin.p.b.dev), eth_regs(rtl.p.b.dev));
    // Every packet: built (ICRC generated) on one card, prefiltered and checked on the other.
    const cosim::SimStats after = cosim::rtl_totals();
    EXPECT_GE(after.transactions - before.transactions, 3 * twin.wire.size());
}

// ---------------------------------------------------------------- the ICRC engine

// The RTL engine and the C++ twin give the same ICRC for the same packets, and both give the ICRC
// Linux rxe put on captured frames (an independent implementation), so a wrong RTL or twin fails
// here even when the two agree with each other.
TEST(CosimIcrc, RtlMatchesTwinAndCapturedRxeFrames) {
    auto twin = cosim::make_icrc(false);
    auto rtl = cosim::make_icrc(true);
    for (const auto& c : rxe_frames::kAll) {
        const auto l3 = rxe_frames::l3(c.frame);
        EXPECT_EQ(twin->icrc(l3), rxe_frames::wire_icrc(c.frame)) << "twin, " << c.what;
        EXPECT_EQ(rtl->icrc(l3), rxe_frames::wire_icrc(c.frame)) << "RTL, " << c.what;
    }
    std::mt19937_64 rng(23);
    const cosim::SimStats before = rtl->sim_stats();
    unsigned n = 0;
    for (const bool v6 : {false, true}) {
        // every length from the smallest RoCE packet across three 64-byte beats, then big ones
        std::vector<size_t> lens;
        for (size_t len = 14 + 60; len <= 14 + 3 * 64 + 8; ++len) lens.push_back(len);
        for (const size_t len : {1082u, 1514u, 4200u, 9014u}) lens.push_back(len);
        for (const size_t len : lens) {
            const Bytes f = make_udp(rng, v6, 4791, len, rng() % 2 == 0);
            const auto l3 = std::span<const uint8_t>(f).subspan(14);
            ASSERT_EQ(rtl->icrc(l3), twin->icrc(l3))
                << (v6 ? "IPv6" : "IPv4") << " packet of " << len << " bytes";
            ++n;
        }
    }
    // the RTL really ran: one transaction per packet
    EXPECT_EQ(rtl->sim_stats().transactions - before.transactions, n);
}

// ---------------------------------------------------------------- speed

double per_second(uint64_t n, std::chrono::steady_clock::duration d) {
    return static_cast<double>(n) / std::chrono::duration<double>(d).count();
}

TEST(CosimSpeed, PrintsFramesPerSecond) {
    std::mt19937_64 rng(5);
    for (const size_t len : {64u, 1500u}) {
        Bytes f = make_udp(rng, false, 4791, len, true);
        Bytes tcp = make_ipv4(6, 80, len);
        for (const bool rtl : {false, true}) {
            auto pf = cosim::make_prefilter(rtl);
            auto ic = cosim::make_icrc(rtl);
            constexpr unsigned kN = 20000;
            auto t0 = std::chrono::steady_clock::now();
            for (unsigned i = 0; i < kN; ++i) (void)pf->process(i % 2 ? f : tcp);
            const auto pf_time = std::chrono::steady_clock::now() - t0;
            const std::span<const uint8_t> l3 = std::span<const uint8_t>(f).subspan(14);
            const uint32_t want = dp::roce_icrc(l3);  // make_udp wrote it into the trailer
            t0 = std::chrono::steady_clock::now();
            unsigned wrong = 0;
            for (unsigned i = 0; i < kN / 4; ++i) wrong += ic->icrc(l3) != want ? 1 : 0;
            const auto ic_time = std::chrono::steady_clock::now() - t0;
            EXPECT_EQ(wrong, 0u) << (rtl ? "RTL" : "twin") << ", " << len << "-byte frames";
            const cosim::SimStats s = pf->sim_stats();
            std::printf(
                "[ speed ] %4zu-byte frames, %s: prefilter %10.0f frames/s%s, ICRC %10.0f "
                "packets/s\n",
                len, rtl ? "RTL " : "twin", per_second(kN, pf_time),
                rtl ? (" (" + std::to_string(s.cycles / s.transactions) + " cycles/frame, " +
                       std::to_string(static_cast<uint64_t>(per_second(s.cycles, pf_time))) +
                       " cycles/s)")
                          .c_str()
                    : "",
                per_second(kN / 4, ic_time));
        }
    }
    // The whole device, ETH path: TCP frames through the prefilter into the RX ring (the driver
    // frees the ring every 32 frames).
    for (const size_t len : {64u, 1500u}) {
        for (const uint32_t rtl : {0u, kRtlAll}) {
            EthRig r(EthPair::config(rtl));
            r.up(64, 2048, 8, 1500, 64, 50);
            const Bytes tcp = make_ipv4(6, 80, len);
            constexpr unsigned kN = 20000;
            const auto t0 = std::chrono::steady_clock::now();
            for (unsigned i = 0; i < kN; ++i) {
                r.dev.eth_rx(tcp);
                if (i % 32 == 31) r.w(regs::eth::kRxHead, r.r(regs::eth::kRxTail));
            }
            const auto d = std::chrono::steady_clock::now() - t0;
            EXPECT_EQ(r.r(regs::eth::kRxFrames), kN);
            std::printf("[ speed ] device ETH RX, %4zu-byte TCP frames, %s: %10.0f frames/s\n", len,
                        rtl ? "rtl=all " : "C++ twin", per_second(kN, d));
        }
    }
    // The whole device, RDMA path: 8 MiB of RDMA WRITEs between two cards, PMTU 4096 (every
    // packet: ICRC generated, prefiltered and ICRC checked, plus the ACKs).
    for (const uint32_t rtl : {0u, kRtlAll}) {
        RdmaPair p(0, 1, rtl);
        QpAttrs at;
        at.pmtu = 4096;
        p.setup(2, 3, at);
        const uint32_t all = rdma::kAccessLocalWrite | rdma::kAccessRemoteWrite;
        const uint32_t ka = p.a.reg_mr(Node::kVa, 1 << 20, all);
        const uint32_t kb = p.b.reg_mr(Node::kVa, 1 << 20, all);
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 8; ++i) {
            p.a.post_send(
                2, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 1 << 20, ka)}, Node::kVa, kb));
        }
        ASSERT_TRUE(p.run());
        const auto d = std::chrono::steady_clock::now() - t0;
        EXPECT_EQ(p.a.sq_completed(2), 8u);
        EXPECT_EQ(p.bad_frames, 0u);
        std::printf(
            "[ speed ] device RDMA WRITE, 4096-byte MTU, %s: %zu frames in %.3f s, "
            "%8.0f frames/s, %6.1f MB/s\n",
            rtl ? "rtl=all " : "C++ twin", p.frames, std::chrono::duration<double>(d).count(),
            per_second(p.frames, d), per_second(8 << 20, d) / 1e6);
    }
}

}  // namespace
}  // namespace scenic::test
