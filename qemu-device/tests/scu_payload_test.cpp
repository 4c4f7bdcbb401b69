// SPDX-License-Identifier: MIT
// RDMA payload through a QP's SCU slot (docs/scu.md 2.1, 3, 5): the passthrough gives the
// bytes back unchanged and counts them; the keyed-XOR test kind changes them exactly as its
// key says, on TX at the sender and on RX at the receiver, so the same key on both cards
// round-trips; a load or unload in the middle of traffic holds the slot's QPs (TX back-pressure,
// RX RNR NAKs) and they resume without loss, reordering or error completions.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/scu_passthrough.hpp"
#include "scenic/scu_slots.hpp"
#include "scenic/scu_xor.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

constexpr uint32_t kQa = 2;
constexpr uint32_t kQb = 3;
constexpr uint64_t kKeyAb = 0x0123'4567'89ab'cdefULL;  // A's TX, B's RX
constexpr uint64_t kKeyBa = 0xf00d'cafe'5a5a'a5a5ULL;  // B's TX (READ responses), A's RX

using scu::Dir;
using scu::XorTest;

class ScuPayload : public ::testing::Test {
  protected:
    // QP kQa on slot `scu_a` of card a, kQb on slot `scu_b` of card b (PMTU 1024).
    void setup(uint32_t scu_a, uint32_t scu_b) {
        p.setup(kQa, kQb, {}, 10, false, scu_a, scu_b);
        ka = p.a.reg_mr(Node::kVa, 256 * 1024, kAll);
        kb = p.b.reg_mr(Node::kVa, 256 * 1024, kAll);
    }
    // Starts loading the XOR test kind into `slot` of n (the load ends after RECONFIG_US).
    static void load_xor(Node& n, unsigned slot) {
        const std::vector<uint8_t> payload(32, 0x42);
        ASSERT_EQ(n.dev.scu().slots().load(slot, make_scu_image(scu::kKindXorTest, 1, payload)),
                  admin::ScuStatus::kOk);
    }
    static void set_csr(Node& n, unsigned slot, uint32_t index, uint64_t v) {
        n.dev.scu().slots().csr_window_write(uint64_t{slot} * scu::kCsrWindowBytes + 8 * index, v,
                                             8);
    }
    static uint64_t csr(Node& n, unsigned slot, uint32_t index) {
        return n.dev.scu().slots().csr_window_read(
            uint64_t{slot} * scu::kCsrWindowBytes + 8 * index, 8);
    }
    static const scu::SlotCounters& cnt(Node& n, unsigned slot) {
        return n.dev.scu().slots().counters(slot);
    }
    // The XOR kind's output for `data`, the message's bytes from offset 0.
    static std::vector<uint8_t> xored(std::vector<uint8_t> data, uint64_t key) {
        for (size_t i = 0; i < data.size(); ++i) {
            data[i] = XorTest::apply(key, i, data[i]);
        }
        return data;
    }
    // Both cards loaded and keyed: A's slot sa and B's slot sb.
    void load_both(unsigned sa, unsigned sb) {
        load_xor(p.a, sa);
        load_xor(p.b, sb);
        ASSERT_TRUE(p.run());
        ASSERT_EQ(p.a.dev.scu().slots().slot(sa).image().kind, scu::kKindXorTest);
        ASSERT_EQ(p.b.dev.scu().slots().slot(sb).image().kind, scu::kKindXorTest);
    }
    void expect_no_error_cqes() {
        for (Node* n : {&p.a, &p.b}) {
            for (const scenic_cqe& c : n->poll(0)) {
                EXPECT_EQ(c.status, 0u) << "send CQE with an error";
            }
        }
    }

    RdmaPair p;
    uint32_t ka = 0, kb = 0;
};

