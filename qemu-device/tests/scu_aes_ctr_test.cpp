// SPDX-License-Identifier: MIT
// The aes-ctr SCU kind (docs/scu-aes-ctr.md): the twin's known answers (FIPS-197 C.1, SP 800-38A
// F.5.1) and random packets against OpenSSL's AES-128-CTR; then through two cards (RdmaPair)
// with the SCU on both QPs' slots: the wire carries exactly OpenSSL's ciphertext of the data,
// the receiver's memory holds the plaintext, for SEND, WRITE and READ; a wrong key gives wrong
// data and no protocol error; a retransmitted packet carries the same ciphertext.
#include "scenic/scu_aes_ctr.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rdma_rig.hpp"
#include "scenic/dp/aes128.hpp"
#include "scenic/scu_slots.hpp"
#include "scu_rig.hpp"

namespace scenic::test {
namespace {

using scu::AesCtr;
using scu::Dir;
using Block = std::array<uint8_t, 16>;

std::vector<uint8_t> hex(const std::string& s) {
    std::vector<uint8_t> v;
    for (size_t i = 0; i + 1 < s.size(); i += 2) {
        v.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    }
    return v;
}
uint64_t be64(std::span<const uint8_t> b) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) {
        v = (v << 8) | b[i];
    }
    return v;
}
// The counter of a message's first block, as the doc defines it: iv + (qpn << 32) + offset/16.
Block first_counter(uint64_t iv_hi, uint64_t iv_lo, uint32_t qpn, uint32_t offset) {
    const uint64_t add = (uint64_t{qpn} << 32) | (offset / 16);
    const uint64_t lo = iv_lo + add;
    return dp::block_from_csrs(iv_hi + (lo < iv_lo ? 1 : 0), lo);
}

// OpenSSL's AES-128-CTR (a 128-bit big-endian counter incremented per block), the reference.
std::vector<uint8_t> openssl_ctr(const Block& key, const Block& ctr, std::span<const uint8_t> in) {
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> c(EVP_CIPHER_CTX_new(),
                                                                      EVP_CIPHER_CTX_free);
    EXPECT_EQ(EVP_EncryptInit_ex(c.get(), EVP_aes_128_ctr(), nullptr, key.data(), ctr.data()), 1);
    std::vector<uint8_t> out(in.size() + 16);
    int n = 0;
    int m = 0;
    EXPECT_EQ(EVP_EncryptUpdate(c.get(), out.data(), &n, in.data(), static_cast<int>(in.size())),
              1);
    EXPECT_EQ(EVP_EncryptFinal_ex(c.get(), out.data() + n, &m), 1);
    out.resize(static_cast<size_t>(n + m));
    return out;
}

class CapturePort final : public scu::SlotPort {
  public:
    void emit(Dir /*d*/, std::span<const uint8_t> data, bool drop) override {
        EXPECT_FALSE(drop);
        out.assign(data.begin(), data.end());
    }
    void wake(Dir /*d*/) override {}
    void raise_irq(unsigned /*line*/) override {}
    scu::MemStatus mem_read(uint32_t /*key*/, uint64_t /*iova*/,
                            std::span<uint8_t> /*dst*/) override {
        return scu::MemStatus::kKeyPd;
    }
    scu::MemStatus mem_write(uint32_t /*key*/, uint64_t /*iova*/,
                             std::span<const uint8_t> /*src*/) override {
        return scu::MemStatus::kKeyPd;
    }
    uint64_t now_ns() override { return 0; }
    void schedule(uint64_t /*deadline_ns*/) override {}
    std::vector<uint8_t> out;
};

std::vector<uint8_t> twin(AesCtr& s, CapturePort& port, Dir d, uint32_t qpn, uint32_t offset,
                          const std::vector<uint8_t>& data, uint8_t src = scu::kSrcRdma) {
    scu::Meta m;
    m.qpn = qpn;
    m.offset = offset;
    m.dir = d;
    m.src = src;
    m.len = static_cast<uint16_t>(data.size());
    s.push(d, m, data);
    return port.out;
}

