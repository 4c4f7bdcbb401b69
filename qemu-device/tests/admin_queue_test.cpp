// SPDX-License-Identifier: MIT
// The admin queue (docs/admin-queue.md 3, 11): wrap-around, a full CQ, in-order completions,
// malformed commands, protocol halts, no DMA inside an MMIO write, reset with commands in flight.
#include <gtest/gtest.h>

#include <random>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

namespace core = regs::core;
using admin::AqStatus;

uint16_t id_of(const AqResult& c) {
    return admin::AqCqeHdr<const uint8_t>(std::span<const uint8_t, kAqCqeBytes>(c).first<8>())
        .cmd_id();
}

// Runs the card's timer until nothing is due, advancing the clock to each deadline.
void run(Node& n) {
    for (int i = 0; i < 10000 && n.host.timer; ++i) {
        n.host.now = std::max(n.host.now, *n.host.timer);
        n.host.timer.reset();
        n.dev.timer_fire();
    }
}

// The admin queue again with 2^log2 entries (in the same ring memory).
void shrink(Node& n, unsigned log2 = 2) {
    AqDriver::Layout l = n.aq.layout();
    l.aq_log2 = log2;
    n.aq.wc(core::kAqCfg, 0);
    n.aq.setup(l);
}

TEST(AdminQueue, NoDmaInsideMmioWrite) {
    Node n(1);
    n.aq.put(sqe(admin::AqOpcode::kNop));
    const uint64_t before = n.host.dmas;
    n.aq.ring();
    EXPECT_EQ(n.host.dmas, before) << "the doorbell write fetched or completed a command";
    EXPECT_FALSE(n.aq.take().has_value());
    ASSERT_TRUE(n.host.timer.has_value());
    run(n);
    const auto c = n.aq.take();
    ASSERT_TRUE(c.has_value());
    EXPECT_GT(n.host.dmas, before);
}

TEST(AdminQueue, WrapsManyTimesAtDepth4) {
    Node n(1);
    AqDriver::Layout l = n.aq.layout();
    l.aq_log2 = 2;
    n.aq.wc(core::kAqCfg, 0);
    n.aq.setup(l);
    for (uint32_t i = 0; i < 1000; ++i) {
        AqResult c{};
        ASSERT_TRUE(n.aq.exec(sqe(admin::AqOpcode::kNop), &c).ok()) << i;
        const admin::AqCqeHdr<const uint8_t> h(std::span<const uint8_t, kAqCqeBytes>(c).first<8>());
        EXPECT_EQ(h.sq_head(), (i + 1) & 0xffff);
        EXPECT_EQ(h.phase(), ((i >> 2) & 1) ^ 1) << "phase of pass " << (i >> 2);
    }
    EXPECT_EQ(n.aq.rc(core::kAqSqHead), 1000u);
    EXPECT_EQ(n.aq.rc(core::kAqCqTail), 1000u);
}

