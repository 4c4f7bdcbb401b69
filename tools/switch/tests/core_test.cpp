// SPDX-License-Identifier: MIT
// scenic::sw::Switch in virtual time (docs/cluster.md 3.12): forwarding, the schedule, tail
// drop, ECN, RED, PFC, fault rules and counters, with exact numbers.
#include "scenic/sw/core.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "scenic/roce/packet.hpp"
#include "switch_frames.hpp"

namespace scenic::sw::test {
namespace {

constexpr uint64_t kFrameNs = 8192;  // 1000 + 24 bytes at 1 Gb/s

// ---- forwarding

TEST(SwitchForwarding, UnknownFloodsLearnedGoesToOnePort) {
    Rig r(config(3, 0));
    r.rx(1, plain_frame(1, 2, 100), 0);  // 2 unknown: ports 2 and 3
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{2, 3}));
    EXPECT_EQ(r.sw.counters(2, kT0).flood_frames, 1u);
    EXPECT_EQ(r.sw.counters(3, kT0).flood_frames, 1u);
    r.sent.clear();
    r.rx(2, plain_frame(2, 1, 100), 10);  // 1 was learned on port 1
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{1}));
    r.sent.clear();
    r.rx(1, plain_frame(1, 2, 100), 20);  // and 2 on port 2 meanwhile
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{2}));
    EXPECT_EQ(r.sw.lookup(mac(1), kT0 + 20), 1u);
    EXPECT_EQ(r.sw.learned(), 2u);
}

TEST(SwitchForwarding, BroadcastAndMulticastFloodNeverBackToIngress) {
    Rig r(config(4, 0));
    r.rx(3, plain_frame(mac(3), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 60), 0);
    r.rx(3, plain_frame(mac(3), {0x01, 0x00, 0x5e, 0, 0, 1}, 60), 0);
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{1, 2, 4, 1, 2, 4}));
}

TEST(SwitchForwarding, EntriesAgeOutAfterAgeNs) {
    SwitchConfig c = config(3, 0);
    c.age_ns = 1'000'000'000;
    Rig r(c);
    r.rx(2, plain_frame(2, 9, 60), 0);
    r.sent.clear();
    r.rx(1, plain_frame(1, 2, 60), 999'999'999);
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{2}));
    r.sent.clear();
    r.rx(3, plain_frame(3, 2, 60), 1'000'000'000);  // aged: flooded again
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{1, 2}));
}

TEST(SwitchForwarding, TableHoldsAtMost1024EvictingTheOldest) {
    Rig r(config(2, 0));
    for (unsigned i = 0; i < 1025; ++i) {
        const roce::Mac src{0x02, 0, 0, 0, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i)};
        r.rx(1, plain_frame(src, mac(2), 60), i);
    }
    EXPECT_EQ(r.sw.learned(), 1024u);
    EXPECT_EQ(r.sw.mac_evictions(), 1u);
    EXPECT_FALSE(r.sw.lookup({0x02, 0, 0, 0, 0, 0}, kT0 + 2000));  // the first one went
    EXPECT_EQ(r.sw.lookup({0x02, 0, 0, 0, 4, 0}, kT0 + 2000), 1u);
}

TEST(SwitchForwarding, HairpinDroppedAndCounted) {
    Rig r(config(2, 0));
    r.rx(1, plain_frame(1, 2, 60), 0);
    r.rx(1, plain_frame(3, 1, 60), 1);  // 1 lives on port 1 itself
    EXPECT_EQ(r.sent.size(), 1u);
    EXPECT_EQ(r.sw.counters(1, kT0).hairpin, 1u);
}

TEST(SwitchForwarding, ReservedAddressesNeverForwardedMacControlCounted) {
    Rig r(config(3, 0));
    r.rx(1, plain_frame(mac(1), {0x01, 0x80, 0xc2, 0, 0, 0x0e}, 60), 0);  // LLDP
    r.rx(1, plain_frame(mac(1), {0x01, 0x80, 0xc2, 0, 0, 0x00}, 60), 0);  // STP
    const auto pause = pfc_frame(7, 0xffff);
    r.rx(1, Frame(pause.begin(), pause.end()), 0);
    r.rx(1, plain_frame(mac(1), {0x01, 0x80, 0xc2, 0, 0, 0x10}, 60), 0);  // outside the range
    EXPECT_EQ(r.ports_sent(), (std::vector<unsigned>{2, 3}));
    EXPECT_EQ(r.sw.counters(1, kT0).drop_reserved, 2u);
    EXPECT_EQ(r.sw.counters(1, kT0).pfc_rx, 1u);
}