TEST(AesCtrKind, KnownAnswers) {
    CapturePort port;
    AesCtr s(port);
    EXPECT_EQ(s.csr_read(AesCtr::kId), AesCtr::kIdValue);
    EXPECT_EQ(s.csr_read(AesCtr::kQpnMask), 0xffffffu);
    EXPECT_EQ(s.csr_read(AesCtr::kCtrl), 0u);
    // FIPS-197 C.1 as a keystream block: zeros at counter = the plaintext.
    const auto k1 = hex("000102030405060708090a0b0c0d0e0f");
    const auto p1 = hex("00112233445566778899aabbccddeeff");
    s.csr_write(AesCtr::kKeyHi, be64(k1), 0xff);
    s.csr_write(AesCtr::kKeyLo, be64(std::span(k1).subspan(8)), 0xff);
    s.csr_write(AesCtr::kIvRxHi, be64(p1), 0xff);
    s.csr_write(AesCtr::kIvRxLo, be64(std::span(p1).subspan(8)), 0xff);
    s.csr_write(AesCtr::kQpnMask, 0, 0xff);
    s.csr_write(AesCtr::kCtrl, AesCtr::kCtrlRx, 0xff);
    EXPECT_EQ(twin(s, port, Dir::kRx, 77, 0, std::vector<uint8_t>(16)),
              hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
    // TX is not enabled: unchanged.
    EXPECT_EQ(twin(s, port, Dir::kTx, 77, 0, std::vector<uint8_t>(16)), std::vector<uint8_t>(16));
    // SP 800-38A F.5.1, the second half as a packet at offset 32.
    const auto k2 = hex("2b7e151628aed2a6abf7158809cf4f3c");
    const auto iv = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    const auto pt =
        hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
    const auto ct =
        hex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
            "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee");
    s.csr_write(AesCtr::kKeyHi, be64(k2), 0xff);
    s.csr_write(AesCtr::kKeyLo, be64(std::span(k2).subspan(8)), 0xff);
    s.csr_write(AesCtr::kIvTxHi, be64(iv), 0xff);
    s.csr_write(AesCtr::kIvTxLo, be64(std::span(iv).subspan(8)), 0xff);
    s.csr_write(AesCtr::kCtrl, AesCtr::kCtrlTx, 0xff);
    EXPECT_EQ(twin(s, port, Dir::kTx, 5, 0, pt), ct);
    EXPECT_EQ(twin(s, port, Dir::kTx, 5, 32, std::vector<uint8_t>(pt.begin() + 32, pt.end())),
              std::vector<uint8_t>(ct.begin() + 32, ct.end()));
    // Frames pass unchanged.
    EXPECT_EQ(twin(s, port, Dir::kTx, 5, 0, pt, scu::kSrcFrame), pt);
    EXPECT_EQ(s.csr_read(AesCtr::kPkts), 5u);
    EXPECT_EQ(s.csr_read(AesCtr::kBytes), 16u + 16 + 64 + 32 + 64);
    s.reset();
    EXPECT_EQ(s.csr_read(AesCtr::kKeyHi), 0u);
    EXPECT_EQ(s.csr_read(AesCtr::kPkts), 0u);
}

TEST(AesCtrKind, RandomPacketsMatchOpenSsl) {
    std::mt19937_64 rng(19);
    CapturePort port;
    AesCtr s(port);
    for (int i = 0; i < 200; ++i) {
        const uint64_t k_hi = rng(), k_lo = rng(), iv_hi = rng();
        // now and then an IV whose low half carries into the high half
        const uint64_t iv_lo = i % 5 == 0 ? ~uint64_t{0} - (rng() % 3) : rng();
        const uint64_t mask = i % 3 == 0 ? 0 : 0xffffff;
        s.csr_write(AesCtr::kKeyHi, k_hi, 0xff);
        s.csr_write(AesCtr::kKeyLo, k_lo, 0xff);
        s.csr_write(AesCtr::kIvTxHi, iv_hi, 0xff);
        s.csr_write(AesCtr::kIvTxLo, iv_lo, 0xff);
        s.csr_write(AesCtr::kQpnMask, mask, 0xff);
        s.csr_write(AesCtr::kCtrl, AesCtr::kCtrlTx, 0xff);
        const auto qpn = static_cast<uint32_t>(rng() & 0xffffff);
        const auto offset = static_cast<uint32_t>(rng() % 4096) * 256;
        std::vector<uint8_t> data(1 + rng() % 4096);
        for (auto& b : data) {
            b = static_cast<uint8_t>(rng());
        }
        const auto got = twin(s, port, Dir::kTx, qpn, offset, data);
        const auto want = openssl_ctr(
            dp::block_from_csrs(k_hi, k_lo),
            first_counter(iv_hi, iv_lo, qpn & static_cast<uint32_t>(mask), offset), data);
        ASSERT_EQ(got, want) << "packet " << i;
    }
}

