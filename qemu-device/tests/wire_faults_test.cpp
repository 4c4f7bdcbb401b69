// SPDX-License-Identifier: MIT
// The fault-injecting wire (scenic/wire_faults.hpp, docs/fault-wire.md): the rule parser, each
// action at exact positions in both directions, seeded rates, the log, reset, the timer, and the
// wire between two cards of the RDMA rig.
#include "scenic/wire_faults.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/model.h"

namespace scenic::test {
namespace {

using wire::Action;
using wire::FaultRecord;
using wire::Rule;
using wire::WireFaults;
using Frame = std::vector<uint8_t>;
namespace rr = regs::rdma;

constexpr uint8_t kSendOnly = 0x04;
constexpr uint8_t kSendFirst = 0x00;
constexpr uint8_t kWriteMiddle = 0x07;

// A RoCE v2 SEND_ONLY (or another payload-only opcode) from 10.0.0.1 to 10.0.0.2; the payload's
// first byte tags the frame so that tests can follow it.
Frame roce_frame(uint32_t qpn, uint32_t psn, uint8_t opcode = kSendOnly, uint8_t tag = 0,
                 roce::IpVersion ip = roce::IpVersion::kV4) {
    roce::PathContext path;
    path.src_mac = {0x02, 0x5c, 0, 0, 0, 1};
    path.dst_mac = {0x02, 0x5c, 0, 0, 0, 2};
    path.ip_version = ip;
    path.src_ip = {10, 0, 0, 1};
    path.dst_ip = {10, 0, 0, 2};
    if (ip == roce::IpVersion::kV6) {
        path.src_ip = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        path.dst_ip = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    }
    path.ecn = 2;  // ECT(0), as a DCQCN sender
    roce::Transport t;
    t.bth.opcode = opcode;
    t.bth.dest_qp = qpn;
    t.bth.psn = psn;
    const std::vector<uint8_t> payload{tag, 1, 2, 3};
    auto built = roce::build_frame(path, t, payload);
    EXPECT_TRUE(built.ok()) << roce::to_string(built.error);
    return built.frame;
}

Frame arp_frame() {
    Frame f(60, 0);
    f[0] = f[1] = f[2] = f[3] = f[4] = f[5] = 0xff;
    f[12] = 0x08;
    f[13] = 0x06;
    return f;
}

uint8_t tag_of(const Frame& f) {
    const auto pr = roce::parse_frame(f);
    EXPECT_TRUE(pr.ok()) << roce::to_string(pr.reason);
    return pr.ok() ? pr.packet.payload[0] : 0xff;
}

// Time and a timer for the wire's event queue.
class ClockHost final : public Host {
  public:
    bool dma_read(uint64_t, std::span<uint8_t>) override { return false; }
    bool dma_write(uint64_t, std::span<const uint8_t>) override { return false; }
    void msix_notify(unsigned) override {}
    void eth_send(std::span<const uint8_t>) override {}
    uint64_t now_ns() override { return now; }
    void timer_schedule(uint64_t deadline_ns) override { timer = deadline_ns; }
    void timer_cancel() override { timer.reset(); }

    uint64_t now = 5'000'000;
    std::optional<uint64_t> timer;
};

// One WireFaults with what it delivers in each direction captured.
class Wire {
  public:
    explicit Wire(const std::string& spec, uint64_t seed = 1, uint32_t drop_ppm = 0,
                  const std::string& log = "")
        : events(clock), faults(config(spec, seed, drop_ppm, log), events, hooks()) {}

    static wire::FaultConfig config(const std::string& spec, uint64_t seed, uint32_t drop_ppm,
                                    const std::string& log) {
        wire::FaultConfig c;
        c.rules = spec;
        c.seed = seed;
        c.log_path = log;
        c.drop_ppm = drop_ppm;
        return c;
    }
    WireFaults::Hooks hooks() {
        return {[this](std::span<const uint8_t> f) { rx.emplace_back(f.begin(), f.end()); },
                [this](std::span<const uint8_t> f) { tx.emplace_back(f.begin(), f.end()); },
                [this]() -> wire::Counters& { return cnt; }};
    }
    // Sends frames tagged 1..n on QP qpn, PSNs psn0.. in direction dir.
    void pass(wire::Dir dir, unsigned n, uint32_t qpn = 0x11, uint32_t psn0 = 0x100) {
        for (unsigned i = 1; i <= n; ++i) {
            const Frame f = roce_frame(qpn, psn0 + i - 1, kSendOnly, static_cast<uint8_t>(i));
            dir == wire::Dir::kRx ? faults.receive(f) : faults.transmit(f);
        }
    }
    // Advances the clock to the timer, as the host does, and fires it.
    bool fire() {
        if (!clock.timer) {
            return false;
        }
        clock.now = *clock.timer;
        clock.timer.reset();
        events.fire();
        return true;
    }
    static std::vector<uint8_t> tags(const std::vector<Frame>& frames) {
        std::vector<uint8_t> out;
        for (const Frame& f : frames) {
            out.push_back(tag_of(f));
        }
        return out;
    }

