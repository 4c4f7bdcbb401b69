// SPDX-License-Identifier: MIT
// Reset values: every register reads its generated default after power-on, soft reset and
// device (function-level) reset.
#include <gtest/gtest.h>

#include <vector>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

struct Reg {
    const char* name;
    uint32_t offset;  // in BAR0
    uint32_t reset;
};

// Every register of regs.hpp with its generated default (header registers included).
std::vector<Reg> all_registers() {
    using namespace regs;
    return {
        {"core.type", core::kOffset + kBlkType, core::kType},
        {"core.version", core::kOffset + kBlkVersion, core::kVersion},
        {"core.next", core::kOffset + kBlkNext, core::kNext},
        {"core.id", core::kOffset + core::kId, core::kIdDefault},
        {"core.build_id", core::kOffset + core::kBuildId, core::kBuildIdDefault},
        {"core.caps", core::kOffset + core::kCaps, core::kCapsDefault},
        {"core.ctrl", core::kOffset + core::kCtrl, core::kCtrlDefault},
        {"core.scratch", core::kOffset + core::kScratch, core::kScratchDefault},
        {"core.msix_vectors", core::kOffset + core::kMsixVectors, core::kMsixVectorsDefault},
        {"core.irq_test", core::kOffset + core::kIrqTest, core::kIrqTestDefault},
        {"core.irq_test_count", core::kOffset + core::kIrqTestCount, core::kIrqTestCountDefault},
        {"core.irq_test_errors", core::kOffset + core::kIrqTestErrors, core::kIrqTestErrorsDefault},
        {"core.dma_test_addr_lo", core::kOffset + core::kDmaTestAddrLo,
         core::kDmaTestAddrLoDefault},
        {"core.dma_test_addr_hi", core::kOffset + core::kDmaTestAddrHi,
         core::kDmaTestAddrHiDefault},
        {"core.dma_test_len", core::kOffset + core::kDmaTestLen, core::kDmaTestLenDefault},
        {"core.dma_test_ctrl", core::kOffset + core::kDmaTestCtrl, core::kDmaTestCtrlDefault},
        {"core.dma_test_crc", core::kOffset + core::kDmaTestCrc, core::kDmaTestCrcDefault},
        {"eth.type", eth::kOffset + kBlkType, eth::kType},
        {"eth.version", eth::kOffset + kBlkVersion, eth::kVersion},
        {"eth.next", eth::kOffset + kBlkNext, eth::kNext},
        {"eth.mac_lo", eth::kOffset + eth::kMacLo, eth::kMacLoDefault},
        {"eth.mac_hi", eth::kOffset + eth::kMacHi, eth::kMacHiDefault},
        {"eth.link", eth::kOffset + eth::kLink, eth::kLinkDefault},
        {"eth.max_mtu", eth::kOffset + eth::kMaxMtu, eth::kMaxMtuDefault},
        {"eth.ctrl", eth::kOffset + eth::kCtrl, eth::kCtrlDefault},
        {"eth.mtu", eth::kOffset + eth::kMtu, eth::kMtuDefault},
        {"eth.rx_ring_addr_lo", eth::kOffset + eth::kRxRingAddrLo, eth::kRxRingAddrLoDefault},
        {"eth.rx_ring_addr_hi", eth::kOffset + eth::kRxRingAddrHi, eth::kRxRingAddrHiDefault},
        {"eth.rx_ring_stride", eth::kOffset + eth::kRxRingStride, eth::kRxRingStrideDefault},
        {"eth.rx_ring_size", eth::kOffset + eth::kRxRingSize, eth::kRxRingSizeDefault},
        {"eth.rx_tail", eth::kOffset + eth::kRxTail, eth::kRxTailDefault},
        {"eth.rx_head", eth::kOffset + eth::kRxHead, eth::kRxHeadDefault},
        {"eth.tx_ring_addr_lo", eth::kOffset + eth::kTxRingAddrLo, eth::kTxRingAddrLoDefault},
        {"eth.tx_ring_addr_hi", eth::kOffset + eth::kTxRingAddrHi, eth::kTxRingAddrHiDefault},
        {"eth.tx_ring_size", eth::kOffset + eth::kTxRingSize, eth::kTxRingSizeDefault},
        {"eth.tx_head", eth::kOffset + eth::kTxHead, eth::kTxHeadDefault},
        {"eth.tx_tail", eth::kOffset + eth::kTxTail, eth::kTxTailDefault},
        {"eth.wb_addr_lo", eth::kOffset + eth::kWbAddrLo, eth::kWbAddrLoDefault},
        {"eth.wb_addr_hi", eth::kOffset + eth::kWbAddrHi, eth::kWbAddrHiDefault},
        {"eth.irq_coal", eth::kOffset + eth::kIrqCoal, eth::kIrqCoalDefault},
        {"eth.irq_time", eth::kOffset + eth::kIrqTime, eth::kIrqTimeDefault},
        {"eth.irq_mask", eth::kOffset + eth::kIrqMask, eth::kIrqMaskDefault},
        {"eth.rx_frames", eth::kOffset + eth::kRxFrames, eth::kRxFramesDefault},
        {"eth.rx_bytes", eth::kOffset + eth::kRxBytes, eth::kRxBytesDefault},
        {"eth.rx_drop_ring_full", eth::kOffset + eth::kRxDropRingFull, eth::kRxDropRingFullDefault},
        {"eth.rx_drop_runt", eth::kOffset + eth::kRxDropRunt, eth::kRxDropRuntDefault},
        {"eth.rx_drop_oversize", eth::kOffset + eth::kRxDropOversize, eth::kRxDropOversizeDefault},
        {"eth.rx_drop_filter", eth::kOffset + eth::kRxDropFilter, eth::kRxDropFilterDefault},
        {"eth.rx_drop_disabled", eth::kOffset + eth::kRxDropDisabled, eth::kRxDropDisabledDefault},
        {"eth.rx_dma_errors", eth::kOffset + eth::kRxDmaErrors, eth::kRxDmaErrorsDefault},
        {"eth.tx_frames", eth::kOffset + eth::kTxFrames, eth::kTxFramesDefault},
        {"eth.tx_bytes", eth::kOffset + eth::kTxBytes, eth::kTxBytesDefault},
        {"eth.tx_drop_bad_cmd", eth::kOffset + eth::kTxDropBadCmd, eth::kTxDropBadCmdDefault},
        {"eth.tx_dma_errors", eth::kOffset + eth::kTxDmaErrors, eth::kTxDmaErrorsDefault},
        {"eth.irq_count", eth::kOffset + eth::kIrqCount, eth::kIrqCountDefault},
        {"eth.rx_roce", eth::kOffset + eth::kRxRoce, eth::kRxRoceDefault},
        {"rdma.type", regs::rdma::kOffset + kBlkType, regs::rdma::kType},
        {"rdma.version", regs::rdma::kOffset + kBlkVersion, regs::rdma::kVersion},
        {"rdma.next", regs::rdma::kOffset + kBlkNext, regs::rdma::kNext},
        {"rdma.max_qp", regs::rdma::kOffset + regs::rdma::kMaxQp, regs::rdma::kMaxQpDefault},
        {"scu.type", regs::scu::kOffset + kBlkType, regs::scu::kType},
        {"scu.version", regs::scu::kOffset + kBlkVersion, regs::scu::kVersion},
        {"scu.next", regs::scu::kOffset + kBlkNext, regs::scu::kNext},
        {"scu.num_slots", regs::scu::kOffset + regs::scu::kNumSlots, regs::scu::kNumSlotsDefault},
        {"scu.iface_version", regs::scu::kOffset + regs::scu::kIfaceVersion,
         regs::scu::kIfaceVersionDefault},
        {"scu.max_image", regs::scu::kOffset + regs::scu::kMaxImage, regs::scu::kMaxImageDefault},
        {"scu.reconfig_us", regs::scu::kOffset + regs::scu::kReconfigUs,
         regs::scu::kReconfigUsDefault},
        {"scu.csr_window", regs::scu::kOffset + regs::scu::kCsrWindow,
         regs::scu::kCsrWindowDefault},
        {"scu.slot_busy", regs::scu::kOffset + regs::scu::kSlotBusy, regs::scu::kSlotBusyDefault},
        {"scu.slot_loaded", regs::scu::kOffset + regs::scu::kSlotLoaded,
         regs::scu::kSlotLoadedDefault},
    };
}