// Two cards, QP 2 on each (equal QPNs: QPN_MASK stays all ones), both on slot 1 with aes-ctr.
class AesCtrCards : public ::testing::Test {
  protected:
    static constexpr uint32_t kQp = 2;
    static constexpr unsigned kSlot = 1;
    static constexpr uint64_t kKeyHi = 0x2b7e151628aed2a6ULL;
    static constexpr uint64_t kKeyLo = 0xabf7158809cf4f3cULL;
    static constexpr uint64_t kIvAbHi = 0x0011223344556677ULL;  // A's TX, B's RX
    static constexpr uint64_t kIvAbLo = 0x8899aabb00000000ULL;
    static constexpr uint64_t kIvBaHi = 0x7766554433221100ULL;  // B's TX (READ responses), A's RX
    static constexpr uint64_t kIvBaLo = 0xffeeddcc00000000ULL;

    void SetUp() override {
        p.setup(kQp, qb, {}, 10, false, kSlot, kSlot);
        ka = p.a.reg_mr(Node::kVa, 256 * 1024, kAll);
        kb = p.b.reg_mr(Node::kVa, 256 * 1024, kAll);
        const std::vector<uint8_t> payload(32, 0x5a);
        for (Node* n : {&p.a, &p.b}) {
            ASSERT_EQ(
                n->dev.scu().slots().load(kSlot, make_scu_image(scu::kKindAesCtr, 1, payload)),
                admin::ScuStatus::kOk);
        }
        ASSERT_TRUE(p.run());
        for (Node* n : {&p.a, &p.b}) {
            ASSERT_EQ(n->dev.scu().slots().slot(kSlot).image().kind, scu::kKindAesCtr);
        }
        configure(p.a, kKeyLo, kIvAbHi, kIvAbLo, kIvBaHi, kIvBaLo);
        configure(p.b, kKeyLo, kIvBaHi, kIvBaLo, kIvAbHi, kIvAbLo);
        // every data packet on the wire, by direction and PSN, every time it is sent
        p.drop = [this](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
            if (!pkt.payload.empty()) {
                wire[static_cast<unsigned>(d)][pkt.transport.bth.psn].emplace_back(
                    pkt.payload.begin(), pkt.payload.end());
            }
            return drop_next && drop_next(d, pkt);
        };
    }
    static void set_csr(Node& n, uint32_t index, uint64_t v) {
        n.dev.scu().slots().csr_window_write(uint64_t{kSlot} * scu::kCsrWindowBytes + 8 * index, v,
                                             8);
    }
    static uint64_t csr(Node& n, uint32_t index) {
        return n.dev.scu().slots().csr_window_read(
            uint64_t{kSlot} * scu::kCsrWindowBytes + 8 * index, 8);
    }
    static void configure(Node& n, uint64_t key_lo, uint64_t tx_hi, uint64_t tx_lo, uint64_t rx_hi,
                          uint64_t rx_lo) {
        set_csr(n, AesCtr::kKeyHi, kKeyHi);
        set_csr(n, AesCtr::kKeyLo, key_lo);
        set_csr(n, AesCtr::kIvTxHi, tx_hi);
        set_csr(n, AesCtr::kIvTxLo, tx_lo);
        set_csr(n, AesCtr::kIvRxHi, rx_hi);
        set_csr(n, AesCtr::kIvRxLo, rx_lo);
        set_csr(n, AesCtr::kCtrl, AesCtr::kCtrlTx | AesCtr::kCtrlRx);
    }
    // The payload bytes of one direction's data packets with PSNs [from, from + n), first copies.
    std::vector<uint8_t> on_wire(RdmaPair::Dir d, uint32_t from, uint32_t n) {
        std::vector<uint8_t> v;
        for (uint32_t psn = from; psn < from + n; ++psn) {
            const auto& copies = wire[static_cast<unsigned>(d)][psn & 0xffffff];
            EXPECT_FALSE(copies.empty()) << "no data packet with PSN " << psn;
            if (!copies.empty()) {
                v.insert(v.end(), copies[0].begin(), copies[0].end());
            }
        }
        return v;
    }
    static std::vector<uint8_t> expected(uint64_t iv_hi, uint64_t iv_lo,
                                         std::span<const uint8_t> plain) {
        return openssl_ctr(dp::block_from_csrs(kKeyHi, kKeyLo), first_counter(iv_hi, iv_lo, kQp, 0),
                           plain);
    }
    void expect_no_error_cqes() {
        for (Node* n : {&p.a, &p.b}) {
            for (const scenic_cqe& c : n->poll(0)) {
                EXPECT_EQ(c.status, 0u) << "send CQE with an error";
            }
        }
    }
    uint32_t first_psn(RdmaPair::Dir d) {
        const auto& m = wire[static_cast<unsigned>(d)];
        return m.empty() ? 0 : m.begin()->first;
    }

