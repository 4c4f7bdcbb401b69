// SPDX-License-Identifier: MIT
// Two SCENIC cards back to back for the RDMA engine's tests. Each card has its own fake host: a
// flat DMA memory (rings, CQs and status pages at bus addresses) plus "user memory" whose 4 KiB
// pages are mapped to scattered bus pages, as pinned user pages are. A small driver model sets
// the card up through the admin queue as the kernel driver does (aq_driver.hpp), posts WQEs into
// the rings and rings the doorbells as the provider does, and answers TLB-miss events from the AEQ.
// The pump moves frames between the cards (checking that each one parses and passes ICRC) and
// advances a shared virtual clock to the next timer when the wire is quiet, always within bounds.
// The wire injects faults at exact positions (RdmaPair::drop, hook: drop / duplicate / swap /
// rewrite) and can log what it carried (record, log); see docs/conformance-model.md.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "aq_driver.hpp"
#include "scenic/device.hpp"
#include "scenic/host.hpp"
#include "scenic/regs.hpp"
#include "scenic/roce/packet.hpp"
#include "uapi/scenic_rdma.h"

namespace scenic::test {

class RdmaHost final : public Host {
  public:
    static constexpr uint64_t kBase = 0x2'0000'0000;
    static constexpr size_t kSize = 12 * 1024 * 1024;

    RdmaHost() : mem(kSize) {}

    bool dma_read(uint64_t addr, std::span<uint8_t> dst) override {
        ++dmas;
        if (on_dma) {
            on_dma(addr, dst.size(), false);
        }
        if (!ok(addr, dst.size())) {
            ++dma_faults;
            return false;
        }
        std::memcpy(dst.data(), &mem[addr - kBase], dst.size());
        return true;
    }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        ++dmas;
        if (on_dma) {
            on_dma(addr, src.size(), true);
        }
        if (!ok(addr, src.size())) {
            ++dma_faults;
            return false;
        }
        std::memcpy(&mem[addr - kBase], src.data(), src.size());
        return true;
    }
    void msix_notify(unsigned vector) override { irqs.push_back(vector); }
    void eth_send(std::span<const uint8_t> frame) override {
        if (on_send) {
            on_send(frame);
        }
        wire.emplace_back(frame.begin(), frame.end());
    }
    uint64_t now_ns() override { return now; }
    void timer_schedule(uint64_t deadline_ns) override { timer = deadline_ns; }
    void timer_cancel() override { timer.reset(); }
    size_t bar_windows(std::span<Window, kMaxWindows> out) override {
        const size_t n = std::min(bars.size(), kMaxWindows);
        std::copy_n(bars.begin(), n, out.begin());
        return n;
    }

    std::vector<uint8_t> mem;
    std::vector<Window> bars;  // the card's BARs as bar_windows() reports them (default none)
    std::function<void(uint64_t addr, size_t len, bool write)> on_dma;  // sees every DMA
    std::vector<unsigned> irqs;
    std::vector<std::vector<uint8_t>> wire;
    std::function<void(std::span<const uint8_t>)> on_send;  // as the card sends (wire: later)
    uint64_t now = 1'000'000;
    std::optional<uint64_t> timer;
    unsigned dma_faults = 0;
    uint64_t dmas = 0;  // every DMA access, failed or not

  private:
    static bool ok(uint64_t addr, size_t len) {
        return len != 0 && addr >= kBase && addr - kBase <= kSize && len <= kSize - (addr - kBase);
    }
};

// MR access for tests that exercise every operation.
inline constexpr uint32_t kAll = rdma::kAccessLocalWrite | rdma::kAccessRemoteWrite |
                                 rdma::kAccessRemoteRead | rdma::kAccessRemoteAtomic;

struct QpAttrs {
    uint32_t pmtu = 1024;
    uint32_t timeout = 10;  // 4.2 ms
    uint32_t retry_cnt = 7;
    uint32_t rnr_retry = 7;
    uint32_t min_rnr_timer = 1;  // 10 us
    uint32_t access =
        rdma::kAccessRemoteWrite | rdma::kAccessRemoteRead | rdma::kAccessRemoteAtomic;
    uint32_t max_rd_atomic = 16;
    uint32_t sq_psn = 0x100;
    uint32_t rq_psn = 0x200;
};

// One card, its host and a driver / provider model.
class Node {
  public:
    // Bus memory: rings etc. in the first 2 MiB, user pages after.
    static constexpr uint64_t kUserPhys = RdmaHost::kBase + 2 * 1024 * 1024;
    static constexpr uint64_t kUserPages = (RdmaHost::kSize - 2 * 1024 * 1024) / 4096;
    static constexpr uint64_t kVa = 0x7f12'3400'0000;  // user virtual addresses
    static constexpr uint32_t kPd = 7;