// The generated defaults of MSIX_VECTORS and MAC_LO/MAC_HI are 0: they come from the
// configuration, so this card has no MSI-X and a zero MAC.
Config defaults_config() {
    Config config;
    config.mac = {};
    config.msix_vectors = 0;
    return config;
}

void expect_defaults(const Device& dev, const char* when) {
    for (const Reg& r : all_registers()) {
        EXPECT_EQ(rd(dev, r.offset), r.reset) << r.name << " " << when;
    }
}

// Puts something other than the reset value into every register that can change.
void dirty(Device& dev, FakeHost& host) {
    using namespace regs;
    wr(dev, core::kScratch, 0x12345678);
    wr(dev, core::kDmaTestAddrLo, 0xabcd0000);
    wr(dev, core::kDmaTestAddrHi, 0x1);
    wr(dev, core::kDmaTestLen, 16);
    wr(dev, core::kIrqTest, 3);  // refused: no MSI-X in this config
    wr(dev, core::kDmaTestCtrl, core::kDmaTestCtrlStart.mask);
    host.run_for(dev, 10'000);  // the test fails (no memory there): done + error
    ASSERT_NE(rd(dev, core::kScratch), core::kScratchDefault);
    ASSERT_NE(rd(dev, core::kIrqTestErrors), core::kIrqTestErrorsDefault);
    ASSERT_NE(rd(dev, core::kDmaTestCtrl), core::kDmaTestCtrlDefault);
    // ETH: every rw register, and counters (a runt, a filtered frame)
    const uint32_t e = eth::kOffset;
    wr(dev, e + eth::kCtrl, 0xf);
    wr(dev, e + eth::kMtu, 9000);
    wr(dev, e + eth::kRxRingAddrLo, 0x1000);
    wr(dev, e + eth::kRxRingAddrHi, 0x1);
    wr(dev, e + eth::kRxRingStride, 0x2400);
    wr(dev, e + eth::kRxRingSize, 16);
    wr(dev, e + eth::kRxHead, 3);
    wr(dev, e + eth::kTxRingAddrLo, 0x2000);
    wr(dev, e + eth::kTxRingAddrHi, 0x1);
    wr(dev, e + eth::kTxRingSize, 8);
    wr(dev, e + eth::kTxTail, 0);
    wr(dev, e + eth::kWbAddrLo, 0x3000);
    wr(dev, e + eth::kWbAddrHi, 0x1);
    wr(dev, e + eth::kIrqCoal, 7);
    wr(dev, e + eth::kIrqTime, 50);
    wr(dev, e + eth::kIrqMask, 0);
    dev.eth_rx(std::vector<uint8_t>(10));
    dev.eth_rx(std::vector<uint8_t>(60, 0x02));
    ASSERT_NE(rd(dev, e + eth::kRxDropRunt), 0u);
    ASSERT_NE(rd(dev, e + eth::kRxHead), eth::kRxHeadDefault);
}

TEST(Reset, PowerOnValuesAreTheGeneratedDefaults) {
    FakeHost host;
    Device dev(defaults_config(), host);
    expect_defaults(dev, "after power-on");
}

TEST(Reset, SoftResetRestoresDefaults) {
    FakeHost host;
    Device dev(defaults_config(), host);
    dirty(dev, host);
    wr(dev, regs::core::kCtrl, regs::core::kCtrlSoftReset.mask);
    expect_defaults(dev, "after CTRL.soft_reset");
}

TEST(Reset, CtrlWithoutSoftResetBitDoesNotReset) {
    FakeHost host;
    Device dev(defaults_config(), host);
    wr(dev, regs::core::kScratch, 0x55aa55aa);
    wr(dev, regs::core::kCtrl, ~regs::core::kCtrlSoftReset.mask);
    EXPECT_EQ(rd(dev, regs::core::kScratch), 0x55aa55aau);
}

TEST(Reset, DeviceResetRestoresDefaults) {
    FakeHost host;
    Device dev(defaults_config(), host);
    dirty(dev, host);
    dev.reset();
    expect_defaults(dev, "after device reset");
}

TEST(Reset, ResetAbandonsDmaTestInFlight) {
    FakeHost host;
    Device dev(Config{}, host);
    wr(dev, regs::core::kDmaTestAddrLo, static_cast<uint32_t>(FakeHost::kBase));
    wr(dev, regs::core::kDmaTestAddrHi, static_cast<uint32_t>(FakeHost::kBase >> 32));
    wr(dev, regs::core::kDmaTestLen, 64);
    wr(dev, regs::core::kDmaTestCtrl, regs::core::kDmaTestCtrlStart.mask);
    ASSERT_TRUE(host.timer.has_value());
    dev.reset();
    EXPECT_FALSE(host.timer.has_value());
    host.run_for(dev, 1'000'000);
    EXPECT_EQ(host.dma_reads, 0u);
    EXPECT_TRUE(host.irqs.empty());
    EXPECT_EQ(rd(dev, regs::core::kDmaTestCtrl), 0u);
}

TEST(Reset, ConfigDerivedRegisters) {
    FakeHost host;
    Config config;
    config.mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
    config.msix_vectors = 17;
    Device dev(config, host);
    EXPECT_EQ(rd(dev, regs::eth::kOffset + regs::eth::kMacHi), 0x0211u);
    EXPECT_EQ(rd(dev, regs::eth::kOffset + regs::eth::kMacLo), 0x22334455u);
    EXPECT_EQ(rd(dev, regs::core::kMsixVectors), 17u);
    dev.reset();
    EXPECT_EQ(rd(dev, regs::eth::kOffset + regs::eth::kMacLo), 0x22334455u);
    EXPECT_EQ(rd(dev, regs::core::kMsixVectors), 17u);
}

TEST(Reset, InvalidConfigIsRefused) {
    FakeHost host;
    Config config;
    config.msix_vectors = regs::kMsixVectors + 1;
    EXPECT_THROW(Device(config, host), std::invalid_argument);
}

}  // namespace
}  // namespace scenic::test
