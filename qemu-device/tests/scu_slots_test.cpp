// SPDX-License-Identifier: MIT
// The SCU slots (docs/scu.md 2, 3, 5, 8): load / unload / query, refusals that leave the slot as
// it was, flows held (not dropped) while a slot reconfigures, the passthrough's 1:1 order and its
// throttle, the CSR window, interrupts, and the memory port's key / PD / bounds / access checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "scenic/scu_passthrough.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

using admin::ScuEventKind;
using admin::ScuSlotState;
using admin::ScuStatus;
using scu::Dir;
using scu::Passthrough;

constexpr uint64_t kWin = scu::kCsrWindowBytes;

std::vector<uint8_t> good_image(uint64_t build_id = 0xabc) {
    const std::vector<uint8_t> payload{'{', '}', '\n', 0, 0, 0, 0, 0};
    return make_scu_image(scu::kKindPassthrough, 1, payload, build_id);
}

scu::Meta meta(uint32_t qpn, uint32_t psn, uint8_t src = scu::kSrcRdma) {
    scu::Meta m;
    m.qpn = qpn;
    m.psn = psn;
    m.src = src;
    return m;
}

using ScuSlots = ScuRig;

TEST_F(ScuSlots, LoadUnloadQueryRoundTrip) {
    ASSERT_EQ(mgr.query(3)->kind, scu::kKindPassthrough);
    EXPECT_EQ(mgr.query(3)->build_id, 0u);
    EXPECT_EQ(mgr.loaded_mask(), 0u);

    ASSERT_EQ(mgr.load(3, good_image(0xabc)), ScuStatus::kOk);
    EXPECT_EQ(mgr.query(3)->state, ScuSlotState::kLoading);
    EXPECT_EQ(mgr.busy_mask(), 1u << 3);
    run_for(kReconfigNs - 1);
    EXPECT_EQ(mgr.query(3)->state, ScuSlotState::kLoading);
    EXPECT_TRUE(evs.empty());
    run_for(1);
    const auto info = mgr.query(3);
    EXPECT_EQ(info->state, ScuSlotState::kRunning);
    EXPECT_EQ(info->build_id, 0xabcu);
    EXPECT_EQ(info->kind_version, 1u);
    EXPECT_EQ(mgr.busy_mask(), 0u);
    EXPECT_EQ(mgr.loaded_mask(), 1u << 3);
    ASSERT_EQ(evs.size(), 1u);
    EXPECT_EQ(evs[0].slot, 3u);
    EXPECT_EQ(evs[0].kind, ScuEventKind::kReconfigured);
    EXPECT_EQ(evs[0].info, kReconfigNs / 1000);  // the pause in us
    EXPECT_EQ(evs[0].count, 1u);

    ASSERT_EQ(mgr.unload(3), ScuStatus::kOk);
    run_for(kReconfigNs);
    EXPECT_EQ(mgr.query(3)->build_id, 0u);
    EXPECT_EQ(mgr.loaded_mask(), 0u);
    EXPECT_EQ(mgr.counters(3).loads, 2u);
    EXPECT_EQ(events_of(ScuEventKind::kReconfigured), 2u);  // once per reconfiguration
    run_for(10 * kReconfigNs);
    EXPECT_EQ(events_of(ScuEventKind::kReconfigured), 2u);
}

TEST_F(ScuSlots, SlotZeroIsFixed) {
    EXPECT_EQ(mgr.load(0, good_image()), ScuStatus::kBadSlot);
    EXPECT_EQ(mgr.unload(0), ScuStatus::kBadSlot);
    EXPECT_EQ(mgr.bind_pd(0, 1), ScuStatus::kBadSlot);
    EXPECT_EQ(mgr.query(0)->last_refusal, ScuStatus::kBadSlot);
    EXPECT_EQ(mgr.query(0)->state, ScuSlotState::kRunning);
    EXPECT_EQ(mgr.busy_mask(), 0u);
    run_for(kReconfigNs);
    EXPECT_TRUE(evs.empty());
}

