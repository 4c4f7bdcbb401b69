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

#include "loopback_rc.hpp"
#include "scenic/scenic.hpp"

namespace {

using scenic_example::completed;
using scenic_example::connect;
using scenic_example::roce_v2_gid;

// aes-ctr's CSRs (hw-rtl/scu/aes_ctr/scu.toml)
constexpr uint32_t kKeyHi = 0, kKeyLo = 1, kIvTxHi = 2, kIvTxLo = 3, kIvRxHi = 4, kIvRxLo = 5;
constexpr uint32_t kQpnMask = 6, kCtrl = 7, kId = 8, kBytes = 10;
constexpr uint64_t kCtrlTxRx = 3;
constexpr uint64_t kAesId = 0x5343554145533031;  // "SCUAES01"

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
    if (ibv_post_send(a.qp(), &wr, &bad) != 0 || !completed(a.cq(), 10)) {
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
