// SPDX-License-Identifier: MIT
// scenic_icrc: the model against zlib and the spec's masking rules, then the RTL against the
// model (packet bytes and verdict per packet) at 512 bit and 64 bit, every last-beat occupancy,
// pause mixes, line rate; model and RTL also against ICRCs that Linux rxe put on the wire.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>

#include "Vicrc512.h"
#include "Vicrc64.h"
#include "bench.hpp"
#include "rxe_frames.hpp"
#include "scenic/dp/icrc.hpp"
#include "tb_util.hpp"

namespace {

using namespace scenic::tb;
using scenic::dp::icrc_process;
using scenic::dp::roce_icrc;

// L2-stripped RoCE v2 packet: IPv4 (IHL 5..15) or IPv6, UDP 4791, BTH, payload, ICRC
Frame make_packet(std::mt19937_64& rng, size_t len, bool v6, bool good_icrc) {
    Frame p(len);
    for (auto& b : p) b = uint8_t(rng());
    if (len == 0) return p;
    if (v6) {
        p[0] = uint8_t(0x60 | (p[0] & 0xf));
        if (len > 6) p[6] = 17;
    } else {
        const unsigned ihl = rng() % 3 ? 5 : 5 + unsigned(rng() % 11);
        p[0] = uint8_t(0x40 | ihl);
        if (len > 9) p[9] = 17;
    }
    if (good_icrc && len >= 4) {
        const uint32_t c = roce_icrc(p);
        for (size_t i = 0; i < 4; ++i) p[len - 4 + i] = uint8_t(c >> (8 * i));
    }
    return p;
}

// ------------------------------------------------------------------ model vs independent refs
TEST(IcrcModel, KnownAnswers) {
    const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    EXPECT_EQ(~scenic::dp::crc32_update(0xffffffffu, check), 0xcbf43926u);  // CRC-32 check value
    const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    EXPECT_EQ(scenic::dp::crc32_update(0xffffffffu, ones), scenic::dp::kIcrcSeed);
}

// ICRC = zlib crc32 over 8 bytes of 0xFF + the packet with the fields masked (masking done here
// independently, from the spec text).
TEST(IcrcModel, MatchesZlibWithSpecMasks) {
    std::mt19937_64 rng(11);
    for (int i = 0; i < 400; ++i) {
        const bool v6 = i % 2;
        const size_t len = 80 + rng() % 300;
        Frame p = make_packet(rng, len, v6, false);
        Frame m(8 + p.size() - 4, 0xff);
        std::copy(p.begin(), p.end() - 4, m.begin() + 8);
        const size_t ip = 8;
        if (!v6) {
            const size_t l4 = ip + 4 * (p[0] & 0xf);
            m[ip + 1] = 0xff;                // TOS
            m[ip + 8] = 0xff;                // TTL
            m[ip + 10] = m[ip + 11] = 0xff;  // header checksum
            m[l4 + 6] = m[l4 + 7] = 0xff;    // UDP checksum
            m[l4 + 8 + 4] = 0xff;            // BTH resv8a
        } else {
            m[ip] |= 0x0f;                             // traffic class (high nibble)
            m[ip + 1] = m[ip + 2] = m[ip + 3] = 0xff;  // traffic class (low) + flow label
            m[ip + 7] = 0xff;                          // hop limit
            m[ip + 40 + 6] = m[ip + 40 + 7] = 0xff;    // UDP checksum
            m[ip + 48 + 4] = 0xff;                     // BTH resv8a
        }
        const uint32_t z = uint32_t(crc32(0L, m.data(), uInt(m.size())));
        ASSERT_EQ(roce_icrc(p), z) << "packet " << i << (v6 ? " IPv6" : " IPv4");
    }
}

// Changing a masked field leaves the ICRC alone; changing any other covered byte changes it.
TEST(IcrcModel, MaskedFieldsAreInvariant) {
    std::mt19937_64 rng(5);
    Frame p = make_packet(rng, 200, false, false);
    p[0] = 0x45;
    const uint32_t ref = roce_icrc(p);
    for (size_t pos : {1, 8, 10, 11, 26, 27, 32}) {
        Frame q = p;
        q[pos] ^= 0x5a;
        EXPECT_EQ(roce_icrc(q), ref) << "IPv4 byte " << pos;
    }
    for (size_t pos : {0, 2, 9, 12, 19, 20, 22, 28, 31, 33, 100, 195}) {
        Frame q = p;
        q[pos] ^= 0x01;
        EXPECT_NE(roce_icrc(q), ref) << "IPv4 byte " << pos;
    }
}

// The model computes the ICRC rxe put on captured frames; one flipped covered bit changes it.
TEST(IcrcModel, MatchesCapturedRxeFrames) {
    for (const auto& c : scenic::rxe_frames::kAll) {
        const auto l3 = scenic::rxe_frames::l3(c.frame);
        EXPECT_EQ(roce_icrc(l3), scenic::rxe_frames::wire_icrc(c.frame)) << c.what;
        Frame bad(l3.begin(), l3.end());
        bad[bad.size() - 5] ^= 0x01;  // last byte before the ICRC
        EXPECT_NE(roce_icrc(bad), scenic::rxe_frames::wire_icrc(c.frame)) << c.what;
    }
}

// ------------------------------------------------------------------ RTL bench
struct Cfg512 : BusCfg<Vicrc512, 512> {};
struct Cfg64 : BusCfg<Vicrc64, 64> {};

struct Result {
    std::vector<Frame> out;
    std::vector<bool> ok;
    uint64_t out_beats = 0, out_first = 0, out_last = 0, in_stalls = 0;
    bool timed_out = false;
};

template <class C>
class Bench : public scenic::tb::DutBench<typename C::V> {
    using scenic::tb::DutBench<typename C::V>::dut_;
    using scenic::tb::DutBench<typename C::V>::edge;

