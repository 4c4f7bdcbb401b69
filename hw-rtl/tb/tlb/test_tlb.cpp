// SPDX-License-Identifier: MIT
// scenic_tlb: cycle-exact differential test against scenic::dp::Tlb (every output, every cycle),
// an independent page-table scoreboard (every hit returns the last filled ppn of its key), an
// independent per-set LRU reference for the directed thrash / LRU-order tests, miss dedup,
// invalidation, throughput and lookup latency.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <random>

#include "Vtlb2m.h"
#include "Vtlb4k.h"
#include "bench.hpp"
#include "scenic/dp/tlb.hpp"
#include "tb_util.hpp"

namespace {

using scenic::dp::Tlb;
using scenic::tb::replay_hint;
using scenic::tb::seeds;

// Must match the -G overrides in CMakeLists.txt.
constexpr Tlb::Params kP4k{.sets = 4,
                           .ways = 4,
                           .page_shift = 12,
                           .id_w = 4,
                           .va_w = 32,
                           .pa_w = 40,
                           .tag_w = 8,
                           .miss_depth = 4,
                           .cnt_w = 16};
constexpr Tlb::Params kP2m{.sets = 8,
                           .ways = 2,
                           .page_shift = 21,
                           .id_w = 8,
                           .va_w = 48,
                           .pa_w = 48,
                           .tag_w = 8,
                           .miss_depth = 2,
                           .cnt_w = 8};

template <class V>
struct Cfg;
template <>
struct Cfg<Vtlb4k> {
    static constexpr Tlb::Params p = kP4k;
};
template <>
struct Cfg<Vtlb2m> {
    static constexpr Tlb::Params p = kP2m;
};

template <class V>
class Bench : public scenic::tb::DiffBench<V, Tlb> {
    using Base = scenic::tb::DiffBench<V, Tlb>;
    using Base::clock_both, Base::cycles_, Base::dut_, Base::model_, Base::report, Base::reset_both;

  public:
    static constexpr Tlb::Params P = Cfg<V>::p;
    Bench() : Base(P) { reset(); }

    void reset() {
        reset_both([](V& d) {
            d.s_lookup_valid = 0;
            d.s_fill_valid = 0;
            d.m_resp_ready = 0;
            d.m_miss_ready = 0;
        });
    }