    // rtl_blocks: Config::rtl_blocks (co-simulation, tests/rtl_cosim_test.cpp); faults:
    // Config::wire_faults (the fault-injecting wire, tests/wire_faults_test.cpp).
    // tweak: changes the card's Config last (e.g. the selective-repeat properties).
    using ConfigFn = std::function<void(Config&)>;
    explicit Node(uint8_t id, uint32_t drop_ppm = 0, uint64_t seed = 1, uint32_t rtl_blocks = 0,
                  const std::string& faults = "", bool fault_inject = false,
                  const ConfigFn& tweak = {})
        : mac{0x02, 0x5c, 0x00, 0x00, 0x00, id},
          dev(tweaked(make_config(mac, drop_ppm, seed, rtl_blocks, faults, fault_inject), tweak),
              host) {
        AqDriver::Layout l;
        l.sq = alloc(AqDriver::sq_bytes(l.aq_log2));
        l.cq = alloc(AqDriver::cq_bytes(l.aq_log2));
        l.aeq = alloc(uint64_t{32} << l.aeq_log2);
        l.ceq = alloc(uint64_t{8} << l.ceq_log2);
        aq.setup(l);
        w(regs::rdma::kCtrl, 1);
        // Run what the card queued for "now" while its rings came up (the AEQ's ready check),
        // so each test starts with only its own timer events pending.
        for (int i = 0; i < 16 && host.timer && *host.timer <= host.now; ++i) {
            dev.timer_fire();
        }
    }

    static Config tweaked(Config c, const ConfigFn& tweak) {
        if (tweak) {
            tweak(c);
        }
        return c;
    }

    static Config make_config(const std::array<uint8_t, 6>& mac, uint32_t ppm, uint64_t seed,
                              uint32_t rtl_blocks = 0, const std::string& faults = "",
                              bool fault_inject = false) {
        Config c;
        c.fault_inject = fault_inject;
        c.rtl_blocks = rtl_blocks;
        c.mac = mac;
        c.wire_drop_ppm = ppm;
        c.wire_seed = seed;
        c.wire_faults = faults;
        return c;
    }

    uint32_t r(uint32_t off) const {
        return static_cast<uint32_t>(dev.mmio_read(regs::rdma::kOffset + off, 4));
    }
    void w(uint32_t off, uint32_t v) { dev.mmio_write(regs::rdma::kOffset + off, v, 4); }

    // ---- admin commands (kOp*, arguments in the old mailbox word order: encode_cmd)
    uint32_t cmd(uint32_t op, const std::vector<uint32_t>& args) {
        const CmdResult r = aq.exec(encode_cmd(op, args), &last_);
        last_op_ = op;
        last_syndrome = r.syndrome;
        return st(r.status);
    }
    // Result word i of the last command, in the old mailbox order (QUERY_QP: state, send PSN,
    // expected PSN, SCU; QUERY_QP_CC: rate, target, alpha, CNPs), read through the views.
    uint32_t res(unsigned i) const {
        const std::span<const uint8_t, kAqCqeBytes> c(last_);
        if (last_op_ == kOpQueryQp) {
            const admin::AcqQueryQp<const uint8_t> v(c);
            const std::array<uint32_t, 4> w{v.state(), v.send_psn(), v.expected_psn(), v.scu()};
            return w.at(i);
        }
        return admin::detail::load<uint32_t, const uint8_t>(c, 8 + size_t{i} * 4);
    }
    uint16_t last_syndrome = 0;

    // ---- bus memory
    uint64_t alloc(uint64_t bytes, uint64_t align = 4096) {
        bump_ = (bump_ + align - 1) & ~(align - 1);
        const uint64_t a = bump_;
        bump_ += bytes;
        EXPECT_LE(bump_, kUserPhys);
        return a;
    }
    uint8_t* bus(uint64_t addr) { return &host.mem[addr - RdmaHost::kBase]; }
    template <typename T>
    T load(uint64_t addr) {
        T v{};
        std::memcpy(&v, bus(addr), sizeof v);
        return v;
    }
    template <typename T>
    void store(uint64_t addr, T v) {
        std::memcpy(bus(addr), &v, sizeof v);
    }

    // ---- user memory: VA page i lives at bus page i ^ 1 (neighbours swapped, never contiguous)
    static uint64_t va_to_bus(uint64_t va) {
        const uint64_t page = (va - kVa) / 4096;
        return kUserPhys + (page ^ 1) * 4096 + (va & 4095);
    }
    void write_va(uint64_t va, std::span<const uint8_t> data) {
        for (size_t i = 0; i < data.size(); ++i) {
            *bus(va_to_bus(va + i)) = data[i];
        }
    }
    std::vector<uint8_t> read_va(uint64_t va, size_t n) {
        std::vector<uint8_t> out(n);
        for (size_t i = 0; i < n; ++i) {
            out[i] = *bus(va_to_bus(va + i));
        }
        return out;
    }
    void fill_va(uint64_t va, size_t n, uint8_t seed) {
        for (size_t i = 0; i < n; ++i) {
            *bus(va_to_bus(va + i)) = static_cast<uint8_t>(seed + i * 7 + (i >> 8));
        }
    }

    // ---- MRs (key = index << 8 | tag)
    uint32_t reg_mr(uint64_t va, uint64_t len, uint32_t access, bool fill = true,
                    uint32_t pd = kPd) {
        const uint32_t key = (next_mr_++ << 8) | 0x5a;
        EXPECT_EQ(cmd(kOpRegMr, {key, pd, lo(va), hi(va), lo(len), hi(len), access}), 0u);
        if (fill && len != 0) {
            for (uint64_t p = va & ~uint64_t{4095}; p < va + len; p += 4096) {
                fill_page(key, p);
            }
        }
        return key;
    }
    uint32_t fill_page(uint32_t key, uint64_t page) {
        const uint64_t dma = va_to_bus(page);
        return cmd(kOpTlbFill, {key, lo(page), hi(page), lo(dma), hi(dma)});
    }