TEST_F(ScuPayload, PassthroughGivesTheBytesBackAndCountsThem) {
    setup(1, 1);
    p.a.fill_va(Node::kVa, 3000, 9);
    p.b.fill_va(Node::kVa + 65536, 2500, 77);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 3000, ka)}, Node::kVa + 8192, kb));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa + 16384, 2500, ka)},
                                Node::kVa + 65536, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 2u);
    expect_no_error_cqes();
    EXPECT_EQ(p.b.read_va(Node::kVa + 8192, 3000), p.a.read_va(Node::kVa, 3000));
    EXPECT_EQ(p.a.read_va(Node::kVa + 16384, 2500), p.b.read_va(Node::kVa + 65536, 2500));

    // WRITE: 3 packets (PMTU 1024) out of A's slot 1 and into B's; READ: 3 responses back.
    const auto& a = cnt(p.a, 1);
    const auto& b = cnt(p.b, 1);
    const auto tx = static_cast<unsigned>(Dir::kTx);
    const auto rx = static_cast<unsigned>(Dir::kRx);
    EXPECT_EQ(a.pkts_in[tx], 3u);
    EXPECT_EQ(a.pkts_out[tx], 3u);
    EXPECT_EQ(a.bytes_in[tx], 3000u);
    EXPECT_EQ(a.bytes_out[tx], 3000u);
    EXPECT_EQ(b.pkts_in[rx], 3u);
    EXPECT_EQ(b.bytes_out[rx], 3000u);
    EXPECT_EQ(b.bytes_in[tx], 2500u);   // READ responses at the responder
    EXPECT_EQ(a.bytes_out[rx], 2500u);  // and at the requester
    EXPECT_EQ(a.violations + b.violations, 0u);
    // The passthrough's own counters saw the same packets.
    EXPECT_EQ(csr(p.a, 1, scu::Passthrough::kPkts), 6u);
    EXPECT_EQ(csr(p.a, 1, scu::Passthrough::kBytes), 5500u);
}

// The XOR kind's memory-port CSRs (docs/scu.md 8): one 8-byte read or write through the slot's
// checks. It reaches an MR of the bound PD, and nothing of another PD or once unbound.
TEST_F(ScuPayload, XorMemoryPortReachesOnlyTheBoundPd) {
    setup(0, 0);
    const uint32_t other = p.a.reg_mr(Node::kVa + 128 * 1024, 4096, kAll, true, Node::kPd + 1);
    p.a.fill_va(Node::kVa, 64, 5);
    p.a.fill_va(Node::kVa + 128 * 1024, 64, 99);
    load_xor(p.a, 4);
    ASSERT_TRUE(p.run());
    scu::SlotManager& m = p.a.dev.scu().slots();
    const auto op = [&](uint32_t key, uint64_t iova, uint64_t what) {
        set_csr(p.a, 4, XorTest::kMemKey, key);
        set_csr(p.a, 4, XorTest::kMemIova, iova);
        set_csr(p.a, 4, XorTest::kMemOp, what);
        return csr(p.a, 4, XorTest::kMemStatus);
    };
    const auto le64 = [](const std::vector<uint8_t>& b) {
        uint64_t v = 0;
        for (size_t i = 0; i < 8; ++i) {
            v |= uint64_t{b[i]} << (8 * i);
        }
        return v;
    };
    const auto kKeyPd = static_cast<uint64_t>(scu::MemStatus::kKeyPd);
    EXPECT_EQ(csr(p.a, 4, XorTest::kMemStatus), XorTest::kStatusNone);
    EXPECT_EQ(op(ka, Node::kVa, XorTest::kOpRead), kKeyPd);  // nothing bound yet
    EXPECT_EQ(m.counters(4).mem_faults, 1u);

    ASSERT_EQ(m.bind_pd(4, Node::kPd), admin::ScuStatus::kOk);
    EXPECT_EQ(op(ka, Node::kVa + 16, XorTest::kOpRead), 0u);
    EXPECT_EQ(csr(p.a, 4, XorTest::kMemData), le64(p.a.read_va(Node::kVa + 16, 8)));
    set_csr(p.a, 4, XorTest::kMemData, 0x1122'3344'5566'7788ULL);
    EXPECT_EQ(op(ka, Node::kVa + 4096, XorTest::kOpWrite), 0u);
    EXPECT_EQ(le64(p.a.read_va(Node::kVa + 4096, 8)), 0x1122'3344'5566'7788ULL);
    EXPECT_EQ(m.counters(4).mem_rd_bytes, 8u);
    EXPECT_EQ(m.counters(4).mem_wr_bytes, 8u);

    // Another PD's MR: refused, no byte moves either way.
    set_csr(p.a, 4, XorTest::kMemData, 0);
    EXPECT_EQ(op(other, Node::kVa + 128 * 1024, XorTest::kOpRead), kKeyPd);
    EXPECT_EQ(csr(p.a, 4, XorTest::kMemData), 0u);
    const std::vector<uint8_t> before = p.a.read_va(Node::kVa + 128 * 1024, 8);
    set_csr(p.a, 4, XorTest::kMemData, ~uint64_t{0});
    EXPECT_EQ(op(other, Node::kVa + 128 * 1024, XorTest::kOpWrite), kKeyPd);
    EXPECT_EQ(p.a.read_va(Node::kVa + 128 * 1024, 8), before);
    EXPECT_EQ(m.counters(4).mem_faults, 3u);

    // Unbound: the bound PD's MR is refused too.
    ASSERT_EQ(m.bind_pd(4, std::nullopt), admin::ScuStatus::kOk);
    EXPECT_EQ(op(ka, Node::kVa + 16, XorTest::kOpRead), kKeyPd);
    EXPECT_EQ(m.counters(4).mem_faults, 4u);
    EXPECT_EQ(m.counters(4).mem_rd_bytes, 8u);
}

TEST_F(ScuPayload, SlotZeroAndIndicesPastTheCardBypass) {
    setup(0, 200);
    p.a.fill_va(Node::kVa, 2000, 3);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 2000, ka)}, Node::kVa + 8192, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_EQ(p.b.read_va(Node::kVa + 8192, 2000), p.a.read_va(Node::kVa, 2000));
    for (Node* n : {&p.a, &p.b}) {
        for (unsigned s = 0; s < n->dev.scu().slots().num_slots(); ++s) {
            EXPECT_EQ(cnt(*n, s).bytes_in[0] + cnt(*n, s).bytes_in[1], 0u) << "slot " << s;
        }
    }
}

