// SPDX-License-Identifier: MIT
// Loopback (issue 18): two QPs of one card talk to each other through the card's own MAC / GID.
// The queue itself (depth, budget, order): LoopbackQueue.
// Every frame turns around inside the card (rdma_loopback), none reaches the wire, and the RC
// rules hold as between two cards: data, completions, ACKs, RNR NAKs, atomics, NAKs, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kA = Node::kVa + 3;                // QP a's buffers
constexpr uint64_t kB = Node::kVa + 2 * 1024 * 1024;  // QP b's, 2 MiB further
constexpr uint64_t kSpan = 4 * 1024 * 1024;

class Loopback : public ::testing::Test {
  protected:
    explicit Loopback(QpAttrs at = {}) : at_(at) {}
    void SetUp() override {
        n.host.on_send = [this](std::span<const uint8_t>) { ++wire_frames; };
        n.create_cq(0, 12);
        n.create_cq(1, 12);
        n.create_qp(kQa, 0, 1);
        n.create_qp(kQb, 0, 1);
        QpAttrs bt = at_;
        bt.sq_psn = at_.rq_psn;
        bt.rq_psn = at_.sq_psn;
        n.connect(kQa, n, kQb, at_, bt);
        n.connect(kQb, n, kQa, bt, at_);
        key = n.reg_mr(Node::kVa, kSpan, kAll);
    }
    void TearDown() override {
        EXPECT_EQ(wire_frames, 0u) << "a frame to the card itself went out on the wire";
        EXPECT_EQ(n.r(regs::rdma::kRxDropIcrc), 0u);
        EXPECT_EQ(n.r(regs::rdma::kRxDropMalformed), 0u);
    }

    // One card alone: its timer runs until it is idle; false if a bound was hit.
    bool run(uint64_t max_ns = 2'000'000'000) {
        const uint64_t start = n.host.now;
        for (size_t step = 0; step < 2'000'000; ++step) {
            n.service_events();
            if (!n.host.timer) {
                return true;
            }
            if (*n.host.timer - start > max_ns) {
                return false;
            }
            n.host.now = std::max(*n.host.timer, n.host.now);
            n.host.timer.reset();
            n.dev.timer_fire();
        }
        return false;
    }
    void put64(uint64_t va, uint64_t v) {
        n.write_va(va, std::span(reinterpret_cast<const uint8_t*>(&v), 8));
    }
    uint64_t get64(uint64_t va) {
        const auto b = n.read_va(va, 8);
        uint64_t v = 0;
        std::memcpy(&v, b.data(), 8);
        return v;
    }
    uint32_t frames() const { return n.r(regs::rdma::kLoopbackFrames); }

    QpAttrs at_;
    Node n{1};
    uint32_t key = 0;
    size_t wire_frames = 0;
};

TEST_F(Loopback, SendRecvBothWays) {
    n.fill_va(kA, 3000, 0x21);
    n.fill_va(kB + 8192, 777, 0x42);
    n.post_recv(kQb, {sge(kB, 4096, key)});
    n.post_recv(kQa, {sge(kA + 8192, 1024, key)});
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kA, 3000, key)}));
    n.post_send(kQb, make_wqe(SCENIC_WQE_OP_SEND, {sge(kB + 8192, 777, key)}));
    ASSERT_TRUE(run());
    EXPECT_EQ(n.read_va(kB, 3000), n.read_va(kA, 3000));
    EXPECT_EQ(n.read_va(kA + 8192, 777), n.read_va(kB + 8192, 777));
    const auto rx = n.poll(1);
    ASSERT_EQ(rx.size(), 2u);
    for (const scenic_cqe& c : rx) {
        EXPECT_EQ(c.status, rdma::kWcSuccess);
        EXPECT_EQ(c.opcode, SCENIC_CQE_OP_RECV);
        EXPECT_EQ(c.byte_len, c.qpn == kQb ? 3000u : 777u);
        EXPECT_EQ(c.src_qp, c.qpn == kQb ? kQa : kQb);
    }
    EXPECT_EQ(n.sq_completed(kQa), 1u);
    EXPECT_EQ(n.sq_completed(kQb), 1u);
    EXPECT_TRUE(n.poll(0).empty());
    // 3 + 1 requests (PMTU 1024) and at least one ACK each way.
    EXPECT_GE(frames(), 6u);
    EXPECT_EQ(n.r(regs::rdma::kLoopbackDrops), 0u);
    EXPECT_EQ(n.r(regs::rdma::kRxPkts), frames());
    EXPECT_EQ(n.r(regs::rdma::kTxPkts), frames());
}