    // ---- CQs
    struct CqRing {
        uint64_t base = 0;
        unsigned log2 = 0;
        uint32_t ci = 0;
        uint64_t dbrec = 0;  // struct scenic_cq_dbrec, 0: none
        // After RESIZE_CQ: the new rings (base, log2, record), each used once the RESIZE CQE
        // before it is polled.
        std::vector<std::tuple<uint64_t, unsigned, uint64_t>> next;
    };
    // RESIZE_CQ to a new ring of 2^log2 CQEs (at base, or allocated) and a new CI record; the
    // poller switches rings at the RESIZE CQE, as the provider does. The command's status.
    uint32_t resize_cq(uint32_t cqn, unsigned log2, uint64_t base = 0, uint64_t rec = ~0ull) {
        if (base == 0) {
            base = alloc(uint64_t{SCENIC_CQE_BYTES} << std::min(log2, 16u));
        }
        if (rec == ~0ull) {
            rec = use_dbrec ? alloc(sizeof(scenic_cq_dbrec), 8) : 0;
        }
        Sqe e{};
        const std::span<uint8_t, kAqSqeBytes> sp(e);
        admin::AqSqeHdr<>(sp.first<8>())
            .set_opcode(static_cast<uint8_t>(admin::AqOpcode::kResizeCq));
        const admin::AqResizeCq<> v(sp);
        v.set_cqn(cqn);
        v.set_log2_entries(log2 & 0x1f);
        v.set_ring_addr(base);
        v.set_dbrec_addr(rec);
        const CmdResult r = aq.exec(e);
        last_syndrome = r.syndrome;
        if (r.ok() && cqn < cqs_.size()) {
            cqs_[cqn].next.emplace_back(base, log2, rec);
        }
        return st(r.status);
    }
    [[nodiscard]] const CqRing& cq_ring(uint32_t cqn) const { return cqs_.at(cqn); }
    void create_cq(uint32_t cqn, unsigned log2) {
        const uint64_t base = alloc(uint64_t{SCENIC_CQE_BYTES} << log2);
        const uint64_t rec = use_dbrec ? alloc(sizeof(scenic_cq_dbrec), 8) : 0;
        ASSERT_EQ(cmd(kOpCreateCq, {cqn, lo(base), hi(base), log2, lo(rec), hi(rec)}), 0u);
        cqs_.resize(std::max<size_t>(cqs_.size(), cqn + 1));
        cqs_[cqn] = {base, log2, 0, rec, {}};
    }
    // Polls like the provider: owner bit == phase of the consumer index.
    std::vector<scenic_cqe> poll(uint32_t cqn, size_t max = 1u << 20) {
        std::vector<scenic_cqe> out;
        CqRing& c = cqs_.at(cqn);
        while (out.size() < max) {
            const uint64_t slot = c.base + uint64_t{c.ci & ((1u << c.log2) - 1)} * 32;
            const auto cqe = load<scenic_cqe>(slot);
            const uint8_t phase = ((c.ci >> c.log2) & 1) ^ 1;
            if ((cqe.flags & SCENIC_CQE_F_OWNER) != phase) {
                break;
            }
            out.push_back(cqe);
            ++c.ci;
            if (cqe.opcode == SCENIC_CQE_OP_RESIZE && !c.next.empty()) {
                // the old ring is done: its record gets the final index, the new one starts at 0
                if (c.dbrec != 0) {
                    store<uint32_t>(c.dbrec, c.ci & SCENIC_DB_CQ_CI_MASK);
                }
                std::tie(c.base, c.log2, c.dbrec) = c.next.front();
                c.next.erase(c.next.begin());
                c.ci = 0;
            }
        }
        if (c.dbrec != 0) {
            store<uint32_t>(c.dbrec, c.ci & SCENIC_DB_CQ_CI_MASK);
        } else {
            db(cq_page(cqn) + SCENIC_DB_CQ_CI, c.ci & SCENIC_DB_CQ_CI_MASK);
        }
        return out;
    }
    void arm(uint32_t cqn, bool solicited = false) {
        db(cq_page(cqn) + SCENIC_DB_CQ_ARM,
           (cqs_.at(cqn).ci & SCENIC_DB_CQ_CI_MASK) | (solicited ? SCENIC_DB_CQ_ARM_SOLICITED : 0));
    }

