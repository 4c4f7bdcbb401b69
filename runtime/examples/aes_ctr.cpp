// SPDX-License-Identifier: MIT
// Example: transparent AES-128-CTR encryption of a QP's RDMA payload with the aes-ctr SCU
// (docs/scu-aes-ctr.md). Copy it as the start of your own SCU program.
//
//   aes_ctr IMAGE [SLOT]     (IMAGE: aes_ctr.scuimg from `make runtime`; SLOT default 2)
//
// It loads the image into the slot (the paper's Code 1: ScenicReconfig, then a ScenicThread on
// the slot), sets the key and the IVs through the CSRs, encrypts both directions, and creates
// two QPs on the slot. The QPs are connected to each other through the card's loopback (its own
// RoCE v2 GID), so one process shows the whole path: a WRITE leaves the first QP encrypted and
// arrives decrypted at the second one. Across two hosts, run the same CSR set-up on both with
// one key and each side's IV_TX equal to the peer's IV_RX, and connect the QPs as any RC
// program does. Exits 0 when the data arrived intact and the SCU counted it.
#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "scenic/scenic.hpp"

namespace {

// aes-ctr's CSRs (hw-rtl/scu/aes_ctr/scu.toml)
constexpr uint32_t kKeyHi = 0, kKeyLo = 1, kIvTxHi = 2, kIvTxLo = 3, kIvRxHi = 4, kIvRxLo = 5;
constexpr uint32_t kQpnMask = 6, kCtrl = 7, kId = 8, kBytes = 10;
constexpr uint64_t kCtrlTxRx = 3;
constexpr uint64_t kAesId = 0x5343554145533031;  // "SCUAES01"

// The first RoCE v2 GID of port 1 with an IPv4 address (::ffff:a.b.c.d).
int roce_v2_gid(ibv_context* ctx, ibv_gid* gid) {
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
bool connect(ibv_qp* qp, int gid_index, const ibv_gid& gid, uint32_t dest_qpn) {
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

// Polls cq for one completion, 10 s at most.
bool completed(ibv_cq* cq) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    ibv_wc wc{};
    while (std::chrono::steady_clock::now() < end) {
        const int n = ibv_poll_cq(cq, 1, &wc);
        if (n < 0) {
            return false;
        }
        if (n == 1) {
            return wc.status == IBV_WC_SUCCESS;
        }
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s IMAGE [SLOT]\n", argv[0]);
        return 2;
    }
    const unsigned slot = argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 0)) : 2;

    // 1. Load the SCU and become the slot's owner.
    const scenic::ReconfigResult r = scenic::ScenicReconfig().reconfigure_app(slot, argv[1]);
    std::printf("loaded %s into slot %u, pause %.3f ms\n", argv[1], slot,
                std::chrono::duration<double, std::milli>(r.pause).count());
    scenic::ScenicThread t(slot);
    if (t.get_csr(kId) != kAesId) {
        std::fprintf(stderr, "slot %u does not run aes-ctr\n", slot);
        return 1;
    }

    // 2. Key and IVs (SP 800-38A's example values: use your own secret ones). Code 1's
    //    set_csr(key, 0) is the first half of the key.
    t.set_csr(0x2b7e151628aed2a6, kKeyHi);
    t.set_csr(0xabf7158809cf4f3c, kKeyLo);
    for (const uint32_t hi : {kIvTxHi, kIvRxHi}) {
        t.set_csr(0xf0f1f2f3f4f5f6f7, hi);
    }
    for (const uint32_t lo : {kIvTxLo, kIvRxLo}) {
        t.set_csr(0xf8f9fafbfcfdfeff, lo);
    }
    t.set_csr(0, kQpnMask);  // the two QPs have different numbers: keep the QPN out
    t.set_csr(kCtrlTxRx, kCtrl);

    // 3. Two QPs on the slot, connected to each other through the card's loopback.
    scenic::Qp a = t.create_qp();
    scenic::Qp b = t.create_qp();
    ibv_gid gid{};
    const int gidx = roce_v2_gid(t.context(), &gid);
    if (gidx < 0 || !connect(a.qp(), gidx, gid, b.qp_num()) ||
        !connect(b.qp(), gidx, gid, a.qp_num())) {
        std::fprintf(stderr, "cannot connect the QPs (no RoCE v2 IPv4 GID on port 1?)\n");
        return 1;
    }

    // 4. WRITE 4 KiB from a's buffer into b's.
    constexpr size_t kLen = 4096;
    scenic::Buffer src = t.alloc(kLen);
    scenic::Buffer dst = t.alloc(kLen);
    for (size_t i = 0; i < kLen; ++i) {
        src.data()[i] = static_cast<uint8_t>(i * 7 + 3);
    }
    const uint64_t before = t.get_csr(kBytes);
    ibv_sge sge{reinterpret_cast<uintptr_t>(src.data()), kLen, src.mr().lkey()};
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst.data());
    wr.wr.rdma.rkey = dst.mr().rkey();
    if (ibv_post_send(a.qp(), &wr, &bad) != 0 || !completed(a.cq())) {
        std::fprintf(stderr, "the WRITE failed\n");
        return 1;
    }

    // 5. The data crossed the SCU twice (encrypted out of a, decrypted into b).
    const bool same = std::memcmp(src.data(), dst.data(), kLen) == 0;
    const uint64_t bytes = t.get_csr(kBytes) - before;
    std::printf(
        "WRITE of %zu bytes: %s; the SCU passed %llu bytes; remote_write completions %llu\n", kLen,
        same ? "arrived intact" : "ARRIVED CHANGED", static_cast<unsigned long long>(bytes),
        static_cast<unsigned long long>(t.get_completed("remote_write")));
    return same && bytes == 2 * kLen ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "aes_ctr: %s\n", e.what());
    return 1;
}