    ClockHost clock;
    EventQueue events;
    wire::Counters cnt;
    std::vector<Frame> rx;
    std::vector<Frame> tx;
    WireFaults faults;
};

// ---- parser

TEST(WireFaultSpec, EmptySpecHasNoRules) { EXPECT_TRUE(wire::parse_wire_faults("").empty()); }

TEST(WireFaultSpec, DefaultsAreFirstMatchOnlyAnyPacket) {
    const auto rules = wire::parse_wire_faults("rx:drop;tx:delay;tx:reorder");
    ASSERT_EQ(rules.size(), 3u);
    EXPECT_EQ(rules[0].dir, wire::Dir::kRx);
    EXPECT_EQ(rules[0].action, Action::kDrop);
    EXPECT_FALSE(rules[0].ppm);
    EXPECT_EQ(rules[0].nth, 1u);
    EXPECT_EQ(rules[0].count, 1u);
    EXPECT_FALSE(rules[0].qp || rules[0].opcode || rules[0].psn);
    EXPECT_EQ(rules[1].dir, wire::Dir::kTx);
    EXPECT_EQ(rules[1].delay_us, 100u);
    EXPECT_EQ(rules[2].depth, 1u);
}

TEST(WireFaultSpec, EveryActionAndKeyDecimalAndHex) {
    const auto rules = wire::parse_wire_faults(
        "tx:dup:nth=0x10:count=0:qp=0x11:opcode=0x0a:psn=300;rx:corrupt:ppm=1000000;"
        "rx:ecn:ppm=0;tx:delay:us=0x20;rx:reorder:depth=1024:psn=0xffffff;rx:drop:count=3");
    ASSERT_EQ(rules.size(), 6u);
    EXPECT_EQ(rules[0].action, Action::kDup);
    EXPECT_EQ(rules[0].nth, 16u);
    EXPECT_EQ(rules[0].count, 0u);
    EXPECT_EQ(rules[0].qp, 0x11u);
    EXPECT_EQ(rules[0].opcode, 0x0a);
    EXPECT_EQ(rules[0].psn, 300u);
    EXPECT_EQ(rules[1].action, Action::kCorrupt);
    EXPECT_EQ(rules[1].ppm, 1'000'000u);
    EXPECT_EQ(rules[2].action, Action::kEcn);
    EXPECT_EQ(rules[2].ppm, 0u);
    EXPECT_EQ(rules[3].action, Action::kDelay);
    EXPECT_EQ(rules[3].delay_us, 32u);
    EXPECT_EQ(rules[4].action, Action::kReorder);
    EXPECT_EQ(rules[4].depth, 1024u);
    EXPECT_EQ(rules[4].psn, 0xffffffu);
    EXPECT_EQ(rules[5].nth, 1u);
    EXPECT_EQ(rules[5].count, 3u);
}

TEST(WireFaultSpec, RejectsWithAMessageNamingRuleAndKey) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"bogus", "rule 1 \"bogus\": expected DIR:ACTION[:KEY=VALUE...]"},
        {"up:drop", "rule 1 \"up:drop\": unknown direction \"up\" (rx, tx)"},
        {"rx:drop;tx:frob",
         "rule 2 \"tx:frob\": unknown action \"frob\" (drop, dup, reorder, delay, corrupt, ecn)"},
        {"rx:drop:nth", "rule 1 \"rx:drop:nth\": field \"nth\" is not KEY=VALUE"},
        {"rx:drop:=3", "rule 1 \"rx:drop:=3\": field \"=3\" is not KEY=VALUE"},
        {"rx:drop:color=3",
         "rule 1 \"rx:drop:color=3\": unknown key \"color\" (ppm, nth, count, qp, opcode, psn, "
         "us, depth)"},
        {"rx:drop:nth=0", "rule 1 \"rx:drop:nth=0\": nth=0 out of range (1..4294967295)"},
        {"rx:drop:ppm=1000001",
         "rule 1 \"rx:drop:ppm=1000001\": ppm=1000001 out of range (0..1000000)"},
        {"rx:drop:qp=0x1000000",
         "rule 1 \"rx:drop:qp=0x1000000\": qp=0x1000000 out of range (0..16777215)"},
        {"rx:drop:opcode=256", "rule 1 \"rx:drop:opcode=256\": opcode=256 out of range (0..255)"},
        {"rx:drop:psn=zz", "rule 1 \"rx:drop:psn=zz\": psn=zz: not a number (decimal or 0x hex)"},
        {"rx:drop:psn=0x", "rule 1 \"rx:drop:psn=0x\": psn=0x: not a number (decimal or 0x hex)"},
        {"rx:drop:count=", "rule 1 \"rx:drop:count=\": count=: not a number (decimal or 0x hex)"},
        {"rx:drop:nth=99999999999999999999",
         "rule 1 \"rx:drop:nth=99999999999999999999\": nth=99999999999999999999 out of range "
         "(1..4294967295)"},
        {"rx:drop:nth=1:nth=2", "rule 1 \"rx:drop:nth=1:nth=2\": key nth given twice"},
        {"rx:drop:ppm=5:nth=2", "rule 1 \"rx:drop:ppm=5:nth=2\": ppm excludes nth and count"},
        {"rx:drop:us=5", "rule 1 \"rx:drop:us=5\": key us only applies to delay"},
        {"rx:delay:depth=2", "rule 1 \"rx:delay:depth=2\": key depth only applies to reorder"},
        {"rx:delay:us=10000001",
         "rule 1 \"rx:delay:us=10000001\": us=10000001 out of range (0..10000000)"},
        {"rx:reorder:depth=0", "rule 1 \"rx:reorder:depth=0\": depth=0 out of range (1..1024)"},
        {"rx:drop;", "rule 2 \"\": empty rule"},
        {"rx:drop;;tx:dup", "rule 2 \"\": empty rule"},
    };
    for (const auto& [spec, message] : cases) {
        try {
            (void)wire::parse_wire_faults(spec);
            ADD_FAILURE() << spec << " was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), "scenic: wire-faults " + message) << spec;
        }
    }
}