    // ---- QPs
    struct QpRings {
        uint64_t sq = 0, rq = 0, status = 0;
        uint64_t dbrec = 0;  // struct scenic_qp_dbrec, 0: none
        unsigned sq_log2 = 0, rq_log2 = 0;
        unsigned rq_stride = 0;  // RQ WQEs of 64 << rq_stride bytes
        uint32_t sq_pi = 0, rq_pi = 0;
        [[nodiscard]] uint32_t rq_wqe_bytes() const {
            return uint32_t{SCENIC_RQ_WQE_BYTES} << rq_stride;
        }
    };
    // srqn >= 0: the QP takes its receive WQEs from that SRQ (no RQ; rq_log2 and rq_stride
    // are ignored).
    void create_qp(uint32_t qpn, uint32_t scq, uint32_t rcq, unsigned sq_log2 = 8,
                   unsigned rq_log2 = 8, uint32_t scu = 0, unsigned rq_stride = 0,
                   uint32_t type = 0, int srqn = -1) {
        QpRings q;
        const bool srq = srqn >= 0;
        q.sq_log2 = sq_log2;
        q.rq_log2 = srq ? 0 : rq_log2;
        q.rq_stride = srq ? 0 : rq_stride;
        q.sq = alloc(uint64_t{SCENIC_SQ_WQE_BYTES} << sq_log2);
        q.rq = srq ? 0 : alloc(uint64_t{q.rq_wqe_bytes()} << rq_log2);
        q.status = alloc(4096);
        q.dbrec = use_dbrec ? alloc(sizeof(scenic_qp_dbrec), 8) : 0;
        ASSERT_EQ(cmd(kOpCreateQp,
                      {qpn, lo(q.sq), hi(q.sq), sq_log2, lo(q.rq), hi(q.rq), q.rq_log2, scq, rcq,
                       kPd, scu, lo(q.status), hi(q.status), lo(q.dbrec), hi(q.dbrec), q.rq_stride,
                       type, srq ? 1u : 0u, srq ? static_cast<uint32_t>(srqn) : 0u}),
                  0u);
        qps_.resize(std::max<size_t>(qps_.size(), qpn + 1));
        qps_[qpn] = q;
    }
    uint32_t modify(uint32_t qpn, uint32_t mask, std::vector<uint32_t> vals) {
        std::vector<uint32_t> a{qpn, mask};
        a.insert(a.end(), vals.begin(), vals.end());
        return cmd(kOpModifyQp, a);
    }
    uint32_t set_state(uint32_t qpn, uint32_t state) { return modify(qpn, kAttrState, {state}); }
    // RESET -> INIT -> RTR -> RTS towards peer's QP, as ib_modify_qp from the kernel would.
    void connect(uint32_t qpn, const Node& peer, uint32_t peer_qpn, const QpAttrs& at,
                 const QpAttrs& peer_at, bool stop_at_rtr = false) {
        ASSERT_EQ(set_state(qpn, kQpsInit), 0u);
        std::vector<uint32_t> v(18, 0);  // a2 .. a19
        v[0] = kQpsRtr;
        v[1] = peer_qpn;
        v[3] = peer_at.sq_psn;  // expected PSN = the peer's send PSN
        v[4] = at.pmtu;
        v[5] = at.timeout | at.retry_cnt << 8 | at.rnr_retry << 16 | at.min_rnr_timer << 24;
        v[6] = at.access | at.max_rd_atomic << 8 | at.max_rd_atomic << 16;
        const std::array<uint8_t, 16> dgid = ipv4_gid(peer.mac[5]);
        const std::array<uint8_t, 16> sgid = ipv4_gid(mac[5]);
        std::memcpy(&v[7], dgid.data(), 16);
        std::memcpy(&v[11], sgid.data(), 16);
        const auto& m = peer.mac;
        v[15] = uint32_t{m[2]} << 24 | uint32_t{m[3]} << 16 | uint32_t{m[4]} << 8 | m[5];
        v[16] = uint32_t{m[0]} << 8 | m[1] | 64u << 16;
        v[17] = 0x80000000u;
        ASSERT_EQ(modify(qpn,
                         kAttrState | kAttrDestQpn | kAttrRqPsn | kAttrPathMtu | kAttrTimeout |
                             kAttrRetryCnt | kAttrRnrRetry | kAttrMinRnrTimer | kAttrAccess |
                             kAttrMaxRdAtomic | kAttrMaxDestRdAtomic | kAttrAv,
                         v),
                  0u);
        if (stop_at_rtr) {
            return;
        }
        ASSERT_EQ(modify(qpn, kAttrState | kAttrSqPsn, {kQpsRts, 0, at.sq_psn}), 0u);
    }
    static std::array<uint8_t, 16> ipv4_gid(uint8_t host_id) {
        return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, host_id};
    }

    // Writes the WQE into the next SQ slot (does not ring).
    void put_send(uint32_t qpn, const scenic_sq_wqe& wqe) {
        QpRings& q = qps_.at(qpn);
        const uint64_t slot = q.sq + uint64_t{q.sq_pi & ((1u << q.sq_log2) - 1)} * 512;
        std::memcpy(bus(slot), &wqe, sizeof wqe);
        ++q.sq_pi;
    }
    // As the provider: the record, then the doorbell unless the card said it can do without.
    void ring_sq(uint32_t qpn) {
        const QpRings& q = qps_.at(qpn);
        if (q.dbrec != 0) {
            store<uint32_t>(q.dbrec + offsetof(scenic_qp_dbrec, sq_pi), q.sq_pi);
            if ((db_skip(qpn) & SCENIC_QP_DB_SKIP_SQ) != 0) {
                return;
            }
        }
        db(uint64_t{qpn} * 4096 + SCENIC_DB_SQ, q.sq_pi);
    }
    void post_send(uint32_t qpn, const scenic_sq_wqe& wqe) {
        put_send(qpn, wqe);
        ring_sq(qpn);
    }
    // A list of WQEs in one post (one ibv_post_send with a chain): one doorbell for all.
    void post_sends(uint32_t qpn, const std::vector<scenic_sq_wqe>& wqes) {
        for (const scenic_sq_wqe& w : wqes) {
            put_send(qpn, w);
        }
        ring_sq(qpn);
    }
    // num_sge: the count written into the WQE (default: the list's size); the slot holds the
    // QP's stride's worth of SGEs at most, the rest of the list is dropped.
    void post_recv(uint32_t qpn, std::vector<scenic_sge> sges, int num_sge = -1) {
        QpRings& q = qps_.at(qpn);
        scenic_rq_wqe wqe{};
        wqe.num_sge = static_cast<uint16_t>(num_sge < 0 ? sges.size() : unsigned(num_sge));
        const size_t fit = std::min<size_t>(sges.size(), SCENIC_RQ_STRIDE_SGES(q.rq_stride));
        std::copy_n(sges.begin(), fit, wqe.sge);
        const uint64_t slot = q.rq + uint64_t{q.rq_pi & ((1u << q.rq_log2) - 1)} * q.rq_wqe_bytes();
        std::memcpy(bus(slot), &wqe, q.rq_wqe_bytes());
        ++q.rq_pi;
        if (q.dbrec != 0) {
            store<uint32_t>(q.dbrec + offsetof(scenic_qp_dbrec, rq_pi), q.rq_pi);
            if ((db_skip(qpn) & SCENIC_QP_DB_SKIP_RQ) != 0) {
                return;
            }
        }
        db(uint64_t{qpn} * 4096 + SCENIC_DB_RQ, q.rq_pi);
    }
    // ---- SRQs (FEATURES.srq)
    struct SrqRing {
        uint64_t ring = 0, dbrec = 0;
        unsigned log2 = 0, stride = 0;
        uint32_t pi = 0;
        [[nodiscard]] uint32_t wqe_bytes() const { return uint32_t{SCENIC_RQ_WQE_BYTES} << stride; }
    };
    // CREATE_SRQ with a ring (and a record when use_dbrec); returns the command's status.
    uint32_t create_srq(uint32_t srqn, unsigned log2, uint32_t limit = 0, unsigned stride = 0,
                        uint32_t pd = kPd) {
        SrqRing q;
        q.log2 = log2;
        q.stride = stride;
        q.ring = alloc(uint64_t{q.wqe_bytes()} << log2);
        q.dbrec = use_dbrec ? alloc(sizeof(scenic_srq_dbrec), 8) : 0;
        Sqe e{};
        const std::span<uint8_t, kAqSqeBytes> s(e);
        admin::AqSqeHdr<>(s.first<8>())
            .set_opcode(static_cast<uint8_t>(admin::AqOpcode::kCreateSrq));
        const admin::AqCreateSrq<> v(s);
        v.set_srqn(srqn);
        v.set_pdn(pd);
        v.set_ring_addr(q.ring);
        v.set_log2_entries(static_cast<uint8_t>(log2));
        v.set_stride(static_cast<uint8_t>(stride));
        v.set_limit(limit);
        v.set_dbrec_addr(q.dbrec);
        const uint32_t status = st(aq.exec(e).status);
        if (status == 0) {
            srqs_.resize(std::max<size_t>(srqs_.size(), srqn + 1));
            srqs_[srqn] = q;
        }
        return status;
    }
    // One receive WQE into the SRQ, then its record, and the doorbell unless `record_only`.
    void post_srq_recv(uint32_t srqn, std::vector<scenic_sge> sges, bool record_only = false) {
        SrqRing& q = srqs_.at(srqn);
        scenic_rq_wqe wqe{};
        wqe.num_sge = static_cast<uint16_t>(sges.size());
        std::copy_n(sges.begin(), std::min<size_t>(sges.size(), SCENIC_RQ_STRIDE_SGES(q.stride)),
                    wqe.sge);
        const uint64_t slot = q.ring + uint64_t{q.pi & ((1u << q.log2) - 1)} * q.wqe_bytes();
        std::memcpy(bus(slot), &wqe, q.wqe_bytes());
        ++q.pi;
        if (q.dbrec != 0) {
            store<uint32_t>(q.dbrec + offsetof(scenic_srq_dbrec, pi), q.pi);
        }
        if (!record_only) {
            db(srq_page(srqn) + SCENIC_DB_SRQ, q.pi);
        }
    }
    static uint64_t srq_page(uint32_t srqn) {
        return uint64_t{regs::rdma::kMaxQpDefault + regs::rdma::kMaxCqDefault + srqn} * 4096;
    }

    // The card's view of a QP (CMD_QUERY_QP): state, next send PSN, expected receive PSN.
    struct QpView {
        uint32_t state = 0, sq_psn = 0, epsn = 0;
    };
    QpView query(uint32_t qpn) {
        EXPECT_EQ(cmd(kOpQueryQp, {qpn}), 0u);
        return {res(0), res(1), res(2)};
    }
    // The path of this card's frames to the peer, for frames a test builds itself.
    roce::PathContext path_to(const Node& peer) const {
        roce::PathContext pc;
        pc.src_mac = mac;
        pc.dst_mac = peer.mac;
        pc.src_ip = {10, 0, 0, mac[5]};
        pc.dst_ip = {10, 0, 0, peer.mac[5]};
        return pc;
    }
    uint64_t sq_completed(uint32_t qpn) { return load<uint64_t>(qps_.at(qpn).status); }
    uint32_t status_state(uint32_t qpn) { return load<uint32_t>(qps_.at(qpn).status + 8); }
    uint32_t db_skip(uint32_t qpn) {
        return load<uint32_t>(qps_.at(qpn).status + offsetof(scenic_qp_status, db_skip));
    }
    uint64_t dbrec(uint32_t qpn) const { return qps_.at(qpn).dbrec; }
    uint32_t sq_pi(uint32_t qpn) const { return qps_.at(qpn).sq_pi; }

    void db(uint64_t offset, uint32_t value) {
        ++doorbells;
        dev.db_write(offset, value, 4);
    }
    static uint64_t cq_page(uint32_t cqn) {
        return uint64_t{regs::rdma::kMaxQpDefault + cqn} * 4096;
    }

    // Drains the AEQ, then the CEQ: TLB misses are answered (if auto_fill), others recorded.
    // type: kEv*; id: the QP or CQ; a0..a2 per type (QP_ERROR: code; TLB_MISS: key, iova
    // low, iova high; CQ_ERROR: code; OVERFLOW: lost, first lost seq; CARD_FATAL: code, block,
    // detail; LINK: up).
    struct Event {
        uint32_t type, id, a0, a1, a2;
    };
    void service_events() {
        for (int round = 0; round < 64; ++round) {
            const auto aeq = aq.drain_aeq();
            const auto ceq = aq.drain_ceq();
            if (aeq.empty() && ceq.empty()) {
                return;
            }
            for (const auto& raw : aeq) {
                const Event e = decode_aeq(raw);
                events.push_back(e);
                if (e.type == kEvTlbMiss && auto_fill) {
                    fill_page(e.a0, uint64_t{e.a2} << 32 | e.a1);
                }
            }
            for (const auto& raw : ceq) {
                const admin::Ceqe<const uint8_t> v{std::span<const uint8_t, 8>(raw)};
                const uint32_t type = kCeq | v.type();
                events.push_back(type == kEvCq ? Event{type, v.cqn(), 0, 0, 0}
                                               : Event{type, 0, v.cqn(), 0, 0});
            }
        }
    }
    static Event decode_aeq(const std::array<uint8_t, 32>& raw) {
        const std::span<const uint8_t, 32> s(raw);
        const uint32_t type = admin::AeqeHdr<const uint8_t>(s.first<16>()).type();
        switch (static_cast<admin::AeqType>(type)) {
            case admin::AeqType::kQpError: {
                const admin::AeqeQpError<const uint8_t> v(s);
                return {type, v.qpn(), v.code(), v.syndrome(), 0};
            }
            case admin::AeqType::kSqDrained:
                return {type, admin::AeqeSqDrained<const uint8_t>(s).qpn(), 0, 0, 0};
            case admin::AeqType::kCqError: {
                const admin::AeqeCqError<const uint8_t> v(s);
                return {type, v.cqn(), v.code(), 0, 0};
            }
            case admin::AeqType::kTlbMiss: {
                const admin::AeqeTlbMiss<const uint8_t> v(s);
                return {type, 0, v.key(), static_cast<uint32_t>(v.iova()),
                        static_cast<uint32_t>(v.iova() >> 32)};
            }
            case admin::AeqType::kCardFatal: {
                const admin::AeqeCardFatal<const uint8_t> v(s);
                return {type, 0, v.code(), v.block(), v.detail()};
            }
            case admin::AeqType::kOverflow: {
                const admin::AeqeOverflow<const uint8_t> v(s);
                return {type, 0, v.lost(), v.first_lost_seq(), 0};
            }
            case admin::AeqType::kLink:
                return {type, 0, admin::AeqeLink<const uint8_t>(s).up(), 0, 0};
            case admin::AeqType::kSrqLimit: {
                const admin::AeqeSrqLimit<const uint8_t> v(s);
                return {type, v.srqn(), v.posted(), 0, 0};
            }
            default:
                return {type, 0, 0, 0, 0};
        }
    }
    size_t count_events(uint32_t type) const {
        return static_cast<size_t>(
            std::ranges::count_if(events, [type](const Event& e) { return e.type == type; }));
    }

    static uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
    static uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

    std::array<uint8_t, 6> mac;
    RdmaHost host;
    Device dev;
    // The admin queue and event queues; the card's timer runs only events due now (commands
    // take no card time: the tests' clock is not moved by them).
    AqDriver aq{dev, [this](uint64_t a) { return bus(a); },
                [this] {
                    if (!host.timer || *host.timer > host.now) {
                        return false;
                    }
                    dev.timer_fire();
                    return true;
                }};
    bool auto_fill = true;
    // QPs and CQs created from now on get doorbell records (as the kernel driver gives them);
    // false: doorbells only, as a driver without records.
    bool use_dbrec = true;
    size_t doorbells = 0;  // doorbell register writes
    std::vector<Event> events;

  private:
    uint64_t bump_ = RdmaHost::kBase + 4096;
    uint32_t next_mr_ = 1;
    AqResult last_{};
    uint32_t last_op_ = 0;
    std::vector<CqRing> cqs_;
    std::vector<QpRings> qps_;
    std::vector<SrqRing> srqs_;
};

