// SPDX-License-Identifier: MIT
// Testbench of the aes-ctr SCU (hw-rtl/scu/aes_ctr/rtl/scu_aes_ctr.sv), 128- and 512-bit slots:
// NIST known answers through the slot's streams (FIPS-197 C.1, SP 800-38A F.5.1), the CSR port,
// the line rate in beats per cycle, and a differential test against the device model's twin
// (scenic::scu::AesCtr, qemu-device/model/src/scu_aes_ctr.cpp): random keys, IVs, QPN masks,
// QPNs, offsets, lengths and frames, both directions at once, under every pause mix.
#include <gtest/gtest.h>

#include <array>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vaes128.h"
#include "Vaes512.h"
#include "bench.hpp"
#include "scenic/dp/aes128.hpp"
#include "scenic/scu_aes_ctr.hpp"
#include "tb_util.hpp"

namespace scenic::tb {
namespace {

using scu::AesCtr;
using scu::Dir;
using scu::Meta;

std::vector<uint8_t> hex(const std::string& s) {
    std::vector<uint8_t> v;
    for (size_t i = 0; i + 1 < s.size(); i += 2) {
        v.push_back(static_cast<uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    }
    return v;
}
uint64_t be64(const std::vector<uint8_t>& b, size_t at) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v = (v << 8) | b.at(at + i);
    return v;
}

struct Packet {
    Meta meta;
    std::vector<uint8_t> data;
};

// The twin's side of the slot: collects emitted packets.
class Port final : public scu::SlotPort {
  public:
    void emit(Dir d, std::span<const uint8_t> data, bool drop) override {
        EXPECT_FALSE(drop);
        out[static_cast<unsigned>(d)].emplace_back(data.begin(), data.end());
    }
    void wake(Dir /*d*/) override {}
    void raise_irq(unsigned /*line*/) override {}
    scu::MemStatus mem_read(uint32_t, uint64_t, std::span<uint8_t>) override {
        return scu::MemStatus::kKeyPd;
    }
    scu::MemStatus mem_write(uint32_t, uint64_t, std::span<const uint8_t>) override {
        return scu::MemStatus::kKeyPd;
    }
    uint64_t now_ns() override { return 0; }
    void schedule(uint64_t /*deadline_ns*/) override {}
    std::array<std::vector<std::vector<uint8_t>>, 2> out;
};

// One direction's source: beats of queued packets, held until accepted.
struct Source {
    std::deque<Packet> pkts;
    size_t pos = 0;  // next byte of pkts.front()
    bool valid = false;
};

template <class Dut, unsigned kBytes>
class Bench : public DutBench<Dut> {
  public:
    Bench() { reset(); }
    void reset() {
        Dut& d = this->dut();
        d.rst = 1;
        quiet();
        this->edge();
        this->edge();
        d.rst = 0;
    }
    void quiet() {
        Dut& d = this->dut();
        d.s_rx_tvalid = d.s_tx_tvalid = 0;
        d.m_rx_tready = d.m_tx_tready = 1;
        d.csr_awvalid = d.csr_wvalid = d.csr_bready = d.csr_arvalid = d.csr_rready = 0;
        d.mrd_req_ready = d.mwr_req_ready = d.mrd_data_tvalid = d.mwr_data_tready = 0;
        d.mwr_cpl_valid = 0;
        d.slot_id = 1;
        d.paused = 0;
    }
    void csr_write(uint32_t idx, uint64_t v, uint8_t strb = 0xff) {
        Dut& d = this->dut();
        d.csr_awaddr = static_cast<uint16_t>(8 * idx);
        d.csr_wdata = v;
        d.csr_wstrb = strb;
        d.csr_awvalid = d.csr_wvalid = 1;
        bool done = false;
        for (int i = 0; i < 8 && !done; ++i) {
            d.clk = 0;
            d.eval();
            done = d.csr_awready && d.csr_wready;
            this->edge();
        }
        ASSERT_TRUE(done) << "CSR write not accepted";
        d.csr_awvalid = d.csr_wvalid = 0;
        d.csr_bready = 1;
        done = false;
        for (int i = 0; i < 8 && !done; ++i) {
            d.clk = 0;
            d.eval();
            done = d.csr_bvalid;
            EXPECT_EQ(d.csr_bresp, 0);
            this->edge();
        }
        ASSERT_TRUE(done) << "no write response";
        d.csr_bready = 0;
    }
    uint64_t csr_read(uint32_t idx) {
        Dut& d = this->dut();
        d.csr_araddr = static_cast<uint16_t>(8 * idx);
        d.csr_arvalid = 1;
        bool done = false;
        for (int i = 0; i < 8 && !done; ++i) {
            d.clk = 0;
            d.eval();
            done = d.csr_arready;
            this->edge();
        }
        EXPECT_TRUE(done) << "CSR read not accepted";
        d.csr_arvalid = 0;
        d.csr_rready = 1;
        uint64_t v = ~0ULL;
        done = false;
        for (int i = 0; i < 8 && !done; ++i) {
            d.clk = 0;
            d.eval();
            if (d.csr_rvalid) {
                v = d.csr_rdata;
                done = true;
            }
            this->edge();
        }
        EXPECT_TRUE(done) << "no read data";
        d.csr_rready = 0;
        return v;
    }