// ---- actions at exact positions

TEST(WireFaults, NthAndCountDropExactPositionsInBothDirections) {
    Wire w("rx:drop:nth=3:count=2;tx:drop:nth=2");
    w.pass(wire::Dir::kRx, 6);
    w.pass(wire::Dir::kTx, 4);
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{1, 2, 5, 6}));
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{1, 3, 4}));
    EXPECT_EQ(w.cnt.drops, 3u);
    ASSERT_EQ(w.faults.log().size(), 3u);
    EXPECT_EQ(w.faults.log()[0],
              (FaultRecord{wire::Dir::kRx, 3, Action::kDrop, 0, true, 0x11, 0x102, kSendOnly}));
    EXPECT_EQ(w.faults.log()[1].seq, 4u);
    EXPECT_EQ(w.faults.log()[2],
              (FaultRecord{wire::Dir::kTx, 2, Action::kDrop, 1, true, 0x11, 0x101, kSendOnly}));
}

TEST(WireFaults, CountZeroFiresOnEveryMatchFromNth) {
    Wire w("tx:drop:nth=4:count=0");
    w.pass(wire::Dir::kTx, 9);
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{1, 2, 3}));
    EXPECT_EQ(w.cnt.drops, 6u);
}

TEST(WireFaults, QpOpcodeAndPsnFiltersCountOnlyTheirMatches) {
    Wire w("rx:drop:qp=0x12:nth=2;rx:drop:opcode=0x00;rx:drop:psn=5:nth=2");
    const auto rx = [&](uint32_t qpn, uint32_t psn, uint8_t op, uint8_t tag) {
        w.faults.receive(roce_frame(qpn, psn, op, tag));
    };
    rx(0x11, 1, kSendOnly, 1);
    rx(0x12, 2, kSendOnly, 2);   // first on QP 0x12
    rx(0x11, 3, kSendFirst, 3);  // first SEND_FIRST: dropped by rule 1
    rx(0x12, 4, kSendOnly, 4);   // second on QP 0x12: dropped by rule 0
    rx(0x11, 5, kSendOnly, 5);   // PSN 5, first transmission
    rx(0x11, 6, kSendFirst, 6);  // second SEND_FIRST: passes
    rx(0x11, 5, kSendOnly, 7);   // PSN 5 again, its first retransmission: dropped by rule 2
    rx(0x11, 5, kSendOnly, 8);
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{1, 2, 5, 6, 8}));
    ASSERT_EQ(w.faults.log().size(), 3u);
    EXPECT_EQ(w.faults.log()[0],
              (FaultRecord{wire::Dir::kRx, 3, Action::kDrop, 1, true, 0x11, 3, kSendFirst}));
    EXPECT_EQ(w.faults.log()[1],
              (FaultRecord{wire::Dir::kRx, 4, Action::kDrop, 0, true, 0x12, 4, kSendOnly}));
    EXPECT_EQ(w.faults.log()[2],
              (FaultRecord{wire::Dir::kRx, 7, Action::kDrop, 2, true, 0x11, 5, kSendOnly}));
}

