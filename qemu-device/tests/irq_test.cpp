// SPDX-License-Identifier: MIT
// Interrupt self-test: IRQ_TEST raises exactly the requested vector; refusals are counted.
#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

using namespace regs;

TEST(IrqTest, RaisesExactlyTheRequestedVector) {
    FakeHost host;
    Device dev(Config{}, host);
    for (uint32_t v : {0u, 5u, 31u, 5u}) {
        host.irqs.clear();
        wr(dev, core::kIrqTest, v);
        ASSERT_EQ(host.irqs.size(), 1u);
        EXPECT_EQ(host.irqs[0], v);
    }
    EXPECT_EQ(rd(dev, core::kIrqTestCount), 4u);
    EXPECT_EQ(rd(dev, core::kIrqTestErrors), 0u);
}

TEST(IrqTest, OutOfRangeVectorIsRefusedAndCounted) {
    FakeHost host;
    Config config;
    config.msix_vectors = 8;
    Device dev(config, host);
    wr(dev, core::kIrqTest, 8);
    wr(dev, core::kIrqTest, 0xffffffff);
    wr(dev, core::kIrqTest, 7);
    ASSERT_EQ(host.irqs.size(), 1u);
    EXPECT_EQ(host.irqs[0], 7u);
    EXPECT_EQ(rd(dev, core::kIrqTestCount), 1u);
    EXPECT_EQ(rd(dev, core::kIrqTestErrors), 2u);
}

TEST(IrqTest, NoMsixRefusesEverything) {
    FakeHost host;
    Config config;
    config.msix_vectors = 0;
    Device dev(config, host);
    EXPECT_EQ(rd(dev, core::kMsixVectors), 0u);
    wr(dev, core::kIrqTest, 0);
    wr(dev, core::kIrqTest, 1);
    EXPECT_TRUE(host.irqs.empty());
    EXPECT_EQ(rd(dev, core::kIrqTestCount), 0u);
    EXPECT_EQ(rd(dev, core::kIrqTestErrors), 2u);
}

TEST(IrqTest, RegisterIsWriteOnlyAndCountersReadOnly) {
    FakeHost host;
    Device dev(Config{}, host);
    wr(dev, core::kIrqTest, 3);
    EXPECT_EQ(rd(dev, core::kIrqTest), 0u);
    wr(dev, core::kIrqTestCount, 100);
    wr(dev, core::kIrqTestErrors, 100);
    EXPECT_EQ(rd(dev, core::kIrqTestCount), 1u);
    EXPECT_EQ(rd(dev, core::kIrqTestErrors), 0u);
}

TEST(IrqTest, NonWordAccessDoesNotTrigger) {
    FakeHost host;
    Device dev(Config{}, host);
    dev.mmio_write(core::kIrqTest, 1, 1);
    dev.mmio_write(core::kIrqTest, 1, 2);
    dev.mmio_write(core::kIrqTest, 1, 8);
    dev.mmio_write(core::kIrqTest + 1, 1, 4);
    EXPECT_TRUE(host.irqs.empty());
    EXPECT_EQ(rd(dev, core::kIrqTestCount), 0u);
}

}  // namespace
}  // namespace scenic::test