inline scenic_sge sge(uint64_t addr, uint32_t len, uint32_t lkey) { return {addr, len, lkey}; }

inline scenic_sq_wqe make_wqe(uint8_t op, std::vector<scenic_sge> sges, uint64_t raddr = 0,
                              uint32_t rkey = 0) {
    scenic_sq_wqe w{};
    w.opcode = op;
    w.num_sge = static_cast<uint16_t>(sges.size());
    uint32_t len = 0;
    for (size_t i = 0; i < sges.size(); ++i) {
        w.sge[i] = sges[i];
        len += sges[i].length;
    }
    w.length = len;
    w.remote_addr = raddr;
    w.rkey = rkey;
    return w;
}

// Two cards A and B wired back to back.
class RdmaPair {
  public:
    enum class Dir { kAtoB, kBtoA };
    // Return true to drop the frame (it is still checked and counted).
    using DropFn = std::function<bool(Dir, const roce::ParsedPacket&)>;
    // Sees every frame that is delivered (after DropFn) and may rewrite it in place, e.g. with
    // ce_mark(); pkt is the frame as sent and must not be used after a rewrite.
    using RewriteFn = std::function<void(Dir, const roce::ParsedPacket&, std::vector<uint8_t>&)>;
    // A fault-injecting wire, more general than DropFn (which runs first): the hook sees every
    // frame that parsed, may rewrite its bytes in place (no ICRC fix-up: a changed byte makes a
    // bad-ICRC frame), and decides its fate. kHold keeps the frame back and delivers it right
    // after the next frame of the same direction that passes (two packets swapped), or when
    // that direction's batch ends.
    enum class Fate { kPass, kDrop, kDuplicate, kHold };
    using FrameFn = std::function<Fate(Dir, std::vector<uint8_t>&, const roce::ParsedPacket&)>;
    // Called after a frame was handed to the receiving card (e.g. to look at its memory then).
    using AfterFn = std::function<void(Dir, const roce::ParsedPacket&)>;
    // What a test may want to know about a frame on the wire; recorded when `record` is set.
    struct WireRecord {
        Dir dir;
        uint64_t t_ns;  // virtual time
        uint8_t opcode;
        uint32_t psn;
        uint32_t dest_qp;
        uint16_t pkey;
        bool ackreq;
        std::optional<roce::Aeth> aeth;
        std::optional<roce::Reth> reth;
        std::optional<roce::AtomicAckEth> atomic_ack;
        std::optional<roce::ImmDt> imm;
        size_t payload;
        bool delivered;                         // false: dropped by drop / hook
        std::optional<roce::Sreth> sreth;       // selective repeat data packets
        std::optional<roce::SrHello> sr_hello;  // SR_HELLO / SR_HELLO_ACK
        std::optional<roce::SackEth> sack;      // SR_SACK
    };