TEST(WireFaults, DupDeliversASecondCopyRightAfter) {
    Wire w("tx:dup:nth=2;rx:dup:nth=1:count=2");
    w.pass(wire::Dir::kTx, 3);
    w.pass(wire::Dir::kRx, 3);
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{1, 2, 2, 3}));
    EXPECT_EQ(w.tx[1], w.tx[2]);
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{1, 1, 2, 2, 3}));
    EXPECT_EQ(w.cnt.dups, 3u);
}

TEST(WireFaults, DropEndsProcessingLaterRulesDoNotSeeTheFrame) {
    Wire w("rx:drop:nth=1;rx:dup:nth=1");
    w.pass(wire::Dir::kRx, 2);
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{2, 2}));  // dup's first match is frame 2
    EXPECT_EQ(w.cnt.drops, 1u);
    EXPECT_EQ(w.cnt.dups, 1u);
}

TEST(WireFaults, DelayHoldsTheFrameForItsVirtualTime) {
    Wire w("tx:delay:nth=1:us=250");
    w.pass(wire::Dir::kTx, 2);
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{2}));
    EXPECT_EQ(w.faults.held_frames(), 1u);
    ASSERT_TRUE(w.clock.timer);
    EXPECT_EQ(*w.clock.timer, 5'000'000u + 250'000u);
    ASSERT_TRUE(w.fire());
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{2, 1}));
    EXPECT_EQ(w.faults.held_frames(), 0u);
    EXPECT_FALSE(w.clock.timer);
    EXPECT_EQ(w.cnt.delays, 1u);
}

TEST(WireFaults, DupOfADelayedFrameIsReleasedWithIt) {
    Wire w("rx:dup:nth=1;rx:delay:nth=1:us=10");
    w.pass(wire::Dir::kRx, 1);
    EXPECT_TRUE(w.rx.empty());
    ASSERT_TRUE(w.fire());
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{1, 1}));
}

TEST(WireFaults, ReorderReleasesAfterDepthLaterFrames) {
    Wire w("rx:reorder:nth=2:depth=2");
    w.pass(wire::Dir::kRx, 5);
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{1, 3, 4, 2, 5}));
    EXPECT_EQ(w.faults.held_frames(), 0u);
    EXPECT_FALSE(w.clock.timer);  // its 1 ms fallback was cancelled
    EXPECT_EQ(w.cnt.reorders, 1u);
}

TEST(WireFaults, ReorderOnlyCountsFramesOfItsOwnDirection) {
    Wire w("tx:reorder:nth=1");
    w.pass(wire::Dir::kTx, 1);
    w.pass(wire::Dir::kRx, 3);
    EXPECT_TRUE(w.tx.empty());
    w.pass(wire::Dir::kTx, 1);
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{1, 1}));
    EXPECT_EQ(w.rx.size(), 3u);
}

TEST(WireFaults, ReorderWithoutFollowersIsReleasedAfterOneMillisecond) {
    Wire w("tx:reorder:depth=3");
    w.pass(wire::Dir::kTx, 2);  // frame 1 held, frame 2 overtakes; 2 more would be needed
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{2}));
    ASSERT_TRUE(w.clock.timer);
    EXPECT_EQ(*w.clock.timer, 5'000'000u + WireFaults::kReorderTimeoutNs);
    ASSERT_TRUE(w.fire());
    EXPECT_EQ(Wire::tags(w.tx), (std::vector<uint8_t>{2, 1}));
}

TEST(WireFaults, AFrameIsHeldByTheFirstHoldingRuleOnly) {
    Wire w("rx:delay:us=10;rx:reorder");
    w.pass(wire::Dir::kRx, 2);  // frame 1 delayed (the reorder rule skips it), frame 2 passes
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{2}));
    EXPECT_EQ(w.cnt.delays, 1u);
    EXPECT_EQ(w.cnt.reorders, 0u);
    ASSERT_EQ(w.faults.log().size(), 1u);
    ASSERT_TRUE(w.fire());
    EXPECT_EQ(Wire::tags(w.rx), (std::vector<uint8_t>{2, 1}));
}