TEST_F(ScuPayload, XorOnTheSenderOnlyArrivesTransformed) {
    setup(1, 0);
    load_xor(p.a, 1);
    ASSERT_TRUE(p.run());
    set_csr(p.a, 1, XorTest::kKeyTx, kKeyAb);
    EXPECT_EQ(csr(p.a, 1, XorTest::kId), XorTest::kIdValue);
    EXPECT_EQ(csr(p.a, 1, XorTest::kKeyTx), kKeyAb);

    p.a.fill_va(Node::kVa, 5000, 21);
    p.a.fill_va(Node::kVa + 8192, 700, 99);
    p.b.post_recv(kQb, {sge(Node::kVa + 65536, 4096, kb)});
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 5000, ka)}, Node::kVa + 16384, kb));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa + 8192, 700, ka)}, 0, 0));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 2u);
    expect_no_error_cqes();
    const std::vector<uint8_t> sent = p.a.read_va(Node::kVa, 5000);
    const std::vector<uint8_t> got = p.b.read_va(Node::kVa + 16384, 5000);
    EXPECT_NE(got, sent);
    EXPECT_EQ(got, xored(sent, kKeyAb));  // offsets run across the 5 packets
    EXPECT_EQ(p.b.read_va(Node::kVa + 65536, 700),
              xored(p.a.read_va(Node::kVa + 8192, 700), kKeyAb));
    const auto recv = p.b.poll(1);
    ASSERT_EQ(recv.size(), 1u);
    EXPECT_EQ(recv[0].status, 0u);
    EXPECT_EQ(recv[0].byte_len, 700u);
    EXPECT_EQ(csr(p.a, 1, XorTest::kBytes), 5700u);
    EXPECT_EQ(cnt(p.a, 1).bytes_out[static_cast<unsigned>(Dir::kTx)], 5700u);
}

TEST_F(ScuPayload, SameKeyOnBothCardsRoundTrips) {
    setup(1, 2);
    load_both(1, 2);
    set_csr(p.a, 1, XorTest::kKeyTx, kKeyAb);
    set_csr(p.b, 2, XorTest::kKeyRx, kKeyAb);
    set_csr(p.b, 2, XorTest::kKeyTx, kKeyBa);
    set_csr(p.a, 1, XorTest::kKeyRx, kKeyBa);

    p.a.fill_va(Node::kVa, 6000, 5);
    p.b.fill_va(Node::kVa + 131072, 4500, 200);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 6000, ka)}, Node::kVa + 16384, kb));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa + 32768, 4500, ka)},
                                Node::kVa + 131072, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 2u);
    expect_no_error_cqes();
    EXPECT_EQ(p.b.read_va(Node::kVa + 16384, 6000), p.a.read_va(Node::kVa, 6000));
    EXPECT_EQ(p.a.read_va(Node::kVa + 32768, 4500), p.b.read_va(Node::kVa + 131072, 4500));
    // Both SCUs saw every byte, each direction: the data went through them, twice.
    EXPECT_EQ(csr(p.a, 1, XorTest::kBytes), 6000u + 4500u);
    EXPECT_EQ(csr(p.b, 2, XorTest::kBytes), 6000u + 4500u);
    EXPECT_EQ(cnt(p.b, 2).bytes_out[static_cast<unsigned>(Dir::kRx)], 6000u);
    EXPECT_EQ(cnt(p.b, 2).bytes_out[static_cast<unsigned>(Dir::kTx)], 4500u);
    EXPECT_EQ(cnt(p.a, 1).bytes_out[static_cast<unsigned>(Dir::kRx)], 4500u);
}

