// SPDX-License-Identifier: MIT
// The selective-repeat test fixture (docs/selective-repeat.md 10.1): two cards with SR on,
// QP 2 on A <-> QP 3 on B, PMTU 1024, A's sq_psn 100, frames recorded.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test::sr {

using Dir = RdmaPair::Dir;
using roce::Opcode;

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kSrc = Node::kVa;
constexpr uint64_t kDst = Node::kVa + 0x80000;
constexpr uint8_t kHello = static_cast<uint8_t>(Opcode::kSrHello);
constexpr uint8_t kHelloAck = static_cast<uint8_t>(Opcode::kSrHelloAck);
constexpr uint8_t sr(Opcode op) { return roce::kSrDataBase + static_cast<uint8_t>(op); }

inline void sr_on(Config& c) { c.sr_default = true; }
inline void sr_off(Config& c) { c.sr_default = false; }
inline void no_sr_card(Config& c) { c.sr_capable = false; }

// Two cards, QP 2 on A <-> QP 3 on B, PMTU 1024, A's sq_psn 100 (section 10.1's set-up).
class RdmaSr : public ::testing::Test {
  protected:
    explicit RdmaSr(const Node::ConfigFn& ta = sr_on, const Node::ConfigFn& tb = sr_on)
        : p(0, 1, 0, "", "", ta, tb) {}
    void SetUp() override {
        p.record = true;
        QpAttrs at;
        at.sq_psn = 100;
        at.rq_psn = 0x200;
        p.setup(kQa, kQb, at);
        a_key = p.a.reg_mr(Node::kVa, 1 << 20, kAll);
        b_key = p.b.reg_mr(Node::kVa, 1 << 20, kAll);
        t0 = p.a.host.now;
    }
    void TearDown() override {
        EXPECT_EQ(p.bad_frames, 0u);
        if (std::getenv("SCENIC_SR_DUMP") != nullptr) {  // the wire, for debugging a test
            for (const auto& r : p.log) {
                std::printf("%s t=%llu op=0x%02x psn=%u ack=%d %s",
                            r.dir == Dir::kAtoB ? "A>B" : "B>A",
                            static_cast<unsigned long long>(r.t_ns), r.opcode, r.psn, r.ackreq,
                            r.delivered ? "" : "DROPPED");
                if (r.sack) {
                    std::printf(" n=%u re=%u", r.sack->n, r.sack->right_edge);
                    for (unsigned i = 0; i < r.sack->n && i < 8; ++i) {
                        std::printf(" (%u,%u)", r.sack->ranges[i].start, r.sack->ranges[i].len);
                    }
                }
                std::printf("\n");
            }
        }
    }
    rdma::Counters& ca() { return p.a.dev.rdma().counters(); }
    rdma::Counters& cb() { return p.b.dev.rdma().counters(); }
    rdma::Qp& qa() { return *p.a.dev.rdma().engine().qp(kQa); }
    rdma::Qp& qb() { return *p.b.dev.rdma().engine().qp(kQb); }
    std::vector<RdmaPair::WireRecord> frames(Dir dir, uint8_t op) const {
        std::vector<RdmaPair::WireRecord> out;
        for (const auto& r : p.log) {
            if (r.dir == dir && r.opcode == op) {
                out.push_back(r);
            }
        }
        return out;
    }
    size_t vendor_frames(Dir dir) const {
        size_t n = 0;
        for (const auto& r : p.log) {
            n += (r.dir == dir && roce::is_sr_vendor(r.opcode)) ? 1 : 0;
        }
        return n;
    }
    // An 8 KiB WRITE from A to B (PSN 100..107 on fresh QPs), data checked on B.
    void write_8k(uint8_t seed) { write(8192, seed); }
    // A WRITE of len bytes from kSrc to kDst + off, run to the end, data checked on B.
    void write(uint32_t len, uint8_t seed, uint64_t off = 0) {
        p.a.fill_va(kSrc, len, seed);
        p.b.fill_va(kDst + off, len, 0);
        const uint64_t done = p.a.sq_completed(kQa);
        p.a.post_send(kQa,
                      make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, len, a_key)}, kDst + off, b_key));
        ASSERT_TRUE(p.run());
        EXPECT_EQ(p.b.read_va(kDst + off, len), p.a.read_va(kSrc, len));
        EXPECT_EQ(p.a.sq_completed(kQa), done + 1);
    }
    // The frames of one direction (data or responses) in wire order.
    std::vector<RdmaPair::WireRecord> dir_frames(Dir dir) const {
        std::vector<RdmaPair::WireRecord> out;
        for (const auto& r : p.log) {
            if (r.dir == dir) {
                out.push_back(r);
            }
        }
        return out;
    }
    // How often PSN psn went from A to B (any data opcode).
    size_t sent(uint32_t psn) const {
        size_t n = 0;
        for (const auto& r : p.log) {
            n += (r.dir == Dir::kAtoB && r.psn == psn && roce::is_sr_data(r.opcode)) ? 1 : 0;
        }
        return n;
    }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
    uint64_t t0 = 0;
};

}  // namespace scenic::test::sr
