// SPDX-License-Identifier: MIT
// The C interface used by the QEMU glue: host callbacks, bad arguments, no exceptions.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <vector>

#include "scenic/admin.hpp"
#include "scenic/model.h"
#include "scenic/regs.hpp"

namespace {

using namespace scenic::regs;

struct CHostState {
    std::vector<uint8_t> mem = std::vector<uint8_t>(4096);
    std::vector<unsigned> irqs;
    uint64_t now = 0;
    uint64_t deadline = 0;
    bool armed = false;
};

CHostState* st(void* opaque) { return static_cast<CHostState*>(opaque); }

scenic_host_ops make_ops(CHostState& s) {
    scenic_host_ops ops{};
    ops.opaque = &s;
    ops.dma_read = [](void* o, uint64_t addr, void* buf, size_t len) {
        if (addr > st(o)->mem.size() || len > st(o)->mem.size() - addr) {
            return -1;
        }
        std::memcpy(buf, st(o)->mem.data() + addr, len);
        return 0;
    };
    ops.dma_write = [](void* o, uint64_t addr, const void* buf, size_t len) {
        if (addr > st(o)->mem.size() || len > st(o)->mem.size() - addr) {
            return -1;
        }
        std::memcpy(st(o)->mem.data() + addr, buf, len);
        return 0;
    };
    ops.msix_notify = [](void* o, unsigned v) { st(o)->irqs.push_back(v); };
    ops.now_ns = [](void* o) { return st(o)->now; };
    ops.timer_schedule = [](void* o, uint64_t d) {
        st(o)->deadline = d;
        st(o)->armed = true;
    };
    ops.timer_cancel = [](void* o) { st(o)->armed = false; };
    return ops;
}

TEST(CApi, CreateReadWriteDestroy) {
    CHostState s;
    const scenic_host_ops ops = make_ops(s);
    scenic_model_config cfg{
        {0x02, 0, 0, 0, 0, 0x07}, 32, false, 0, 1, nullptr, nullptr, nullptr, false, 0, false};
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(scenic_model_mmio_read(m, 0, 4), core::kType);
    EXPECT_EQ(scenic_model_mmio_read(m, eth::kOffset + eth::kMacLo, 4), 0x07u);
    scenic_model_mmio_write(m, core::kScratch, 42, 4);
    EXPECT_EQ(scenic_model_mmio_read(m, core::kScratch, 4), 42u);
    scenic_model_reset(m);
    EXPECT_EQ(scenic_model_mmio_read(m, core::kScratch, 4), 0u);
    scenic_model_mmio_write(m, core::kIrqTest, 9, 4);
    ASSERT_EQ(s.irqs.size(), 1u);
    EXPECT_EQ(s.irqs[0], 9u);
    scenic_model_set_link(m, false);
    EXPECT_EQ(scenic_model_mmio_read(m, eth::kOffset + eth::kLink, 4) & eth::kLinkUp.mask, 0u);
    const uint8_t frame[64] = {};
    EXPECT_EQ(scenic_model_eth_rx(m, frame, sizeof(frame)), sizeof(frame));
    EXPECT_TRUE(scenic_model_can_receive(m));
    scenic_model_destroy(m);
}

TEST(CApi, DmaSelfTestThroughTheTimer) {
    CHostState s;
    const scenic_host_ops ops = make_ops(s);
    scenic_model_config cfg{{}, 32, false, 0, 1, nullptr, nullptr, nullptr, false, 0, false};
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    std::memcpy(s.mem.data() + 100, "hello", 5);
    scenic_model_mmio_write(m, core::kDmaTestAddrLo, 100, 4);
    scenic_model_mmio_write(m, core::kDmaTestLen, 5, 4);
    scenic_model_mmio_write(m, core::kDmaTestCtrl, core::kDmaTestCtrlStart.mask, 4);
    ASSERT_TRUE(s.armed);
    s.now = s.deadline;
    s.armed = false;
    scenic_model_timer_fire(m);
    EXPECT_EQ(scenic_model_mmio_read(m, core::kDmaTestCtrl, 4), core::kDmaTestCtrlDone.mask);
    const auto crc = static_cast<uint32_t>(
        crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>("hello"), 5));
    EXPECT_EQ(scenic_model_mmio_read(m, core::kDmaTestCrc, 4), crc);
    uint32_t written;
    std::memcpy(&written, s.mem.data() + 105, 4);
    EXPECT_EQ(written, crc);  // x86 is little endian, as the card writes it
    scenic_model_destroy(m);
}

TEST(CApi, MissingDmaCallbacksMeanFailedDma) {
    CHostState s;
    scenic_host_ops ops = make_ops(s);
    ops.dma_read = nullptr;
    ops.dma_write = nullptr;
    ops.msix_notify = nullptr;
    scenic_model_config cfg{{}, 32, false, 0, 1, nullptr, nullptr, nullptr, false, 0, false};
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    scenic_model_mmio_write(m, core::kDmaTestLen, 5, 4);
    scenic_model_mmio_write(m, core::kDmaTestCtrl, core::kDmaTestCtrlStart.mask, 4);
    ASSERT_TRUE(s.armed);
    s.now = s.deadline;
    scenic_model_timer_fire(m);
    EXPECT_EQ(scenic_model_mmio_read(m, core::kDmaTestCtrl, 4),
              core::kDmaTestCtrlDone.mask | core::kDmaTestCtrlError.mask);
    scenic_model_destroy(m);
}

