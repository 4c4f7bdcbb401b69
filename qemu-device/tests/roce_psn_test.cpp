// SPDX-License-Identifier: MIT
// 24-bit PSN arithmetic: wraparound at 2^24, comparison within a 2^23 window.
#include <gtest/gtest.h>

#include "scenic/roce/psn.hpp"

namespace scenic::roce {
namespace {

TEST(RocePsn, AddWraps) {
    EXPECT_EQ(psn_add(0, 1), 1u);
    EXPECT_EQ(psn_add(0xffffff, 1), 0u);
    EXPECT_EQ(psn_add(0xfffffe, 5), 3u);
    EXPECT_EQ(psn_add(0x123456, 0x1000000), 0x123456u);  // a full turn
}

TEST(RocePsn, CompareAcrossWrap) {
    EXPECT_EQ(psn_compare(5, 5), 0);
    EXPECT_LT(psn_compare(4, 5), 0);
    EXPECT_GT(psn_compare(5, 4), 0);
    // 0 comes after 0xffffff, 0x10 after 0xfffff0
    EXPECT_GT(psn_compare(0, 0xffffff), 0);
    EXPECT_LT(psn_compare(0xffffff, 0), 0);
    EXPECT_TRUE(psn_after(0x10, 0xfffff0));
    EXPECT_TRUE(psn_before(0xfffff0, 0x10));
    EXPECT_EQ(psn_diff(0x10, 0xfffff0), 0x20);
    EXPECT_EQ(psn_diff(0xfffff0, 0x10), -0x20);
    // bits above 24 are ignored
    EXPECT_EQ(psn_compare(0x01000005, 5), 0);
}

TEST(RocePsn, WindowEdges) {
    // Half the space ahead is "after"; one more is "before" (window of 2^23 each side).
    EXPECT_EQ(psn_diff(0x7fffff, 0), 0x7fffff);
    EXPECT_EQ(psn_diff(0x800000, 0), -0x800000);
    EXPECT_GT(psn_compare(0x7fffff, 0), 0);
    EXPECT_LT(psn_compare(0x800000, 0), 0);
    EXPECT_LT(psn_compare(0x800001, 1), 0);
}

TEST(RocePsn, MatchesRxeFormulaEverywhereOnAGrid) {
    // rxe: psn_compare(a, b) = (s32)((a - b) << 8)
    for (uint32_t a = 0; a < 0x1000000; a += 0x3fff1) {
        for (uint32_t b = 0; b < 0x1000000; b += 0x7ffe3) {
            const auto rxe = static_cast<int32_t>((a - b) << 8);
            const int want = rxe < 0 ? -1 : (rxe > 0 ? 1 : 0);
            ASSERT_EQ(psn_compare(a, b), want) << a << " " << b;
            ASSERT_EQ(psn_add(b, static_cast<uint32_t>(psn_diff(a, b))), a);
        }
    }
}

}  // namespace
}  // namespace scenic::roce