TEST(AdminQueue, CompletionsInSubmissionOrder) {
    Node n(1);
    std::mt19937 rng(7);
    n.dev.core().aq().set_latency([&](uint8_t) { return uint64_t{rng() % 50'000}; });
    const uint32_t depth = 1u << n.aq.layout().aq_log2;
    std::vector<uint16_t> ids;
    std::vector<uint16_t> seen;
    for (int round = 0; round < 20; ++round) {
        const uint32_t k = 1 + rng() % depth;
        for (uint32_t i = 0; i < k; ++i) {
            ids.push_back(n.aq.put(sqe(admin::AqOpcode::kNop)));
        }
        n.aq.ring();
        run(n);
        while (auto c = n.aq.take()) {
            seen.push_back(id_of(*c));
        }
    }
    EXPECT_EQ(seen, ids);
}

TEST(AdminQueue, FullCqStallsWithoutLoss) {
    Node n(1);
    shrink(n);  // 4 entries
    std::vector<uint16_t> ids;
    for (int i = 0; i < 4; ++i) {
        ids.push_back(n.aq.put(sqe(admin::AqOpcode::kNop)));
    }
    n.aq.ring();
    run(n);
    EXPECT_EQ(n.aq.rc(core::kAqCqTail), 4u);  // CQ full, nothing consumed yet
    // Four more: the SQ has room (the card fetched the first four), the CQ has none.
    for (int i = 0; i < 4; ++i) {
        ids.push_back(n.aq.put(sqe(admin::AqOpcode::kNop)));
    }
    n.aq.ring();
    run(n);
    EXPECT_EQ(n.aq.rc(core::kAqSqHead), 4u) << "fetched with no room for the completion";
    EXPECT_EQ(n.aq.rc(core::kAqCqTail), 4u);
    std::vector<uint16_t> seen;
    for (int i = 0; i < 4; ++i) {
        auto c = n.aq.take();  // writes AQ_CQ_HEAD: the card may go on
        ASSERT_TRUE(c.has_value());
        seen.push_back(id_of(*c));
    }
    run(n);
    while (auto c = n.aq.take()) {
        seen.push_back(id_of(*c));
    }
    EXPECT_EQ(seen, ids);
    EXPECT_EQ(n.aq.rc(core::kAqStatus), core::kAqStatusReady.mask);
}

uint32_t halt_reason(Node& n) {
    return (n.aq.rc(core::kAqStatus) & core::kAqStatusHaltReason.mask) >>
           core::kAqStatusHaltReason.shift;
}

TEST(AdminQueue, DoorbellOverrunHalts) {
    Node n(1);
    shrink(n);
    n.aq.wc(core::kAqSqTail, 5);  // more than depth ahead of the head
    run(n);
    EXPECT_NE(n.aq.rc(core::kAqStatus) & core::kAqStatusHalted.mask, 0u);
    EXPECT_EQ(halt_reason(n), static_cast<uint32_t>(admin::AqHaltReason::kDoorbellOverrun));
    EXPECT_EQ(n.aq.rc(core::kAqSqHead), 0u);
    const uint32_t fatal = n.aq.rc(core::kFatalStatus);
    EXPECT_NE(fatal & core::kFatalStatusFatal.mask, 0u);
    EXPECT_EQ(fatal & core::kFatalStatusCode.mask,
              static_cast<uint32_t>(admin::FatalCode::kAqProtocol));
    EXPECT_EQ(n.aq.rc(core::kFatalDetail),
              static_cast<uint32_t>(admin::AqHaltReason::kDoorbellOverrun));
    n.service_events();
    ASSERT_EQ(n.count_events(kEvFatal), 1u);
    EXPECT_EQ(n.events.back().a0, static_cast<uint32_t>(admin::FatalCode::kAqProtocol));
}

TEST(AdminQueue, StalePhaseHalts) {
    Node n(1);
    shrink(n);
    // The doorbell rung before the entry was written: the slot still has phase 0.
    n.aq.wc(core::kAqSqTail, 1);
    run(n);
    EXPECT_EQ(halt_reason(n), static_cast<uint32_t>(admin::AqHaltReason::kStalePhase));
    EXPECT_EQ(n.aq.rc(core::kAqCqTail), 0u);  // nothing completed
}

TEST(AdminQueue, MalformedCommandsChangeNothing) {
    Node n(1);
    const auto expect = [&](Sqe e, AqStatus status, uint16_t syndrome, const char* what) {
        AqResult c{};
        const CmdResult r = n.aq.exec(e, &c);
        EXPECT_EQ(r.status, status) << what;
        EXPECT_EQ(r.syndrome, syndrome) << what;
        for (size_t i = 8; i < c.size(); ++i) {
            EXPECT_EQ(c[i], 0) << what << ": result byte " << i << " of a failed command";
        }
    };
    expect(sqe(admin::AqOpcode{0}), AqStatus::kBadOpcode, 2, "opcode 0");
    expect(sqe(admin::AqOpcode{0x7e}), AqStatus::kBadOpcode, 2, "unknown opcode");
    Sqe e = sqe(admin::AqOpcode::kNop);
    e[4] = 1;
    expect(e, AqStatus::kMalformed, 4, "reserved header word");
    e = sqe(admin::AqOpcode::kNop);
    e[3] = 0x2;
    expect(e, AqStatus::kMalformed, 3, "reserved flag bit");
    e = sqe(admin::AqOpcode::kNop);
    e[0x7f] = 1;
    expect(e, AqStatus::kMalformed, 0x7f, "reserved payload byte");
    // CREATE_CQ: log2_entries has 5 bits; a misaligned ring; then nothing was created.
    const uint64_t ring = n.alloc(4096);
    e = encode_cmd(kOpCreateCq, {3, Node::lo(ring), Node::hi(ring), 0x24});
    expect(e, AqStatus::kMalformed, 0x0c, "bit 5 of log2_entries");
    e = encode_cmd(kOpCreateCq, {3, Node::lo(ring) + 8, Node::hi(ring), 4});
    expect(e, AqStatus::kBadArg, 0x10, "misaligned ring");
    e = encode_cmd(kOpCreateCq, {600, Node::lo(ring), Node::hi(ring), 4});
    expect(e, AqStatus::kBadIndex, 0x08, "cqn out of range");
    expect(encode_cmd(kOpQueryCq, {3}), AqStatus::kNotFound, 0x08, "nothing was created");
    // TLB_FILL: an unused page slot of a direct fill is reserved.
    e = encode_cmd(kOpTlbFill, {1u << 8, 0, 0, 0x1000, 0});
    admin::AqTlbFill<>(std::span<uint8_t, kAqSqeBytes>(e)).set_page(3, 0x5000);
    expect(e, AqStatus::kMalformed, 0x20 + 3 * 8, "unused page slot");
}

TEST(AdminQueue, NopReturnsTheHeartbeat) {
    Node n(1);
    n.host.now += 35'000'000;
    AqResult c{};
    ASSERT_TRUE(n.aq.exec(sqe(admin::AqOpcode::kNop), &c).ok());
    const uint32_t hb =
        admin::AcqNop<const uint8_t>(std::span<const uint8_t, kAqCqeBytes>(c)).heartbeat();
    EXPECT_EQ(hb, n.aq.rc(core::kHeartbeat));
    EXPECT_EQ(hb, 3u);  // 35 ms at one count per 10 ms
}

TEST(AdminFlr, InFlightCommandsNeverComplete) {
    Node n(1);
    const AqDriver::Layout l = n.aq.layout();
    n.aq.put(sqe(admin::AqOpcode::kNop));
    n.aq.put(sqe(admin::AqOpcode::kNop));
    n.aq.ring();
    n.dev.reset();  // FLR before the card fetched them
    const uint64_t before = n.host.dmas;
    run(n);
    EXPECT_EQ(n.host.dmas, before) << "the card touched a pre-reset address";
    EXPECT_FALSE(n.aq.take().has_value());
    for (const uint32_t r :
         {core::kAqSqBaseLo, core::kAqSqBaseHi, core::kAqCqBaseLo, core::kAqCqBaseHi, core::kAqCfg,
          core::kAqStatus, core::kAqSqTail, core::kAqSqHead, core::kAqCqHead, core::kAqCqTail,
          core::kAeqBaseLo, core::kAeqCfg, core::kAeqHead, core::kAeqTail, core::kAeqLost,
          core::kFatalStatus, core::kFatalDetail, core::kFaultInject}) {
        EXPECT_EQ(n.aq.rc(r), 0u) << "register 0x" << std::hex << r;
    }
    EXPECT_EQ(n.aq.rc(core::kAqTimeoutMs), core::kAqTimeoutMsDefault);
    // Link events after the reset go nowhere either.
    n.dev.set_link(false);
    EXPECT_EQ(n.host.dmas, before);
    (void)l;
}

TEST(AdminFlr, QueueWorksAfterReset) {
    Node n(1);
    n.create_cq(0, 4);
    n.dev.reset();
    n.aq.setup(n.aq.layout());
    EXPECT_TRUE(n.aq.exec(sqe(admin::AqOpcode::kNop)).ok());
    EXPECT_EQ(n.cmd(kOpQueryCq, {0}), kStNotFound);  // the card's state went with the reset
    n.create_cq(0, 4);
    EXPECT_EQ(n.cmd(kOpQueryCq, {0}), kStOk);
}

}  // namespace
}  // namespace scenic::test
