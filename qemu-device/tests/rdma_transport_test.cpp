// SPDX-License-Identifier: MIT
// RDMA engine, good paths: WRITE, WRITE_IMM, READ, SEND, SEND_IMM, CAS, FAA between two cards,
// across sizes around the path MTU, unaligned addresses and several SGEs; every frame on the wire
// parses and passes ICRC.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>
#include <vector>

#include "rdma_rig.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kMiB = 1024 * 1024;

// Splits [va, va + len) into up to n SGEs of uneven sizes.
std::vector<scenic_sge> split(uint64_t va, uint32_t len, uint32_t key, unsigned n) {
    std::vector<scenic_sge> out;
    uint32_t done = 0;
    for (unsigned i = 0; i < n && done < len; ++i) {
        const uint32_t part = i + 1 == n ? len - done : std::max(1u, (len - done) / 3);
        out.push_back(sge(va + done, part, key));
        done += part;
    }
    if (out.empty()) {
        out.push_back(sge(va, 0, key));
    }
    return out;
}

class RdmaData : public ::testing::TestWithParam<std::tuple<uint32_t, uint32_t, unsigned>> {
  protected:
    void SetUp() override {
        at.pmtu = std::get<0>(GetParam());
        p.setup(kQa, kQb, at);
        const uint64_t span = 1 * kMiB + 3 * 4096;
        src_key = p.a.reg_mr(Node::kVa, span, kAll);
        dst_key = p.b.reg_mr(Node::kVa, span, kAll);
    }
    void TearDown() override {
        EXPECT_EQ(p.bad_frames, 0u);
        EXPECT_GT(p.frames, 0u);
    }
    uint32_t len() const { return std::get<1>(GetParam()); }
    unsigned nsge() const { return std::get<2>(GetParam()); }

    QpAttrs at;
    RdmaPair p;
    uint32_t src_key = 0;
    uint32_t dst_key = 0;
    static constexpr uint64_t kSrc = Node::kVa + 3;
    static constexpr uint64_t kDst = Node::kVa + 4096 + 5;
};

TEST_P(RdmaData, Write) {
    p.a.fill_va(kSrc, len(), 0x11);
    p.b.fill_va(kDst - 1, len() + 2, 0xee);
    p.a.post_send(
        kQa, make_wqe(SCENIC_WQE_OP_WRITE, split(kSrc, len(), src_key, nsge()), kDst, dst_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, len()), p.a.read_va(kSrc, len()));
    EXPECT_EQ(p.b.read_va(kDst - 1, 1)[0], 0xee);  // nothing outside the target
    EXPECT_EQ(p.b.read_va(kDst + len(), 1)[0],
              static_cast<uint8_t>(0xee + (len() + 1) * 7 + ((len() + 1) >> 8)));
    EXPECT_TRUE(p.a.poll(0).empty());  // success: the counter, no CQE
    EXPECT_TRUE(p.b.poll(1).empty());  // plain WRITE: nothing at the target
}

TEST_P(RdmaData, WriteWithImmediate) {
    p.a.fill_va(kSrc, len(), 0x21);
    p.b.post_recv(kQb, {});
    auto w = make_wqe(SCENIC_WQE_OP_WRITE_IMM, split(kSrc, len(), src_key, nsge()), kDst, dst_key);
    w.imm_data_be = 0x78563412;  // bytes 12 34 56 78 on the wire
    p.a.post_send(kQa, w);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, len()), p.a.read_va(kSrc, len()));
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_RECV_WRITE_IMM);
    EXPECT_EQ(cqes[0].byte_len, len());
    EXPECT_EQ(cqes[0].imm_data_be, 0x78563412u);
    EXPECT_TRUE(cqes[0].flags & SCENIC_CQE_F_IMM);
    EXPECT_EQ(cqes[0].qpn, kQb);
    EXPECT_EQ(cqes[0].src_qp, kQa);
}

TEST_P(RdmaData, Read) {
    p.b.fill_va(kDst, len(), 0x31);
    p.a.fill_va(kSrc - 1, len() + 2, 0xcc);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_READ, split(kSrc, len(), src_key, nsge()), kDst, dst_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.a.read_va(kSrc, len()), p.b.read_va(kDst, len()));
    EXPECT_EQ(p.a.read_va(kSrc - 1, 1)[0], 0xcc);
    EXPECT_TRUE(p.a.poll(0).empty());
}