    // Runs both directions until every packet came out; returns the output packets per
    // direction. Sources idle and sinks back-pressure by their pause patterns.
    // Each direction has its own source and sink pattern (index 0 RX, 1 TX).
    std::array<std::vector<std::vector<uint8_t>>, 2> run(std::deque<Packet> rx,
                                                         std::deque<Packet> tx,
                                                         std::array<Pause, 2> src_pause,
                                                         std::array<Pause, 2> sink_pause,
                                                         uint64_t max_cycles = 2000000) {
        Dut& d = this->dut();
        std::array<Source, 2> src{Source{std::move(rx)}, Source{std::move(tx)}};
        size_t expected = src[0].pkts.size() + src[1].pkts.size();
        std::array<std::vector<std::vector<uint8_t>>, 2> out;
        std::array<std::vector<uint8_t>, 2> cur;
        size_t got = 0;
        cycles_ = 0;
        first_take_ = last_out_ = 0;
        bool any_take = false;
        while (got < expected && cycles_ < max_cycles) {
            for (unsigned k = 0; k < 2; ++k) {
                Source& s = src[k];
                const bool p = src_pause[k]();
                if (!s.valid) s.valid = !p && !s.pkts.empty();
            }
            drive(d.s_rx_tdata, d.s_rx_tkeep, d.s_rx_tvalid, d.s_rx_tlast, d.s_rx_tuser, src[0]);
            drive(d.s_tx_tdata, d.s_tx_tkeep, d.s_tx_tvalid, d.s_tx_tlast, d.s_tx_tuser, src[1]);
            d.m_rx_tready = !sink_pause[0]();
            d.m_tx_tready = !sink_pause[1]();
            d.clk = 0;
            d.eval();
            const bool take[2] = {d.s_rx_tvalid && d.s_rx_tready, d.s_tx_tvalid && d.s_tx_tready};
            if ((take[0] || take[1]) && !any_take) {
                any_take = true;
                first_take_ = cycles_;
            }
            collect(d.m_rx_tdata, d.m_rx_tkeep, d.m_rx_tvalid && d.m_rx_tready, d.m_rx_tlast,
                    d.m_rx_tuser, cur[0], out[0], got);
            collect(d.m_tx_tdata, d.m_tx_tkeep, d.m_tx_tvalid && d.m_tx_tready, d.m_tx_tlast,
                    d.m_tx_tuser, cur[1], out[1], got);
            for (unsigned k = 0; k < 2; ++k) {
                if (take[k]) advance(src[k]);
            }
            this->edge();
            ++cycles_;
        }
        EXPECT_EQ(got, expected) << "packets missing after " << cycles_ << " cycles";
        d.s_rx_tvalid = d.s_tx_tvalid = 0;
        return out;
    }
    uint64_t busy_cycles() const { return last_out_ - first_take_ + 1; }
    uint64_t out_beats() const { return out_beats_; }