TEST_F(Loopback, WriteAndReadLarge) {
    constexpr uint32_t kLen = 256 * 1024 + 13;
    n.fill_va(kA, kLen, 0x5);
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kA, kLen, key)}, kB + 1, key));
    ASSERT_TRUE(run());
    EXPECT_EQ(n.read_va(kB + 1, kLen), n.read_va(kA, kLen));
    n.fill_va(kB + 600 * 1024, kLen, 0x77);
    n.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(kA + 600 * 1024, kLen, key)}, kB + 600 * 1024, key));
    ASSERT_TRUE(run());
    EXPECT_EQ(n.read_va(kA + 600 * 1024, kLen), n.read_va(kB + 600 * 1024, kLen));
    EXPECT_EQ(n.sq_completed(kQa), 2u);
    EXPECT_TRUE(n.poll(0).empty());
    EXPECT_GE(frames(), 2u * (kLen / 1024));
}

TEST_F(Loopback, AtomicsExactFromBothQps) {
    const uint64_t word = kB + 5 + 64 - ((kB + 5) % 8);  // 8-byte aligned
    put64(word, 1000);
    auto cas = make_wqe(SCENIC_WQE_OP_ATOMIC_CAS, {sge(kA + 1024, 8, key)}, word, key);
    cas.compare_add = 1000;
    cas.swap = 2000;
    n.post_send(kQa, cas);
    ASSERT_TRUE(run());
    EXPECT_EQ(get64(kA + 1024), 1000u);
    EXPECT_EQ(get64(word), 2000u);
    cas.compare_add = 1;  // no match: no swap, the original returned
    cas.swap = 3;
    n.post_send(kQa, cas);
    ASSERT_TRUE(run());
    EXPECT_EQ(get64(kA + 1024), 2000u);
    EXPECT_EQ(get64(word), 2000u);
    // Both QPs add to the same word (each targets memory of the one card): the exact sum.
    for (int i = 0; i < 50; ++i) {
        auto fa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kA + 2048 + i * 8, 8, key)}, word, key);
        fa.compare_add = 1;
        n.put_send(kQa, fa);
        auto fb = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(kB + 4096 + i * 8, 8, key)}, word, key);
        fb.compare_add = 100;
        n.put_send(kQb, fb);
    }
    n.ring_sq(kQa);
    n.ring_sq(kQb);
    ASSERT_TRUE(run());
    EXPECT_EQ(get64(word), 2000u + 50 * 101);
    EXPECT_EQ(n.sq_completed(kQa), 52u);
    EXPECT_EQ(n.sq_completed(kQb), 50u);
    // Each fetched value is distinct: every add saw the one before it.
    std::vector<uint64_t> seen;
    for (int i = 0; i < 50; ++i) {
        seen.push_back(get64(kA + 2048 + i * 8));
        seen.push_back(get64(kB + 4096 + i * 8));
    }
    std::ranges::sort(seen);
    EXPECT_EQ(std::ranges::adjacent_find(seen), seen.end());
    EXPECT_TRUE(n.poll(0).empty());
}

TEST_F(Loopback, RnrUntilAReceiveIsPosted) {
    n.fill_va(kA, 100, 0x9);
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kA, 100, key)}));
    EXPECT_FALSE(run(5'000'000));  // rnr_retry 7: retries without end while no receive is posted
    EXPECT_GT(n.r(regs::rdma::kRnrNakSent), 0u);
    EXPECT_EQ(n.r(regs::rdma::kRnrNakRcvd), n.r(regs::rdma::kRnrNakSent));
    EXPECT_EQ(n.sq_completed(kQa), 0u);
    EXPECT_TRUE(n.poll(1).empty());
    n.post_recv(kQb, {sge(kB, 256, key)});
    ASSERT_TRUE(run());
    EXPECT_EQ(n.sq_completed(kQa), 1u);
    const auto rx = n.poll(1);
    ASSERT_EQ(rx.size(), 1u);
    EXPECT_EQ(rx[0].status, rdma::kWcSuccess);
    EXPECT_EQ(rx[0].byte_len, 100u);
    EXPECT_EQ(n.read_va(kB, 100), n.read_va(kA, 100));
}

TEST_F(Loopback, BadRkeyIsARemoteAccessError) {
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kA, 64, key)}, kB, key ^ 0x100));
    ASSERT_TRUE(run());
    const auto cqes = n.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].qpn, kQa);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemAccessErr);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_WRITE);
    EXPECT_EQ(n.r(regs::rdma::kRemAccessErr), 1u);
    EXPECT_EQ(n.status_state(kQa), rdma::kQpsErr);
}

class LoopbackShortRetry : public Loopback {
  protected:
    LoopbackShortRetry() : Loopback(short_retry()) {}
    static QpAttrs short_retry() {
        QpAttrs at;
        at.retry_cnt = 2;
        return at;
    }
};

TEST_F(LoopbackShortRetry, PeerInErrorEndsInRetryExceeded) {
    ASSERT_EQ(n.set_state(kQb, kQpsErr), 0u);
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kA, 64, key)}, kB, key));
    ASSERT_TRUE(run());
    const auto cqes = n.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].qpn, kQa);
    EXPECT_EQ(cqes[0].status, rdma::kWcRetryExcErr);
    EXPECT_EQ(n.r(regs::rdma::kRxDropQp), 3u);  // the first send and 2 retries, never answered
    EXPECT_EQ(n.status_state(kQa), rdma::kQpsErr);
}