TEST(WireFaults, EcnMarkSetsCeKeepsIcrcAndFixesTheIpv4Checksum) {
    Wire w("tx:ecn");
    const Frame in = roce_frame(0x11, 7);
    w.faults.transmit(in);
    ASSERT_EQ(w.tx.size(), 1u);
    const auto pr = roce::parse_frame(w.tx[0]);  // checks the IPv4 checksum and the ICRC
    ASSERT_TRUE(pr.ok()) << roce::to_string(pr.reason);
    EXPECT_EQ(pr.packet.ipv4->ecn, 3);
    EXPECT_EQ(roce::parse_frame(in).packet.ipv4->ecn, 2);
    EXPECT_NE(w.tx[0], in);
    EXPECT_EQ(pr.packet.icrc, roce::parse_frame(in).packet.icrc);
    EXPECT_EQ(w.cnt.ecn_marks, 1u);
}

TEST(WireFaults, EcnMarkOnIpv6SetsTrafficClassCe) {
    Wire w("rx:ecn");
    w.faults.receive(roce_frame(0x11, 7, kSendOnly, 9, roce::IpVersion::kV6));
    ASSERT_EQ(w.rx.size(), 1u);
    const auto pr = roce::parse_frame(w.rx[0]);
    ASSERT_TRUE(pr.ok()) << roce::to_string(pr.reason);
    EXPECT_EQ(pr.packet.ipv6->traffic_class & 3, 3);
    EXPECT_EQ(pr.packet.payload[0], 9);
}

TEST(WireFaults, CorruptFailsTheIcrcOnly) {
    Wire w("tx:corrupt:nth=2");
    w.pass(wire::Dir::kTx, 2);
    ASSERT_EQ(w.tx.size(), 2u);
    EXPECT_TRUE(roce::parse_frame(w.tx[0]).ok());
    EXPECT_EQ(roce::parse_frame(w.tx[1]).reason, roce::DropReason::kBadIcrc);
    EXPECT_EQ(w.cnt.corrupts, 1u);
}

TEST(WireFaults, NonRoceFramesAndQp1PassUntouched) {
    Wire w("rx:drop:count=0;tx:corrupt:count=0");
    const Frame arp = arp_frame();
    Frame udp = roce_frame(0x11, 1);
    udp[14 + 20 + 3] = 0xb8;  // UDP dport 4791 (0x12b7) -> 4792: not RoCE
    const Frame qp1 = roce_frame(1, 1);
    for (const Frame& f : {arp, udp, qp1}) {
        w.faults.receive(f);
        w.faults.transmit(f);
    }
    EXPECT_EQ(w.rx, (std::vector<Frame>{arp, udp, qp1}));
    EXPECT_EQ(w.tx, (std::vector<Frame>{arp, udp, qp1}));
    EXPECT_TRUE(w.faults.log().empty());
    w.pass(wire::Dir::kRx, 1);
    ASSERT_EQ(w.faults.log().size(), 1u);
    EXPECT_EQ(w.faults.log()[0].seq, 1u);  // the first RoCE RC frame of that direction
}

// ---- seeded rates, determinism, log

TEST(WireFaults, PpmRateWithinBoundsForAFixedSeed) {
    Wire w("rx:drop:ppm=100000;tx:dup:ppm=0;tx:corrupt:ppm=1000000", 7);
    w.pass(wire::Dir::kRx, 10000);
    // Binomial(10000, 0.1): mean 1000, sd 30.
    EXPECT_GE(w.cnt.drops, 900u);
    EXPECT_LE(w.cnt.drops, 1100u);
    EXPECT_EQ(w.rx.size(), 10000u - w.cnt.drops);
    w.pass(wire::Dir::kTx, 100);
    EXPECT_EQ(w.cnt.dups, 0u);
    EXPECT_EQ(w.cnt.corrupts, 100u);
}

std::vector<FaultRecord> run_log(uint64_t seed) {
    Wire w("rx:drop:ppm=50000;rx:dup:ppm=20000;tx:reorder:ppm=30000;tx:ecn:ppm=10000", seed);
    for (unsigned i = 0; i < 40; ++i) {
        w.pass(wire::Dir::kRx, 50, 0x11, i * 50);
        w.pass(wire::Dir::kTx, 50, 0x12, i * 50);
        while (w.fire()) {
        }
    }
    return {w.faults.log().begin(), w.faults.log().end()};
}

