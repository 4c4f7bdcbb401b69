// SPDX-License-Identifier: MIT
// A hostile guest: any offset and size in (and beyond) BAR0 reads 0 or is ignored.
#include <gtest/gtest.h>

#include <random>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

using namespace regs;

TEST(Mmio, ScratchRoundTrip) {
    FakeHost host;
    Device dev(Config{}, host);
    for (uint32_t v : {0xffffffffu, 0x0u, 0xa5a55a5au}) {
        wr(dev, core::kScratch, v);
        EXPECT_EQ(rd(dev, core::kScratch), v);
    }
}

TEST(Mmio, NonWordAccessesReadZeroAndAreIgnored) {
    FakeHost host;
    Device dev(Config{}, host);
    wr(dev, core::kScratch, 0x11223344);
    for (unsigned size : {1u, 2u, 8u, 0u, 3u, 16u}) {
        EXPECT_EQ(dev.mmio_read(core::kScratch, size), 0u) << size;
        dev.mmio_write(core::kScratch, 0xdeadbeef, size);
    }
    for (uint64_t off = core::kScratch + 1; off < core::kScratch + 4; ++off) {
        EXPECT_EQ(dev.mmio_read(off, 4), 0u) << off;
        dev.mmio_write(off, 0xdeadbeef, 4);
    }
    EXPECT_EQ(rd(dev, core::kScratch), 0x11223344u);
    // The type register is not readable piecewise either.
    EXPECT_EQ(dev.mmio_read(0, 2), 0u);
}

TEST(Mmio, OutOfRangeReadsZero) {
    FakeHost host;
    Device dev(Config{}, host);
    for (uint64_t off : {uint64_t{0x4000}, uint64_t{0x8000}, uint64_t{kBar0Size - 4},
                         uint64_t{kBar0Size}, uint64_t{0x1'0000'0000}, UINT64_MAX - 3}) {
        EXPECT_EQ(dev.mmio_read(off, 4), 0u) << off;
        dev.mmio_write(off, 0xffffffff, 4);
    }
    // Holes inside a block read 0.
    EXPECT_EQ(rd(dev, core::kOffset + 0x800), 0u);
    EXPECT_EQ(rd(dev, eth::kOffset + 0xffc), 0u);
}

TEST(Mmio, ReadOnlyRegistersIgnoreWrites) {
    FakeHost host;
    Device dev(Config{}, host);
    wr(dev, core::kId, 0);
    wr(dev, core::kCaps, 0);
    wr(dev, core::kMsixVectors, 0);
    wr(dev, eth::kOffset + eth::kMaxMtu, 1);
    wr(dev, eth::kOffset + eth::kLink, 0);
    EXPECT_EQ(rd(dev, core::kId), core::kIdDefault);
    EXPECT_EQ(rd(dev, core::kCaps), core::kCapsDefault);
    EXPECT_EQ(rd(dev, core::kMsixVectors), kMsixVectors);
    EXPECT_EQ(rd(dev, eth::kOffset + eth::kMaxMtu), eth::kMaxMtuDefault);
    EXPECT_EQ(rd(dev, eth::kOffset + eth::kLink), eth::kLinkDefault);
}

// Random accesses of every size everywhere (DMA self-test included, pointed at random
// addresses) must never crash, raise an invalid vector or touch more than the bounded length.
TEST(Mmio, RandomAccessesAreHarmless) {
    FakeHost host;
    Config config;
    config.msix_vectors = 4;
    Device dev(config, host);
    std::mt19937_64 rng(12345);
    const unsigned sizes[] = {1, 2, 4, 8};
    for (int i = 0; i < 200'000; ++i) {
        // Mostly inside the register blocks, sometimes anywhere.
        const uint64_t off = (i % 16 == 0) ? rng() : rng() % 0x4100;
        const unsigned size = sizes[rng() % 4];
        if (rng() % 2) {
            static_cast<void>(dev.mmio_read(off, size));
        } else {
            dev.mmio_write(off, rng(), size);
        }
        if (i % 64 == 0) {
            host.run_for(dev, 5'000);
        }
    }
    for (unsigned v : host.irqs) {
        EXPECT_LT(v, 4u);
    }
}

}  // namespace
}  // namespace scenic::test
