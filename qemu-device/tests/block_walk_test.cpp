// SPDX-License-Identifier: MIT
// Register-block discovery as a driver does it: follow NEXT from offset 0.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

struct Found {
    uint32_t offset;
    uint32_t type;
    uint32_t version;
};

std::vector<Found> walk(const Device& dev) {
    std::vector<Found> found;
    std::set<uint32_t> seen;
    uint32_t offset = 0;
    do {
        if (!seen.insert(offset).second || found.size() > 64) {
            ADD_FAILURE() << "block list loops at " << offset;
            break;
        }
        found.push_back(
            {offset, rd(dev, offset + regs::kBlkType), rd(dev, offset + regs::kBlkVersion)});
        offset = rd(dev, offset + regs::kBlkNext);
    } while (offset != 0);
    return found;
}

TEST(BlockWalk, FollowsNextFromZeroAndTerminates) {
    FakeHost host;
    Device dev(Config{}, host);
    const auto found = walk(dev);
    ASSERT_EQ(found.size(), 4u);
    EXPECT_EQ(found[0].offset, regs::core::kOffset);
    EXPECT_EQ(found[0].type, regs::core::kType);
    EXPECT_EQ(found[0].version, regs::core::kVersion);
    EXPECT_EQ(found[1].offset, regs::eth::kOffset);
    EXPECT_EQ(found[1].type, regs::eth::kType);
    EXPECT_EQ(found[1].version, regs::eth::kVersion);
    EXPECT_EQ(found[2].offset, regs::rdma::kOffset);
    EXPECT_EQ(found[2].type, regs::rdma::kType);
    EXPECT_EQ(found[2].version, regs::rdma::kVersion);
    EXPECT_EQ(found[3].offset, regs::scu::kOffset);
    EXPECT_EQ(found[3].type, regs::scu::kType);
    EXPECT_EQ(found[3].version, regs::scu::kVersion);
}

TEST(BlockWalk, BadBlockVersionGivesEthAnUnknownMajor) {
    FakeHost host;
    Config config;
    config.bad_block_version = true;
    Device dev(config, host);
    const auto found = walk(dev);
    ASSERT_EQ(found.size(), 4u);
    EXPECT_EQ(found[1].type, regs::eth::kType);
    EXPECT_EQ(found[1].version >> 16, Config::kBadMajor);
    EXPECT_NE(found[1].version >> 16, regs::eth::kVersion >> 16);
    // The other blocks are unchanged.
    EXPECT_EQ(found[0].version, regs::core::kVersion);
    EXPECT_EQ(found[2].version, regs::rdma::kVersion);
    EXPECT_EQ(found[3].version, regs::scu::kVersion);
}

TEST(BlockWalk, HeaderIsReadOnly) {
    FakeHost host;
    Device dev(Config{}, host);
    for (uint32_t base :
         {regs::core::kOffset, regs::eth::kOffset, regs::rdma::kOffset, regs::scu::kOffset}) {
        wr(dev, base + regs::kBlkType, 0xdeadbeef);
        wr(dev, base + regs::kBlkVersion, 0xdeadbeef);
        wr(dev, base + regs::kBlkNext, 0x4);
    }
    EXPECT_EQ(walk(dev).size(), 4u);
    EXPECT_EQ(rd(dev, regs::eth::kOffset + regs::kBlkType), regs::eth::kType);
}

}  // namespace
}  // namespace scenic::test
