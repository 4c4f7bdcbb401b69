// SPDX-License-Identifier: MIT
// What the runtime's examples share: two RC QPs of one card connected to each other through the
// card's loopback (its own RoCE v2 GID), and waiting for a completion. Copy it with an example.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace scenic_example {

// The first RoCE v2 GID of port 1 with an IPv4 address (::ffff:a.b.c.d).
inline int roce_v2_gid(ibv_context* ctx, ibv_gid* gid) {
    ibv_port_attr pa{};
    if (ibv_query_port(ctx, 1, &pa) != 0) {
        return -1;
    }
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
        ibv_gid_entry e{};
        if (ibv_query_gid_ex(ctx, 1, static_cast<uint32_t>(i), &e, 0) == 0 &&
            e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
            std::memcmp(e.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
            *gid = e.gid;
            return i;
        }
    }
    return -1;
}

// RESET -> INIT -> RTR -> RTS towards dest_qpn at gid.
inline bool connect(ibv_qp* qp, int gid_index, const ibv_gid& gid, uint32_t dest_qpn) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
        return false;
    }
    a = {};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest_qpn;
    a.rq_psn = 0;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.dgid = gid;
    a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
    a.ah_attr.grh.hop_limit = 64;
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
        return false;
    }
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = 0;
    a.max_rd_atomic = 1;
    return ibv_modify_qp(qp, &a,
                         IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                             IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) == 0;
}

// Polls cq for one completion, `seconds` at most; an error completion, or none, is reported on
// stderr.
inline bool completed(ibv_cq* cq, int seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    ibv_wc wc{};
    while (std::chrono::steady_clock::now() < end) {
        const int n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0) {
            return false;
        }
        if (n == 1) {
            if (wc.status != IBV_WC_SUCCESS) {
                std::fprintf(stderr, "completion: %s (vendor error %u)\n",
                             ibv_wc_status_str(wc.status), wc.vendor_err);
            }
            return wc.status == IBV_WC_SUCCESS;
        }
    }
    std::fprintf(stderr, "no completion in %d s\n", seconds);
    return false;
}

}  // namespace scenic_example