TEST_F(ScuSlots, OutOfRangeSlot) {
    EXPECT_EQ(mgr.load(16, good_image()), ScuStatus::kBadSlot);
    EXPECT_EQ(mgr.unload(200), ScuStatus::kBadSlot);
    EXPECT_FALSE(mgr.query(16).has_value());
    EXPECT_FALSE(mgr.submit(16, Dir::kRx, meta(1, 1), std::vector<uint8_t>(64)));
    EXPECT_EQ(mgr.csr_window_read(16 * kWin, 8), 0u);  // no slot there: reads 0
    EXPECT_EQ(mgr.csr_window_read(0, 8), 0u);         // slot 0: fixed, never owned
}

TEST_F(ScuSlots, OversizedOrTruncatedImageRefused) {
    std::vector<uint8_t> big = good_image();
    big.resize((1U << 20) + 8);
    EXPECT_EQ(mgr.load(2, big), ScuStatus::kTooLarge);
    const std::vector<uint8_t> img = good_image();
    EXPECT_EQ(mgr.load(2, std::span(img).first(100)), ScuStatus::kTooLarge);
    EXPECT_EQ(mgr.query(2)->last_refusal, ScuStatus::kTooLarge);
    EXPECT_EQ(mgr.query(2)->state, ScuSlotState::kRunning);
    EXPECT_EQ(mgr.busy_mask(), 0u);
}

TEST_F(ScuSlots, BadHeadersRefusedAndOldScuKeepsRunning) {
    // The slot runs a loaded image first: a refusal must not disturb it.
    ASSERT_EQ(mgr.load(4, good_image(0x77)), ScuStatus::kOk);
    run_for(kReconfigNs);
    struct Case {
        const char* what;
        size_t off;
        uint8_t value;
        bool fix_crc;
        ScuStatus want;
    };
    const std::vector<Case> cases{
        {"magic", 0, 'X', true, ScuStatus::kBadImage},
        {"format version", scu::image::kFormat, 2, true, ScuStatus::kBadImage},
        {"crc", 0x20, 'Q', false, ScuStatus::kBadImage},
        {"reserved", 0x90, 1, true, ScuStatus::kBadImage},
        {"payload beyond the image", scu::image::kPayloadSize, 0xff, true, ScuStatus::kBadImage},
        {"payload offset misaligned", scu::image::kPayloadOffset, 0x01, true, ScuStatus::kBadImage},
        {"data width", scu::image::kDataW + 1, 4, true, ScuStatus::kBadImage},
        {"interface major", scu::image::kIface + 2, 2, true, ScuStatus::kBadIface},
        {"interface minor newer", scu::image::kIface, 1, true, ScuStatus::kBadIface},
        {"payload hash", scu::kImageHeaderBytes + 3, 0x55, false, ScuStatus::kBadImage},
        {"header hash", scu::image::kSha256 + 31, 0x55, true, ScuStatus::kBadImage},
        {"unknown kind", scu::image::kKind, 9, true, ScuStatus::kUnknownKind},
        {"unknown kind version", scu::image::kKindVersion, 2, true, ScuStatus::kUnknownKind},
    };
    for (const Case& c : cases) {
        std::vector<uint8_t> img = good_image(0x88);
        img[c.off] = c.value;
        if (c.fix_crc) {
            fix_scu_image_crc(img);
        }
        EXPECT_EQ(mgr.load(4, img), c.want) << c.what;
        EXPECT_EQ(mgr.query(4)->last_refusal, c.want) << c.what;
        EXPECT_EQ(mgr.query(4)->state, ScuSlotState::kRunning) << c.what;
        EXPECT_EQ(mgr.query(4)->build_id, 0x77u) << c.what;
    }
    run_for(kReconfigNs);
    EXPECT_EQ(events_of(ScuEventKind::kReconfigured), 1u);
    EXPECT_EQ(mgr.counters(4).loads, 1u);
}