TEST(WireFaults, SameSeedSameFaults) {
    const auto one = run_log(3);
    EXPECT_GT(one.size(), 100u);
    EXPECT_EQ(one, run_log(3));
    EXPECT_NE(one, run_log(4));
}

TEST(WireFaults, AddingARuleDoesNotMoveAnotherRulesFaults) {
    Wire one("rx:drop:ppm=100000", 5);
    Wire two("rx:drop:ppm=100000;tx:drop:ppm=500000", 5);
    one.pass(wire::Dir::kRx, 500);
    two.pass(wire::Dir::kRx, 500);
    EXPECT_EQ(Wire::tags(one.rx), Wire::tags(two.rx));
}

TEST(WireFaults, LegacyDropPpmDropsEveryKindWithTheOldSequence) {
    constexpr uint64_t kSeed = 9;
    Wire w("", kSeed, 100'000);
    std::vector<bool> dropped;
    for (unsigned i = 0; i < 300; ++i) {
        const size_t before = w.rx.size();
        w.faults.receive(i % 3 == 0 ? arp_frame() : roce_frame(0x11, i));
        dropped.push_back(w.rx.size() == before);
    }
    // The loss injector wire_drop_ppm had before the fault wire (splitmix64 from the seed).
    uint64_t state = kSeed;
    for (unsigned i = 0; i < 300; ++i) {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        EXPECT_EQ(dropped[i], z % 1'000'000 < 100'000) << i;
    }
    ASSERT_FALSE(w.faults.log().empty());
    EXPECT_EQ(w.faults.log()[0].rule, FaultRecord::kDropPpmRule);
    EXPECT_EQ(w.faults.log().size(), w.cnt.drops);
}

TEST(WireFaults, LogKeepsTheLast4096Records) {
    Wire w("tx:drop:count=0");
    w.pass(wire::Dir::kTx, 5000, 0x11, 0);
    ASSERT_EQ(w.faults.log().size(), WireFaults::kLogRecords);
    EXPECT_EQ(w.faults.log().front().seq, 5000u - 4096u + 1u);
    EXPECT_EQ(w.faults.log().back().seq, 5000u);
    EXPECT_EQ(w.cnt.drops, 5000u);
}

TEST(WireFaults, LogLineFormat) {
    EXPECT_EQ(wire::format({wire::Dir::kTx, 57, Action::kDrop, 0, true, 0x11, 0x100, 0x06}),
              "tx #57 drop rule=0 qp=0x000011 psn=0x000100 op=0x06");
    EXPECT_EQ(wire::format({wire::Dir::kRx, 3, Action::kEcn, 12, true, 0xabcdef, 0xffffff, 0x81}),
              "rx #3 ecn rule=12 qp=0xabcdef psn=0xffffff op=0x81");
    EXPECT_EQ(
        wire::format({wire::Dir::kRx, 0, Action::kDrop, FaultRecord::kDropPpmRule, false, 0, 0, 0}),
        "rx #- drop rule=ppm qp=- psn=- op=-");
}

TEST(WireFaults, LogFileGetsOneLinePerFaultAppended) {
    char path[] = "/tmp/scenic-wire-log-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    {
        std::ofstream(path) << "earlier run\n";
        Wire w("rx:dup:nth=2;tx:delay:psn=0x101", 1, 0, path);
        w.pass(wire::Dir::kRx, 3);
        w.pass(wire::Dir::kTx, 3);
    }
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; lines.size() < 10 && std::getline(in, line);) {
        lines.push_back(line);
    }
    std::remove(path);
    EXPECT_EQ(lines, (std::vector<std::string>{
                         "earlier run",
                         "rx #2 dup rule=0 qp=0x000011 psn=0x000101 op=0x04",
                         "tx #2 delay rule=1 qp=0x000011 psn=0x000101 op=0x04",
                     }));
}

TEST(WireFaults, UnopenableLogFileIsAnError) {
    try {
        Wire w("", 1, 0, "/nonexistent-dir/x.log");
        ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "scenic: wire-fault-log=/nonexistent-dir/x.log: cannot open for appending");
    }
}

