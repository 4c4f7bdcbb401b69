// SPDX-License-Identifier: MIT
// One SCENIC card on a FakeHost with a minimal driver for the containment tests: a CQ, QPs whose
// rings, status pages and doorbell records live in the fake host memory (or wherever a test puts
// them, e.g. over the card's own BAR0), commands through the admin queue, SENDs posted and rung as
// the provider does, and frames built towards the card as its peer would send them.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "aq_driver.hpp"
#include "fake_host.hpp"
#include "scenic/device.hpp"
#include "scenic/regs.hpp"
#include "scenic/roce/packet.hpp"
#include "uapi/scenic_rdma.h"

namespace scenic::test {

class Card {
  public:
    static constexpr std::array<uint8_t, 6> kMac{0x02, 0x5c, 0, 0, 0, 1};
    static constexpr std::array<uint8_t, 6> kPeerMac{0x02, 0x5c, 0, 0, 0, 2};
    static constexpr unsigned kLog2 = 4;                        // 16-entry rings
    static constexpr uint64_t kCq = FakeHost::kBase + 0x10000;  // 256 CQEs
    static constexpr uint64_t kSq = FakeHost::kBase + 0x2000;   // 16 * 512 bytes
    static constexpr uint64_t kRq = FakeHost::kBase + 0x6000;
    static constexpr uint64_t kStatus = FakeHost::kBase + 0x7000;
    static constexpr uint64_t kDbrec = FakeHost::kBase + 0x8000;
    static constexpr uint32_t kQpn = 2;
    static constexpr uint32_t kPeerQpn = 9;
    static constexpr uint32_t kSqPsn = 0x100;

    // The admin queue and event rings, above what the tests use.
    static constexpr uint64_t kAqSq = FakeHost::kBase + 0x20000;
    static constexpr uint64_t kAqCq = FakeHost::kBase + 0x20800;
    static constexpr uint64_t kAeq = FakeHost::kBase + 0x21000;  // 256 entries
    static constexpr uint64_t kCeq = FakeHost::kBase + 0x23000;  // 256 entries

    Card() : dev(config(), host) {
        AqDriver::Layout l;
        l.sq = kAqSq;
        l.cq = kAqCq;
        l.aeq = kAeq;
        l.ceq = kCeq;
        l.aq_log2 = 4;
        l.aeq_log2 = 8;
        l.ceq_log2 = 8;
        aq.setup(l);
        w(regs::rdma::kCtrl, 1);
    }

    static Config config() {
        Config c;
        c.mac = kMac;
        return c;
    }

    uint32_t r(uint32_t off) const {
        return static_cast<uint32_t>(dev.mmio_read(regs::rdma::kOffset + off, 4));
    }
    void w(uint32_t off, uint32_t v) { dev.mmio_write(regs::rdma::kOffset + off, v, 4); }
    // A command through the admin queue (arguments in the old mailbox order: encode_cmd).
    uint32_t cmd(uint32_t op, std::initializer_list<uint32_t> args) {
        const CmdResult res = aq.exec(encode_cmd(op, args), &last);
        return st(res.status);
    }
    static uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
    static uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