TEST_F(ScuSlots, LoadWhileBusyRefused) {
    ASSERT_EQ(mgr.load(5, good_image(1)), ScuStatus::kOk);
    EXPECT_EQ(mgr.load(5, good_image(2)), ScuStatus::kBusy);
    EXPECT_EQ(mgr.unload(5), ScuStatus::kBusy);
    EXPECT_EQ(mgr.load(6, good_image(3)), ScuStatus::kOk);  // other slots are independent
    run_for(kReconfigNs);
    EXPECT_EQ(mgr.query(5)->build_id, 1u);
    EXPECT_EQ(mgr.query(6)->build_id, 3u);
    EXPECT_EQ(events_of(ScuEventKind::kReconfigured), 2u);
}

TEST_F(ScuSlots, PassthroughOneToOneInOrder) {
    std::vector<std::vector<uint8_t>> sent;
    for (uint32_t i = 0; i < 40; ++i) {
        const Dir d = (i % 3 == 0) ? Dir::kTx : Dir::kRx;
        sent.push_back(pattern(64 + i * 37, static_cast<uint8_t>(i)));
        ASSERT_TRUE(mgr.submit(2, d, meta(0x10 + (i % 2), 1000 + i), sent.back()));
    }
    ASSERT_EQ(out.size(), sent.size());
    for (uint32_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i].slot, 2u);
        EXPECT_EQ(out[i].dir, (i % 3 == 0) ? Dir::kTx : Dir::kRx);
        EXPECT_EQ(out[i].meta.psn, 1000 + i);
        EXPECT_EQ(out[i].meta.qpn, 0x10 + (i % 2));
        EXPECT_EQ(out[i].meta.len, sent[i].size());
        EXPECT_EQ(out[i].data, sent[i]) << i;
        EXPECT_FALSE(out[i].drop);
    }
    const scu::SlotCounters& c = mgr.counters(2);
    EXPECT_EQ(c.pkts_in[0] + c.pkts_in[1], 40u);
    EXPECT_EQ(c.pkts_out[0], c.pkts_in[0]);
    EXPECT_EQ(c.pkts_out[1], c.pkts_in[1]);
    EXPECT_EQ(c.bytes_out[0], c.bytes_in[0]);
    EXPECT_EQ(c.violations, 0u);
    EXPECT_EQ(mgr.csr_window_read(2 * kWin + 8 * Passthrough::kPkts, 8), 40u);
    EXPECT_EQ(mgr.counters(3).pkts_in[0], 0u);  // another slot saw nothing
}

TEST_F(ScuSlots, FlowsHeldNotDroppedWhileLoading) {
    ASSERT_EQ(mgr.load(7, good_image()), ScuStatus::kOk);
    for (uint32_t i = 0; i < 5; ++i) {
        ASSERT_TRUE(mgr.submit(7, Dir::kRx, meta(3, i), pattern(256, static_cast<uint8_t>(i))));
    }
    ASSERT_TRUE(mgr.submit(8, Dir::kRx, meta(4, 0), pattern(100, 9)));  // slot 8 runs
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].slot, 8u);
    EXPECT_EQ(mgr.csr_window_read(7 * kWin, 8), ~uint64_t{0});  // CSRs while loading
    run_for(kReconfigNs);
    ASSERT_EQ(out.size(), 6u);
    for (uint32_t i = 0; i < 5; ++i) {
        EXPECT_EQ(out[1 + i].meta.psn, i);
        EXPECT_EQ(out[1 + i].data, pattern(256, static_cast<uint8_t>(i)));
    }
    EXPECT_EQ(mgr.counters(7).fifo_drops[0], 0u);
    EXPECT_EQ(mgr.csr_window_read(7 * kWin, 8), Passthrough::kIdValue);
}

TEST_F(ScuSlots, FullFifoDropsAndCounts) {
    ASSERT_EQ(mgr.load(7, good_image()), ScuStatus::kOk);
    size_t accepted = 0;
    for (uint32_t i = 0; i < 100; ++i) {
        accepted += mgr.submit(7, Dir::kTx, meta(3, i), pattern(1024, 1)) ? 1 : 0;
    }
    EXPECT_EQ(accepted, scu::kFifoBytes / 1024);
    EXPECT_EQ(mgr.counters(7).fifo_drops[1], 100 - accepted);
    run_for(kReconfigNs);
    EXPECT_EQ(out.size(), accepted);
}

