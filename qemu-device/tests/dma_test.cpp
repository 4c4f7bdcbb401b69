// SPDX-License-Identifier: MIT
// DMA self-test: CRC-32 of host memory against zlib, written back after the buffer; DMA
// failures and refused lengths end with the error bit, never a crash.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

using namespace regs;

constexpr uint32_t kDone = core::kDmaTestCtrlDone.mask;
constexpr uint32_t kError = core::kDmaTestCtrlError.mask;

class DmaTest : public ::testing::Test {
  protected:
    void start(uint64_t addr, uint32_t len) {
        wr(dev, core::kDmaTestAddrLo, static_cast<uint32_t>(addr));
        wr(dev, core::kDmaTestAddrHi, static_cast<uint32_t>(addr >> 32));
        wr(dev, core::kDmaTestLen, len);
        wr(dev, core::kDmaTestCtrl, core::kDmaTestCtrlStart.mask);
    }
    void fill(size_t offset, size_t len, unsigned seed) {
        std::mt19937 rng(seed);
        for (size_t i = 0; i < len; ++i) {
            host.mem[offset + i] = static_cast<uint8_t>(rng());
        }
    }
    uint32_t zcrc(size_t offset, size_t len) const {
        return static_cast<uint32_t>(
            crc32(crc32(0L, Z_NULL, 0), host.mem.data() + offset, static_cast<uInt>(len)));
    }
    uint32_t mem_le32(size_t offset) const {
        return uint32_t{host.mem[offset]} | uint32_t{host.mem[offset + 1]} << 8 |
               uint32_t{host.mem[offset + 2]} << 16 | uint32_t{host.mem[offset + 3]} << 24;
    }

    FakeHost host;
    Device dev{Config{}, host};
};

TEST_F(DmaTest, CrcMatchesZlibAndIsWrittenAfterTheBuffer) {
    for (uint32_t len : {1u, 3u, 64u, 1500u, 4096u}) {
        SCOPED_TRACE(len);
        const size_t off = 0x100 + len;  // a different place each time
        fill(off, len, len);
        host.irqs.clear();
        start(FakeHost::kBase + off, len);
        // Asynchronous: nothing happens before the engine's latency has passed.
        EXPECT_EQ(rd(dev, core::kDmaTestCtrl), 0u);
        EXPECT_TRUE(host.irqs.empty());
        host.run_for(dev, CoreBlock::kDmaTestLatencyNs);
        EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone);
        EXPECT_EQ(rd(dev, core::kDmaTestCrc), zcrc(off, len));
        EXPECT_EQ(mem_le32(off + len), zcrc(off, len));
        ASSERT_EQ(host.irqs.size(), 1u);
        EXPECT_EQ(host.irqs[0], kVecCore);
    }
}

TEST_F(DmaTest, KnownVector) {
    const char text[] = "123456789";
    std::copy(text, text + 9, host.mem.begin());
    start(FakeHost::kBase, 9);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCrc), 0xcbf43926u);  // the CRC-32 check value
}

TEST_F(DmaTest, ReadFailureSetsErrorAndWritesNothing) {
    host.fault = {{FakeHost::kBase + 0x1000, FakeHost::kBase + 0x1000}};
    start(FakeHost::kBase + 0xf00, 0x200);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone | kError);
    EXPECT_EQ(rd(dev, core::kDmaTestCrc), 0u);
    EXPECT_EQ(host.dma_writes, 0u);
    ASSERT_EQ(host.irqs.size(), 1u);  // the driver waiting for the interrupt is told too
}

TEST_F(DmaTest, WriteFailureSetsError) {
    host.fail_writes = true;
    fill(0, 128, 7);
    start(FakeHost::kBase, 128);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone | kError);
    EXPECT_EQ(rd(dev, core::kDmaTestCrc), zcrc(0, 128));
}

TEST_F(DmaTest, UnmappedAddressSetsError) {
    start(0x1000, 64);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone | kError);
}

TEST_F(DmaTest, LengthOutOfRangeIsRefusedWithoutDma) {
    for (uint32_t len : {0u, CoreBlock::kDmaTestMaxLen + 1, 0xffffffffu}) {
        SCOPED_TRACE(len);
        start(FakeHost::kBase, len);
        host.run_for(dev, 10'000);
        EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone | kError);
    }
    EXPECT_EQ(host.dma_reads, 0u);
    EXPECT_EQ(host.dma_writes, 0u);
}

TEST_F(DmaTest, AddressWrapIsRefused) {
    start(UINT64_MAX - 8, 8);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone | kError);
    EXPECT_EQ(host.dma_reads, 0u);
}

TEST_F(DmaTest, StartWhileBusyIsIgnored) {
    fill(0, 32, 1);
    start(FakeHost::kBase, 32);
    start(FakeHost::kBase, 0);  // would be refused if it were taken
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone);
    EXPECT_EQ(host.dma_reads, 1u);
    EXPECT_EQ(host.irqs.size(), 1u);
}

TEST_F(DmaTest, NewStartClearsStatus) {
    start(FakeHost::kBase, 0);
    host.run_for(dev, 10'000);
    ASSERT_EQ(rd(dev, core::kDmaTestCtrl), kDone | kError);
    start(FakeHost::kBase, 16);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), 0u);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone);
}

TEST(DmaTestNoMsix, CompletesWithoutInterrupt) {
    FakeHost host;
    Config config;
    config.msix_vectors = 0;
    Device dev(config, host);
    wr(dev, core::kDmaTestAddrLo, static_cast<uint32_t>(FakeHost::kBase));
    wr(dev, core::kDmaTestAddrHi, static_cast<uint32_t>(FakeHost::kBase >> 32));
    wr(dev, core::kDmaTestLen, 4);
    wr(dev, core::kDmaTestCtrl, core::kDmaTestCtrlStart.mask);
    host.run_for(dev, 10'000);
    EXPECT_EQ(rd(dev, core::kDmaTestCtrl), kDone);
    EXPECT_TRUE(host.irqs.empty());
}

}  // namespace
}  // namespace scenic::test
