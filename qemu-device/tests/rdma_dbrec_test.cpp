// SPDX-License-Identifier: MIT
// Doorbell records (uapi/scenic_rdma.h): the card reads the SQ / RQ producer indices and the CQ
// consumer index from host memory, and the status page's db_skip tells the provider when a
// doorbell write is needed. The rig posts as the provider does (tests/rdma_rig.hpp): record
// first, then the doorbell only when the card has not said it can do without.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
using rdma::kWcFlushErr;
constexpr uint64_t kSrc = Node::kVa;
constexpr uint64_t kDst = Node::kVa + 256 * 1024;

class RdmaDbrec : public ::testing::Test {
  protected:
    void SetUp() override { connect(p); }
    void connect(RdmaPair& pair, unsigned cq_log2 = 10) {
        QpAttrs at;
        pair.setup(kQa, kQb, at, cq_log2);
        a_key = pair.a.reg_mr(Node::kVa, 512 * 1024, kAll);
        b_key = pair.b.reg_mr(Node::kVa, 512 * 1024, kAll);
    }
    const rdma::Counters& counters(Node& n) { return n.dev.rdma().engine().counters(); }

    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(RdmaDbrec, ReceiveWqesComeFromTheRecordWithoutADoorbell) {
    EXPECT_EQ(p.b.db_skip(kQb), uint32_t{SCENIC_QP_DB_SKIP_RQ});  // RTS, nothing in flight
    const size_t rung = p.b.doorbells;
    for (uint32_t i = 0; i < 3; ++i) {
        p.b.post_recv(kQb, {sge(kDst + i * 4096, 4096, b_key)});
    }
    EXPECT_EQ(p.b.doorbells, rung);
    p.a.fill_va(kSrc, 3 * 4096, 0x41);
    for (uint32_t i = 0; i < 3; ++i) {
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc + i * 4096, 1000 + i, a_key)}));
    }
    ASSERT_TRUE(p.run());
    const auto rc = p.b.poll(1);
    ASSERT_EQ(rc.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(rc[i].status, rdma::kWcSuccess);
        EXPECT_EQ(rc[i].byte_len, 1000 + i);
        EXPECT_EQ(p.b.read_va(kDst + i * 4096, 1000 + i), p.a.read_va(kSrc + i * 4096, 1000 + i));
    }
    EXPECT_GT(counters(p.b).dbrec_reads, 0u);
}

TEST_F(RdmaDbrec, WhileRequestsAreInFlightTheSqRecordIsEnough) {
    p.a.fill_va(kSrc, 8 * 16384, 0x52);
    EXPECT_EQ(p.a.db_skip(kQa) & SCENIC_QP_DB_SKIP_SQ, 0u);  // idle: ring
    const size_t rung = p.a.doorbells;
    auto write = [&](uint32_t i) {
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc + i * 16384, 16384, a_key)},
                                    kDst + i * 16384, b_key));
    };
    write(0);
    EXPECT_EQ(p.a.doorbells, rung + 1);
    // A WRITE on the wire, not acknowledged: the card reads the record on its ACK.
    EXPECT_NE(p.a.db_skip(kQa) & SCENIC_QP_DB_SKIP_SQ, 0u);
    for (uint32_t i = 1; i < 8; ++i) {
        write(i);
    }
    EXPECT_EQ(p.a.doorbells, rung + 1);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 8u);
    EXPECT_EQ(p.b.read_va(kDst, 8 * 16384), p.a.read_va(kSrc, 8 * 16384));
    // Everything acknowledged: the card needs the doorbell again, and gets it.
    EXPECT_EQ(p.a.db_skip(kQa) & SCENIC_QP_DB_SKIP_SQ, 0u);
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 64, a_key)}, kDst, b_key));
    EXPECT_EQ(p.a.doorbells, rung + 2);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 9u);
}