TEST_P(RdmaData, Send) {
    p.a.fill_va(kSrc, len(), 0x41);
    // Receive buffer: the same size spread over up to 3 SGEs, plus slack in the last one.
    auto rsg = split(kDst, len() + 16, dst_key, std::min(nsge(), 3u));
    p.b.post_recv(kQb, rsg);
    auto w = make_wqe(SCENIC_WQE_OP_SEND_IMM, split(kSrc, len(), src_key, nsge()));
    w.imm_data_be = 0xdeadbeef;
    w.flags = SCENIC_WQE_F_SOLICITED;
    p.a.post_send(kQa, w);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(kDst, len()), p.a.read_va(kSrc, len()));
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcSuccess);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_RECV);
    EXPECT_EQ(cqes[0].byte_len, len());
    EXPECT_EQ(cqes[0].wqe_idx, 0u);
    EXPECT_EQ(cqes[0].imm_data_be, 0xdeadbeefu);
    EXPECT_EQ(cqes[0].flags & (SCENIC_CQE_F_IMM | SCENIC_CQE_F_SOLICITED | SCENIC_CQE_F_SQ),
              SCENIC_CQE_F_IMM | SCENIC_CQE_F_SOLICITED);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, RdmaData,
    ::testing::Values(std::make_tuple(1024u, 0u, 1u), std::make_tuple(1024u, 1u, 1u),
                      std::make_tuple(1024u, 1023u, 2u), std::make_tuple(1024u, 1024u, 1u),
                      std::make_tuple(1024u, 1025u, 3u), std::make_tuple(1024u, 65536u, 16u),
                      std::make_tuple(1024u, uint32_t{kMiB}, 3u), std::make_tuple(256u, 255u, 1u),
                      std::make_tuple(256u, 257u, 2u), std::make_tuple(256u, 10000u, 5u),
                      std::make_tuple(4096u, 4095u, 1u), std::make_tuple(4096u, 4097u, 2u),
                      std::make_tuple(4096u, uint32_t{kMiB}, 1u)),
    [](const auto& info) {
        return "mtu" + std::to_string(std::get<0>(info.param)) + "_len" +
               std::to_string(std::get<1>(info.param)) + "_sge" +
               std::to_string(std::get<2>(info.param));
    });

class RdmaOps : public ::testing::Test {
  protected:
    void SetUp() override {
        p.setup(kQa, kQb);
        a_key = p.a.reg_mr(Node::kVa, 64 * 1024, kAll);
        b_key = p.b.reg_mr(Node::kVa, 64 * 1024, kAll);
    }
    void put64(Node& n, uint64_t va, uint64_t v) {
        n.write_va(va, std::span(reinterpret_cast<const uint8_t*>(&v), 8));
    }
    uint64_t get64(Node& n, uint64_t va) {
        const auto b = n.read_va(va, 8);
        uint64_t v = 0;
        std::memcpy(&v, b.data(), 8);
        return v;
    }
    RdmaPair p;
    uint32_t a_key = 0;
    uint32_t b_key = 0;
};

TEST_F(RdmaOps, CompareAndSwapAndFetchAdd) {
    const uint64_t target = Node::kVa + 4096 + 8;
    const uint64_t result = Node::kVa + 16;
    put64(p.b, target, 1000);
    auto cas = make_wqe(SCENIC_WQE_OP_ATOMIC_CAS, {sge(result, 8, a_key)}, target, b_key);
    cas.compare_add = 1000;
    cas.swap = 2000;
    p.a.post_send(kQa, cas);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(get64(p.a, result), 1000u);
    EXPECT_EQ(get64(p.b, target), 2000u);
    cas.compare_add = 1;  // does not match: no swap, original returned
    cas.swap = 3;
    p.a.post_send(kQa, cas);
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(result + 8, 8, a_key)}, target, b_key);
    faa.compare_add = 5;
    p.a.post_send(kQa, faa);
    ASSERT_TRUE(p.run());
    EXPECT_EQ(get64(p.a, result), 2000u);
    EXPECT_EQ(get64(p.a, result + 8), 2000u);
    EXPECT_EQ(get64(p.b, target), 2005u);
    EXPECT_EQ(p.a.sq_completed(kQa), 3u);
    EXPECT_EQ(p.bad_frames, 0u);
}

TEST_F(RdmaOps, MisalignedAtomicIsAnInvalidRequest) {
    auto faa = make_wqe(SCENIC_WQE_OP_ATOMIC_FAA, {sge(Node::kVa, 8, a_key)}, Node::kVa + 4, b_key);
    p.a.post_send(kQa, faa);
    ASSERT_TRUE(p.run());
    const auto cqes = p.a.poll(0);
    ASSERT_EQ(cqes.size(), 1u);
    EXPECT_EQ(cqes[0].status, rdma::kWcRemInvReqErr);
    EXPECT_EQ(cqes[0].opcode, SCENIC_CQE_OP_ATOMIC_FAA);
}