  private:
    template <class D, class K, class U>
    void drive(D& data, K& keep, uint8_t& valid, uint8_t& last, U& user, const Source& s) {
        valid = s.valid;
        if (!s.valid) return;
        const Packet& p = s.pkts.front();
        const size_t n = std::min<size_t>(kBytes, p.data.size() - s.pos);
        for (unsigned i = 0; i < kBytes; ++i) {
            set_byte(data, i, i < n ? p.data[s.pos + i] : static_cast<uint8_t>(0xa5 ^ i));
        }
        keep = K{};
        for (unsigned i = 0; i < n; ++i) set_bit(keep, i, true);
        last = s.pos + n >= p.data.size();
        const Meta& m = p.meta;
        for (unsigned w = 0; w < 4; ++w) user[w] = 0;
        set_field(user, 0, 24, m.qpn);
        set_field(user, 24, 8, m.op);
        set_field(user, 32, 32, m.offset);
        set_field(user, 64, 24, m.psn);
        set_field(user, 88, 1, m.msg_first);
        set_field(user, 89, 1, m.msg_last);
        set_field(user, 90, 1, m.dir == Dir::kTx);
        set_field(user, 91, 2, m.src);
        set_field(user, 93, 1, m.retx);
        set_field(user, 96, 16, m.len);
    }
    static void advance(Source& s) {
        const Packet& p = s.pkts.front();
        s.pos += kBytes;
        if (s.pos >= p.data.size()) {
            s.pkts.pop_front();
            s.pos = 0;
        }
        s.valid = false;
    }
    template <class D, class K>
    void collect(const D& data, const K& keep, bool fire, bool last, uint8_t user,
                 std::vector<uint8_t>& cur, std::vector<std::vector<uint8_t>>& out, size_t& got) {
        if (!fire) return;
        ++out_beats_;
        last_out_ = cycles_;
        EXPECT_EQ(user, 0) << "drop set on RDMA payload";
        unsigned n = 0;
        while (n < kBytes && get_bit(keep, n)) ++n;
        for (unsigned i = n; i < kBytes; ++i) {
            EXPECT_FALSE(get_bit(keep, i)) << "tkeep not contiguous";
            EXPECT_EQ(get_byte(data, i), 0) << "byte outside tkeep not zero";
        }
        EXPECT_TRUE(last || n == kBytes) << "partial beat before tlast";
        for (unsigned i = 0; i < n; ++i) cur.push_back(get_byte(data, i));
        if (last) {
            out.push_back(std::move(cur));
            cur.clear();
            ++got;
        }
    }
    uint64_t cycles_ = 0, first_take_ = 0, last_out_ = 0, out_beats_ = 0;
};

template <class Dut, unsigned W>
struct Cfg {
    using V = Dut;
    static constexpr unsigned kBytes = W / 8;
};
using Widths = ::testing::Types<Cfg<Vaes128, 128>, Cfg<Vaes512, 512>>;
struct WidthNames {
    template <class T>
    static std::string GetName(int) {
        return "w" + std::to_string(T::kBytes * 8);
    }
};

template <class C>
class AesCtrRtl : public ::testing::Test {
  protected:
    Bench<typename C::V, C::kBytes> b;
};
TYPED_TEST_SUITE(AesCtrRtl, Widths, WidthNames);

const std::array<Pause, 2> kNone = {Pause::none(), Pause::none()};

Packet rdma(uint32_t qpn, uint32_t offset, std::vector<uint8_t> data, Dir d) {
    Packet p;
    p.meta.qpn = qpn;
    p.meta.offset = offset;
    p.meta.dir = d;
    p.meta.len = static_cast<uint16_t>(data.size());
    p.data = std::move(data);
    return p;
}

// FIPS-197 Appendix C.1: AES-128(000102..0f, 00112233..ff) = 69c4e0d8..c55a. In CTR, a block of
// zeros at counter = that plaintext comes out as the cipher block.
TYPED_TEST(AesCtrRtl, Fips197C1ThroughBothDirections) {
    auto& b = this->b;
    const auto key = hex("000102030405060708090a0b0c0d0e0f");
    const auto pt = hex("00112233445566778899aabbccddeeff");
    b.csr_write(AesCtr::kKeyHi, be64(key, 0));
    b.csr_write(AesCtr::kKeyLo, be64(key, 8));
    for (uint32_t i : {AesCtr::kIvTxHi, AesCtr::kIvRxHi}) b.csr_write(i, be64(pt, 0));
    for (uint32_t i : {AesCtr::kIvTxLo, AesCtr::kIvRxLo}) b.csr_write(i, be64(pt, 8));
    b.csr_write(AesCtr::kQpnMask, 0);
    b.csr_write(AesCtr::kCtrl, AesCtr::kCtrlTx | AesCtr::kCtrlRx);
    const auto out = b.run({rdma(7, 0, std::vector<uint8_t>(16, 0), Dir::kRx)},
                           {rdma(9, 0, std::vector<uint8_t>(16, 0), Dir::kTx)}, kNone, kNone);
    const auto want = hex("69c4e0d86a7b0430d8cdb78070b4c55a");
    ASSERT_EQ(out[0].size(), 1u);
    ASSERT_EQ(out[1].size(), 1u);
    EXPECT_EQ(out[0][0], want);
    EXPECT_EQ(out[1][0], want);
}

// SP 800-38A F.5.1 CTR-AES128.Encrypt: whole, then as two packets at offsets 0 and 32 (the
// counter follows the offset), then a 3-byte tail packet at offset 48.
TYPED_TEST(AesCtrRtl, Sp80038aF51) {
    auto& b = this->b;
    const auto key = hex("2b7e151628aed2a6abf7158809cf4f3c");
    const auto iv = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    const auto pt =
        hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
    const auto ct =
        hex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
            "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee");
    b.csr_write(AesCtr::kKeyHi, be64(key, 0));
    b.csr_write(AesCtr::kKeyLo, be64(key, 8));
    b.csr_write(AesCtr::kIvTxHi, be64(iv, 0));
    b.csr_write(AesCtr::kIvTxLo, be64(iv, 8));
    b.csr_write(AesCtr::kIvRxHi, be64(iv, 0));
    b.csr_write(AesCtr::kIvRxLo, be64(iv, 8));
    b.csr_write(AesCtr::kQpnMask, 0);
    b.csr_write(AesCtr::kCtrl, AesCtr::kCtrlTx | AesCtr::kCtrlRx);
    const std::vector<uint8_t> lo(pt.begin(), pt.begin() + 32), hi(pt.begin() + 32, pt.end());
    const std::vector<uint8_t> tail(pt.begin() + 48, pt.begin() + 51);
    const auto out =
        b.run({rdma(0x123456, 0, pt, Dir::kRx)},
              {rdma(1, 0, lo, Dir::kTx), rdma(1, 32, hi, Dir::kTx), rdma(1, 48, tail, Dir::kTx)},
              kNone, kNone);
    ASSERT_EQ(out[0].size(), 1u);
    ASSERT_EQ(out[1].size(), 3u);
    EXPECT_EQ(out[0][0], ct);
    EXPECT_EQ(out[1][0], std::vector<uint8_t>(ct.begin(), ct.begin() + 32));
    EXPECT_EQ(out[1][1], std::vector<uint8_t>(ct.begin() + 32, ct.end()));
    EXPECT_EQ(out[1][2], std::vector<uint8_t>(ct.begin() + 48, ct.begin() + 51));
    // The QPN enters the counter once the mask lets it: QPN 1 shifts the counter by 2^32 blocks.
    b.csr_write(AesCtr::kQpnMask, 0xffffff);
    const auto out2 = b.run({}, {rdma(1, 0, pt, Dir::kTx)}, kNone, kNone);
    ASSERT_EQ(out2[1].size(), 1u);
    EXPECT_NE(out2[1][0], ct);
    EXPECT_EQ(b.csr_read(AesCtr::kPkts), 5u);
    EXPECT_EQ(b.csr_read(AesCtr::kBytes), 64u + 32 + 32 + 3 + 64);
}

TYPED_TEST(AesCtrRtl, CsrResetValuesStrobesAndDisabledDirections) {
    auto& b = this->b;
    EXPECT_EQ(b.csr_read(AesCtr::kId), AesCtr::kIdValue);
    EXPECT_EQ(b.csr_read(AesCtr::kQpnMask), 0xffffffu);
    EXPECT_EQ(b.csr_read(AesCtr::kCtrl), 0u);
    EXPECT_EQ(b.csr_read(AesCtr::kKeyHi), 0u);
    EXPECT_EQ(b.csr_read(11), 0u);
    EXPECT_EQ(b.csr_read(8191), 0u);
    b.csr_write(AesCtr::kKeyHi, 0x1122334455667788ULL, 0x0f);  // low half only
    EXPECT_EQ(b.csr_read(AesCtr::kKeyHi), 0x55667788u);
    b.csr_write(AesCtr::kQpnMask, ~0ULL);
    EXPECT_EQ(b.csr_read(AesCtr::kQpnMask), 0xffffffu);
    b.csr_write(AesCtr::kCtrl, ~0ULL);
    EXPECT_EQ(b.csr_read(AesCtr::kCtrl), 3u);
    b.csr_write(AesCtr::kId, 0);  // read-only
    EXPECT_EQ(b.csr_read(AesCtr::kId), AesCtr::kIdValue);
    b.csr_write(AesCtr::kCtrl, 0);
    std::vector<uint8_t> data(200);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
    const auto out =
        b.run({rdma(3, 0, data, Dir::kRx)}, {rdma(3, 0, data, Dir::kTx)}, kNone, kNone);
    EXPECT_EQ(out[0].at(0), data);
    EXPECT_EQ(out[1].at(0), data);
    b.reset();
    EXPECT_EQ(b.csr_read(AesCtr::kKeyHi), 0u);
    EXPECT_EQ(b.csr_read(AesCtr::kPkts), 0u);
}

// Beats per cycle with a sink that never waits: encrypted payload, and frames (bypass).
TYPED_TEST(AesCtrRtl, LineRate) {
    auto& b = this->b;
    constexpr unsigned kBytes = TypeParam::kBytes;
    b.csr_write(AesCtr::kCtrl, AesCtr::kCtrlTx);
    std::deque<Packet> tx;
    for (int i = 0; i < 8; ++i)
        tx.push_back(rdma(5, 4096 * i, std::vector<uint8_t>(4096), Dir::kTx));
    b.run({}, tx, kNone, kNone);
    const double enc = double(b.out_beats()) / double(b.busy_cycles());
    std::deque<Packet> frames;
    for (int i = 0; i < 8; ++i) {
        Packet p = rdma(0, 0, std::vector<uint8_t>(4096), Dir::kTx);
        p.meta.src = scu::kSrcFrame;
        frames.push_back(p);
    }
    const uint64_t before = b.out_beats();
    b.run({}, frames, kNone, kNone);
    const double byp = double(b.out_beats() - before) / double(b.busy_cycles());
    std::printf(
        "aes-ctr DATA_W=%u: encrypted %.4f beats/cycle (%.2f Gb/s at 250 MHz), "
        "bypass %.4f beats/cycle\n",
        kBytes * 8, enc, enc * kBytes * 8 * 0.25, byp);
    EXPECT_NEAR(enc, 1.0 / 11, 0.001);  // iterative: 1 accept cycle + 10 rounds per beat
    EXPECT_GT(byp, 0.99);
}

// RTL against the twin: random configurations and packets, both directions, every pause mix
// on the sources and on the sinks.
TYPED_TEST(AesCtrRtl, DifferentialAgainstTwin) {
    auto& b = this->b;
    for (uint64_t seed : seeds(3)) {
        for (const auto& [sname, smix] : pause_mixes()) {
            for (const auto& [kname, kmix] : pause_mixes()) {
                SCOPED_TRACE(replay_hint(seed) + " source " + sname + " sink " + kname);
                std::mt19937_64 rng(seed ^ std::hash<std::string>{}(sname + kname));
                b.reset();
                Port port;
                AesCtr twin(port);
                auto both = [&](uint32_t idx, uint64_t v, uint8_t strb) {
                    b.csr_write(idx, v, strb);
                    twin.csr_write(idx, v, strb);
                };
                for (int round = 0; round < 2; ++round) {
                    for (uint32_t idx = 0; idx <= AesCtr::kCtrl; ++idx) {
                        uint64_t v = rng();
                        if (idx == AesCtr::kQpnMask && rng() % 3 == 0) v = 0;
                        if (idx == AesCtr::kCtrl && rng() % 4 != 0) v = 3;
                        const auto strb = static_cast<uint8_t>(rng() % 5 == 0 ? rng() : 0xff);
                        both(idx, v, strb);
                    }
                    std::array<std::deque<Packet>, 2> in;
                    for (unsigned k = 0; k < 2; ++k) {
                        const Dir d = k == 0 ? Dir::kRx : Dir::kTx;
                        for (int i = 0; i < 6; ++i) {
                            const size_t len = rng() % 4 == 0 ? 1 + rng() % 1100 : 1 + rng() % 80;
                            std::vector<uint8_t> data(len);
                            for (auto& x : data) x = static_cast<uint8_t>(rng());
                            const uint32_t off = rng() % 3 == 0
                                                     ? static_cast<uint32_t>(rng())
                                                     : static_cast<uint32_t>(rng() % 64) * 256;
                            Packet p = rdma(static_cast<uint32_t>(rng() & 0xffffff), off,
                                            std::move(data), d);
                            p.meta.psn = static_cast<uint32_t>(rng() & 0xffffff);
                            p.meta.retx = rng() % 5 == 0;
                            if (rng() % 6 == 0) p.meta.src = scu::kSrcFrame;
                            twin.push(d, p.meta, p.data);
                            in[k].push_back(std::move(p));
                        }
                    }
                    const auto out = b.run(in[0], in[1], {smix(seed), smix(seed + 1)},
                                           {kmix(seed + 2), kmix(seed + 3)});
                    for (unsigned k = 0; k < 2; ++k) {
                        ASSERT_EQ(out[k].size(), port.out[k].size());
                        for (size_t i = 0; i < out[k].size(); ++i) {
                            EXPECT_EQ(out[k][i], port.out[k][i])
                                << "direction " << k << " packet " << i;
                        }
                        port.out[k].clear();
                    }
                    for (uint32_t idx = 0; idx <= AesCtr::kBytes; ++idx) {
                        EXPECT_EQ(b.csr_read(idx), twin.csr_read(idx)) << "CSR " << idx;
                    }
                }
            }
        }
    }
}

// The twin's primitive against the definition's examples (the RTL's table is tested above
// through the KATs; this pins the twin on its own).
TEST(AesCtrTwin, KnownAnswers) {
    const auto key = hex("000102030405060708090a0b0c0d0e0f");
    const auto pt = hex("00112233445566778899aabbccddeeff");
    dp::AesBlock k{}, p{};
    std::copy(key.begin(), key.end(), k.begin());
    std::copy(pt.begin(), pt.end(), p.begin());
    const dp::AesBlock c = dp::Aes128(k).encrypt(p);
    EXPECT_EQ(std::vector<uint8_t>(c.begin(), c.end()), hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
    // FIPS-197 A.1: the last round key of 2b7e1516..4f3c
    const auto k2 = hex("2b7e151628aed2a6abf7158809cf4f3c");
    std::copy(k2.begin(), k2.end(), k.begin());
    const dp::AesBlock rk10 = dp::Aes128(k).round_key(10);
    EXPECT_EQ(std::vector<uint8_t>(rk10.begin(), rk10.end()),
              hex("d014f9a8c9ee2589e13f0cc8b6630ca6"));
}

}  // namespace
}  // namespace scenic::tb