  public:
    static constexpr unsigned kLanes = C::W / 8;
    Result run(const std::vector<Frame>& pkts, bool gen, Pause sp, Pause kp) {
        auto& d = *dut_;
        AxisSource src(kLanes, std::move(sp));
        AxisSink sink(std::move(kp));
        uint64_t beats = 0;
        for (const auto& p : pkts) {
            src.push(p);
            beats += (p.size() + kLanes - 1) / kLanes + 1;
        }
        Result r;
        d.rst = 1;
        d.icrc_gen = gen;
        d.s_axis_tvalid = 0;
        d.clk = 0;
        d.eval();
        edge();
        edge();
        d.rst = 0;
        bool seen = false;
        unsigned quiet = 0;
        for (uint64_t c = 0; quiet < 32; ++c) {
            if (c > 64 * beats + 1000) {
                r.timed_out = true;
                break;
            }
            src.drive();
            d.m_axis_tready = sink.drive();
            d.s_axis_tvalid = src.valid();
            if (src.valid()) {
                put_beat(d.s_axis_tdata, d.s_axis_tkeep, src.beat(), kLanes);
                d.s_axis_tlast = src.beat().last;
            }
            d.eval();
            if (src.valid() && !d.s_axis_tready) ++r.in_stalls;
            if (d.m_axis_tvalid && d.m_axis_tready) {
                sink.accept(get_beat(d.m_axis_tdata, d.m_axis_tkeep, d.m_axis_tlast, kLanes));
                if (d.m_axis_tlast) r.ok.push_back(d.m_axis_tuser);
                if (!seen) r.out_first = c;
                seen = true;
                r.out_last = c;
                ++r.out_beats;
            }
            quiet = (src.idle() && !d.m_axis_tvalid) ? quiet + 1 : 0;
            src.advance(d.s_axis_tready);
            edge();
        }
        r.out = std::move(sink.frames);
        return r;
    }
};

void check(const std::vector<Frame>& pkts, bool gen, const Result& r) {
    ASSERT_FALSE(r.timed_out) << "DUT hung";
    ASSERT_EQ(r.out.size(), pkts.size());
    ASSERT_EQ(r.ok.size(), pkts.size());
    for (size_t i = 0; i < pkts.size(); ++i) {
        const auto m = icrc_process(pkts[i], gen);
        if (r.out[i] != m.packet) {
            size_t at = 0;
            while (at < m.packet.size() && at < r.out[i].size() && r.out[i][at] == m.packet[at])
                ++at;
            FAIL() << "packet " << i << " len " << pkts[i].size() << " (IPv" << (pkts[i][0] >> 4)
                   << ") differs from byte " << at << " (rtl " << r.out[i].size() << " bytes)";
        }
        ASSERT_EQ(bool(r.ok[i]), m.ok) << "verdict, packet " << i << " len " << pkts[i].size();
    }
}

template <class C>
class IcrcTest : public ::testing::Test {};
using Configs = ::testing::Types<Cfg512, Cfg64>;
TYPED_TEST_SUITE(IcrcTest, Configs, BusWidthNames);

// Every length 1..3 beats + 8 (every last-beat occupancy, ICRC straddling), good and bad ICRCs,
// IPv4 (with options) and IPv6, both modes, every 4-cycle pause pattern.
TYPED_TEST(IcrcTest, EveryLengthEveryPausePattern) {
    constexpr unsigned L = TypeParam::W / 8;
    std::mt19937_64 rng(seeds(1).front());
    std::vector<Frame> pkts;
    for (size_t len = 1; len <= 3 * L + 8; ++len)
        pkts.push_back(make_packet(rng, len, len % 2, len % 3 != 0));
    pkts.push_back(make_packet(rng, 9000, false, true));
    pkts.push_back(make_packet(rng, 9001, true, true));
    for (uint32_t mask = 0; mask < 15; ++mask) {
        SCOPED_TRACE("sink pause mask " + std::to_string(mask));
        Bench<TypeParam> b;
        const bool gen = mask % 2;
        const auto r = b.run(pkts, gen, Pause::mask((mask * 7 + 3) % 15, 4), Pause::mask(mask, 4));
        check(pkts, gen, r);
        if (::testing::Test::HasFailure()) return;
    }
}

// Frames from Linux rxe: the RTL's check passes them unchanged with a good verdict, its generator
// writes the very ICRC rxe sent, and with one payload/header bit flipped the check fails.
TYPED_TEST(IcrcTest, CapturedRxeFrames) {
    std::vector<Frame> good, bad;
    for (const auto& c : scenic::rxe_frames::kAll) {
        const auto l3 = scenic::rxe_frames::l3(c.frame);
        good.emplace_back(l3.begin(), l3.end());
        bad.push_back(good.back());
        bad.back()[bad.back().size() - 5] ^= 0x01;
    }
    for (const bool gen : {false, true}) {
        SCOPED_TRACE(gen ? "generate" : "check");
        Bench<TypeParam> b;
        const auto r = b.run(good, gen, Pause::none(), Pause::none());
        ASSERT_FALSE(r.timed_out);
        ASSERT_EQ(r.out.size(), good.size());
        ASSERT_EQ(r.ok.size(), good.size());
        for (size_t i = 0; i < good.size(); ++i) {
            EXPECT_EQ(r.out[i], good[i]) << scenic::rxe_frames::kAll[i].what;
            EXPECT_TRUE(r.ok[i]) << scenic::rxe_frames::kAll[i].what;
        }
    }
    Bench<TypeParam> b;
    const auto r = b.run(bad, false, Pause::none(), Pause::none());
    ASSERT_EQ(r.ok.size(), bad.size());
    for (size_t i = 0; i < bad.size(); ++i) {
        EXPECT_FALSE(r.ok[i]) << scenic::rxe_frames::kAll[i].what << ", one bit flipped";
    }
    check(bad, false, r);
}

TYPED_TEST(IcrcTest, DifferentialRandom) {
    const auto mixes = pause_mixes();
    for (uint64_t seed : seeds(2)) {
        for (size_t si = 0; si < mixes.size(); ++si) {
            const size_t di = (si + 2) % mixes.size();
            SCOPED_TRACE(replay_hint(seed) + " src=" + mixes[si].first +
                         " sink=" + mixes[di].first);
            std::mt19937_64 rng(seed * 17 + si);
            std::vector<Frame> pkts;
            for (int i = 0; i < 60; ++i) {
                const size_t len = rng() % 8 == 0 ? 1 + rng() % 9000 : 60 + rng() % 400;
                Frame p = make_packet(rng, len, rng() % 2, rng() % 4 != 0);
                pkts.push_back(std::move(p));
            }
            const bool gen = (seed + si) % 2;
            Bench<TypeParam> b;
            check(pkts, gen, b.run(pkts, gen, mixes[si].second(seed), mixes[di].second(seed + 1)));
            if (::testing::Test::HasFailure()) return;
        }
    }
}

TYPED_TEST(IcrcTest, LineRate) {
    constexpr unsigned W = TypeParam::W;
    for (size_t size : {size_t(64), size_t(1500), size_t(9000)}) {
        std::mt19937_64 rng(size);
        std::vector<Frame> pkts;
        uint64_t bytes = 0;
        const unsigned n = size == 9000 ? 30 : size == 64 ? 1000 : 150;
        for (unsigned i = 0; i < n; ++i) {
            pkts.push_back(make_packet(rng, size, i % 2, true));
            bytes += size;
        }
        Bench<TypeParam> b;
        const auto r = b.run(pkts, false, Pause::none(), Pause::none());
        check(pkts, false, r);
        for (bool ok : r.ok) ASSERT_TRUE(ok);
        const uint64_t span = r.out_last - r.out_first + 1;
        const double bpc = double(r.out_beats) / double(span);
        std::printf(
            "[ metric   ] DATA_W=%u packets=%zu: %lu beats in %lu cycles = %.4f beats/cycle;"
            " at 250 MHz bus %.1f Gb/s, packet data %.1f Gb/s\n",
            W, size, (unsigned long)r.out_beats, (unsigned long)span, bpc, bpc * W * 0.25,
            double(bytes) * 8 * 0.25 / double(span));
        EXPECT_EQ(r.in_stalls, 0u);
        EXPECT_EQ(r.out_beats, span) << "bubbles on the output";
    }
}

}  // namespace