    // faults_a / faults_b: each card's Config::wire_faults (tx: what it sends, rx: what it gets).
    explicit RdmaPair(uint32_t drop_ppm = 0, uint64_t seed = 1, uint32_t rtl_blocks = 0,
                      const std::string& faults_a = "", const std::string& faults_b = "",
                      const Node::ConfigFn& tweak_a = {}, const Node::ConfigFn& tweak_b = {})
        : a(1, drop_ppm, seed, rtl_blocks, faults_a, false, tweak_a),
          b(2, drop_ppm, seed + 1, rtl_blocks, faults_b, false, tweak_b) {}

    // Standard set-up: CQ 0 (send) and 1 (recv) on each side, QP qa on A <-> qb on B; scu_a and
    // scu_b: the QPs' SCU slots (docs/scu.md; 0: none).
    void setup(uint32_t qa = 2, uint32_t qb = 3, const QpAttrs& at = {}, unsigned cq_log2 = 10,
               bool b_stops_at_rtr = false, uint32_t scu_a = 0, uint32_t scu_b = 0) {
        for (Node* n : {&a, &b}) {
            n->create_cq(0, cq_log2);
            n->create_cq(1, cq_log2);
        }
        a.create_qp(qa, 0, 1, 8, 8, scu_a);
        b.create_qp(qb, 0, 1, 8, 8, scu_b);
        QpAttrs bt = at;
        bt.sq_psn = at.rq_psn;
        bt.rq_psn = at.sq_psn;
        a.connect(qa, b, qb, at, bt);
        b.connect(qb, a, qa, bt, at, b_stops_at_rtr);
    }