    void create_cq() { ASSERT_EQ(cmd(kOpCreateCq, {0, lo(kCq), hi(kCq), kLog2 + 4, 0, 0}), 0u); }
    uint32_t create_qp(uint64_t status = kStatus, uint64_t dbrec = 0) {
        return cmd(kOpCreateQp, {kQpn, lo(kSq), hi(kSq), kLog2, lo(kRq), hi(kRq), kLog2, 0, 0, 1, 0,
                                 lo(status), hi(status), lo(dbrec), hi(dbrec)});
    }
    uint32_t modify(std::initializer_list<uint32_t> args) { return cmd(kOpModifyQp, args); }
    // RESET -> INIT -> RTR -> RTS towards the peer (10.0.0.2, QP kPeerQpn).
    void to_rts(uint32_t timeout, uint32_t retry_cnt, uint32_t rnr_retry) {
        ASSERT_EQ(modify({kQpn, kAttrState, kQpsInit}), 0u);
        const std::array<uint8_t, 16> dgid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
        const std::array<uint8_t, 16> sgid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
        std::array<uint32_t, 4> d{};
        std::array<uint32_t, 4> s{};
        std::memcpy(d.data(), dgid.data(), 16);
        std::memcpy(s.data(), sgid.data(), 16);
        const auto& m = kPeerMac;
        const uint32_t mask = kAttrState | kAttrDestQpn | kAttrRqPsn | kAttrPathMtu | kAttrTimeout |
                              kAttrRetryCnt | kAttrRnrRetry | kAttrMinRnrTimer | kAttrAv;
        ASSERT_EQ(modify({kQpn,
                          mask,
                          kQpsRtr,
                          kPeerQpn,
                          0,
                          0x200,
                          1024,
                          timeout | retry_cnt << 8 | rnr_retry << 16 | 1u << 24,
                          0,
                          d[0],
                          d[1],
                          d[2],
                          d[3],
                          s[0],
                          s[1],
                          s[2],
                          s[3],
                          uint32_t{m[2]} << 24 | uint32_t{m[3]} << 16 | uint32_t{m[4]} << 8 | m[5],
                          uint32_t{m[0]} << 8 | m[1] | 64u << 16,
                          0x80000000u}),
                  0u);
        ASSERT_EQ(modify({kQpn, kAttrState | kAttrSqPsn, kQpsRts, 0, kSqPsn}), 0u);
    }
    // Puts a zero-length SEND in the next SQ slot and rings the SQ doorbell.
    void post_send() {
        scenic_sq_wqe wqe{};
        wqe.opcode = SCENIC_WQE_OP_SEND;
        const uint64_t slot = kSq + uint64_t{sq_pi & ((1u << kLog2) - 1)} * SCENIC_SQ_WQE_BYTES;
        std::memcpy(&host.mem[slot - FakeHost::kBase], &wqe, sizeof wqe);
        ++sq_pi;
        db_sq(sq_pi);
    }
    void db_sq(uint32_t v) { dev.db_write(uint64_t{kQpn} * 4096 + SCENIC_DB_SQ, v, 4); }
    // CQEs written since the last poll (owner bit = phase of the consumer index).
    std::vector<scenic_cqe> poll() {
        std::vector<scenic_cqe> out;
        constexpr unsigned log2 = kLog2 + 4;
        for (;;) {
            scenic_cqe cqe{};
            const uint64_t slot = kCq + uint64_t{ci & ((1u << log2) - 1)} * SCENIC_CQE_BYTES;
            std::memcpy(&cqe, &host.mem[slot - FakeHost::kBase], sizeof cqe);
            if ((cqe.flags & SCENIC_CQE_F_OWNER) != (((ci >> log2) & 1) ^ 1)) {
                break;
            }
            out.push_back(cqe);
            ++ci;
        }
        dev.db_write(uint64_t{regs::rdma::kMaxQpDefault} * 4096 + SCENIC_DB_CQ_CI, ci, 4);
        return out;
    }
    // QUERY_QP: {status, state}.
    std::pair<uint32_t, uint32_t> query() {
        const uint32_t s = cmd(kOpQueryQp, {kQpn});
        return {
            s,
            admin::AcqQueryQp<const uint8_t>(std::span<const uint8_t, kAqCqeBytes>(last)).state()};
    }
    // A frame from the peer's QP to ours, as the peer would build it.
    static std::vector<uint8_t> from_peer(roce::Transport t) {
        roce::PathContext p;
        p.src_mac = kPeerMac;
        p.dst_mac = kMac;
        p.src_ip = {10, 0, 0, 2};
        p.dst_ip = {10, 0, 0, 1};
        t.bth.dest_qp = kQpn;
        auto built = roce::build_frame(p, t, {});
        EXPECT_TRUE(built.ok());
        return built.frame;
    }
    const rdma::Counters& counters() { return dev.rdma().counters(); }

    FakeHost host;
    Device dev;
    AqDriver aq{dev, [this](uint64_t a) { return &host.mem[a - FakeHost::kBase]; },
                [this] {
                    if (!host.timer || *host.timer > host.now) {
                        return false;
                    }
                    host.timer.reset();
                    dev.timer_fire();
                    return true;
                }};
    AqResult last{};
    uint32_t sq_pi = 0;
    uint32_t ci = 0;
};

}  // namespace scenic::test