TEST_F(ScuPayload, RetransmissionsGiveTheSameBytes) {
    setup(1, 0);
    load_xor(p.a, 1);
    ASSERT_TRUE(p.run());
    set_csr(p.a, 1, XorTest::kKeyTx, kKeyAb);
    // Lose the second packet of the WRITE once: go-back-N sends it (and the rest) again.
    int n = 0;
    p.drop = [&n](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
        return d == RdmaPair::Dir::kAtoB && !pkt.payload.empty() && ++n == 2;
    };
    p.a.fill_va(Node::kVa, 4096, 8);
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 4096, ka)}, Node::kVa + 16384, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQa), 1u);
    EXPECT_GT(p.a.dev.rdma().engine().counters().retransmits, 0u);
    EXPECT_GT(cnt(p.a, 1).pkts_in[static_cast<unsigned>(Dir::kTx)], 4u);
    EXPECT_EQ(p.b.read_va(Node::kVa + 16384, 4096), xored(p.a.read_va(Node::kVa, 4096), kKeyAb));
}

// SENDs of 1500 bytes with distinct contents; B's receive buffers hold them in order.
class ScuPayloadTraffic : public ScuPayload {
  protected:
    static constexpr unsigned kMsgs = 24;
    static constexpr uint32_t kLen = 1500;
    void post_traffic() {
        for (unsigned i = 0; i < kMsgs; ++i) {
            p.a.fill_va(Node::kVa + i * 2048ULL, kLen, static_cast<uint8_t>(i * 13));
            p.b.post_recv(kQb, {sge(Node::kVa + 65536 + i * 2048ULL, 2048, kb)});
        }
        for (unsigned i = 0; i < kMsgs; ++i) {
            p.a.post_send(
                kQa, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa + i * 2048ULL, kLen, ka)}, 0, 0));
        }
    }
    void expect_all_in_order() {
        ASSERT_EQ(p.a.sq_completed(kQa), kMsgs);
        expect_no_error_cqes();
        const auto recv = p.b.poll(1);
        ASSERT_EQ(recv.size(), kMsgs);
        for (unsigned i = 0; i < kMsgs; ++i) {
            EXPECT_EQ(recv[i].status, 0u) << i;
            EXPECT_EQ(recv[i].byte_len, kLen) << i;
            EXPECT_EQ(p.b.read_va(Node::kVa + 65536 + i * 2048ULL, kLen),
                      p.a.read_va(Node::kVa + i * 2048ULL, kLen))
                << "message " << i;
        }
    }
    // Data packets A sent while t was in [from, to).
    size_t data_sent_between(uint64_t from, uint64_t to) const {
        size_t n = 0;
        for (const auto& r : p.log) {
            n += r.dir == RdmaPair::Dir::kAtoB && r.payload != 0 && r.t_ns >= from && r.t_ns < to
                     ? 1
                     : 0;
        }
        return n;
    }
};

TEST_F(ScuPayloadTraffic, LoadOnTheSenderHoldsItsQpAndResumes) {
    setup(1, 0);
    p.record = true;
    uint64_t load_at = 0;
    int seen = 0;
    // After the 8th data packet reached B, A's slot 1 starts loading (XOR, key 0 at reset).
    p.after = [&](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
        if (d == RdmaPair::Dir::kAtoB && !pkt.payload.empty() && ++seen == 8) {
            load_at = p.a.host.now;
            load_xor(p.a, 1);
        }
    };
    post_traffic();
    ASSERT_TRUE(p.run());
    ASSERT_NE(load_at, 0u);
    expect_all_in_order();
    const uint64_t reconfig = uint64_t{p.a.dev.scu().slots().config().reconfig_ns};
    // Held for the whole reconfiguration (a packet may already have been on its way).
    EXPECT_LE(data_sent_between(load_at + 1000, load_at + reconfig), 0u);
    EXPECT_EQ(p.a.dev.scu().slots().slot(1).image().kind, scu::kKindXorTest);
    const auto& a = cnt(p.a, 1);
    const auto tx = static_cast<unsigned>(Dir::kTx);
    EXPECT_EQ(a.pkts_in[tx], a.pkts_out[tx]);
    EXPECT_EQ(a.bytes_out[tx], uint64_t{kMsgs} * kLen);  // every byte exactly once
    EXPECT_GT(csr(p.a, 1, XorTest::kPkts), 0u);          // the rest went through the new SCU
    EXPECT_EQ(a.violations, 0u);
    EXPECT_EQ(p.a.dev.rdma().engine().counters().ack_timeouts, 0u);
}