TEST(WireFaults, ResetReseedsRestartsPositionsAndDropsHeldFrames) {
    Wire w("rx:drop:ppm=300000;tx:delay:nth=2:us=50", 11);
    w.pass(wire::Dir::kRx, 200);
    w.pass(wire::Dir::kTx, 3);
    const std::vector<FaultRecord> first(w.faults.log().begin(), w.faults.log().end());
    const auto rx_first = Wire::tags(w.rx);
    EXPECT_EQ(w.faults.held_frames(), 1u);
    const uint32_t drops = w.cnt.drops;
    w.faults.reset();
    EXPECT_EQ(w.faults.held_frames(), 0u);
    EXPECT_EQ(w.cnt.drops, drops + 1);  // the held frame
    EXPECT_FALSE(w.clock.timer);
    w.rx.clear();
    w.pass(wire::Dir::kRx, 200);
    w.pass(wire::Dir::kTx, 3);
    EXPECT_EQ(Wire::tags(w.rx), rx_first);
    const std::vector<FaultRecord> again(w.faults.log().begin() + first.size(),
                                         w.faults.log().end());
    EXPECT_EQ(again, first);
}

// ---- through the Device

uint32_t rd(Device& d, uint32_t off) {
    return static_cast<uint32_t>(d.mmio_read(rr::kOffset + off, 4));
}

TEST(WireFaultsDevice, MalformedSpecFailsTheDeviceWithItsMessage) {
    RdmaHost host;
    Config c;
    c.wire_faults = "rx:drop;tx:delay:depth=3";
    try {
        Device d(c, host);
        ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "scenic: wire-faults rule 2 \"tx:delay:depth=3\": key depth only applies to "
                  "reorder");
    }
}

TEST(WireFaultsDevice, CApiChecksAndCreates) {
    char err[256] = "";
    EXPECT_EQ(scenic_model_wire_faults_check("bogus", err, sizeof err), -1);
    EXPECT_STREQ(err, "scenic: wire-faults rule 1 \"bogus\": expected DIR:ACTION[:KEY=VALUE...]");
    EXPECT_EQ(scenic_model_wire_faults_check("tx:drop:nth=3", err, sizeof err), 0);
    EXPECT_EQ(scenic_model_wire_faults_check(nullptr, err, sizeof err), 0);
    scenic_model_config cfg{};
    cfg.msix_vectors = 32;
    cfg.wire_faults = "rx:frob";
    scenic_host_ops ops{};
    EXPECT_EQ(scenic_model_create(&cfg, &ops), nullptr);
    cfg.wire_faults = "rx:drop:count=0";
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    const Frame f = roce_frame(0x11, 1);
    scenic_model_eth_rx(m, f.data(), f.size());
    EXPECT_EQ(scenic_model_mmio_read(m, rr::kOffset + rr::kWireDrops, 4), 1u);
    scenic_model_destroy(m);
}

TEST(WireFaultsDevice, CountersAreRdmaRegisters) {
    Node n(2, 0, 1, 0,
           "rx:dup:nth=1;rx:delay:nth=2;rx:reorder:nth=3;rx:corrupt:nth=4;rx:ecn:nth=5;"
           "rx:drop:nth=6");
    for (uint32_t i = 0; i < 8; ++i) {
        n.dev.eth_rx(roce_frame(77, i));  // QP 77 does not exist
    }
    EXPECT_EQ(rd(n.dev, rr::kWireDups), 1u);
    EXPECT_EQ(rd(n.dev, rr::kWireDelays), 1u);
    EXPECT_EQ(rd(n.dev, rr::kWireReorders), 1u);
    EXPECT_EQ(rd(n.dev, rr::kWireCorrupts), 1u);
    EXPECT_EQ(rd(n.dev, rr::kWireEcnMarks), 1u);
    EXPECT_EQ(rd(n.dev, rr::kWireDrops), 1u);
    EXPECT_EQ(rd(n.dev, rr::kRxDropIcrc), 1u);  // the corrupted one
    EXPECT_EQ(n.dev.wire_fault_log().size(), 6u);
    EXPECT_EQ(n.dev.wire_held_frames(), 1u);  // the delayed one (the reordered one was overtaken)
}

TEST(WireFaultsDevice, RxCorruptIsCountedAsIcrcDropByTheCard) {
    Node n(2, 0, 1, 0, "rx:corrupt:nth=2");
    n.dev.eth_rx(roce_frame(77, 1));
    n.dev.eth_rx(roce_frame(77, 2));
    EXPECT_EQ(rd(n.dev, rr::kRxDropIcrc), 1u);
    EXPECT_EQ(rd(n.dev, rr::kRxDropQp), 1u);  // the intact one reached the QP lookup
    EXPECT_EQ(rd(n.dev, rr::kWireCorrupts), 1u);
}