    // One cycle: drive inputs, compare every output with the model, clock both.
    Tlb::Outputs cycle(const Tlb::Inputs& in) {
        dut_->s_lookup_valid = in.lookup_valid;
        dut_->s_lookup_id = in.lookup_id;
        dut_->s_lookup_va = in.lookup_va;
        dut_->s_lookup_tag = in.lookup_tag;
        dut_->m_resp_ready = in.resp_ready;
        dut_->m_miss_ready = in.miss_ready;
        dut_->s_fill_valid = in.fill_valid;
        dut_->s_fill_op = uint8_t(in.fill_op);
        dut_->s_fill_id = in.fill_id;
        dut_->s_fill_vpn = in.fill_vpn;
        dut_->s_fill_ppn = in.fill_ppn;
        dut_->eval();
        Tlb::Outputs r;
        r.lookup_ready = dut_->s_lookup_ready;
        r.resp_valid = dut_->m_resp_valid;
        r.resp_hit = dut_->m_resp_hit;
        r.resp_pa = dut_->m_resp_pa;
        r.resp_tag = dut_->m_resp_tag;
        r.miss_valid = dut_->m_miss_valid;
        r.miss_id = dut_->m_miss_id;
        r.miss_vpn = dut_->m_miss_vpn;
        r.fill_ready = dut_->s_fill_ready;
        const Tlb::Outputs m = model_.outputs(in);
        const auto& s = model_.stats();
        const bool same = r.lookup_ready == m.lookup_ready && r.resp_valid == m.resp_valid &&
                          (!r.resp_valid || (r.resp_hit == m.resp_hit && r.resp_pa == m.resp_pa &&
                                             r.resp_tag == m.resp_tag)) &&
                          r.miss_valid == m.miss_valid &&
                          (!r.miss_valid || (r.miss_id == m.miss_id && r.miss_vpn == m.miss_vpn)) &&
                          r.fill_ready == m.fill_ready && dut_->stat_hit == s.hit &&
                          dut_->stat_miss == s.miss && dut_->stat_evict == s.evict &&
                          dut_->stat_miss_req == s.miss_req && dut_->stat_miss_drop == s.miss_drop;
        if (report(same))
            ADD_FAILURE() << "cycle " << cycles_ << ": rtl l_rdy=" << r.lookup_ready
                          << " resp v/hit/pa/tag=" << r.resp_valid << "/" << r.resp_hit << "/0x"
                          << std::hex << r.resp_pa << std::dec << "/" << r.resp_tag
                          << " miss v/id/vpn=" << r.miss_valid << "/" << r.miss_id << "/"
                          << r.miss_vpn << " stats h/m/e/r/d=" << uint64_t(dut_->stat_hit) << "/"
                          << uint64_t(dut_->stat_miss) << "/" << uint64_t(dut_->stat_evict) << "/"
                          << uint64_t(dut_->stat_miss_req) << "/" << uint64_t(dut_->stat_miss_drop)
                          << " | model l_rdy=" << m.lookup_ready << " resp " << m.resp_valid << "/"
                          << m.resp_hit << "/0x" << std::hex << m.resp_pa << std::dec << "/"
                          << m.resp_tag << " miss " << m.miss_valid << "/" << m.miss_id << "/"
                          << m.miss_vpn << " stats " << s.hit << "/" << s.miss << "/" << s.evict
                          << "/" << s.miss_req << "/" << s.miss_drop;
        clock_both(in);
        return r;
    }
};

uint64_t mask(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }
// the translation the "driver" installs for a key (version bumps on re-registration)
uint64_t ppn_for(const Tlb::Params& p, uint32_t id, uint64_t vpn, unsigned version) {
    return ((vpn * 0x9e3779b1ull) ^ (uint64_t(id) << 7) ^ (uint64_t(version) * 0x5bd1e995ull)) &
           mask(p.pa_w - p.page_shift);
}

// ---------------------------------------------------------------- differential, random
struct Mix {
    const char* name;
    double p_lookup, p_resp_ready, p_miss_ready;
    double p_inv_page, p_inv_id, p_flush, p_stray_fill;
    unsigned ids, vpns;   // key universe
    unsigned fill_delay;  // max driver delay from miss request to fill
};

template <class V>
void run_diff(const Mix& mx, uint64_t seed) {
    SCOPED_TRACE(replay_hint(seed));
    using B = Bench<V>;
    const Tlb::Params& P = B::P;
    std::mt19937_64 rng(seed);
    auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
    B b;
    // independent page table: key -> ppn currently valid in the TLB's view (last fill, not
    // invalidated since), and every (from, to, ppn) validity interval of a key: a hit must return
    // a ppn that was valid for its key at some cycle between request and response (the lookup's
    // compare stage is internal, so the scoreboard does not assume which cycle it used)
    std::map<std::pair<uint32_t, uint64_t>, uint64_t> pt;
    struct Valid {
        uint64_t from, to, ppn;
    };
    std::map<std::pair<uint32_t, uint64_t>, std::vector<Valid>> hist;
    auto close = [&](const std::pair<uint32_t, uint64_t>& k, uint64_t now) {
        auto& h = hist[k];
        if (!h.empty() && h.back().to == ~0ull) h.back().to = now;
    };
    std::map<std::pair<uint32_t, uint64_t>, unsigned> version;
    struct Req {
        uint32_t id;
        uint64_t va, at;
    };
    std::deque<Req> inflight;  // accepted lookups in order
    struct Pending {
        uint64_t due;
        uint32_t id;
        uint64_t vpn;
    };
    std::deque<Pending> driver;
    Tlb::Inputs in;
    uint64_t hits = 0, misses = 0, resps = 0, tag_next = 0;
    std::deque<uint32_t> tags;
    for (uint64_t c = 0; c < 20000; ++c) {
        // lookup source: hold the request until accepted
        if (!in.lookup_valid && chance(mx.p_lookup)) {
            in.lookup_valid = true;
            in.lookup_id = uint32_t(rng() % mx.ids);
            const uint64_t vpn = rng() % mx.vpns;
            in.lookup_va = ((vpn << P.page_shift) | (rng() & mask(P.page_shift))) & mask(P.va_w);
            in.lookup_tag = uint32_t(tag_next++ & mask(P.tag_w));
        }
        in.resp_ready = chance(mx.p_resp_ready);
        in.miss_ready = chance(mx.p_miss_ready);
        // driver: fill due misses, or a random maintenance op
        in.fill_valid = false;
        if (!driver.empty() && driver.front().due <= c) {
            const auto d = driver.front();
            driver.pop_front();
            in.fill_valid = true;
            in.fill_op = Tlb::Op::Fill;
            in.fill_id = d.id;
            in.fill_vpn = d.vpn;
            in.fill_ppn = ppn_for(P, d.id, d.vpn, version[{d.id, d.vpn}]);
        } else if (chance(mx.p_stray_fill + mx.p_inv_page + mx.p_inv_id + mx.p_flush)) {
            const double r = std::uniform_real_distribution<double>(
                0, mx.p_stray_fill + mx.p_inv_page + mx.p_inv_id + mx.p_flush)(rng);
            in.fill_valid = true;
            in.fill_id = uint32_t(rng() % mx.ids);
            in.fill_vpn = rng() % mx.vpns;
            const std::pair<uint32_t, uint64_t> k{in.fill_id, in.fill_vpn};
            if (r < mx.p_stray_fill) {
                in.fill_op = Tlb::Op::Fill;
                in.fill_ppn = ppn_for(P, k.first, k.second, ++version[k]);  // re-registration
            } else if (r < mx.p_stray_fill + mx.p_inv_page) {
                in.fill_op = Tlb::Op::InvPage;
            } else if (r < mx.p_stray_fill + mx.p_inv_page + mx.p_inv_id) {
                in.fill_op = Tlb::Op::InvId;
            } else {
                in.fill_op = Tlb::Op::Flush;
            }
        }
        const auto o = b.cycle(in);
        // scoreboard (what happened at this edge)
        if (o.resp_valid && in.resp_ready) {
            ++resps;
            EXPECT_FALSE(inflight.empty());
            const Req rq = inflight.front();
            inflight.pop_front();
            EXPECT_EQ(o.resp_tag, tags.front());
            tags.pop_front();
            if (o.resp_hit) {
                ++hits;
                EXPECT_EQ(o.resp_pa & mask(P.page_shift), rq.va & mask(P.page_shift));
                bool ok = false;
                for (const Valid& v : hist[{rq.id, rq.va >> P.page_shift}])
                    ok |= v.from <= c && v.to >= rq.at && v.ppn == (o.resp_pa >> P.page_shift);
                if (!ok)
                    ADD_FAILURE() << "cycle " << c << ": hit with pa 0x" << std::hex << o.resp_pa
                                  << " never valid for its key since the request";
            } else {
                ++misses;
            }
        }
        if (in.lookup_valid && o.lookup_ready) {
            inflight.push_back({in.lookup_id, in.lookup_va, c});
            tags.push_back(in.lookup_tag);
            in.lookup_valid = false;
        }
        if (o.miss_valid && in.miss_ready)
            driver.push_back({c + 1 + rng() % (mx.fill_delay + 1), o.miss_id, o.miss_vpn});
        if (in.fill_valid) {
            const std::pair<uint32_t, uint64_t> k{in.fill_id, in.fill_vpn};
            switch (in.fill_op) {
                case Tlb::Op::Fill:
                    close(k, c);
                    pt[k] = in.fill_ppn;
                    hist[k].push_back({c + 1, ~0ull, in.fill_ppn});
                    break;
                case Tlb::Op::InvPage:
                    close(k, c);
                    pt.erase(k);
                    break;
                case Tlb::Op::InvId:
                    for (auto it = pt.begin(); it != pt.end();) {
                        if (it->first.first == k.first) {
                            close(it->first, c);
                            it = pt.erase(it);
                        } else {
                            ++it;
                        }
                    }
                    break;
                case Tlb::Op::Flush:
                    for (const auto& e : pt) close(e.first, c);
                    pt.clear();
                    break;
            }
        }
        if (b.mismatches() > 5) break;
    }
    EXPECT_EQ(b.mismatches(), 0u);
    const auto& s = b.model().stats();
    EXPECT_GT(hits, 100u) << "vacuous: no hits";
    EXPECT_GT(misses, 20u) << "vacuous: no misses";
    EXPECT_GT(s.evict, 0u) << "vacuous: no evictions";
    std::printf(
        "[ metric   ] %s seed %llu: %llu responses, hit rate %.3f, %llu evictions, "
        "%llu miss requests, %llu dropped\n",
        mx.name, (unsigned long long)seed, (unsigned long long)resps,
        double(hits) / double(resps ? resps : 1), (unsigned long long)s.evict,
        (unsigned long long)s.miss_req, (unsigned long long)s.miss_drop);
}

void PrintTo(const Mix& m, std::ostream* os) { *os << m.name; }

const Mix kMixes[] = {
    // name, lookup, resp_rdy, miss_rdy, inv_page, inv_id, flush, stray fill, ids, vpns, delay
    {"steady", 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.002, 3, 24, 4},
    {"backpressure", 0.8, 0.6, 0.3, 0.002, 0.0005, 0.0, 0.005, 4, 20, 30},
    {"churn", 0.7, 0.8, 0.7, 0.01, 0.003, 0.001, 0.01, 3, 40, 10},
    {"slow_driver", 1.0, 0.9, 0.1, 0.001, 0.0, 0.0002, 0.0, 2, 30, 200},
};

class TlbDiff : public ::testing::TestWithParam<Mix> {};
TEST_P(TlbDiff, Page4kCycleExact) {
    for (uint64_t seed : seeds(3)) run_diff<Vtlb4k>(GetParam(), seed);
}
TEST_P(TlbDiff, Page2mCycleExact) {
    for (uint64_t seed : seeds(3, 77)) run_diff<Vtlb2m>(GetParam(), seed);
}
INSTANTIATE_TEST_SUITE_P(Mixes, TlbDiff, ::testing::ValuesIn(kMixes),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------- directed, via a blocking
// "requester + driver": lookup one key, wait for the response; on a miss, wait for the miss
// request (if one is issued) and fill it. Every cycle is still compared with the model.
template <class V>
class Seq {
  public:
    Bench<V> b;
    const Tlb::Params& P = Bench<V>::P;
    Tlb::Inputs idle() const { return Tlb::Inputs{.resp_ready = true, .miss_ready = true}; }
    void op(Tlb::Op op, uint32_t id, uint64_t vpn, uint64_t ppn = 0) {
        Tlb::Inputs in = idle();
        in.fill_valid = true;
        in.fill_op = op;
        in.fill_id = id;
        in.fill_vpn = vpn;
        in.fill_ppn = ppn;
        b.cycle(in);
    }
    // returns hit; fills on a miss (ppn = vpn + 0x100 + id)
    bool access(uint32_t id, uint64_t vpn, bool fill_on_miss = true) {
        Tlb::Inputs in = idle();
        in.lookup_valid = true;
        in.lookup_id = id;
        in.lookup_va = (vpn << P.page_shift) | 0x123;
        bool got = false, hit = false, missreq = false;
        for (int c = 0; c < 50 && !got; ++c) {
            const auto o = b.cycle(in);
            if (o.lookup_ready) in.lookup_valid = false;
            if (o.miss_valid) {
                missreq = true;
                EXPECT_EQ(o.miss_id, id);
                EXPECT_EQ(o.miss_vpn, vpn);
            }
            if (o.resp_valid) {
                got = true;
                hit = o.resp_hit;
                if (hit) EXPECT_EQ(o.resp_pa, ((vpn + 0x100 + id) << P.page_shift) | 0x123);
            }
        }
        EXPECT_TRUE(got) << "no response";
        for (int c = 0; c < 3 && !hit && !missreq; ++c) missreq = b.cycle(idle()).miss_valid;
        if (!hit) {
            EXPECT_TRUE(missreq) << "miss without a miss request";
            if (fill_on_miss) op(Tlb::Op::Fill, id, vpn, vpn + 0x100 + id);
        }
        return hit;
    }
};

// Independent reference: true LRU per set, as lists (front = MRU).
struct RefLru {
    const Tlb::Params& p;
    std::vector<std::list<std::pair<uint32_t, uint64_t>>> sets;
    explicit RefLru(const Tlb::Params& pp) : p(pp), sets(pp.sets) {}
    unsigned set_of(uint32_t id, uint64_t vpn) const { return unsigned((vpn ^ id) % p.sets); }
    // returns hit; on a miss inserts and reports the evicted key
    bool access(uint32_t id, uint64_t vpn, std::pair<uint32_t, uint64_t>* evicted = nullptr) {
        auto& l = sets[set_of(id, vpn)];
        for (auto it = l.begin(); it != l.end(); ++it)
            if (*it == std::make_pair(id, vpn)) {
                l.splice(l.begin(), l, it);
                return true;
            }
        l.push_front({id, vpn});
        if (l.size() > p.ways) {
            if (evicted) *evicted = l.back();
            l.pop_back();
        }
        return false;
    }
};

// Working set of WAYS+1 pages in one set, cyclic: true LRU misses on every access after the
// warm-up, each fill evicting exactly the page touched WAYS accesses before; WAYS pages: all hit.
TEST(TlbDirected, ThrashOneSetLruOrder) {
    Seq<Vtlb4k> s;
    const unsigned W = kP4k.ways, S = kP4k.sets;
    for (unsigned round = 0; round < 6; ++round)
        for (unsigned k = 0; k <= W; ++k) {
            const uint64_t vpn = uint64_t(k) * S;  // all in set 0 with id 0
            const bool hit = s.access(0, vpn);
            EXPECT_FALSE(hit) << "round " << round << " key " << k;
            if (round > 0) {  // the page touched W accesses ago is the one evicted
                const uint64_t gone = uint64_t((k + 1) % (W + 1)) * S;
                EXPECT_LT(s.b.model().find(0, gone), 0);
                for (unsigned j = 1; j <= W - 1; ++j)  // the other W-1 are resident...
                    EXPECT_GE(s.b.model().find(0, uint64_t((k + W + 1 - j) % (W + 1)) * S), 0);
            }
        }
    const auto& st = s.b.model().stats();
    EXPECT_EQ(st.hit, 0u);
    EXPECT_EQ(st.miss, 6u * (W + 1));
    EXPECT_EQ(st.evict, 6u * (W + 1) - W);
    EXPECT_EQ(uint64_t(s.b.dut().stat_evict), st.evict);
    // WAYS pages: after the warm-up every access hits
    s.op(Tlb::Op::Flush, 0, 0);
    for (unsigned round = 0; round < 4; ++round)
        for (unsigned k = 0; k < W; ++k) EXPECT_EQ(s.access(0, uint64_t(k) * S), round > 0);
    EXPECT_EQ(s.b.mismatches(), 0u);
}

// Whole-TLB thrash: SETS*(WAYS+1) pages spread evenly -> every access misses; SETS*WAYS -> all hit.
TEST(TlbDirected, ThrashWholeTlb) {
    Seq<Vtlb4k> s;
    const unsigned cap = kP4k.sets * kP4k.ways;
    unsigned hits = 0;
    for (unsigned round = 0; round < 4; ++round)
        for (unsigned k = 0; k < cap + kP4k.sets; ++k) hits += s.access(1, k);
    EXPECT_EQ(hits, 0u);
    s.op(Tlb::Op::Flush, 0, 0);
    hits = 0;
    for (unsigned round = 0; round < 4; ++round)
        for (unsigned k = 0; k < cap; ++k) hits += s.access(1, k);
    EXPECT_EQ(hits, 3u * cap);
    std::printf(
        "[ metric   ] capacity %u pages: working set cap+SETS -> hit rate 0, cap -> %.3f "
        "after warm-up\n",
        cap, double(hits) / (3.0 * cap));
    EXPECT_EQ(s.b.mismatches(), 0u);
}

// Random access sequence against the independent LRU reference: hit/miss and victim per access.
TEST(TlbDirected, RandomAccessAgainstReferenceLru) {
    for (uint64_t seed : seeds(4)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        Seq<Vtlb4k> s;
        RefLru ref(kP4k);
        for (int i = 0; i < 600; ++i) {
            const uint32_t id = uint32_t(rng() % 3);
            const uint64_t vpn = rng() % 14;
            std::pair<uint32_t, uint64_t> ev{~0u, 0};
            const bool exp = ref.access(id, vpn, &ev);
            ASSERT_EQ(s.access(id, vpn), exp) << "access " << i;
            if (ev.first != ~0u) EXPECT_LT(s.b.model().find(ev.first, ev.second), 0);
        }
        EXPECT_EQ(s.b.mismatches(), 0u);
    }
}

// N back-to-back lookups of one missing page: one miss request, N misses; the table holds
// MISS_DEPTH distinct misses, one more is dropped (counted); fills retire them.
TEST(TlbDirected, MissDedupAndTableFull) {
    Bench<Vtlb4k> b;
    Tlb::Inputs in{.resp_ready = true, .miss_ready = false};
    auto lookups = [&](uint32_t id, uint64_t vpn, int n) {
        for (int i = 0; i < n;) {
            in.lookup_valid = true;
            in.lookup_id = id;
            in.lookup_va = vpn << 12;
            if (b.cycle(in).lookup_ready) ++i;
        }
        in.lookup_valid = false;
        for (int i = 0; i < 4; ++i) b.cycle(in);
    };
    lookups(2, 7, 10);
    EXPECT_EQ(b.model().stats().miss, 10u);
    for (uint64_t v = 100; v < 100 + kP4k.miss_depth; ++v) lookups(2, v, 3);  // 3 new, 1 dropped
    EXPECT_EQ(b.model().stats().miss_drop, 3u);
    EXPECT_EQ(uint64_t(b.dut().stat_miss_drop), 3u);
    // drain the miss requests: exactly MISS_DEPTH distinct keys, 7 first
    in.miss_ready = true;
    std::vector<uint64_t> got;
    for (int i = 0; i < 20; ++i)
        if (auto o = b.cycle(in); o.miss_valid) got.push_back(o.miss_vpn);
    EXPECT_EQ(got, (std::vector<uint64_t>{7, 100, 101, 102}));
    // still outstanding: a repeat lookup is deduplicated (no new request)
    lookups(2, 101, 2);
    EXPECT_EQ(b.model().stats().miss_req, 4u);
    // fill retires 101: the next miss of 101 (after an invalidate) requests again
    Tlb::Inputs f = in;
    f.fill_valid = true;
    f.fill_op = Tlb::Op::Fill;
    f.fill_id = 2;
    f.fill_vpn = 101;
    f.fill_ppn = 5;
    b.cycle(f);
    lookups(2, 101, 1);
    EXPECT_EQ(b.model().stats().hit, 1u);
    f.fill_op = Tlb::Op::InvPage;
    b.cycle(f);
    lookups(2, 101, 1);
    for (int i = 0; i < 4; ++i) b.cycle(in);
    EXPECT_EQ(b.model().stats().miss_req, 5u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Invalidate by page / by id / flush. ids 0, 4, 8 with vpns 0..3: 12 pages, at most 2 per set
// of the 8x2 configuration (set = (vpn ^ id) % 8), so nothing is evicted.
TEST(TlbDirected, Invalidate) {
    Seq<Vtlb2m> s;
    for (uint32_t id : {0u, 4u, 8u})
        for (uint64_t v = 0; v < 4; ++v) EXPECT_FALSE(s.access(id, v));
    EXPECT_EQ(s.b.model().stats().evict, 0u);
    EXPECT_TRUE(s.access(4, 3));
    s.op(Tlb::Op::InvPage, 4, 3);
    EXPECT_FALSE(s.access(4, 3));
    EXPECT_TRUE(s.access(4, 1));
    EXPECT_TRUE(s.access(0, 3));
    s.op(Tlb::Op::InvId, 4, 0);
    EXPECT_FALSE(s.access(4, 1, false));
    EXPECT_FALSE(s.access(4, 2, false));
    EXPECT_TRUE(s.access(0, 1));
    EXPECT_TRUE(s.access(8, 2));
    s.op(Tlb::Op::Flush, 0, 0);
    EXPECT_FALSE(s.access(0, 1, false));
    EXPECT_FALSE(s.access(8, 2, false));
    EXPECT_EQ(s.b.mismatches(), 0u);
}

// One lookup per cycle: back-to-back lookups, responses every cycle, latency 2 cycles.
TEST(TlbDirected, ThroughputAndLatency) {
    Bench<Vtlb4k> b;
    Tlb::Inputs in{.resp_ready = true, .miss_ready = true};
    const int n = 2000;
    int sent = 0, got = 0;
    uint64_t first_send = 0, first_resp = 0, last_resp = 0, c = 0;
    for (; got < n && c < 10 * n; ++c) {
        in.lookup_valid = sent < n;
        in.lookup_id = 1;
        in.lookup_va = uint64_t(sent % 8) << 12;
        in.lookup_tag = uint32_t(sent & 0xff);
        const auto o = b.cycle(in);
        if (o.resp_valid) {
            if (got == 0) first_resp = c;
            last_resp = c;
            ++got;
        }
        if (in.lookup_valid && o.lookup_ready) {
            if (sent == 0) first_send = c;
            ++sent;
        }
    }
    const double per_cycle = double(n) / double(last_resp - first_resp + 1);
    const uint64_t lat = first_resp - first_send;
    std::printf(
        "[ metric   ] tlb: %d lookups, %.4f lookups/cycle, latency %llu cycles "
        "(%.0f Mlookups/s at 250 MHz)\n",
        n, per_cycle, (unsigned long long)lat, per_cycle * 250.0);
    EXPECT_EQ(per_cycle, 1.0);
    EXPECT_EQ(lat, 2u);
    EXPECT_EQ(b.mismatches(), 0u);
}

}  // namespace