// DRAINING (docs/scu.md 5): an unload in the middle of a message lets the old SCU finish it (the
// whole message carries the old key), holds the next message until the new SCU runs (it goes
// through the passthrough unchanged), and nothing is lost, repeated or reordered.
TEST_F(ScuPayloadTraffic, LoadDrainsTheMessageInFlightFirst) {
    setup(1, 0);
    load_xor(p.a, 1);
    ASSERT_TRUE(p.run());
    set_csr(p.a, 1, XorTest::kKeyTx, kKeyAb);
    p.a.fill_va(Node::kVa, 8192, 17);
    p.a.fill_va(Node::kVa + 16384, 4096, 71);
    p.record = true;
    uint64_t unload_at = 0;
    admin::ScuSlotState state_after{};
    size_t open_after = 0;
    int seen = 0;
    // As A's card sends its 3rd data packet (the engine goes on with the 4th at once).
    p.a.host.on_send = [&](std::span<const uint8_t> f) {
        const roce::ParseResult pr = roce::parse_frame(f, roce::OpcodeSet::kRcAndSr);
        if (pr.ok() && !pr.packet.payload.empty() && ++seen == 3) {
            unload_at = p.a.host.now;
            scu::SlotManager& m = p.a.dev.scu().slots();
            ASSERT_EQ(m.unload(1), admin::ScuStatus::kOk);
            state_after = m.slot(1).state();
            open_after = m.slot(1).open_messages();
        }
    };
    p.a.post_send(kQa,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 8192, ka)}, Node::kVa + 65536, kb));
    p.a.post_send(kQa, make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa + 16384, 4096, ka)},
                                Node::kVa + 131072, kb));
    ASSERT_TRUE(p.run());
    ASSERT_NE(unload_at, 0u);
    EXPECT_EQ(state_after, admin::ScuSlotState::kDraining);
    EXPECT_EQ(open_after, 1u);  // A's TX of the first WRITE
    ASSERT_EQ(p.a.sq_completed(kQa), 2u);
    expect_no_error_cqes();
    // The first message went through the old SCU entirely, the second through the new one.
    EXPECT_EQ(p.b.read_va(Node::kVa + 65536, 8192), xored(p.a.read_va(Node::kVa, 8192), kKeyAb));
    EXPECT_EQ(p.b.read_va(Node::kVa + 131072, 4096), p.a.read_va(Node::kVa + 16384, 4096));
    const scu::Slot& s = p.a.dev.scu().slots().slot(1);
    EXPECT_EQ(s.image().kind, scu::kKindPassthrough);
    EXPECT_EQ(s.drain_timeouts(), 0u);
    EXPECT_EQ(s.open_messages(), 0u);
    // The second message waited for the whole reconfiguration after the drain.
    const uint64_t reconfig = p.a.dev.scu().slots().config().reconfig_ns;
    size_t first_msg = 0, second_msg = 0;
    for (const auto& r : p.log) {
        if (r.dir != RdmaPair::Dir::kAtoB || r.payload == 0) {
            continue;
        }
        (r.t_ns < unload_at + reconfig ? first_msg : second_msg) += r.payload > 0 ? 1 : 0;
    }
    EXPECT_EQ(first_msg, 8u);   // 8 KiB at PMTU 1024, no packet repeated
    EXPECT_EQ(second_msg, 4u);  // 4 KiB, all after the new SCU came up
    const auto& c = cnt(p.a, 1);
    const auto tx = static_cast<unsigned>(Dir::kTx);
    EXPECT_EQ(c.bytes_out[tx], 8192u + 4096u);  // every byte exactly once
    EXPECT_EQ(c.violations + c.scu_drops, 0u);
    EXPECT_EQ(p.a.dev.rdma().engine().counters().ack_timeouts, 0u);
}