TEST(WireFaultsDevice, HeldFramesAreReleasedFromTimerFire) {
    Node n(2, 0, 1, 0, "rx:delay:us=250");
    n.dev.eth_rx(roce_frame(77, 1));
    EXPECT_EQ(rd(n.dev, rr::kRxDropQp), 0u);
    EXPECT_EQ(n.dev.wire_held_frames(), 1u);
    ASSERT_TRUE(n.host.timer);
    EXPECT_EQ(*n.host.timer, n.host.now + 250'000);
    n.host.now = *n.host.timer;
    n.host.timer.reset();
    n.dev.timer_fire();
    EXPECT_EQ(rd(n.dev, rr::kRxDropQp), 1u);
    EXPECT_EQ(n.dev.wire_held_frames(), 0u);
}

TEST(WireFaultsDevice, ResetDropsHeldFramesAndCountsThem) {
    Node n(2, 0, 1, 0, "rx:delay:count=2:us=100");
    n.dev.eth_rx(roce_frame(77, 1));
    n.dev.eth_rx(roce_frame(77, 2));
    EXPECT_EQ(n.dev.wire_held_frames(), 2u);
    n.dev.reset();
    EXPECT_EQ(n.dev.wire_held_frames(), 0u);
    EXPECT_EQ(rd(n.dev, rr::kWireDrops), 2u);
    EXPECT_EQ(rd(n.dev, rr::kWireDelays), 0u);  // the counters restarted with the reset
    EXPECT_EQ(n.dev.wire_fault_log().size(), 2u);
}

// The rig's pump between two cards; a's tx rules act on what a sends.
class WireFaultsPair : public ::testing::Test {
  protected:
    static constexpr uint32_t kQa = 2;
    static constexpr uint32_t kQb = 3;
    static constexpr uint64_t kSrc = Node::kVa;
    static constexpr uint64_t kDst = Node::kVa + 0x80000;

    void connect(RdmaPair& p) {
        p.setup(kQa, kQb);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
    }
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(WireFaultsPair, TxDropOfTheThirdPacketIsOneSeqNakAndDataIntact) {
    RdmaPair p(0, 1, 0, "tx:drop:nth=3");
    connect(p);
    const uint32_t len = 10 * 1024;  // 10 packets at PMTU 1024
    p.a.fill_va(kSrc, len, 5);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, len, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(rr::kSeqNakSent), 1u);
    EXPECT_EQ(p.a.r(rr::kSeqNakRcvd), 1u);
    EXPECT_EQ(p.a.r(rr::kWireDrops), 1u);
    EXPECT_EQ(p.a.r(rr::kAckTimeouts), 0u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, len), p.a.read_va(kSrc, len));
    ASSERT_EQ(p.a.dev.wire_fault_log().size(), 1u);
    // sq_psn 0x100: the third packet is PSN 0x102, a WRITE_MIDDLE to B's QP.
    EXPECT_EQ(p.a.dev.wire_fault_log()[0],
              (FaultRecord{wire::Dir::kTx, 3, Action::kDrop, 0, true, kQb, 0x102, kWriteMiddle}));
    EXPECT_EQ(p.bad_frames, 0u);
}

TEST_F(WireFaultsPair, RxDupOfAWriteIsReAckedAsADuplicate) {
    RdmaPair p(0, 1, 0, "", "rx:dup:nth=1");
    connect(p);
    p.a.fill_va(kSrc, 64, 3);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key)}, kDst, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.b.r(rr::kWireDups), 1u);
    EXPECT_EQ(p.b.r(rr::kDupRequests), 1u);
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, 64), p.a.read_va(kSrc, 64));
}

TEST_F(WireFaultsPair, RandomFaultsBothWaysStillDeliverIntactData) {
    RdmaPair p(0, 1, 0, "tx:drop:ppm=50000;tx:dup:ppm=10000;tx:reorder:ppm=10000",
               "tx:drop:ppm=50000;rx:delay:ppm=20000:us=30");
    connect(p);
    const uint32_t len = 64 * 1024;
    p.a.fill_va(kSrc, len, 11);
    for (uint32_t i = 0; i < 4; ++i) {
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + i * len / 4, len / 4, a_key)},
                                    kDst + i * len / 4, b_key));
    }
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 4u);
    EXPECT_EQ(p.b.read_va(kDst, len), p.a.read_va(kSrc, len));
    EXPECT_GT(p.a.r(rr::kWireDrops) + p.b.r(rr::kWireDrops), 0u);
    EXPECT_EQ(p.a.dev.wire_held_frames() + p.b.dev.wire_held_frames(), 0u);
    EXPECT_EQ(p.bad_frames, 0u);
}

}  // namespace
}  // namespace scenic::test