TEST_F(RdmaOps, InlineSendAndManyWqesInOrder) {
    std::vector<uint8_t> msg(200);
    for (size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 3);
    for (int i = 0; i < 40; ++i) {
        p.b.post_recv(kQb, {sge(Node::kVa + uint64_t(i) * 256, 256, b_key)});
    }
    for (int i = 0; i < 40; ++i) {
        scenic_sq_wqe w{};
        w.opcode = SCENIC_WQE_OP_SEND;
        w.flags = SCENIC_WQE_F_INLINE;
        w.length = static_cast<uint32_t>(msg.size() - i);
        std::memcpy(w.inline_data, msg.data(), w.length);
        p.a.put_send(kQa, w);
    }
    p.a.ring_sq(kQa);  // one doorbell for all of them
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 40u);
    const auto cqes = p.b.poll(1);
    ASSERT_EQ(cqes.size(), 40u);
    for (uint32_t i = 0; i < 40; ++i) {
        EXPECT_EQ(cqes[i].wqe_idx, i);
        EXPECT_EQ(cqes[i].byte_len, msg.size() - i);
        EXPECT_EQ(p.b.read_va(Node::kVa + i * 256, msg.size() - i),
                  std::vector<uint8_t>(msg.begin(), msg.end() - i));
    }
    EXPECT_EQ(p.bad_frames, 0u);
}

TEST_F(RdmaOps, UdpSourcePortIsTheQpnPairHashAndIpv4Addressing) {
    std::vector<roce::ParsedPacket> seen;
    p.drop = [&](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
        if (d == RdmaPair::Dir::kAtoB) seen.push_back(pkt);
        return false;
    };
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 64, a_key)}, Node::kVa, b_key));
    ASSERT_TRUE(p.run());
    ASSERT_FALSE(seen.empty());
    const auto& pkt = seen[0];
    EXPECT_EQ(pkt.udp.sport, roce::rdma_get_udp_sport(0, kQa, kQb));
    EXPECT_EQ(pkt.udp.sport & 0xc000, 0xc000);
    ASSERT_TRUE(pkt.ipv4);
    EXPECT_EQ(pkt.ipv4->dst, (roce::Ipv4Addr{10, 0, 0, 2}));
    EXPECT_EQ(pkt.eth.src, p.a.mac);
    EXPECT_EQ(pkt.eth.dst, p.b.mac);
    EXPECT_EQ(pkt.transport.bth.dest_qp, kQb);
    EXPECT_EQ(pkt.transport.bth.psn, QpAttrs{}.sq_psn);
}

TEST_F(RdmaOps, ArmedCqsNotifyOnVectorTwoThenDisarm) {
    p.a.arm(0);
    p.b.arm(1);
    p.b.post_recv(kQb, {sge(Node::kVa, 64, b_key)});
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, 64, a_key)}));
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 64, a_key)}, Node::kVa, b_key));
    ASSERT_TRUE(p.run());
    EXPECT_EQ(p.a.sq_completed(kQa), 2u);
    EXPECT_EQ(p.a.count_events(kEvCq), 1u);  // send counter advance; then disarmed
    EXPECT_EQ(p.b.count_events(kEvCq), 1u);
    EXPECT_EQ(p.b.events.back().id, 1u);
    EXPECT_NE(std::ranges::count(p.a.host.irqs, regs::kVecRdma), 0);
}

TEST_F(RdmaOps, CqPhaseBitAcrossWraps) {
    // A 4-entry CQ polled after every two receives: 23 CQEs go round it almost 6 times.
    RdmaPair q;
    for (Node* n : {&q.a, &q.b}) {
        n->create_cq(0, 2);
        n->create_cq(1, 2);
    }
    q.a.create_qp(kQa, 0, 1);
    q.b.create_qp(kQb, 0, 1);
    QpAttrs bt;
    bt.sq_psn = QpAttrs{}.rq_psn;
    bt.rq_psn = QpAttrs{}.sq_psn;
    q.a.connect(kQa, q.b, kQb, QpAttrs{}, bt);
    q.b.connect(kQb, q.a, kQa, bt, QpAttrs{});
    const uint32_t ak = q.a.reg_mr(Node::kVa, 4096, kAll);
    const uint32_t bk = q.b.reg_mr(Node::kVa, 4096, kAll);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < 23; ++i) {
        q.b.post_recv(kQb, {sge(Node::kVa, 64, bk)});
        q.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa, uint32_t{i}, ak)}));
        ASSERT_TRUE(q.run());
        if (i % 2 == 1 || i == 22) {
            for (const auto& c : q.b.poll(1)) {
                EXPECT_EQ(c.wqe_idx, seen);
                EXPECT_EQ(c.byte_len, seen);
                ++seen;
            }
        }
    }
    EXPECT_EQ(seen, 23u);
    EXPECT_EQ(q.b.r(regs::rdma::kCqOverruns), 0u);
}

}  // namespace
}  // namespace scenic::test