TEST_F(ScuPayloadTraffic, UnloadOnTheReceiverAnswersRnrAndResumes) {
    setup(0, 3);
    load_xor(p.b, 3);
    ASSERT_TRUE(p.run());
    p.record = true;
    int seen = 0;
    p.after = [&](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
        if (d == RdmaPair::Dir::kAtoB && !pkt.payload.empty() && ++seen == 5) {
            ASSERT_EQ(p.b.dev.scu().slots().unload(3), admin::ScuStatus::kOk);
        }
    };
    post_traffic();
    ASSERT_TRUE(p.run());
    expect_all_in_order();
    EXPECT_EQ(p.b.dev.scu().slots().slot(3).image().kind, scu::kKindPassthrough);
    const auto& b = cnt(p.b, 3);
    const auto rx = static_cast<unsigned>(Dir::kRx);
    EXPECT_EQ(b.bytes_out[rx], uint64_t{kMsgs} * kLen);  // placed once each
    EXPECT_GT(b.fifo_drops[rx], 0u);                     // refused while loading: RNR
    EXPECT_GT(p.b.dev.rdma().engine().counters().rnr_nak_sent, 0u);
}

TEST_F(ScuPayloadTraffic, ThrottledPassthroughPacesItsQp) {
    setup(4, 0);
    // 1 MB/s with a 4 KiB bucket: 36000 bytes need about 32 ms.
    set_csr(p.a, 4, scu::Passthrough::kBurst, 4096);
    set_csr(p.a, 4, scu::Passthrough::kRateBps, 1'000'000);
    const uint64_t start = p.a.host.now;
    post_traffic();
    ASSERT_TRUE(p.run());
    expect_all_in_order();
    EXPECT_GE(p.a.host.now - start, 25'000'000u);
    EXPECT_EQ(cnt(p.a, 4).bytes_out[static_cast<unsigned>(Dir::kTx)], uint64_t{kMsgs} * kLen);
}

}  // namespace
}  // namespace scenic::test

namespace scenic::test {
namespace {

// SCUs that break the rules, for the slot's side of the payload path.
class ShortScu final : public scu::Scu {  // every output one byte short
  public:
    using Scu::Scu;
    void reset() override {}
    [[nodiscard]] bool ready(Dir /*d*/) const override { return true; }
    void push(Dir d, const scu::Meta& /*m*/, std::span<const uint8_t> data) override {
        port().emit(d, data.first(data.size() - 1));
    }
    uint64_t csr_read(uint32_t /*index*/) override { return 0; }
    void csr_write(uint32_t /*index*/, uint64_t /*value*/, uint8_t /*byte_mask*/) override {}
    [[nodiscard]] bool idle() const override { return true; }
};

class HoldingScu final : public scu::Scu {  // keeps a packet until CSR 0 is written
  public:
    using Scu::Scu;
    void reset() override { held_.clear(); }
    [[nodiscard]] bool ready(Dir /*d*/) const override { return true; }
    void push(Dir d, const scu::Meta& /*m*/, std::span<const uint8_t> data) override {
        held_.assign(data.begin(), data.end());
        dir_ = d;
    }
    uint64_t csr_read(uint32_t /*index*/) override { return held_.size(); }
    void csr_write(uint32_t /*index*/, uint64_t /*value*/, uint8_t /*byte_mask*/) override {
        port().emit(dir_, held_);
    }
    [[nodiscard]] bool idle() const override { return held_.empty(); }

  private:
    std::vector<uint8_t> held_;
    Dir dir_ = Dir::kRx;
};

class DropRxScu final : public scu::Scu {  // consumes RX payload (drop), passes TX
  public:
    using Scu::Scu;
    void reset() override {}
    [[nodiscard]] bool ready(Dir /*d*/) const override { return true; }
    void push(Dir d, const scu::Meta& /*m*/, std::span<const uint8_t> data) override {
        port().emit(d, data, true);
    }
    uint64_t csr_read(uint32_t /*index*/) override { return 0; }
    void csr_write(uint32_t /*index*/, uint64_t /*value*/, uint8_t /*byte_mask*/) override {}
    [[nodiscard]] bool idle() const override { return true; }
};

constexpr uint32_t kKindShort = 0x80000001;
constexpr uint32_t kKindHolding = 0x80000002;
constexpr uint32_t kKindDropRx = 0x80000003;

scu::Registry rule_breakers() {
    scu::Registry r = scu::Registry::builtin();
    r.add(kKindShort, 1, [](scu::SlotPort& p) { return std::make_unique<ShortScu>(p); });
    r.add(kKindHolding, 1, [](scu::SlotPort& p) { return std::make_unique<HoldingScu>(p); });
    r.add(kKindDropRx, 1, [](scu::SlotPort& p) { return std::make_unique<DropRxScu>(p); });
    return r;
}

class ScuPass : public ::testing::Test {
  protected:
    ScuPass()
        : events(host),
          mgr({4, 1000, 1U << 20, 0x00010000},
              {host, events, mem,
               [this](unsigned, Dir, const scu::Meta&, std::span<const uint8_t>, bool) {
                   ++late_outputs;
               },
               nullptr, nullptr, [this](unsigned s) { resumed.push_back(s); }},
              rule_breakers()) {}