TEST(CApi, BadArguments) {
    CHostState s;
    const scenic_host_ops ops = make_ops(s);
    scenic_model_config cfg{{},      kMsixVectors + 1, false, 0, 1,    nullptr,
                            nullptr, nullptr,          false, 0, false};
    EXPECT_EQ(scenic_model_create(&cfg, &ops), nullptr);  // the exception stays inside
    EXPECT_EQ(scenic_model_create(nullptr, &ops), nullptr);
    cfg.msix_vectors = 1;
    EXPECT_EQ(scenic_model_create(&cfg, nullptr), nullptr);
    // A NULL model is ignored everywhere.
    EXPECT_EQ(scenic_model_mmio_read(nullptr, 0, 4), 0u);
    scenic_model_mmio_write(nullptr, 0, 0, 4);
    scenic_model_reset(nullptr);
    scenic_model_timer_fire(nullptr);
    scenic_model_set_link(nullptr, true);
    EXPECT_FALSE(scenic_model_can_receive(nullptr));
    EXPECT_EQ(scenic_model_eth_rx(nullptr, nullptr, 10), 10u);
    scenic_model_destroy(nullptr);
}

// A NOP through the admin queue over the C API: the doorbell write only arms the timer, the
// completion is written when the host fires it (rings at 0x100 / 0x200 of the host memory).
TEST(CApi, AdminNopThroughTheQueue) {
    CHostState s;
    const scenic_host_ops ops = make_ops(s);
    scenic_model_config cfg{{}, 32, false, 0, 1, nullptr, nullptr, nullptr, false, 0, false};
    scenic_model* m = scenic_model_create(&cfg, &ops);
    ASSERT_NE(m, nullptr);
    scenic_model_mmio_write(m, core::kAqSqBaseLo, 0x100, 4);
    scenic_model_mmio_write(m, core::kAqCqBaseLo, 0x200, 4);
    scenic_model_mmio_write(m, core::kAqCfg, 2 | core::kAqCfgEnable.mask, 4);  // depth 4
    EXPECT_EQ(scenic_model_mmio_read(m, core::kAqStatus, 4), core::kAqStatusReady.mask);
    const std::span<uint8_t, 128> e(s.mem.data() + 0x100, 128);
    const scenic::admin::AqNop<> nop(e);
    nop.set_opcode(static_cast<uint8_t>(scenic::admin::AqOpcode::kNop));
    nop.set_cmd_id(0x1234);
    nop.set_phase(1);
    s.armed = false;
    scenic_model_mmio_write(m, core::kAqSqTail, 1, 4);
    const std::span<const uint8_t, 32> c(s.mem.data() + 0x200, 32);
    const scenic::admin::AqCqe<const uint8_t> cqe(c);
    EXPECT_EQ(cqe.phase(), 0) << "written inside the doorbell's MMIO write";
    ASSERT_TRUE(s.armed);
    s.now = s.deadline;
    scenic_model_timer_fire(m);
    EXPECT_EQ(cqe.phase(), 1);
    EXPECT_EQ(cqe.cmd_id(), 0x1234);
    EXPECT_EQ(cqe.status(), 0);
    EXPECT_EQ(cqe.sq_head(), 1);
    EXPECT_EQ(scenic_model_mmio_read(m, core::kAqSqHead, 4), 1u);
    EXPECT_EQ(scenic_model_mmio_read(m, core::kAqCqTail, 4), 1u);
    scenic_model_destroy(m);
}

// FAULT_INJECT works only with the property (QEMU: fault-inject=on); otherwise it reads 0 and
// a write changes nothing.
TEST(CApi, FaultInjectOnlyWithTheProperty) {
    for (const bool allowed : {false, true}) {
        SCOPED_TRACE(allowed ? "fault-inject=on" : "off");
        CHostState s;
        const scenic_host_ops ops = make_ops(s);
        scenic_model_config cfg{{}, 32, false, 0, 1, nullptr, nullptr, nullptr, allowed, 0, false};
        scenic_model* m = scenic_model_create(&cfg, &ops);
        ASSERT_NE(m, nullptr);
        scenic_model_mmio_write(m, core::kFaultInject,
                                core::kFaultInjectAqStall.mask | core::kFaultInjectFatal.mask, 4);
        EXPECT_EQ(scenic_model_mmio_read(m, core::kFaultInject, 4),
                  allowed ? core::kFaultInjectAqStall.mask : 0u);
        const uint32_t fatal =
            static_cast<uint32_t>(scenic_model_mmio_read(m, core::kFatalStatus, 4));
        EXPECT_EQ(fatal, allowed ? core::kFatalStatusFatal.mask |
                                       static_cast<uint32_t>(scenic::admin::FatalCode::kInjected)
                                 : 0u);
        scenic_model_destroy(m);
    }
}

}  // namespace