TEST_F(RdmaDbrec, EnteringErrFlushesWhatOnlyTheRecordsHold) {
    for (uint32_t i = 0; i < 4; ++i) {
        p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
    }
    for (uint32_t i = 0; i < 3; ++i) {
        ASSERT_EQ(i != 0, (p.a.db_skip(kQa) & SCENIC_QP_DB_SKIP_SQ) != 0);  // then: record
        p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(kSrc, 16384, a_key)}, kDst, b_key));
    }
    ASSERT_EQ(p.a.set_state(kQa, kQpsErr), 0u);
    ASSERT_EQ(p.b.set_state(kQb, kQpsErr), 0u);
    EXPECT_EQ(p.a.db_skip(kQa), 0u);  // ERR: every post must ring, to be flushed
    EXPECT_EQ(p.b.db_skip(kQb), 0u);
    const auto sc = p.a.poll(0);
    ASSERT_EQ(sc.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(sc[i].status, kWcFlushErr);
        EXPECT_EQ(sc[i].wqe_idx, i);
    }
    EXPECT_EQ(p.b.poll(1).size(), 4u);
    p.b.post_recv(kQb, {sge(kDst, 4096, b_key)});  // in ERR: rung, flushed at once
    const auto late = p.b.poll(1);
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].status, kWcFlushErr);
}

TEST_F(RdmaDbrec, TheCqConsumerIndexIsReadFromTheRecordBeforeAnOverrun) {
    RdmaPair q;
    connect(q, 2);  // 4-entry CQs
    const size_t rung = q.b.doorbells;
    auto batch = [&](uint32_t n) {
        for (uint32_t i = 0; i < n; ++i) {
            q.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
            q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 100, a_key)}));
        }
        ASSERT_TRUE(q.run());
    };
    batch(4);
    EXPECT_EQ(q.b.poll(1).size(), 4u);  // the CI goes to the record only
    batch(4);                           // the card learns the CI from the record
    EXPECT_EQ(q.b.r(regs::rdma::kCqOverruns), 0u);
    EXPECT_EQ(q.b.poll(1).size(), 4u);
    EXPECT_EQ(q.b.doorbells, rung);
    batch(5);  // not polled: the fifth does overrun
    EXPECT_EQ(q.b.r(regs::rdma::kCqOverruns), 1u);
}

TEST_F(RdmaDbrec, ARecordBeyondTheRingIsIgnoredAndCounted) {
    RdmaPair q;
    QpAttrs at;
    at.rnr_retry = 2;
    q.setup(kQa, kQb, at);
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t ignored = counters(q.b).db_ignored;
    q.b.post_recv(kQb, {sge(Node::kVa, 4096, bk)});
    q.b.store<uint32_t>(q.b.dbrec(kQb) + offsetof(scenic_qp_dbrec, rq_pi), 1000);  // 256 slots
    q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 100, ak)}));
    ASSERT_TRUE(q.run());
    // Nothing is taken from a record that claims more WQEs than the ring holds: the SEND finds
    // no receive WQE and fails after its RNR retries.
    EXPECT_GT(counters(q.b).db_ignored, ignored);
    EXPECT_TRUE(q.b.poll(1).empty());
    const auto sc = q.a.poll(0);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, rdma::kWcRnrRetryExcErr);
}

TEST_F(RdmaDbrec, WithoutRecordsEveryPostRings) {
    RdmaPair q;
    q.a.use_dbrec = q.b.use_dbrec = false;
    connect(q);
    EXPECT_EQ(q.b.db_skip(kQb), 0u);
    const size_t rung_a = q.a.doorbells;
    const size_t rung_b = q.b.doorbells;
    for (uint32_t i = 0; i < 4; ++i) {
        q.b.post_recv(kQb, {sge(kDst, 4096, b_key)});
        q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(kSrc, 100, a_key)}));
    }
    EXPECT_EQ(q.a.doorbells, rung_a + 4);
    EXPECT_EQ(q.b.doorbells, rung_b + 4);
    ASSERT_TRUE(q.run());
    EXPECT_EQ(q.a.sq_completed(kQa), 4u);
    EXPECT_EQ(q.b.poll(1).size(), 4u);
    EXPECT_EQ(q.a.db_skip(kQa), 0u);
    EXPECT_EQ(counters(q.b).dbrec_reads, 0u);
}

}  // namespace
}  // namespace scenic::test