TEST_F(ScuSlots, CsrWindowRoundTrip) {
    const uint64_t base = 9 * kWin;
    EXPECT_EQ(mgr.csr_window_read(base + 8 * Passthrough::kId, 8), Passthrough::kIdValue);
    EXPECT_EQ(mgr.csr_window_read(base + 8 * Passthrough::kId + 4, 4), 0x53435550u);
    mgr.csr_window_write(base + 8 * Passthrough::kScratch, 0x1122334455667788ULL, 8);
    EXPECT_EQ(mgr.csr_window_read(base + 8 * Passthrough::kScratch, 8), 0x1122334455667788ULL);
    mgr.csr_window_write(base + 8 * Passthrough::kScratch + 4, 0xdeadbeef, 4);
    EXPECT_EQ(mgr.csr_window_read(base + 8 * Passthrough::kScratch, 8), 0xdeadbeef55667788ULL);
    mgr.csr_window_write(base + 8 * Passthrough::kId, 0, 8);  // read-only
    EXPECT_EQ(mgr.csr_window_read(base + 8 * Passthrough::kId, 8), Passthrough::kIdValue);
    EXPECT_EQ(mgr.csr_window_read(10 * kWin + 8 * Passthrough::kScratch, 8), 0u);  // own window
    EXPECT_EQ(mgr.csr_window_read(base + 3, 4), 0xffffffffu);                      // misaligned
    // A reconfiguration resets the SCU's CSRs.
    ASSERT_EQ(mgr.load(9, good_image()), ScuStatus::kOk);
    run_for(kReconfigNs);
    EXPECT_EQ(mgr.csr_window_read(base + 8 * Passthrough::kScratch, 8), 0u);
}

TEST_F(ScuSlots, ThrottleLimitsTheRate) {
    const uint64_t base = 1 * kWin;
    mgr.csr_window_write(base + 8 * Passthrough::kBurst, 1000, 8);
    mgr.csr_window_write(base + 8 * Passthrough::kRateBps, 1'000'000, 8);  // 1000 B per ms
    for (uint32_t i = 0; i < 20; ++i) {
        ASSERT_TRUE(mgr.submit(1, Dir::kTx, meta(5, i), pattern(1000, static_cast<uint8_t>(i))));
    }
    EXPECT_LE(out.size(), 2u);
    run_for(5'000'000);
    EXPECT_GE(out.size(), 5u);
    EXPECT_LE(out.size(), 7u);
    // Slot 2, unthrottled, is not held back by slot 1.
    for (uint32_t i = 0; i < 20; ++i) {
        ASSERT_TRUE(mgr.submit(2, Dir::kTx, meta(6, i), pattern(1000, 1)));
    }
    const size_t slot2 = static_cast<size_t>(
        std::count_if(out.begin(), out.end(), [](const ScuOut& o) { return o.slot == 2; }));
    EXPECT_EQ(slot2, 20u);
    run_for(30'000'000);
    std::vector<uint32_t> psns;
    for (const ScuOut& o : out) {
        if (o.slot == 1) {
            psns.push_back(o.meta.psn);
        }
    }
    ASSERT_EQ(psns.size(), 20u);
    for (uint32_t i = 0; i < 20; ++i) {
        EXPECT_EQ(psns[i], i);
    }
    EXPECT_EQ(mgr.counters(1).fifo_drops[1], 0u);
}

TEST_F(ScuSlots, ThrottleOffReleasesHeldPackets) {
    const uint64_t base = 1 * kWin;
    mgr.csr_window_write(base + 8 * Passthrough::kBurst, 100, 8);
    mgr.csr_window_write(base + 8 * Passthrough::kRateBps, 1000, 8);  // 1 byte per ms
    for (uint32_t i = 0; i < 10; ++i) {
        ASSERT_TRUE(mgr.submit(1, Dir::kRx, meta(5, i), pattern(500, 2)));
    }
    EXPECT_EQ(out.size(), 1u);
    mgr.csr_window_write(base + 8 * Passthrough::kRateBps, 0, 8);
    EXPECT_EQ(out.size(), 10u);
}