TEST(SwitchForwarding, RuntAndGiantDroppedAndCounted) {
    Rig r(config(2, 0));
    r.rx(1, Frame(13, 0), 0);
    r.rx(1, plain_frame(1, 2, 14), 0);
    r.rx(1, plain_frame(1, 2, 9022), 0);
    r.rx(1, plain_frame(1, 2, 9023), 0);
    EXPECT_EQ(r.sent.size(), 2u);
    EXPECT_EQ(r.sw.counters(1, kT0).runt, 1u);
    EXPECT_EQ(r.sw.counters(1, kT0).giant, 1u);
    EXPECT_EQ(r.sw.counters(1, kT0).rx_frames, 2u);
    EXPECT_EQ(r.sw.counters(1, kT0).rx_bytes, 14u + 9022u);
    EXPECT_EQ(r.sw.counters(2, kT0).tx_bytes, 14u + 9022u);
}

// ---- the departure schedule

TEST(SwitchSchedule, DepartureTimesExactAtOneGigabit) {
    Rig r(config(2, 1'000'000'000, 1 << 20, ecn_off()));
    for (int i = 0; i < 3; ++i) {
        r.rx(1, plain_frame(1, 2, 1000), 0);
    }
    EXPECT_TRUE(r.sent.empty());
    EXPECT_EQ(r.sw.next_deadline_ns(), kT0 + kFrameNs);  // d_1 = (1000 + 24) * 8 ns
    EXPECT_EQ(r.sw.queue_bytes(2, kT0), 3000u);
    r.at(kFrameNs - 1);
    EXPECT_TRUE(r.sent.empty());
    r.at(kFrameNs);
    EXPECT_EQ(r.sent.size(), 1u);
    EXPECT_EQ(r.sw.queue_bytes(2, kT0 + kFrameNs), 2000u);
    EXPECT_EQ(r.sw.next_deadline_ns(), kT0 + 2 * kFrameNs);
    // Q(t) follows the schedule, not the calls: at 3 frame times the queue is empty even
    // though nobody has advanced the switch yet.
    EXPECT_EQ(r.sw.queue_bytes(2, kT0 + 3 * kFrameNs), 0u);
    EXPECT_EQ(r.sw.queue_frames(2, kT0 + 2 * kFrameNs), 1u);
    r.at(3 * kFrameNs);
    EXPECT_EQ(r.sent.size(), 3u);
    // Idle, then one frame at 100 us: d = a + 8192 ns.
    r.rx(1, plain_frame(1, 2, 1000), 100'000);
    EXPECT_EQ(r.sw.next_deadline_ns(), kT0 + 100'000 + kFrameNs);
    r.at(100'000 + kFrameNs);
    EXPECT_EQ(r.sent.size(), 4u);
    EXPECT_EQ(r.sw.lateness(2).max_ns, kFrameNs);  // frame 2 was sent at 3T, not 2T
    EXPECT_EQ(r.sw.lateness(2).count, 4u);
}

TEST(SwitchSchedule, RemainderCarriedNoDriftAtAnOddRate) {
    // 1024 bytes at 3 Mb/s = 2730666666.67 ps: the third frame still leaves at exactly 8.192 ms.
    Rig r(config(2, 3'000'000, 1 << 20, ecn_off()));
    for (int i = 0; i < 3; ++i) {
        r.rx(1, plain_frame(1, 2, 1000), 0);
    }
    r.at(2'730'666);
    EXPECT_EQ(r.sent.size(), 0u);  // d_1 = 2730666.666 ns
    r.at(2'730'667);
    EXPECT_EQ(r.sent.size(), 1u);
    r.at(8'191'999);
    EXPECT_EQ(r.sent.size(), 2u);
    r.at(8'192'000);
    EXPECT_EQ(r.sent.size(), 3u);
}

TEST(SwitchSchedule, BytesOverAnyIntervalWithinOneFrameOfRateTimesT) {
    const uint64_t rate = 100'000'000;
    Rig r(config(2, rate, 64 << 20, ecn_off()));
    for (int i = 0; i < 20000; ++i) {
        r.rx(1, plain_frame(1, 2, 1476), 0);  // 1500 bytes on the wire each
    }
    for (uint64_t t_ms = 1; t_ms <= 2000; t_ms += 7) {
        r.at(t_ms * 1'000'000);
        const auto bits = static_cast<double>(r.sw.counters(2, kT0).tx_frames) * 1500 * 8;
        const double ideal = static_cast<double>(rate) * static_cast<double>(t_ms) * 1e-3;
        ASSERT_LE(std::abs(bits - ideal), 1500 * 8) << "at " << t_ms << " ms";
    }
}

TEST(SwitchSchedule, LateAdvanceSendsTheBurstAndRecordsLateness) {
    Rig r(config(2, 1'000'000'000, 1 << 20, ecn_off()));
    for (int i = 0; i < 4; ++i) {
        r.rx(1, plain_frame(1, 2, 1000), 0);
    }
    r.at(2'000'000);  // 2 ms late: all four at once
    EXPECT_EQ(r.sent.size(), 4u);
    const Lateness& l = r.sw.lateness(2);
    EXPECT_EQ(l.count, 4u);
    EXPECT_EQ(l.max_ns, 2'000'000u - kFrameNs);
    EXPECT_EQ(l.quantile_ns(0.5), std::min<uint64_t>(2048'000, l.max_ns));  // [1024, 2048) us
    EXPECT_EQ(l.buckets[11], 4u);
}

TEST(SwitchSchedule, RateZeroSendsAtOnce) {
    Rig r(config(2, 0));
    r.rx(1, plain_frame(1, 2, 1000), 5);
    EXPECT_EQ(r.sent.size(), 1u);
    EXPECT_EQ(r.sw.queue_bytes(2, kT0 + 5), 0u);
}

TEST(SwitchSchedule, RateChangeAppliesFromTheNextFrame) {
    Rig r(config(2, 1'000'000'000, 1 << 20, ecn_off()));
    r.rx(1, plain_frame(1, 2, 1000), 0);
    r.sw.set_rate(2, 500'000'000);
    r.rx(1, plain_frame(1, 2, 1000), 0);
    r.at(kFrameNs);
    EXPECT_EQ(r.sent.size(), 1u);
    r.at(3 * kFrameNs - 1);
    EXPECT_EQ(r.sent.size(), 1u);
    r.at(3 * kFrameNs);
    EXPECT_EQ(r.sent.size(), 2u);
}

// ---- tail drop

TEST(SwitchTailDrop, DropsAtExactlyTheBuffer) {
    Rig r(config(2, 1'000'000'000, 10'000, ecn_off()));
    for (int i = 0; i < 11; ++i) {
        r.rx(1, plain_frame(1, 2, 1000), 0);
    }
    PortCounters c = r.sw.counters(2, kT0);
    EXPECT_EQ(c.drop_tail, 1u);  // Q + len = 11000 > 10000; 10 frames fit exactly
    EXPECT_EQ(c.drop_tail_bytes, 1000u);
    EXPECT_EQ(c.q_max_bytes, 10'000u);
    EXPECT_EQ(c.drop_headroom, 0u);
    r.rx(1, plain_frame(1, 2, 1000), kFrameNs);  // one left: room for one
    r.rx(1, plain_frame(1, 2, 1001), kFrameNs);
    c = r.sw.counters(2, kT0 + kFrameNs);
    EXPECT_EQ(c.drop_tail, 2u);
    EXPECT_EQ(c.drop_tail_bytes, 2001u);
    EXPECT_EQ(r.sw.queue_bytes(2, kT0 + kFrameNs), 10'000u);
}

// ---- ECN

TEST(SwitchEcn, StepMarksAboveExactlyK) {
    EcnPolicy e;
    e.k = 3000;
    Rig r(config(2, 1'000'000'000, 1 << 20, e));
    for (int i = 0; i < 6; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 0, 1000, ... 5000 at arrival
    }
    r.rx(1, roce_frame(1, 2, 1000, 0), 0);  // not ECT: never marked
    r.at(1'000'000);
    ASSERT_EQ(r.sent.size(), 7u);
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_EQ(ecn_of(r.sent[i].frame), i < 4 ? 2 : 3) << "frame " << i;
        // The checksum is rewritten and the ICRC still holds: the model's own parser accepts it.
        const roce::ParseResult pr = roce::parse_frame(r.sent[i].frame);
        EXPECT_TRUE(pr.ok()) << roce::to_string(pr.reason);
    }
    EXPECT_EQ(ecn_of(r.sent[6].frame), 0);
    const PortCounters c = r.sw.counters(2, kT0);
    EXPECT_EQ(c.ecn_marked, 2u);
    EXPECT_EQ(c.ect_frames, 6u);
    EXPECT_EQ(c.nonect_frames, 1u);
}

TEST(SwitchEcn, Ipv6MarkingKeepsTheIcrcAndCeStaysCe) {
    EcnPolicy e;
    e.k = 0;
    Rig r(config(2, 1'000'000'000, 1 << 20, e));
    r.rx(1, roce_frame(1, 2, 1000, 1, roce::IpVersion::kV6), 0);
    r.rx(1, roce_frame(1, 2, 1000, 1, roce::IpVersion::kV6), 0);
    r.rx(1, roce_frame(1, 2, 1000, 3), 0);  // CE from upstream
    r.at(1'000'000);
    ASSERT_EQ(r.sent.size(), 3u);
    const roce::ParseResult pr = roce::parse_frame(r.sent[1].frame);
    ASSERT_TRUE(pr.ok()) << roce::to_string(pr.reason);
    EXPECT_EQ(pr.packet.ipv6->traffic_class & 3, 3);
    EXPECT_EQ(roce::parse_frame(r.sent[0].frame).packet.ipv6->traffic_class & 3, 1);
    EXPECT_EQ(ecn_of(r.sent[2].frame), 3);
    const PortCounters c = r.sw.counters(2, kT0);
    EXPECT_EQ(c.ecn_marked, 1u);
    EXPECT_EQ(c.ecn_ce_in, 1u);
}

// Keeps Q at arrival constant: prefill n frames, then one arrival per departure.
double red_fraction(const EcnPolicy& e, uint64_t seed, unsigned n, unsigned frames,
                    std::vector<bool>* pattern = nullptr) {
    SwitchConfig c = config(2, 1'000'000'000, 1 << 20, e);
    c.seed = seed;
    Rig r(c);
    r.rx(2, plain_frame(2, 9, 60), 0);  // learn 2 (floods to 1)
    r.sent.clear();
    for (unsigned i = 0; i < n; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 0), 0);  // not ECT: no draws
    }
    uint64_t marked = 0;
    for (unsigned k = 1; k <= frames; ++k) {
        EXPECT_EQ(r.sw.queue_bytes(2, kT0 + k * kFrameNs), (n - 1) * 1000u);
        r.rx(1, roce_frame(1, 2, 1000, 2), k * kFrameNs);
        r.sent.clear();
        const uint64_t now = r.sw.counters(2, kT0).ecn_marked;
        if (pattern) {
            pattern->push_back(now != marked);
        }
        marked = now;
    }
    return static_cast<double>(marked) / frames;
}

TEST(SwitchEcn, RedMarksWithProbabilityPAtAFixedQueue) {
    EcnPolicy e;
    e.mode = EcnMode::kRed;
    e.kmin = 0;
    e.kmax = 100'000;
    e.pmax = 0.5;
    // Q = 40 frames = 40000 bytes: p = 0.5 * 0.4 = 0.2. Binomial sigma over 1e5 frames is
    // 0.0013; the bound is 1 percentage point.
    const double f = red_fraction(e, 1, 41, 100'000);
    EXPECT_NEAR(f, 0.2, 0.01);
    std::printf("RED: marked fraction %.5f, p = 0.2\n", f);
}

TEST(SwitchEcn, RedIsReplayableFromTheSeed) {
    EcnPolicy e;
    e.mode = EcnMode::kRed;
    e.kmin = 0;
    e.kmax = 100'000;
    e.pmax = 0.5;
    std::vector<bool> a;
    std::vector<bool> b;
    std::vector<bool> c;
    red_fraction(e, 7, 41, 2000, &a);
    red_fraction(e, 7, 41, 2000, &b);
    red_fraction(e, 8, 41, 2000, &c);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(SwitchEcn, RedBelowMinNeverAboveMaxAlwaysAndDropsNonEct) {
    EcnPolicy e;
    e.mode = EcnMode::kRed;
    e.kmin = 2000;
    e.kmax = 4000;
    e.pmax = 0.1;
    e.drop_nonect = true;
    Rig r(config(2, 1'000'000'000, 1 << 20, e));
    for (int i = 0; i < 3; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 0, 1000, 2000: p = 0
    }
    EXPECT_EQ(r.sw.counters(2, kT0).ecn_marked, 0u);
    for (int i = 0; i < 2; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 3000 (p = 0.05), 4000 (p = 0.1)
    }
    r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 5000 > max: p = 1
    r.rx(1, roce_frame(1, 2, 1000, 0), 0);  // Q = 6000, not ECT: dropped
    const PortCounters c = r.sw.counters(2, kT0);
    EXPECT_GE(c.ecn_marked, 1u);
    EXPECT_EQ(c.drop_red, 1u);
    EXPECT_EQ(c.nonect_frames, 0u);
    EXPECT_EQ(r.sw.queue_bytes(2, kT0), 6000u);
}

TEST(SwitchEcn, RedEwmaFollowsTheClassicAverage) {
    EcnPolicy e;
    e.mode = EcnMode::kRed;
    e.kmin = 1'000'000;  // never marks: only the average is checked
    e.kmax = 2'000'000;
    e.ewma_shift = 1;  // weight 1/2
    Rig r(config(2, 1'000'000'000, 1 << 20, e));
    r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 0, idle 0: avg 0
    EXPECT_DOUBLE_EQ(r.sw.red_average(2), 0.0);
    r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 1000: avg 500
    EXPECT_DOUBLE_EQ(r.sw.red_average(2), 500.0);
    r.rx(1, roce_frame(1, 2, 1000, 2), 0);  // Q = 2000: avg 1250
    EXPECT_DOUBLE_EQ(r.sw.red_average(2), 1250.0);
    // Empty at 3 frame times; an arrival 3 frame times later decays avg by (1/2)^3.
    r.rx(1, roce_frame(1, 2, 1000, 2), 6 * kFrameNs);
    EXPECT_DOUBLE_EQ(r.sw.red_average(2), 1250.0 / 8);
}

// ---- PFC

SwitchConfig pfc_config() {
    SwitchConfig c = config(3, 1'000'000'000, 10'000, ecn_off());
    c.pfc = {4000, 2000, 1000};  // XOFF, XON, HEADROOM: B >= 2 * 5000
    for (PortConfig& p : c.ports) {
        p.pfc = true;
    }
    return c;
}

TEST(SwitchPfc, RefusesABufferBelowPortsMinusOneTimesXoffPlusHeadroom) {
    SwitchConfig c = pfc_config();
    c.ports[2].buffer = 9999;
    EXPECT_THROW(Switch(
                     c, [](unsigned, std::span<const uint8_t>) {}, 0),
                 std::invalid_argument);
    c.ports[2].buffer = 10'000;
    EXPECT_NO_THROW(Switch(
        c, [](unsigned, std::span<const uint8_t>) {}, 0));
    c.ports[2].pfc = false;
    c.ports[1].rate_bps = 0;
    EXPECT_THROW(Switch(
                     c, [](unsigned, std::span<const uint8_t>) {}, 0),
                 std::invalid_argument);
}

TEST(SwitchPfc, FrameBytesExact) {
    const auto f = pfc_frame(3, 0xffff);
    const std::array<uint8_t, 34> head{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0x5c, 0x00,
                                       0x00, 0x00, 0x03, 0x88, 0x08, 0x01, 0x01, 0x00, 0x08,
                                       0,    0,    0,    0,    0,    0,    0xff, 0xff, 0,
                                       0,    0,    0,    0,    0,    0,    0};
    EXPECT_TRUE(std::equal(head.begin(), head.end(), f.begin()));
    EXPECT_TRUE(std::all_of(f.begin() + 34, f.end(), [](uint8_t b) { return b == 0; }));
    EXPECT_EQ(pfc_frame(3, 0)[24], 0);
}

TEST(SwitchPfc, XoffAtXoffRefreshedEveryHalfPauseXonAtXon) {
    Rig r(pfc_config());
    r.rx(2, plain_frame(2, 9, 60), 0);
    r.at(1'000'000);
    r.sent.clear();
    const uint64_t t = 1'000'000;
    for (int i = 0; i < 3; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 0), t);
    }
    r.rx(1, plain_frame(1, 2, 1000), t);  // priority 0: not in I_1
    EXPECT_EQ(r.sw.ingress_bytes(1), 3000u);
    EXPECT_TRUE(r.sent.empty());
    r.rx(1, roce_frame(1, 2, 1000, 0), t);  // I_1 = 4000 = XOFF
    ASSERT_EQ(r.sent.size(), 1u);
    EXPECT_EQ(r.sent[0].port, 1u);
    const auto xoff = pfc_frame(1, 0xffff);
    EXPECT_EQ(r.sent[0].frame, Frame(xoff.begin(), xoff.end()));
    EXPECT_TRUE(r.sw.paused(1));
    EXPECT_EQ(r.sw.counters(1, kT0 + t).pfc_xoff_tx, 1u);
    // The queue is R R R P R: after two departures I_1 = 2000 = XON.
    r.sent.clear();
    r.at(t + kFrameNs);
    EXPECT_TRUE(r.sw.paused(1));
    r.at(t + 2 * kFrameNs);
    ASSERT_EQ(r.sent.size(), 3u);  // R1, then the XON as R2 leaves, then R2
    EXPECT_EQ(r.sent[1].port, 1u);
    const auto xon = pfc_frame(1, 0);
    EXPECT_EQ(r.sent[1].frame, Frame(xon.begin(), xon.end()));
    EXPECT_EQ(r.sent[2].port, 2u);
    EXPECT_FALSE(r.sw.paused(1));
    const PortCounters c = r.sw.counters(1, kT0 + t + 5 * kFrameNs);
    EXPECT_EQ(c.pfc_xon_tx, 1u);
    EXPECT_EQ(c.paused_ns, 2 * kFrameNs);

    // Refresh: pause 0xffff * 512 bit times at 1 Gb/s = 33553920 ns, repeated every half.
    Rig s(pfc_config());
    s.rx(2, plain_frame(2, 9, 60), 0);
    s.at(t);
    s.sw.set_rate(2, 1000);  // port 2 drains at 1 kb/s: the queue stays
    s.sent.clear();
    for (int i = 0; i < 4; ++i) {
        s.rx(1, roce_frame(1, 2, 1000, 0), t);
    }
    EXPECT_EQ(s.sent.size(), 1u);
    EXPECT_EQ(s.sw.next_deadline_ns(), kT0 + t + 16'776'960);
    s.at(t + 16'776'959);
    EXPECT_EQ(s.sent.size(), 1u);
    s.at(t + 16'776'960);
    ASSERT_EQ(s.sent.size(), 2u);
    EXPECT_EQ(s.sent[1].frame, Frame(xoff.begin(), xoff.end()));
    EXPECT_EQ(s.sw.counters(1, kT0 + t + 16'776'960).pfc_xoff_tx, 2u);
    EXPECT_EQ(s.sw.counters(1, kT0 + t + 16'776'960).paused_ns, 16'776'960u);
}

TEST(SwitchPfc, OverflowOfALosslessIngressCountsDropHeadroom) {
    Rig r(pfc_config());
    r.rx(2, plain_frame(2, 9, 60), 0);
    r.sent.clear();
    for (int i = 0; i < 11; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 0), 0);  // a node that ignores the XOFF
    }
    const PortCounters c = r.sw.counters(2, kT0);
    EXPECT_EQ(c.drop_tail, 1u);
    EXPECT_EQ(c.drop_headroom, 1u);
}

TEST(SwitchPfc, OffSendsNothing) {
    SwitchConfig c = pfc_config();
    c.ports[0].pfc = false;
    Rig r(c);
    for (int i = 0; i < 8; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 0), 0);
    }
    EXPECT_FALSE(r.sw.paused(1));
    EXPECT_EQ(r.sw.counters(1, kT0).pfc_xoff_tx, 0u);
    EXPECT_EQ(r.sw.ingress_bytes(1), 0u);
}

// ---- fault rules per port

TEST(SwitchFaults, RxRuleDropsBeforeQueueTxRuleDelaysAfterIt) {
    SwitchConfig c = config(2, 1'000'000'000, 1 << 20, ecn_off());
    c.ports[0].faults = "rx:drop:nth=2";
    c.ports[1].faults = "tx:delay:us=50";
    Rig r(c);
    for (int i = 0; i < 3; ++i) {
        r.rx(1, roce_frame(1, 2, 1000, 0), 0);
    }
    EXPECT_EQ(r.sw.counters(1, kT0).drop_fault, 1u);
    EXPECT_EQ(r.sw.wire_counters(1).drops, 1u);
    EXPECT_EQ(r.sw.queue_bytes(2, kT0), 2000u);  // the dropped frame never queued
    r.at(kFrameNs);  // the first frame leaves the queue and is held 50 us by port 2's rule
    EXPECT_TRUE(r.sent.empty());
    EXPECT_EQ(r.sw.wire_counters(2).delays, 1u);
    r.at(2 * kFrameNs);
    EXPECT_EQ(r.sent.size(), 1u);  // the second is not delayed (nth=1 count=1)
    r.at(kFrameNs + 50'000);
    EXPECT_EQ(r.sent.size(), 2u);
    EXPECT_EQ(r.sw.counters(2, kT0).tx_frames, 2u);
}

TEST(SwitchFaults, BadRulesAreRefused) {
    SwitchConfig c = config(2);
    c.ports[1].faults = "tx:explode";
    EXPECT_THROW(Switch(
                     c, [](unsigned, std::span<const uint8_t>) {}, 0),
                 std::invalid_argument);
    Rig r(config(2));
    EXPECT_THROW(r.sw.set_faults(1, "rx:drop:nth=0x"), std::invalid_argument);
}

// ---- counters

TEST(SwitchCounters, ResetClearsCountersKeepsQueues) {
    Rig r(config(2, 1'000'000'000, 1 << 20, ecn_off()));
    for (int i = 0; i < 3; ++i) {
        r.rx(1, plain_frame(1, 2, 1000), 0);
    }
    r.at(kFrameNs);
    EXPECT_EQ(r.sw.counters(1, kT0).rx_frames, 3u);
    EXPECT_EQ(r.sw.counters(2, kT0).tx_frames, 1u);
    EXPECT_EQ(r.sw.counters(2, kT0).tx_bytes, 1000u);
    r.sw.reset_counters(kT0 + kFrameNs);
    EXPECT_EQ(r.sw.counters(1, kT0).rx_frames, 0u);
    EXPECT_EQ(r.sw.counters(2, kT0).q_max_bytes, 2000u);
    r.at(3 * kFrameNs);
    EXPECT_EQ(r.sw.counters(2, kT0).tx_frames, 2u);
    EXPECT_EQ(r.sw.take_window_max(2), 2000u);
    EXPECT_EQ(r.sw.take_window_max(2), 0u);
}

TEST(SwitchClassify, RoceIsPriorityThreeOthersZero) {
    EXPECT_EQ(classify(roce_frame(1, 2, 100, 2)).priority, 3u);
    EXPECT_EQ(classify(roce_frame(1, 2, 100, 2)).ecn, 2);
    EXPECT_TRUE(classify(roce_frame(1, 2, 100, 2, roce::IpVersion::kV6)).ipv6);
    EXPECT_EQ(classify(plain_frame(1, 2, 100)).priority, 0u);
    EXPECT_FALSE(classify(plain_frame(1, 2, 100)).ip);
    Frame other = roce_frame(1, 2, 100, 2);
    other[14 + 20 + 3] = 0xb8;  // UDP destination port 4792, not 4791
    EXPECT_EQ(classify(other).priority, 0u);
}

}  // namespace
}  // namespace scenic::sw::test
