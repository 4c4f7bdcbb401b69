// SPDX-License-Identifier: MIT
// The kernel's translation of the card's codes (the generated kmod/include/scenic_codes.h),
// compiled in user space over tests/kshim/rdma/ib_verbs.h, against a hand-written table of
// docs/admin-queue.md 6.1 to 6.3.
#include <gtest/gtest.h>

#include <cerrno>
#include <map>
#include <vector>

extern "C" {
#include <linux/types.h>

#include "kmod/include/scenic_codes.h"
}

namespace {

#define SCENIC_VALUE(e, name) static_cast<unsigned>(e),

template <typename T, typename F>
void check(const std::vector<unsigned>& generated, const std::map<unsigned, T>& want, F translate,
           T fallback) {
    for (unsigned card : generated)
        EXPECT_TRUE(want.count(card)) << "card value " << card << " untested";
    EXPECT_EQ(want.size(), generated.size());
    for (unsigned v = 0; v < 0x200; ++v) {
        const auto it = want.find(v);
        EXPECT_EQ(translate(v), it == want.end() ? fallback : it->second) << "card value " << v;
    }
}

TEST(CardCodes, KernelTranslations) {
    check<int>(
        {SCENIC_AQ_STATUS_VALUES(SCENIC_VALUE)},
        {{0, 0},
         {1, -EOPNOTSUPP},
         {2, -EINVAL},
         {3, -EINVAL},
         {4, -EBUSY},
         {5, -ENOENT},
         {6, -EINVAL},
         {7, -EINVAL},
         {8, -ENOMEM},
         {9, -EIO},
         {10, -EIO}},
        [](unsigned c) { return scenic_aq_status_to_errno(c); }, -EIO);
    check<ib_wc_status>(
        {SCENIC_CQE_STATUS_VALUES(SCENIC_VALUE)},
        {{0, IB_WC_SUCCESS},
         {1, IB_WC_LOC_LEN_ERR},
         {2, IB_WC_LOC_QP_OP_ERR},
         {3, IB_WC_LOC_PROT_ERR},
         {4, IB_WC_WR_FLUSH_ERR},
         {5, IB_WC_BAD_RESP_ERR},
         {6, IB_WC_REM_INV_REQ_ERR},
         {7, IB_WC_REM_ACCESS_ERR},
         {8, IB_WC_REM_OP_ERR},
         {9, IB_WC_RETRY_EXC_ERR},
         {10, IB_WC_RNR_RETRY_EXC_ERR},
         {11, IB_WC_MW_BIND_ERR}},
        [](unsigned c) { return scenic_wc_status_to_ib(c); }, IB_WC_GENERAL_ERR);
    const std::map<unsigned, ib_qp_state> qps = {
        {0, IB_QPS_RESET}, {1, IB_QPS_INIT}, {2, IB_QPS_RTR}, {3, IB_QPS_RTS},
        {4, IB_QPS_SQD},   {5, IB_QPS_SQE},  {6, IB_QPS_ERR}};
    check<ib_qp_state>(
        {SCENIC_QP_STATE_VALUES(SCENIC_VALUE)}, qps,
        [](unsigned c) { return scenic_qp_state_to_ib(c); }, IB_QPS_ERR);
    for (const auto& [card, ib] : qps)
        EXPECT_EQ(scenic_qp_state_from_ib(ib), static_cast<int>(card));
    EXPECT_EQ(scenic_qp_state_from_ib(static_cast<ib_qp_state>(IB_QPS_ERR + 1)), -EINVAL);
    check<ib_event_type>(
        {SCENIC_QP_ERR_VALUES(SCENIC_VALUE)},
        {{1, IB_EVENT_QP_REQ_ERR},
         {2, IB_EVENT_QP_ACCESS_ERR},
         {3, IB_EVENT_QP_FATAL},
         {4, IB_EVENT_QP_LAST_WQE_REACHED}},
        [](unsigned c) { return scenic_qp_err_to_ib_event(c); }, IB_EVENT_QP_FATAL);
}

}  // namespace