TEST_F(ScuSlots, InterruptLinesCoalesce) {
    const uint64_t base = 11 * kWin;
    mgr.csr_window_write(base + 8 * Passthrough::kIrqEvery, 4, 8);
    for (uint32_t i = 0; i < 8; ++i) {
        mgr.submit(11, Dir::kRx, meta(1, i), pattern(64, 0));
    }
    EXPECT_EQ(mgr.counters(11).irqs, 2u);
    EXPECT_EQ(events_of(ScuEventKind::kInterrupt), 1u);  // line 0 still pending
    EXPECT_EQ(mgr.slot(11).take_irqs(), 1u);
    for (uint32_t i = 0; i < 4; ++i) {
        mgr.submit(11, Dir::kRx, meta(1, i), pattern(64, 0));
    }
    EXPECT_EQ(events_of(ScuEventKind::kInterrupt), 2u);
    EXPECT_EQ(evs.back().slot, 11u);
    EXPECT_EQ(evs.back().info, 1u);
}

TEST_F(ScuSlots, MemoryPortChecksKeyPdBoundsAccess) {
    mem.mrs[0x100] = {5, 0, 4096, static_cast<uint32_t>(admin::Access::kLocalWrite)};
    mem.mrs[0x200] = {6, 0, 4096, static_cast<uint32_t>(admin::Access::kLocalWrite)};
    mem.mrs[0x300] = {5, 8192, 4096, 0};  // read-only
    for (size_t i = 0; i < 64; ++i) {
        mem.bytes[i] = static_cast<uint8_t>(0x40 + i);
    }
    scu::Slot& s = mgr.slot(3);
    std::vector<uint8_t> buf(64, 0xee);

    EXPECT_EQ(s.mem_read(0x100, 0, buf), scu::MemStatus::kKeyPd);  // no PD bound
    ASSERT_EQ(mgr.bind_pd(3, 5), ScuStatus::kOk);
    EXPECT_EQ(s.mem_read(0x200, 0, buf), scu::MemStatus::kKeyPd);       // another PD's MR
    EXPECT_EQ(s.mem_read(0x999, 0, buf), scu::MemStatus::kKeyPd);       // no such key
    EXPECT_EQ(s.mem_read(0x100, 4090, buf), scu::MemStatus::kBounds);   // crosses the end
    EXPECT_EQ(s.mem_read(0x300, 8000, buf), scu::MemStatus::kBounds);   // before the start
    EXPECT_EQ(s.mem_write(0x300, 8192, buf), scu::MemStatus::kBounds);  // no local write
    EXPECT_EQ(mem.reads + mem.writes, 0u);  // a refused request moves no byte
    EXPECT_EQ(buf, std::vector<uint8_t>(64, 0xee));
    EXPECT_EQ(mgr.counters(3).mem_faults, 6u);
    EXPECT_EQ(events_of(ScuEventKind::kFault), 1u);  // once until the slot is queried

    ASSERT_EQ(s.mem_read(0x100, 0, buf), scu::MemStatus::kOk);
    EXPECT_TRUE(std::equal(buf.begin(), buf.end(), mem.bytes.begin()));
    EXPECT_EQ(buf[0], 0x40);
    EXPECT_EQ(buf[63], 0x40 + 63);
    const std::vector<uint8_t> w = pattern(32, 3);
    ASSERT_EQ(s.mem_write(0x100, 1024, w), scu::MemStatus::kOk);
    EXPECT_TRUE(std::equal(w.begin(), w.end(), mem.bytes.begin() + 1024));
    EXPECT_EQ(mgr.counters(3).mem_rd_bytes, 64u);
    EXPECT_EQ(mgr.counters(3).mem_wr_bytes, 32u);

    (void)mgr.query(3);
    ASSERT_EQ(mgr.bind_pd(3, std::nullopt), ScuStatus::kOk);
    EXPECT_EQ(s.mem_read(0x100, 0, buf), scu::MemStatus::kKeyPd);  // unbound: every request faults
    EXPECT_EQ(events_of(ScuEventKind::kFault), 2u);
    EXPECT_EQ(mgr.counters(3).mem_faults, 7u);
}

}  // namespace
}  // namespace scenic::test