    RdmaPair p;
    uint32_t qb = kQp;  // B's QPN
    uint32_t ka = 0, kb = 0;
    std::array<std::map<uint32_t, std::vector<std::vector<uint8_t>>>, 2> wire;
    RdmaPair::DropFn drop_next;
};

constexpr auto kAtoB = RdmaPair::Dir::kAtoB;
constexpr auto kBtoA = RdmaPair::Dir::kBtoA;

TEST_F(AesCtrCards, WriteSendReadCarryCiphertextAndArriveAsPlaintext) {
    p.a.fill_va(Node::kVa, 5000, 21);          // WRITE source
    p.a.fill_va(Node::kVa + 8192, 700, 99);    // SEND source
    p.b.fill_va(Node::kVa + 131072, 4500, 7);  // READ source at B
    const auto wr = p.a.read_va(Node::kVa, 5000);
    const auto sd = p.a.read_va(Node::kVa + 8192, 700);
    const auto rd = p.b.read_va(Node::kVa + 131072, 4500);

    p.b.post_recv(kQp, {sge(Node::kVa + 65536, 4096, kb)});
    p.a.post_send(kQp,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 5000, ka)}, Node::kVa + 16384, kb));
    ASSERT_TRUE(p.run());
    const uint32_t psn_wr = first_psn(kAtoB);
    p.a.post_send(kQp, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa + 8192, 700, ka)}, 0, 0));
    p.a.post_send(kQp, make_wqe(SCENIC_WQE_OP_READ, {sge(Node::kVa + 32768, 4500, ka)},
                                Node::kVa + 131072, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQp), 3u);
    expect_no_error_cqes();

    // The receivers' memory: plaintext.
    EXPECT_EQ(p.b.read_va(Node::kVa + 16384, 5000), wr);
    EXPECT_EQ(p.b.read_va(Node::kVa + 65536, 700), sd);
    EXPECT_EQ(p.a.read_va(Node::kVa + 32768, 4500), rd);
    const auto recv = p.b.poll(1);
    ASSERT_EQ(recv.size(), 1u);
    EXPECT_EQ(recv[0].status, 0u);
    EXPECT_EQ(recv[0].byte_len, 700u);

    // The wire: OpenSSL's ciphertext (PMTU 1024: the WRITE is 5 packets, the SEND 1, the READ
    // 5 responses with the PSNs of its request, right after the SEND's).
    const auto wire_wr = on_wire(kAtoB, psn_wr, 5);
    EXPECT_NE(wire_wr, wr);
    EXPECT_EQ(wire_wr, expected(kIvAbHi, kIvAbLo, wr));
    EXPECT_EQ(on_wire(kAtoB, psn_wr + 5, 1), expected(kIvAbHi, kIvAbLo, sd));
    EXPECT_EQ(on_wire(kBtoA, psn_wr + 6, 5), expected(kIvBaHi, kIvBaLo, rd));

    // Each byte went through both SCUs once.
    EXPECT_EQ(csr(p.a, AesCtr::kBytes), 5000u + 700 + 4500);
    EXPECT_EQ(csr(p.b, AesCtr::kBytes), 5000u + 700 + 4500);
    const auto& ca = p.a.dev.scu().slots().counters(kSlot);
    const auto& cb = p.b.dev.scu().slots().counters(kSlot);
    EXPECT_EQ(ca.bytes_out[static_cast<unsigned>(Dir::kTx)], 5700u);
    EXPECT_EQ(cb.bytes_out[static_cast<unsigned>(Dir::kRx)], 5700u);
    EXPECT_EQ(cb.bytes_out[static_cast<unsigned>(Dir::kTx)], 4500u);
    EXPECT_EQ(ca.bytes_out[static_cast<unsigned>(Dir::kRx)], 4500u);
    EXPECT_EQ(ca.violations + cb.violations, 0u);
}

