// SPDX-License-Identifier: MIT
// scenic_cq_counter: cycle-exact differential test against scenic::dp::CqCounter over all 512
// QPs (random events, same-QP bursts, page-table changes, back-pressure), plus model-independent
// checks: a scoreboard of every write (address = a page the QP had + the regmap's counter offset,
// values only increase, end value = sum of the events), a host-memory image read back through
// struct scenic_qp_status, read-modify-write forwarding, coalescing, QPs without a page, and one
// event per cycle.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "Vcqc.h"
#include "bench.hpp"
#include "scenic/dp/cq_counter.hpp"
#include "tb_util.hpp"
#include "uapi/scenic_rdma.h"
#include "uapi/scenic_regs.h"

// The RTL takes the offset from scenic_regs_pkg, the provider reads struct scenic_qp_status:
// both must be the regmap's.
static_assert(offsetof(scenic_qp_status, sq_completed) == SCENIC_QP_STATUS_SQ_COMPLETED_OFF);
static_assert(sizeof(scenic_qp_status) <= SCENIC_QP_STATUS_SIZE);
static_assert(SCENIC_RDMA_MAX_QP_DEFAULT == 512);

namespace {

using scenic::dp::CqCounter;
using scenic::tb::Pause;
using scenic::tb::pause_mixes;
using scenic::tb::replay_hint;
using scenic::tb::seeds;

// Must match the -G overrides in CMakeLists.txt (QPS = the regmap's RDMA.MAX_QP, the default).
constexpr CqCounter::Params kP{.qps = 512, .ev_w = 8, .addr_w = 48, .cnt_w = 16};
constexpr uint64_t kPageBase = 0x7f1234000000ull;  // status pages, 4 KiB each, inside 48 bits

class Bench : public scenic::tb::DiffBench<Vcqc, CqCounter> {
  public:
    Bench() : DiffBench(kP) { reset(); }
    void reset() {
        reset_both([](Vcqc& d) {
            d.s_ev_valid = 0;
            d.cfg_valid = 0;
            d.m_wr_ready = 0;
        });
    }
    CqCounter::Outputs cycle(const CqCounter::Inputs& in) {
        dut_->cfg_valid = in.cfg_valid;
        dut_->cfg_qpn = in.cfg_qpn;
        dut_->cfg_page = in.cfg_page;
        dut_->s_ev_valid = in.ev_valid;
        dut_->s_ev_qpn = in.ev_qpn;
        dut_->s_ev_cnt = in.ev_cnt;
        dut_->m_wr_ready = in.wr_ready;
        dut_->eval();
        CqCounter::Outputs r;
        r.cfg_ready = dut_->cfg_ready;
        r.ev_ready = dut_->s_ev_ready;
        r.wr_valid = dut_->m_wr_valid;
        r.wr_addr = dut_->m_wr_addr;
        r.wr_data = dut_->m_wr_data;
        r.busy = dut_->busy;
        const auto m = model_.outputs(in);
        const auto& s = model_.stats();
        const bool same = r.cfg_ready == m.cfg_ready && r.ev_ready == m.ev_ready &&
                          r.wr_valid == m.wr_valid && r.busy == m.busy &&
                          (!r.wr_valid || (r.wr_addr == m.wr_addr && r.wr_data == m.wr_data)) &&
                          dut_->stat_events == s.events && dut_->stat_writes == s.writes &&
                          dut_->stat_coalesced == s.coalesced && dut_->stat_nopage == s.nopage;
        if (report(same))
            ADD_FAILURE() << "cycle " << cycles_ << ": rtl cfg/ev rdy " << r.cfg_ready << "/"
                          << r.ev_ready << " v/addr/data=" << r.wr_valid << "/0x" << std::hex
                          << r.wr_addr << "/0x" << r.wr_data << " | model " << std::dec
                          << m.cfg_ready << "/" << m.ev_ready << " " << m.wr_valid << "/0x"
                          << std::hex << m.wr_addr << "/0x" << m.wr_data << std::dec;
        clock_both(in);
        return r;
    }
    // Clock until the RAM-clearing sweep after reset is over; returns the cycles it took.
    unsigned wait_init() {
        CqCounter::Inputs in{};
        unsigned n = 0;
        while (!cycle(in).cfg_ready && n < 4 * kP.qps) ++n;
        return n;
    }
    // One page-table write through the cfg port (waits for cfg_ready).
    void set_page(uint32_t qpn, uint64_t page, CqCounter::Inputs in = {}) {
        in.cfg_valid = true;
        in.cfg_qpn = qpn;
        in.cfg_page = page;
        in.ev_valid = false;
        for (int c = 0; c < 16; ++c)
            if (cycle(in).cfg_ready) return;
        ADD_FAILURE() << "cfg write of qp " << qpn << " never accepted";
    }
};

// Scoreboard of the status pages: every (QP, page) binding is a generation; events count
// against the QP's current generation; writes must hit a known page's counter, never decrease,
// never run ahead of the events, and end equal to the generation's sum.
struct Scoreboard {
    struct Gen {
        uint32_t qpn;
        uint64_t sum = 0, mem = 0, events = 0;
    };
    std::map<uint64_t, Gen> by_addr;  // counter address -> generation (pages are unique)
    std::vector<uint64_t> cur;        // per QP: counter address of its page, 0 = none
    uint64_t nopage = 0, writes = 0, events = 0;
    Scoreboard() : cur(kP.qps, 0) {}
    void bind(uint32_t q, uint64_t page) {
        cur[q] = page ? CqCounter::counter_addr(page) : 0;
        if (page) by_addr.emplace(cur[q], Gen{.qpn = q});
    }
    void event(uint32_t q, uint32_t cnt) {
        ++events;
        if (!cur[q]) {
            ++nopage;
            return;
        }
        auto& g = by_addr.at(cur[q]);
        g.sum += cnt;
        ++g.events;
    }
    void write(uint64_t addr, uint64_t data) {
        ++writes;
        const auto it = by_addr.find(addr);
        ASSERT_NE(it, by_addr.end()) << "write to 0x" << std::hex << addr << ", not a counter";
        EXPECT_GE(data, it->second.mem) << "host value went backwards";
        EXPECT_LE(data, it->second.sum) << "value ahead of the events";
        it->second.mem = data;
    }
    void check_final() const {
        for (const auto& [addr, g] : by_addr)
            if (g.events)
                EXPECT_EQ(g.mem, g.sum) << "qp " << g.qpn << " page counter 0x" << std::hex << addr;
    }
};

// Every source x sink pause mix; events over all QPs with same-QP runs, 1/8 of the QPs without
// a page, page-table changes (re-create on a new page, destroy, re-create on the same page).
TEST(CqCounterDiff, CycleExactAndHostMemory) {
    for (const auto& [sname, smix] : pause_mixes())
        for (const auto& [kname, kmix] : pause_mixes())
            for (uint64_t seed : seeds(2)) {
                SCOPED_TRACE("src " + sname + " sink " + kname + " " + replay_hint(seed));
                std::mt19937_64 rng(seed);
                Pause src = smix(seed + 1), sink = kmix(seed + 2);
                Bench b;
                b.wait_init();
                Scoreboard sb;
                uint64_t next_page = kPageBase;
                for (uint32_t q = 0; q < kP.qps; ++q)
                    if (rng() % 8) {
                        b.set_page(q, next_page);
                        sb.bind(q, next_page);
                        next_page += SCENIC_QP_STATUS_SIZE;
                    }
                CqCounter::Inputs in{};
                uint32_t hot = 5;
                uint64_t cfgs = 0;
                // a page-table write waiting to be issued; one on the page the QP already has
                // (RESET) waits until the unit is idle, as the command path does (writes of the
                // old count must not land after the restart)
                bool want = false, want_same = false, busy = false;
                uint32_t want_qpn = 0;
                uint64_t want_page = 0;
                for (uint64_t c = 0; c < 5000; ++c) {
                    if (!want && rng() % 150 == 0) {
                        want = true;
                        want_qpn = (rng() & 1) ? hot : uint32_t(rng() % kP.qps);
                        const unsigned k = unsigned(rng() % 4);
                        want_same = k == 1 && sb.cur[want_qpn];
                        if (k == 0) {
                            want_page = 0;  // DESTROY_QP
                        } else if (want_same) {
                            want_page = sb.cur[want_qpn] - SCENIC_QP_STATUS_SQ_COMPLETED_OFF;
                        } else {
                            want_page = next_page;
                            next_page += SCENIC_QP_STATUS_SIZE;
                        }
                    }
                    if (want && !in.cfg_valid && !(want_same && (busy || in.ev_valid))) {
                        in.cfg_valid = true;
                        in.cfg_qpn = want_qpn;
                        in.cfg_page = want_page;
                    }
                    if (!in.ev_valid && !src() && !(want && want_same)) {
                        in.ev_valid = true;
                        const unsigned r = unsigned(rng() % 8);
                        if (r < 3) {
                            in.ev_qpn = hot;  // same-QP runs
                        } else {
                            in.ev_qpn = uint32_t(rng() % kP.qps);
                            if (r == 3) hot = in.ev_qpn;
                        }
                        in.ev_cnt = uint32_t(rng() % 256);  // 0 allowed (no-op increment)
                    }
                    in.wr_ready = !sink();
                    const auto o = b.cycle(in);
                    // state after this edge: an event accepted now is in S1
                    busy = o.busy || (in.ev_valid && o.ev_ready);
                    if (o.wr_valid && in.wr_ready) sb.write(o.wr_addr, o.wr_data);
                    if (in.cfg_valid && o.cfg_ready) {
                        ++cfgs;
                        // a RESET on the same page restarts its generation
                        if (in.cfg_page) sb.by_addr.erase(CqCounter::counter_addr(in.cfg_page));
                        sb.bind(in.cfg_qpn, in.cfg_page);
                        in.cfg_valid = false;
                        want = false;
                    }
                    if (in.ev_valid && o.ev_ready) {
                        EXPECT_FALSE(in.cfg_valid) << "event accepted beside a cfg write";
                        sb.event(in.ev_qpn, in.ev_cnt);
                        in.ev_valid = false;
                    }
                    if (b.mismatches() > 5 || HasFatalFailure()) break;
                }
                // drain: host memory must end equal to the event sums
                in = {};
                in.wr_ready = true;
                for (int c = 0; c < 8; ++c) {
                    const auto o = b.cycle(in);
                    if (o.wr_valid) sb.write(o.wr_addr, o.wr_data);
                }
                EXPECT_FALSE(b.cycle(in).busy);
                sb.check_final();
                EXPECT_GT(cfgs, 5u);
                EXPECT_LE(sb.writes, sb.events - sb.nopage);
                EXPECT_EQ(b.model().stats().nopage, sb.nopage);
                EXPECT_EQ(b.model().stats().events, sb.events);
                EXPECT_EQ(b.mismatches(), 0u);
            }
}

// The writes land in a host-memory image of the status pages: each page's struct
// scenic_qp_status has sq_completed = the QP's completions, and no other byte is touched.
TEST(CqCounterHostMemory, StatusPageImage) {
    constexpr uint32_t kQps = kP.qps;
    std::vector<uint8_t> mem(size_t(kQps) * SCENIC_QP_STATUS_SIZE, 0);
    Bench b;
    b.wait_init();
    // page of QP q: slot (q * 7) % kQps (not in QPN order); QP 9 has none
    auto page_of = [](uint32_t q) {
        return kPageBase + uint64_t((q * 7) % kQps) * SCENIC_QP_STATUS_SIZE;
    };
    for (uint32_t q = 0; q < kQps; ++q) b.set_page(q, q == 9 ? 0 : page_of(q));
    std::mt19937_64 rng(77);
    std::vector<uint64_t> sum(kQps, 0);
    uint64_t ev9 = 0;
    CqCounter::Inputs in{};
    Pause sink = Pause::random(0.3, 78);
    for (int c = 0; c < 20000; ++c) {
        if (!in.ev_valid) {
            in.ev_valid = true;
            in.ev_qpn = (rng() % 4 == 0) ? 9u : uint32_t(rng() % kQps);
            in.ev_cnt = uint32_t(1 + rng() % 3);
        }
        in.wr_ready = !sink();
        const auto o = b.cycle(in);
        if (o.wr_valid && in.wr_ready) {
            ASSERT_GE(o.wr_addr, kPageBase);
            const uint64_t off = o.wr_addr - kPageBase;
            ASSERT_LE(off + 8, mem.size());
            std::memcpy(&mem[off], &o.wr_data, 8);  // little-endian host, as the card's DMA
        }
        if (in.ev_valid && o.ev_ready) {
            sum[in.ev_qpn] += in.ev_cnt;
            ev9 += in.ev_qpn == 9;
            in.ev_valid = false;
        }
    }
    in = {};
    in.wr_ready = true;
    for (int c = 0; c < 8; ++c)
        if (const auto o = b.cycle(in); o.wr_valid)
            std::memcpy(&mem[o.wr_addr - kPageBase], &o.wr_data, 8);
    unsigned checked = 0;
    for (uint32_t q = 0; q < kQps; ++q) {
        if (q == 9) continue;
        const uint8_t* page = &mem[page_of(q) - kPageBase];
        scenic_qp_status st;
        std::memcpy(&st, page, sizeof(st));
        EXPECT_EQ(st.sq_completed, sum[q]) << "qp " << q;
        checked += sum[q] != 0;
        for (size_t i = 0; i < SCENIC_QP_STATUS_SIZE; ++i)
            if (i < SCENIC_QP_STATUS_SQ_COMPLETED_OFF || i >= SCENIC_QP_STATUS_SQ_COMPLETED_OFF + 8)
                ASSERT_EQ(page[i], 0) << "qp " << q << " byte " << i << " of its page written";
    }
    EXPECT_GT(checked, kQps - 20);
    EXPECT_GT(sum[9], 0u);
    EXPECT_EQ(b.model().stats().nopage, ev9);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Read-modify-write forwarding: one event per cycle of ONE QP, no back-pressure, gives the
// writes 1, 2, 3, ... (each event sees the previous one's value although the RAM read of the
// next event happens in the cycle the previous one is written); QPs alternating A B A B too.
TEST(CqCounterDirected, BackToBackSameQpForwarding) {
    Bench b;
    b.wait_init();
    b.set_page(7, kPageBase);
    b.set_page(300, kPageBase + SCENIC_QP_STATUS_SIZE);
    CqCounter::Inputs in{.ev_valid = true, .ev_qpn = 7, .ev_cnt = 1, .wr_ready = true};
    std::vector<uint64_t> got;
    for (int c = 0; c < 40; ++c) {
        in.ev_valid = c < 32;
        if (auto o = b.cycle(in); o.wr_valid) {
            EXPECT_EQ(o.wr_addr, kPageBase + SCENIC_QP_STATUS_SQ_COMPLETED_OFF);
            got.push_back(o.wr_data);
        }
    }
    ASSERT_EQ(got.size(), 32u);
    for (uint64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], i + 1);
    std::map<uint64_t, uint64_t> last{{kPageBase, 32}};
    for (int c = 0; c < 40; ++c) {
        in.ev_valid = c < 32;
        in.ev_qpn = (c & 1) ? 300 : 7;
        in.ev_cnt = 2;
        if (auto o = b.cycle(in); o.wr_valid) {
            EXPECT_EQ(o.wr_data, last[o.wr_addr] + 2) << "write " << c;
            last[o.wr_addr] = o.wr_data;
        }
    }
    EXPECT_EQ(last[kPageBase], 32u + 32u);
    EXPECT_EQ(last[kPageBase + SCENIC_QP_STATUS_SIZE], 32u);
    EXPECT_EQ(b.model().stats().coalesced, 0u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Output blocked: N events of one QP collapse into one pending write carrying the sum; an event
// of another QP waits in S1 (ready low) until the slot moves.
TEST(CqCounterDirected, CoalescingUnderBackpressure) {
    Bench b;
    b.wait_init();
    b.set_page(3, kPageBase);
    b.set_page(4, kPageBase + SCENIC_QP_STATUS_SIZE);
    CqCounter::Inputs in{.ev_valid = true, .ev_qpn = 3, .ev_cnt = 1, .wr_ready = false};
    int accepted = 0;
    for (int c = 0; c < 20; ++c) accepted += b.cycle(in).ev_ready;
    EXPECT_EQ(accepted, 20);  // the first reaches the output, the rest merge in the slot
    in.ev_qpn = 4;
    EXPECT_TRUE(b.cycle(in).ev_ready) << "S1 frees when the 20th merges";
    EXPECT_FALSE(b.cycle(in).ev_ready) << "other QP must wait in S1 for the slot";
    in.ev_valid = false;
    in.wr_ready = true;
    std::vector<std::pair<uint64_t, uint64_t>> w;
    for (int c = 0; c < 6; ++c)
        if (auto o = b.cycle(in); o.wr_valid)
            w.push_back({(o.wr_addr - kPageBase) / SCENIC_QP_STATUS_SIZE, o.wr_data});
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0], (std::pair<uint64_t, uint64_t>{0, 1}));
    EXPECT_EQ(w[1], (std::pair<uint64_t, uint64_t>{0, 20}));
    EXPECT_EQ(w[2], (std::pair<uint64_t, uint64_t>{1, 1}));
    EXPECT_EQ(b.model().stats().coalesced, 18u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// A QP without a page (never created, or destroyed) counts its events and writes nothing; a
// re-create restarts the counter at 0 on the new page.
TEST(CqCounterDirected, NoPageAndRecreate) {
    Bench b;
    EXPECT_EQ(b.wait_init(), kP.qps) << "RAM clearing takes one cycle per QP";
    CqCounter::Inputs in{.ev_valid = true, .ev_qpn = 11, .ev_cnt = 5, .wr_ready = true};
    unsigned writes = 0;
    for (int c = 0; c < 10; ++c) writes += b.cycle(in).wr_valid;
    EXPECT_EQ(writes, 0u);
    EXPECT_EQ(b.model().stats().nopage, 9u);  // the 10th is still in S1
    in.ev_valid = false;
    b.cycle(in);
    b.set_page(11, kPageBase);
    b.cycle(in);
    in.ev_valid = true;
    uint64_t last = 0;
    for (int c = 0; c < 10; ++c)
        if (auto o = b.cycle(in); o.wr_valid) last = o.wr_data;
    in.ev_valid = false;
    for (int c = 0; c < 4; ++c)
        if (auto o = b.cycle(in); o.wr_valid) last = o.wr_data;
    EXPECT_EQ(last, 50u) << "counter restarted at 0 with the page";
    EXPECT_EQ(b.model().stats().nopage, 10u);
    b.set_page(11, 0);  // destroy
    in.ev_valid = true;
    writes = 0;
    for (int c = 0; c < 10; ++c) writes += b.cycle(in).wr_valid;
    EXPECT_EQ(writes, 0u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Line rate: one event per cycle over rotating QPs, no back-pressure: one write per cycle,
// latency 3 cycles from the event handshake to the write.
TEST(CqCounterDirected, OneEventPerCycle) {
    Bench b;
    b.wait_init();
    for (uint32_t q = 0; q < kP.qps; ++q)
        b.set_page(q, kPageBase + uint64_t(q) * SCENIC_QP_STATUS_SIZE);
    CqCounter::Inputs in{.ev_valid = true, .ev_cnt = 1, .wr_ready = true};
    const unsigned n = 4000;
    unsigned acc = 0, wr = 0;
    uint64_t first_wr = 0;
    for (uint64_t c = 0; c < n; ++c) {
        in.ev_qpn = uint32_t((c * 37) % kP.qps);
        const auto o = b.cycle(in);
        acc += o.ev_ready;
        if (o.wr_valid && !wr++) first_wr = c;
    }
    std::printf(
        "[ metric   ] cq_counter (%u QPs): %.4f events/cycle, %.4f writes/cycle, latency %llu "
        "cycles\n",
        kP.qps, double(acc) / n, double(wr) / n, (unsigned long long)first_wr);
    EXPECT_EQ(acc, n);
    EXPECT_EQ(wr, n - 3);
    EXPECT_EQ(first_wr, 3u);
    EXPECT_EQ(b.mismatches(), 0u);
}

}  // namespace