class LoopbackSmallMtu : public Loopback {
  protected:
    LoopbackSmallMtu() : Loopback(small_mtu()) {}
    static QpAttrs small_mtu() {
        QpAttrs at;
        at.pmtu = 256;
        return at;
    }
};

// Thousands of small frames from several QP pairs at once pass through the queue; every byte
// arrives. (The card's window keeps the queue from filling here: BoundedQueue tests a full one.)
TEST_F(LoopbackSmallMtu, ManyQpsThousandsOfFrames) {
    constexpr uint32_t kLen = 256 * 1024;
    constexpr uint32_t kPairs = 4;
    QpAttrs at = small_mtu();
    QpAttrs bt = at;
    bt.sq_psn = at.rq_psn;
    bt.rq_psn = at.sq_psn;
    for (uint32_t i = 0; i < kPairs; ++i) {
        const uint32_t qa = 10 + 2 * i;
        n.create_qp(qa, 0, 1);
        n.create_qp(qa + 1, 0, 1);
        n.connect(qa, n, qa + 1, at, bt);
        n.connect(qa + 1, n, qa, bt, at);
        n.fill_va(kA + i * kLen, kLen, static_cast<uint8_t>(0x30 + i));
        n.post_send(
            qa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kA + i * kLen, kLen, key)}, kB + i * kLen, key));
    }
    ASSERT_TRUE(run());
    for (uint32_t i = 0; i < kPairs; ++i) {
        EXPECT_EQ(n.read_va(kB + i * kLen, kLen), n.read_va(kA + i * kLen, kLen)) << "pair " << i;
        EXPECT_EQ(n.sq_completed(10 + 2 * i), 1u);
    }
    EXPECT_TRUE(n.poll(0).empty());
    EXPECT_GT(frames(), kPairs * kLen / 256);
    EXPECT_EQ(n.r(regs::rdma::kLoopbackDrops), 0u);
}

// The block alone: a fixed depth (the overflow dropped and counted), kBudget frames per timer
// run in order, frames pushed while draining wait for the next run (no unbounded loop).
TEST(LoopbackQueue, BoundedQueue) {
    RdmaHost host;
    EventQueue events(host);
    rdma::Counters cnt;
    Config config;
    std::vector<uint32_t> got;
    rdma::Loopback* self = nullptr;
    rdma::Loopback lb(config, events, cnt, [&](std::span<const uint8_t> f) {
        uint32_t v = 0;
        std::memcpy(&v, f.data(), sizeof v);
        got.push_back(v);
        if (v == 0) {
            self->push(std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff});  // a reply to the first
        }
    });
    self = &lb;
    constexpr size_t kExtra = 7;
    for (uint32_t i = 0; i < rdma::Loopback::kDepth + kExtra; ++i) {
        std::vector<uint8_t> f(4);
        std::memcpy(f.data(), &i, sizeof i);
        lb.push(std::move(f));
    }
    EXPECT_EQ(cnt.loopback_frames, rdma::Loopback::kDepth);
    EXPECT_EQ(cnt.loopback_drops, kExtra);
    EXPECT_TRUE(got.empty());  // nothing delivered inside push
    ASSERT_TRUE(host.timer.has_value());
    events.fire();
    EXPECT_EQ(got.size(), rdma::Loopback::kBudget);
    // The reply pushed during the run found room (one slot freed) and waits at the tail.
    EXPECT_EQ(lb.queued(), rdma::Loopback::kDepth - rdma::Loopback::kBudget + 1);
    for (int i = 0; i < 16 && host.timer; ++i) {
        EXPECT_EQ(*host.timer, host.now + rdma::Loopback::kRunGapNs);  // the next run, not now
        host.now = *host.timer;
        events.fire();
    }
    EXPECT_EQ(lb.queued(), 0u);
    ASSERT_EQ(got.size(), rdma::Loopback::kDepth + 1);
    for (uint32_t i = 0; i < rdma::Loopback::kDepth; ++i) {
        EXPECT_EQ(got[i], i);
    }
    EXPECT_EQ(got.back(), 0xffffffffu);
    EXPECT_EQ(cnt.loopback_frames, rdma::Loopback::kDepth + 1);
    EXPECT_FALSE(host.timer.has_value());
}

TEST_F(Loopback, ResetDropsTheQueue) {
    n.fill_va(kA, 8192, 0x1);
    n.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kA, 8192, key)}, kB, key));
    EXPECT_GT(n.dev.rdma().engine().loopback().queued(), 0u);  // not delivered inside TX
    n.dev.reset();
    EXPECT_EQ(n.dev.rdma().engine().loopback().queued(), 0u);
    EXPECT_FALSE(n.host.timer.has_value());
}

}  // namespace
}  // namespace scenic::test