    // n QP pairs (QPN 2.. on both cards, same numbers) on CQ 0 (send, 2^cq_log2 entries) and
    // CQ 1 (receive, 16 entries) of each card.
    void setup_many(uint32_t n, unsigned sq_log2 = 8, unsigned rq_log2 = 8, unsigned cq_log2 = 12) {
        for (Node* node : {&a, &b}) {
            node->create_cq(0, cq_log2);
            node->create_cq(1, 4);
        }
        QpAttrs at;
        QpAttrs bt;
        bt.sq_psn = at.rq_psn;
        bt.rq_psn = at.sq_psn;
        for (uint32_t i = 0; i < n; ++i) {
            a.create_qp(2 + i, 0, 1, sq_log2, rq_log2);
            b.create_qp(2 + i, 0, 1, sq_log2, rq_log2);
            a.connect(2 + i, b, 2 + i, at, bt);
            b.connect(2 + i, a, 2 + i, bt, at);
        }
    }

    // Moves frames and time until both cards are idle; false if a bound was hit.
    bool run(uint64_t max_ns = 2'000'000'000, size_t max_steps = 2'000'000) {
        const uint64_t start = a.host.now;
        for (size_t step = 0; step < max_steps; ++step) {
            bool moved = deliver(a, b, Dir::kAtoB);
            moved = deliver(b, a, Dir::kBtoA) || moved;
            a.service_events();
            b.service_events();
            if (moved) {
                continue;
            }
            std::optional<uint64_t> next;
            for (Node* n : {&a, &b}) {
                if (n->host.timer && (!next || *n->host.timer < *next)) {
                    next = n->host.timer;
                }
            }
            if (!next) {
                return true;
            }
            if (*next - start > max_ns) {
                return false;
            }
            const uint64_t t = std::max(*next, a.host.now);
            for (Node* n : {&a, &b}) {
                n->host.now = t;
                if (n->host.timer && *n->host.timer <= t) {
                    n->host.timer.reset();
                    n->dev.timer_fire();
                }
            }
        }
        return false;
    }