    void load(unsigned slot, uint32_t kind) {
        const std::vector<uint8_t> payload(8, 1);
        ASSERT_EQ(mgr.load(slot, make_scu_image(kind, 1, payload)), admin::ScuStatus::kOk);
        run_for(2000);
        ASSERT_EQ(mgr.slot(slot).state(), admin::ScuSlotState::kRunning);
    }
    void run_for(uint64_t ns) {
        const uint64_t end = host.now + ns;
        while (host.timer && *host.timer <= end) {
            host.now = std::max(host.now, *host.timer);
            host.timer.reset();
            events.fire();
        }
        host.now = end;
    }
    static scu::Meta meta(Dir d, size_t len) {
        scu::Meta m;
        m.qpn = 9;
        m.op = 2;
        m.dir = d;
        m.src = scu::kSrcRdma;
        m.len = static_cast<uint16_t>(len);
        return m;
    }

    FakeHost host;
    EventQueue events;
    FakeCardMemory mem;
    scu::SlotManager mgr;
    size_t late_outputs = 0;
    std::vector<unsigned> resumed;
    const std::vector<uint8_t> data = std::vector<uint8_t>(100, 0x5a);
    std::vector<uint8_t> out;
};

TEST_F(ScuPass, SlotZeroAndEmptyPayloadBypass) {
    EXPECT_EQ(mgr.pass(0, meta(Dir::kTx, 100), data, out), scu::Pass::kBypass);
    EXPECT_EQ(mgr.pass(4, meta(Dir::kTx, 100), data, out), scu::Pass::kBypass);
    EXPECT_EQ(mgr.pass(1, meta(Dir::kTx, 0), {}, out), scu::Pass::kBypass);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(mgr.pass(1, meta(Dir::kTx, 100), data, out), scu::Pass::kDone);
    EXPECT_EQ(out, data);
}

TEST_F(ScuPass, LoadingHoldsAndTheEndOfTheLoadResumes) {
    const std::vector<uint8_t> payload(8, 1);
    ASSERT_EQ(mgr.load(2, make_scu_image(scu::kKindXorTest, 1, payload)), admin::ScuStatus::kOk);
    EXPECT_EQ(mgr.pass(2, meta(Dir::kTx, 100), data, out), scu::Pass::kHeld);
    EXPECT_EQ(mgr.pass(2, meta(Dir::kRx, 100), data, out), scu::Pass::kHeld);
    EXPECT_EQ(mgr.counters(2).fifo_drops[static_cast<unsigned>(Dir::kRx)], 1u);  // RNR'd
    EXPECT_EQ(mgr.counters(2).fifo_drops[static_cast<unsigned>(Dir::kTx)], 0u);  // waits
    EXPECT_EQ(mgr.counters(2).pkts_in[0] + mgr.counters(2).pkts_in[1], 0u);
    EXPECT_TRUE(resumed.empty());
    run_for(2000);
    EXPECT_EQ(resumed, std::vector<unsigned>{2});
    EXPECT_EQ(mgr.pass(2, meta(Dir::kTx, 100), data, out), scu::Pass::kDone);
}

// DRAINING (docs/scu.md 5): a load waits until every message the old SCU started has passed
// its last packet; meanwhile new messages are held (RX: RNR) and continuations pass. A message
// that never ends (its QP went away) ends the drain at the timeout.
TEST_F(ScuPass, DrainEndsAtTheMessageBoundaryOrAtTheTimeout) {
    const auto msg = [](Dir d, uint32_t qpn, bool first, bool last) {
        scu::Meta m = meta(d, 100);
        m.qpn = qpn;
        m.msg_first = first;
        m.msg_last = last;
        return m;
    };
    const auto rx = static_cast<unsigned>(Dir::kRx);
    ASSERT_EQ(mgr.pass(2, msg(Dir::kTx, 9, true, false), data, out), scu::Pass::kDone);
    ASSERT_EQ(mgr.pass(2, msg(Dir::kRx, 9, true, true), data, out), scu::Pass::kDone);
    EXPECT_EQ(mgr.slot(2).open_messages(), 1u);  // TX of QP 9; its RX message is complete
    ASSERT_EQ(mgr.unload(2), admin::ScuStatus::kOk);
    EXPECT_EQ(mgr.slot(2).state(), admin::ScuSlotState::kDraining);
    EXPECT_EQ(mgr.busy_mask() & 4u, 4u);
    EXPECT_EQ(mgr.pass(2, msg(Dir::kTx, 10, true, true), data, out), scu::Pass::kHeld);
    EXPECT_EQ(mgr.pass(2, msg(Dir::kRx, 9, true, false), data, out), scu::Pass::kHeld);
    EXPECT_EQ(mgr.counters(2).fifo_drops[rx], 1u);  // the responder answers RNR
    EXPECT_EQ(mgr.pass(2, msg(Dir::kTx, 9, false, false), data, out), scu::Pass::kDone);
    EXPECT_EQ(mgr.slot(2).state(), admin::ScuSlotState::kDraining);
    run_for(5000);  // the drain does not end by time alone
    EXPECT_EQ(mgr.slot(2).state(), admin::ScuSlotState::kDraining);
    EXPECT_EQ(mgr.pass(2, msg(Dir::kTx, 9, false, true), data, out), scu::Pass::kDone);
    EXPECT_EQ(mgr.slot(2).state(), admin::ScuSlotState::kLoading);
    EXPECT_EQ(mgr.pass(2, msg(Dir::kTx, 9, false, false), data, out), scu::Pass::kHeld);
    EXPECT_TRUE(resumed.empty());
    run_for(1000);
    EXPECT_EQ(mgr.slot(2).state(), admin::ScuSlotState::kRunning);
    EXPECT_EQ(resumed, std::vector<unsigned>{2});
    EXPECT_EQ(mgr.pass(2, msg(Dir::kTx, 10, true, true), data, out), scu::Pass::kDone);
    EXPECT_EQ(mgr.slot(2).drain_timeouts(), 0u);
    EXPECT_EQ(mgr.counters(2).violations, 0u);

    ASSERT_EQ(mgr.pass(3, msg(Dir::kRx, 4, true, false), data, out), scu::Pass::kDone);
    ASSERT_EQ(mgr.unload(3), admin::ScuStatus::kOk);
    run_for(scu::Slot::kDefaultDrainNs - 1);
    EXPECT_EQ(mgr.slot(3).state(), admin::ScuSlotState::kDraining);
    run_for(1);
    EXPECT_EQ(mgr.slot(3).state(), admin::ScuSlotState::kLoading);
    EXPECT_EQ(mgr.slot(3).drain_timeouts(), 1u);
    EXPECT_EQ(mgr.slot(3).open_messages(), 0u);
    run_for(1000);
    EXPECT_EQ(mgr.slot(3).state(), admin::ScuSlotState::kRunning);
}

TEST_F(ScuPass, ShortOutputIsAViolation) {
    load(1, kKindShort);
    EXPECT_EQ(mgr.pass(1, meta(Dir::kTx, 100), data, out), scu::Pass::kFailed);
    EXPECT_EQ(mgr.pass(1, meta(Dir::kRx, 100), data, out), scu::Pass::kFailed);
    EXPECT_EQ(mgr.counters(1).violations, 2u);
    EXPECT_EQ(late_outputs, 0u);
}

TEST_F(ScuPass, AnOutputAfterPushIsAViolationAndGoesNowhere) {
    load(3, kKindHolding);
    EXPECT_EQ(mgr.pass(3, meta(Dir::kTx, 100), data, out), scu::Pass::kFailed);
    EXPECT_EQ(mgr.counters(3).violations, 1u);
    mgr.slot(3).csr_write(0, 1, 0xff);  // the late output: paired with nothing
    EXPECT_EQ(mgr.counters(3).violations, 2u);
    EXPECT_EQ(late_outputs, 0u);
}

TEST_F(ScuPass, RxDropIsReportedTxDropIsAViolation) {
    load(2, kKindDropRx);
    EXPECT_EQ(mgr.pass(2, meta(Dir::kRx, 100), data, out), scu::Pass::kDropped);
    EXPECT_EQ(mgr.counters(2).scu_drops, 1u);
    EXPECT_EQ(mgr.pass(2, meta(Dir::kTx, 100), data, out), scu::Pass::kFailed);
    EXPECT_EQ(mgr.counters(2).violations, 1u);
}

}  // namespace
}  // namespace scenic::test