TEST_F(AesCtrCards, WrongKeyGivesWrongDataAndNoProtocolError) {
    configure(p.b, kKeyLo ^ 1, kIvBaHi, kIvBaLo, kIvAbHi, kIvAbLo);
    p.a.fill_va(Node::kVa, 3000, 3);
    p.a.fill_va(Node::kVa + 8192, 500, 4);
    p.b.post_recv(kQp, {sge(Node::kVa + 65536, 4096, kb)});
    p.a.post_send(kQp,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 3000, ka)}, Node::kVa + 16384, kb));
    p.a.post_send(kQp, make_wqe(SCENIC_WQE_OP_SEND, {sge(Node::kVa + 8192, 500, ka)}, 0, 0));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQp), 2u);
    expect_no_error_cqes();
    const auto recv = p.b.poll(1);
    ASSERT_EQ(recv.size(), 1u);
    EXPECT_EQ(recv[0].status, 0u);
    EXPECT_EQ(recv[0].byte_len, 500u);
    const auto wr = p.a.read_va(Node::kVa, 3000);
    const auto got = p.b.read_va(Node::kVa + 16384, 3000);
    EXPECT_NE(got, wr);
    // What B holds is the wire's ciphertext decrypted with B's (wrong) key.
    const auto wire_wr = on_wire(kAtoB, first_psn(kAtoB), 3);
    EXPECT_EQ(got, openssl_ctr(dp::block_from_csrs(kKeyHi, kKeyLo ^ 1),
                               first_counter(kIvAbHi, kIvAbLo, kQp, 0), wire_wr));
    EXPECT_NE(p.b.read_va(Node::kVa + 65536, 500), p.a.read_va(Node::kVa + 8192, 500));
    EXPECT_EQ(p.a.dev.rdma().engine().counters().retransmits, 0u);
    EXPECT_EQ(p.a.dev.scu().slots().counters(kSlot).violations, 0u);
    EXPECT_EQ(p.b.dev.scu().slots().counters(kSlot).violations, 0u);
}

TEST_F(AesCtrCards, RetransmittedPacketsCarryTheSameCiphertext) {
    int n = 0;
    drop_next = [&n](RdmaPair::Dir d, const roce::ParsedPacket& pkt) {
        return d == kAtoB && !pkt.payload.empty() && ++n == 2;  // lose the second once
    };
    p.a.fill_va(Node::kVa, 4096, 8);
    p.a.post_send(kQp,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 4096, ka)}, Node::kVa + 16384, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQp), 1u);
    expect_no_error_cqes();
    EXPECT_GT(p.a.dev.rdma().engine().counters().retransmits, 0u);
    EXPECT_EQ(p.b.read_va(Node::kVa + 16384, 4096), p.a.read_va(Node::kVa, 4096));
    size_t resent = 0;
    for (const auto& [psn, copies] : wire[static_cast<unsigned>(kAtoB)]) {
        for (const auto& c : copies) {
            EXPECT_EQ(c, copies[0]) << "PSN " << psn << " re-sent with other bytes";
        }
        resent += copies.size() - 1;
    }
    EXPECT_GE(resent, 1u);
    EXPECT_EQ(on_wire(kAtoB, first_psn(kAtoB), 4),
              expected(kIvAbHi, kIvAbLo, p.a.read_va(Node::kVa, 4096)));
    // the slot saw the re-sent packets again (retx), and re-encrypted them identically
    EXPECT_GT(p.a.dev.scu().slots().counters(kSlot).pkts_in[static_cast<unsigned>(Dir::kTx)], 4u);
}

// B's QP is number 3: with QPN_MASK all ones, B's RX counter runs 1 << 32 blocks ahead of A's
// TX counter, so the data arrives wrong; B's IV_RX lowered by 1 << 32 makes up for it
// (docs/scu-aes-ctr.md).
class AesCtrCardsOtherQpns : public AesCtrCards {
  protected:
    AesCtrCardsOtherQpns() { qb = 3; }
};

TEST_F(AesCtrCardsOtherQpns, ReceiverIvMakesUpForTheQpnDifference) {
    p.a.fill_va(Node::kVa, 3000, 5);
    const auto wr = p.a.read_va(Node::kVa, 3000);
    p.a.post_send(kQp,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 3000, ka)}, Node::kVa + 16384, kb));
    ASSERT_TRUE(p.run());
    EXPECT_NE(p.b.read_va(Node::kVa + 16384, 3000), wr);
    set_csr(p.b, AesCtr::kIvRxLo, kIvAbLo - (uint64_t{1} << 32));
    p.a.post_send(kQp,
                  make_wqe(SCENIC_WQE_OP_WRITE, {sge(Node::kVa, 3000, ka)}, Node::kVa + 32768, kb));
    ASSERT_TRUE(p.run());
    ASSERT_EQ(p.a.sq_completed(kQp), 2u);
    expect_no_error_cqes();
    EXPECT_EQ(p.b.read_va(Node::kVa + 32768, 3000), wr);
    // A's QPN 2 is what entered the counter on the wire
    EXPECT_EQ(on_wire(kAtoB, first_psn(kAtoB) + 3, 3), expected(kIvAbHi, kIvAbLo, wr));
}

}  // namespace
}  // namespace scenic::test