    // Sets the IP ECN field to CE (0b11), as a congested switch does, and fixes the IPv4 header
    // checksum. The ICRC masks TOS / traffic class, so it stays valid.
    static void ce_mark(std::vector<uint8_t>& f) {
        const bool vlan = f.size() >= 14 && f[12] == 0x81 && f[13] == 0x00;
        const size_t l3 = vlan ? roce::EthHeader::kVlanSize : roce::EthHeader::kSize;
        ASSERT_GT(f.size(), l3 + roce::Ipv4Header::kMinSize);
        if ((f[l3] >> 4) == 4) {
            const size_t ihl = size_t{f[l3] & 0x0fu} * 4;
            f[l3 + 1] |= 0x03;
            f[l3 + 10] = f[l3 + 11] = 0;
            const uint16_t sum = roce::internet_checksum(std::span(f).subspan(l3, ihl));
            f[l3 + 10] = static_cast<uint8_t>(sum >> 8);
            f[l3 + 11] = static_cast<uint8_t>(sum);
        } else {
            f[l3 + 1] |= 0x30;  // traffic class bits 1:0 are bits 5:4 of the second byte
        }
    }

    // The records of one direction with one opcode.
    std::vector<WireRecord> seen(Dir dir, roce::Opcode op) const {
        std::vector<WireRecord> out;
        for (const WireRecord& r : log) {
            if (r.dir == dir && r.opcode == static_cast<uint8_t>(op)) {
                out.push_back(r);
            }
        }
        return out;
    }

    Node a;
    Node b;
    DropFn drop;
    RewriteFn rewrite;
    FrameFn hook;
    AfterFn after;
    bool record = false;
    std::vector<WireRecord> log;
    size_t frames = 0;
    // Failed to parse or ICRC, never delivered: a sender's tx:corrupt ends here, the receiver's
    // rx:corrupt is what makes the card itself count RX_DROP_ICRC.
    size_t bad_frames = 0;
    size_t dropped = 0;

  private:
    bool deliver(Node& from, Node& to, Dir dir) {
        if (from.host.wire.empty()) {
            return false;
        }
        auto batch = std::move(from.host.wire);
        from.host.wire.clear();
        std::vector<std::vector<uint8_t>> held;
        for (auto& f : batch) {
            ++frames;
            const roce::ParseResult pr = roce::parse_frame(f, roce::OpcodeSet::kRcAndSr);
            if (!pr.ok()) {
                ++bad_frames;
                continue;
            }
            bool pass = !(drop && drop(dir, pr.packet));
            Fate fate = Fate::kPass;
            if (pass && hook) {
                fate = hook(dir, f, pr.packet);
                pass = fate != Fate::kDrop;
            }
            note(dir, pr.packet, pass && fate != Fate::kHold);
            if (!pass) {
                ++dropped;
                continue;
            }
            if (rewrite) {
                rewrite(dir, pr.packet, f);
            }
            if (fate == Fate::kHold) {
                held.push_back(std::move(f));
                continue;
            }
            hand_over(to, dir, f);
            if (fate == Fate::kDuplicate) {
                hand_over(to, dir, f);
            }
            for (auto& h : held) {
                hand_over(to, dir, h);
            }
            held.clear();
        }
        for (auto& h : held) {
            hand_over(to, dir, h);
        }
        return true;
    }
    // Delivers one frame (a rewritten one may no longer parse: the card drops it).
    void hand_over(Node& to, Dir dir, const std::vector<uint8_t>& f) {
        to.dev.eth_rx(f);
        if (after) {
            const roce::ParseResult pr = roce::parse_frame(f, roce::OpcodeSet::kRcAndSr);
            if (pr.ok()) {
                after(dir, pr.packet);
            }
        }
    }
    void note(Dir dir, const roce::ParsedPacket& pkt, bool delivered) {
        if (!record) {
            return;
        }
        const roce::Transport& t = pkt.transport;
        log.push_back({dir, a.host.now, t.bth.opcode, t.bth.psn, t.bth.dest_qp, t.bth.pkey,
                       t.bth.ackreq, t.aeth, t.reth, t.atomic_ack, t.imm, pkt.payload.size(),
                       delivered, t.sreth, t.sr_hello, t.sack});
    }
};

}  // namespace scenic::test
