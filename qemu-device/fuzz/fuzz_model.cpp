// SPDX-License-Identifier: MIT
// libFuzzer harness over the device model's C API (scenic/model.h) behind a QEMU-like host
// (fake_qemu.hpp). An input is an op stream (ops.hpp): MMIO of any size and offset, doorbells,
// admin-queue commands (every opcode and field, raw SQ entries, raw doorbells and ring
// configuration), ring and WQE contents in guest RAM, timer fires, FLR, MSI-X table writes,
// and RoCE v2 frames from a peer that the builder makes well formed (valid ICRC), so that the
// responder and the completer parse them and act on hostile contents. An optional prologue
// brings the card up as scenic.ko and scenic_rdma.ko do (AQ, AEQ and CEQ rings, CQs, QPs to
// RTS, an MR with its TLB filled). Entries are encoded with the model tests' encoder
// (tests/aq_driver.hpp); the ring client here works on the fake host's RAM through the C API.
//
// Invariants after every input (a violation aborts, which libFuzzer reports as a crash):
//  - no ASan / UBSan report (the build uses -fno-sanitize-recover);
//  - the card goes idle: with no more input, its timer stops within kMaxDrainFires fires,
//    counting those run while the driver waits for its commands;
//  - bounded state: the heap the card holds stays under kMaxHeapBytes at every step, and the
//    driver's AEQ/CEQ drain ends (the rings are bounded);
//  - the card is destroyed without leaks (LeakSanitizer).
#include <sanitizer/allocator_interface.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "aq_driver.hpp"
#include "fake_qemu.hpp"
#include "ops.hpp"
#include "scenic/regs.hpp"
#include "scenic/roce/headers.hpp"
#include "scenic/roce/opcode.hpp"
#include "scenic/roce/packet.hpp"
#include "uapi/scenic_rdma.h"

namespace {

using namespace scenic;
using namespace scenic::fuzz;
namespace rr = scenic::regs::rdma;
namespace rc = scenic::regs::core;
using scenic::test::encode_cmd;
using scenic::test::Sqe;
using namespace scenic::test;  // kOp*, kAttr*, kQps*

constexpr uint64_t kMaxDrainFires = 20000;
// Fires of the drain after which the driver takes the SCU status pages back (see drain()).
constexpr uint64_t kPagesAfterFires = 16;
constexpr size_t kMaxHeapBytes = 64u << 20;
constexpr unsigned kMaxOps = 512;
// The harness driver's command timeout (fires of the card's timer without a completion), and
// the recoveries it attempts while draining.
constexpr int kCmdWaitFires = 64;
constexpr unsigned kMaxRecoveries = 4;

// Guest RAM layout (offsets from FakeQemu::kRamBase), as a driver would allocate it.
constexpr uint64_t kCqRing[2] = {0x1000, 0x2000};
constexpr unsigned kCqLog2 = 6;
constexpr uint64_t kCqRec[2] = {0x3000, 0x3008};
constexpr uint32_t kQpn[2] = {2, 3};
// A UD QP (sharing QP 3's rings: a hostile driver may do that too) and its Q_Key.
constexpr uint32_t kUdQpn = 4;
constexpr uint32_t kUdQkey = 0x1234;
// A UC QP (sharing QP 2's rings) connected to QP 2's peer.
constexpr uint32_t kUcQpn = 5;
constexpr uint32_t kPeerQpn[2] = {0x11, 0x12};
constexpr uint64_t kSq[2] = {0x4000, 0x8000};
constexpr uint64_t kRq[2] = {0x6000, 0xa000};
constexpr uint64_t kStatus[2] = {0x7000, 0xb000};
constexpr uint64_t kQpRec[2] = {0x7800, 0xb800};
constexpr unsigned kSqLog2 = 4, kRqLog2 = 4;
constexpr uint64_t kUserPhys = 0x10000;  // 16 user pages; VA page i at bus page i ^ 1
constexpr unsigned kUserPages = 16;
constexpr uint64_t kVa = 0x7f12'3400'0000;
constexpr uint32_t kPd = 7;
constexpr uint32_t kKey = (1u << 8) | 0x5a;
// Memory windows on the MR above (type 1, type 2): their rkeys reach the data path too.
constexpr uint32_t kMwKey1 = ((rdma::kMwIndexBit | 1u) << 8) | 0x11;
constexpr uint32_t kMwKey2 = ((rdma::kMwIndexBit | 2u) << 8) | 0x21;
constexpr uint32_t kPeerKey = 0x77000 | 0x33;  // the peer's rkey, for the card's requests
constexpr uint32_t kSqPsn = 0x100, kRqPsn = 0x200;
constexpr uint32_t kPmtu = 1024;
// The admin rings (docs/admin-queue.md 3): SQ 32 x 128 B, CQ 32 x 32 B, AEQ 128 x 32 B,
// CEQ 512 x 8 B, after the user pages.
constexpr uint64_t kAqSq = 0x20000, kAqCq = 0x21000, kAeq = 0x22000, kCeq = 0x23000;
constexpr unsigned kAqLog2 = 5, kAeqLog2 = 7, kCeqLog2 = 9;
// The ETH TX ring (64 entries) and its buffers: a TCP/IPv4 and a TCP/IPv6 packet the entries
// name (so contexts can reach segmentation), then 56 KiB of whatever the input wrote.
constexpr uint64_t kEthTxRing = 0x30000, kEthTxBufs = 0x31000, kEthTxBufBytes = 0xe000;
constexpr uint32_t kEthTxEntries = 64;

uint64_t bus(uint64_t ram_off) { return FakeQemu::kRamBase + ram_off; }
uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint64_t va_to_bus(uint64_t va) {
    const uint64_t page = ((va - kVa) / 4096) % kUserPages;
    return bus(kUserPhys + (page ^ 1) * 4096 + (va & 4095));
}

unsigned size_of(uint8_t sel) {
    static constexpr unsigned kSizes[4] = {1, 2, 4, 8};
    return kSizes[sel & 3];
}

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "scenic fuzz: invariant violated: %s\n", what);
    std::abort();
}

class Harness {
  public:
    explicit Harness(std::span<const uint8_t> data) : in_(data) {}

    void run() {
        const uint8_t flags = in_.get<uint8_t>();
        use_dbrec_ = (flags & kFlagNoDbrec) == 0;
        hostile_status_ = (flags & kFlagHostileStatus) != 0;
        if (!q_.create((flags & kFlagNoMsix) == 0)) {
            return;
        }
        setup_queues(kAqLog2, kAeqLog2, kCeqLog2);
        if ((flags & kFlagPrologue) != 0) {
            prologue();
        }
        for (unsigned n = 0; n < kMaxOps && !in_.empty(); ++n) {
            if (dead_) {
                recover();
            }
            step(static_cast<Op>(in_.get<uint8_t>() % kOpCount));
            check_heap();
        }
        drain();
        if (std::getenv("SCENIC_FUZZ_VERBOSE")) {
            std::fprintf(stderr,
                         "scenic fuzz: %u commands failed, %lu frames sent, %lu DMAs, %lu irqs, "
                         "%lu fires, %lu blocked re-entries, %lu MSI on own BARs, %u recoveries, "
                         "QP2 state %u\n",
                         failed_cmds_, static_cast<unsigned long>(q_.sent),
                         static_cast<unsigned long>(q_.dmas), static_cast<unsigned long>(q_.irqs),
                         static_cast<unsigned long>(q_.fires),
                         static_cast<unsigned long>(q_.blocked),
                         static_cast<unsigned long>(q_.self_hits), recoveries_, qp_state(0));
        }
    }

  private:
    // ---- the driver
    void wcore(uint32_t off, uint32_t v) { q_.wr32(rc::kOffset + off, v); }
    void wrdma(uint32_t off, uint32_t v) { q_.wr32(rr::kOffset + off, v); }
    // Programs the three rings as scenic.ko does at probe (and after an FLR): AQ polled, AEQ on
    // the core vector, CEQ on the rdma vector. Each ring is disabled first: the card ignores base
    // and depth while a ring is enabled and keeps its indices, so re-creating rings without it
    // leaves the card writing where this driver no longer looks.
    void setup_queues(unsigned aq, unsigned aeq, unsigned ceq) {
        wcore(rc::kAqCfg, 0);
        wcore(rc::kAeqCfg, 0);
        wrdma(rr::kCeqCfg, 0);
        aq_log2_ = aq;
        aeq_log2_ = aeq;
        ceq_log2_ = ceq;
        sq_tail_ = cq_head_ = aeq_head_ = ceq_head_ = 0;
        std::fill_n(&q_.ram[kAqSq], 0x5000, uint8_t{0});
        wcore(rc::kAqSqBaseLo, lo(bus(kAqSq)));
        wcore(rc::kAqSqBaseHi, hi(bus(kAqSq)));
        wcore(rc::kAqCqBaseLo, lo(bus(kAqCq)));
        wcore(rc::kAqCqBaseHi, hi(bus(kAqCq)));
        wcore(rc::kAqCfg, aq | rc::kAqCfgEnable.mask);
        wcore(rc::kAeqBaseLo, lo(bus(kAeq)));
        wcore(rc::kAeqBaseHi, hi(bus(kAeq)));
        wcore(rc::kAeqCfg, aeq | (regs::kVecCore << rc::kAeqCfgVector.shift) |
                               rc::kAeqCfgIrqEn.mask | rc::kAeqCfgEnable.mask);
        wrdma(rr::kCeqBaseLo, lo(bus(kCeq)));
        wrdma(rr::kCeqBaseHi, hi(bus(kCeq)));
        wrdma(rr::kCeqCfg, ceq | (regs::kVecRdma << rc::kAeqCfgVector.shift) |
                               rc::kAeqCfgIrqEn.mask | rc::kAeqCfgEnable.mask);
    }
    // Writes an entry at the SQ tail; with `own`, the harness's id and phase replace the
    // entry's (a raw entry keeps whatever the input gave).
    void put(Sqe e, bool own) {
        const uint32_t d = 1u << aq_log2_;
        if (own) {
            const admin::AqSqeHdr<> h(std::span<uint8_t, kAqSqeBytes>(e).first<8>());
            h.set_cmd_id(next_id_++);
            h.set_phase(static_cast<uint8_t>(((sq_tail_ >> aq_log2_) & 1) ^ 1));
        }
        std::memcpy(&q_.ram[kAqSq + uint64_t{sq_tail_ % d} * kAqSqeBytes], e.data(), e.size());
        sq_tail_ = (sq_tail_ + 1) & 0xffff;
    }
    // The next completion by phase, consumed (AQ_CQ_HEAD written); its status, or -1.
    int take() {
        const uint32_t d = 1u << aq_log2_;
        const uint8_t* c = &q_.ram[kAqCq + uint64_t{cq_head_ % d} * kAqCqeBytes];
        const admin::AqCqeHdr<const uint8_t> h(std::span<const uint8_t, 8>(c, 8));
        if (h.phase() != (((cq_head_ >> aq_log2_) & 1) ^ 1)) {
            return -1;
        }
        std::memcpy(last_cqe_.data(), c, last_cqe_.size());
        cq_head_ = (cq_head_ + 1) & 0xffff;
        wcore(rc::kAqCqHead, cq_head_);
        return h.status();
    }
    // Rings AQ_SQ_TAIL and runs the card's timer until a completion comes (the card never
    // executes inside the MMIO write); completions of earlier raw entries are taken on the way.
    // Returns the last completion's status, 0xff if none came. No completion within
    // kCmdWaitFires is this driver's command timeout: like scenic.ko it enters the dead state
    // (commands fail at once without reaching the card) until it has reset the card.
    uint32_t submit(const Sqe& e, bool own) {
        if (dead_) {
            ++failed_cmds_;
            return 0xff;
        }
        put(e, own);
        wcore(rc::kAqSqTail, sq_tail_);
        int st = -1;
        for (int i = 0; i < kCmdWaitFires; ++i) {
            for (int k; (k = take()) >= 0;) {
                st = k;
            }
            if (st >= 0) {
                break;
            }
            if (!q_.timer) {
                break;
            }
            q_.now = std::max(q_.now, *q_.timer);
            q_.fire_due();
        }
        failed_cmds_ += st != 0;
        if (st < 0) {
            dead_ = true;
            return 0xff;
        }
        return static_cast<uint32_t>(st);
    }
    // scenic.ko's recovery (docs/admin-queue.md 8): soft reset, a function-level reset if
    // FATAL_STATUS stays set, then the rings again and a NOP. The card's objects are gone;
    // the QPs and CQs of the prologue are not re-created (applications reopen). A NOP that does
    // not complete leaves the driver dead (a hostile MSI-X table may still aim at AQ_SQ_TAIL).
    void recover() {
        ++recoveries_;
        dead_ = false;
        wcore(rc::kCtrl, rc::kCtrlSoftReset.mask);
        if ((q_.rd32(rc::kOffset + rc::kFatalStatus) & rc::kFatalStatusFatal.mask) != 0) {
            q_.reset();
        }
        setup_queues(aq_log2_, aeq_log2_, ceq_log2_);
        cmd(static_cast<uint32_t>(admin::AqOpcode::kNop), {});
    }
    uint32_t cmd(uint32_t op, std::span<const uint32_t> args) {
        return submit(encode_cmd(op, std::vector<uint32_t>(args.begin(), args.end())), true);
    }
    uint32_t qp_state(unsigned i) {
        cmd(kOpQueryQp, {kQpn[i]});
        return admin::AcqQueryQp<const uint8_t>(std::span<const uint8_t, kAqCqeBytes>(last_cqe_))
            .state();
    }
    uint32_t cmd(uint32_t op, std::initializer_list<uint32_t> args) {
        return cmd(op, std::span(args.begin(), args.size()));
    }
    void fill(uint64_t va) {
        const uint64_t dma = va_to_bus(va);
        cmd(kOpTlbFill, {kKey, lo(va), hi(va), lo(dma), hi(dma)});
    }
    void connect(unsigned i) { connect(kQpn[i], kPeerQpn[i]); }
    void connect(uint32_t qpn, uint32_t peer) {
        auto set = [&](uint32_t mask, std::initializer_list<uint32_t> v) {
            std::vector<uint32_t> a{qpn, mask};
            a.insert(a.end(), v);
            return cmd(kOpModifyQp, a);
        };
        set(kAttrState, {kQpsInit});
        std::array<uint32_t, 20> v{};
        v[0] = qpn;
        v[1] = kAttrState | kAttrDestQpn | kAttrRqPsn | kAttrPathMtu | kAttrTimeout |
               kAttrRetryCnt | kAttrRnrRetry | kAttrMinRnrTimer | kAttrAccess | kAttrMaxRdAtomic |
               kAttrMaxDestRdAtomic | kAttrAv;
        v[2] = kQpsRtr;
        v[3] = peer;
        v[5] = kRqPsn;
        v[6] = kPmtu;
        v[7] = 10u | 7u << 8 | 7u << 16 | 1u << 24;
        v[8] = rdma::kAccessRemoteWrite | rdma::kAccessRemoteRead | rdma::kAccessRemoteAtomic |
               16u << 8 | 16u << 16;
        const uint8_t dgid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
        const uint8_t sgid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
        std::memcpy(&v[9], dgid, 16);
        std::memcpy(&v[13], sgid, 16);
        v[17] = 0x00000002u;          // peer MAC 02:5c:00:00:00:02, bytes 2..5
        v[18] = 0x025cu | 64u << 16;  // bytes 0..1, hop limit
        v[19] = 0x80000000u;
        cmd(kOpModifyQp, v);
        set(kAttrState | kAttrSqPsn, {kQpsRts, 0, kSqPsn});
    }
    void prologue() {
        wrdma(rr::kCtrl, 1);
        for (unsigned c = 0; c < 2; ++c) {
            const uint64_t rec = use_dbrec_ ? bus(kCqRec[c]) : 0;
            cmd(kOpCreateCq,
                {c, lo(bus(kCqRing[c])), hi(bus(kCqRing[c])), kCqLog2, lo(rec), hi(rec)});
        }
        for (unsigned i = 0; i < 2; ++i) {
            const uint64_t rec = use_dbrec_ ? bus(kQpRec[i]) : 0;
            // A hostile status page: the card's state word (offset 8) lands on its AQ doorbell.
            const uint64_t status = i == 1 && hostile_status_
                                        ? FakeQemu::kBar0 + rc::kOffset + rc::kAqSqTail - 8
                                        : bus(kStatus[i]);
            cmd(kOpCreateQp,
                {kQpn[i], lo(bus(kSq[i])), hi(bus(kSq[i])), kSqLog2, lo(bus(kRq[i])),
                 hi(bus(kRq[i])), kRqLog2, 0, 1, kPd, 0, lo(status), hi(status), lo(rec), hi(rec)});
            connect(i);
        }
        {
            const uint64_t status = bus(kStatus[1]) + 2048;
            cmd(kOpCreateQp, {kUdQpn, lo(bus(kSq[1])), hi(bus(kSq[1])), kSqLog2, lo(bus(kRq[1])),
                              hi(bus(kRq[1])), kRqLog2, 0, 1, kPd, 0, lo(status), hi(status), 0, 0,
                              0, static_cast<uint32_t>(admin::QpType::kUd)});
            std::array<uint32_t, 21> v{};
            v[0] = kUdQpn;
            v[1] = kAttrState | kAttrQkey;
            v[2] = kQpsInit;
            v[20] = kUdQkey;
            cmd(kOpModifyQp, v);
            cmd(kOpModifyQp, {kUdQpn, kAttrState | kAttrPathMtu, kQpsRtr, 0, 0, 0, kPmtu});
            cmd(kOpModifyQp, {kUdQpn, kAttrState | kAttrSqPsn, kQpsRts, 0, kSqPsn});
        }
        {
            const uint64_t status = bus(kStatus[0]) + 2048;
            cmd(kOpCreateQp, {kUcQpn, lo(bus(kSq[0])), hi(bus(kSq[0])), kSqLog2, lo(bus(kRq[0])),
                              hi(bus(kRq[0])), kRqLog2, 0, 1, kPd, 0, lo(status), hi(status), 0, 0,
                              0, static_cast<uint32_t>(admin::QpType::kUc)});
            connect(kUcQpn, kPeerQpn[0]);
        }
        const uint32_t all = rdma::kAccessLocalWrite | rdma::kAccessRemoteWrite |
                             rdma::kAccessRemoteRead | rdma::kAccessRemoteAtomic |
                             rdma::kAccessMwBind;
        const uint64_t len = uint64_t{kUserPages} * 4096;
        cmd(kOpRegMr, {kKey, kPd, lo(kVa), hi(kVa), lo(len), hi(len), all});
        cmd(kOpAllocMw, {kMwKey1, kPd, 1});
        cmd(kOpAllocMw, {kMwKey2 - 1, kPd, 2});         // a bind with kMwKey2 makes it valid
        for (unsigned p = 0; p < kUserPages; p += 2) {  // half now, half through TLB misses
            fill(kVa + uint64_t{p} * 4096);
        }
    }
    void service_events() {
        // The rings are bounded: a drain that never ends is a finding.
        for (int i = 0; i < 4096; ++i) {
            const uint32_t d = 1u << aeq_log2_;
            const uint8_t* e = &q_.ram[kAeq + uint64_t{aeq_head_ % d} * 32];
            const admin::AeqeTlbMiss<const uint8_t> ev(std::span<const uint8_t, 32>(e, 32));
            if (ev.phase() != (((aeq_head_ >> aeq_log2_) & 1) ^ 1)) {
                break;
            }
            aeq_head_ = (aeq_head_ + 1) & 0xffff;
            wcore(rc::kAeqHead, aeq_head_);
            if (ev.type() == static_cast<uint8_t>(admin::AeqType::kCardFatal)) {
                dead_ = true;  // scenic.ko: recovery, which resets the card
            }
            if (ev.type() == static_cast<uint8_t>(admin::AeqType::kTlbMiss)) {
                const uint64_t va = ev.iova();
                const uint64_t dma = va >= kVa && va - kVa < uint64_t{kUserPages} * 4096
                                         ? va_to_bus(va & ~uint64_t{4095})
                                         : bus(kUserPhys);
                cmd(kOpTlbFill, {ev.key(), lo(va), hi(va), lo(dma), hi(dma)});
            }
            if (i == 4095) {
                fail("AEQ drain did not end after 4096 events");
            }
        }
        for (int i = 0;; ++i) {
            const uint32_t d = 1u << ceq_log2_;
            const admin::Ceqe<const uint8_t> ev(
                std::span<const uint8_t, 8>(&q_.ram[kCeq + uint64_t{ceq_head_ % d} * 8], 8));
            if (ev.phase() != (((ceq_head_ >> ceq_log2_) & 1) ^ 1)) {
                break;
            }
            ceq_head_ = (ceq_head_ + 1) & 0xffff;
            wrdma(rr::kCeqHead, ceq_head_);
            if (i == 4096) {
                fail("CEQ drain did not end after 4096 events");
            }
        }
    }
    void poll_cq(unsigned c, bool arm) {
        uint32_t& ci = ci_[c];
        for (int n = 0; n < (1 << kCqLog2); ++n) {
            const uint64_t slot = kCqRing[c] + uint64_t{ci & ((1u << kCqLog2) - 1)} * 32;
            scenic_cqe cqe;
            std::memcpy(&cqe, &q_.ram[slot], sizeof cqe);
            if ((cqe.flags & SCENIC_CQE_F_OWNER) != (((ci >> kCqLog2) & 1) ^ 1)) {
                break;
            }
            ++ci;
        }
        const uint64_t page = uint64_t{rr::kMaxQpDefault + c} * 4096;
        if (use_dbrec_) {
            const uint32_t v = ci & SCENIC_DB_CQ_CI_MASK;
            std::memcpy(&q_.ram[kCqRec[c]], &v, 4);
        } else {
            q_.db_write(page + SCENIC_DB_CQ_CI, ci & SCENIC_DB_CQ_CI_MASK, 4);
        }
        if (arm) {
            q_.db_write(page + SCENIC_DB_CQ_ARM, ci & SCENIC_DB_CQ_CI_MASK, 4);
        }
    }

    // ---- interesting values for command arguments
    uint32_t arg() {
        const uint8_t sel = in_.get<uint8_t>();
        if (sel >= kArgRaw) {
            return in_.get<uint32_t>();
        }
        const uint64_t aq_db = FakeQemu::kBar0 + rc::kOffset + rc::kAqSqTail;
        const uint32_t table[] = {0,
                                  1,
                                  2,
                                  3,
                                  4,
                                  5,
                                  6,
                                  7,
                                  8,
                                  12,
                                  16,
                                  31,
                                  32,
                                  0x11,
                                  0x12,
                                  256,
                                  512,
                                  1024,
                                  4096,
                                  4097,
                                  0xffff,
                                  0x00ffffff,
                                  0x7fffffff,
                                  0x80000000,
                                  0xffffffff,
                                  0xfffffffe,
                                  lo(FakeQemu::kRamBase),
                                  hi(FakeQemu::kRamBase),
                                  lo(bus(0x20000)),
                                  lo(bus(0x3f000)),
                                  lo(bus(kUserPhys)),
                                  lo(bus(kStatus[0])),
                                  lo(bus(kSq[0])),
                                  lo(bus(kCqRing[0])),
                                  lo(FakeQemu::kBar0),
                                  lo(aq_db),
                                  lo(aq_db - 0x18),
                                  lo(bus(kAqSq)),
                                  lo(bus(kAqCq)),
                                  lo(bus(kAeq)),
                                  lo(bus(kCeq)),
                                  lo(FakeQemu::kDbBar),
                                  lo(FakeQemu::kDbBar + 2 * 4096),
                                  lo(FakeQemu::kMsixBar),
                                  lo(FakeQemu::kScuBar),
                                  lo(FakeQemu::kScuBar + 0x30000),
                                  lo(FakeQemu::kLapic),
                                  kKey,
                                  kKey + 0x100,
                                  kPd,
                                  lo(kVa),
                                  hi(kVa),
                                  lo(kVa + 0x3000),
                                  kUserPages * 4096,
                                  kSqPsn,
                                  kRqPsn,
                                  kPeerQpn[0],
                                  0xffffff,
                                  rr::kMaxQpDefault - 1,
                                  rr::kMaxQpDefault,
                                  kTlbFillMax,
                                  kTlbFillMax + 1,
                                  0x1fff,
                                  0x80000002u};
        return table[sel % std::size(table)];
    }

    // ---- the op stream
    void step(Op op) {
        switch (op) {
            case kOpMmioWrite: {
                const uint16_t off = in_.get<uint16_t>();
                const unsigned size = size_of(in_.get<uint8_t>());
                q_.bar0_write(off, in_.get<uint64_t>(), size);
                break;
            }
            case kOpScuWrite: {
                // Mostly inside BAR3; sometimes past it, as no guest can but a model must take.
                const uint32_t off = in_.get<uint32_t>() % (2 * FakeQemu::kScuBarSize);
                const unsigned size = size_of(in_.get<uint8_t>());
                q_.scu_write(off, in_.get<uint64_t>(), size);
                break;
            }
            case kOpEthTx:
                eth_tx();
                break;
            case kOpScuRead: {
                const uint32_t off = in_.get<uint32_t>() % (2 * FakeQemu::kScuBarSize);
                (void)q_.scu_read(off, size_of(in_.get<uint8_t>()));
                break;
            }
            case kOpMmioRead: {
                const uint16_t off = in_.get<uint16_t>();
                (void)q_.bar0_read(off, size_of(in_.get<uint8_t>()));
                break;
            }
            case kOpDoorbell: {
                const uint64_t page = in_.get<uint16_t>() % (q_.db_size / 4096);
                const uint8_t reg = in_.get<uint8_t>();
                const unsigned size = size_of(in_.get<uint8_t>());
                const uint32_t v = in_.get<uint32_t>();
                const uint64_t off = reg < 0x80 ? (reg & 1) * 8 : reg & 0x7f;
                q_.db_write(page * 4096 + off, v, size);
                break;
            }
            case kOpCommand: {
                const uint8_t opc = in_.get<uint8_t>();
                const unsigned n = in_.get<uint8_t>() % 25;  // a0..a23 of encode_cmd
                std::vector<uint32_t> a(n);
                for (uint32_t& x : a) {
                    x = arg();
                }
                // < 0xf0: one of kCmdTable (every opcode and some unknown ones); else raw.
                cmd(opc < 0xf0 ? kCmdTable[opc % std::size(kCmdTable)] : opc, a);
                break;
            }
            case kOpRamWrite: {
                const size_t off = in_.get<uint32_t>() % FakeQemu::kRamSize;
                const size_t len = in_.get<uint16_t>() % 513;
                const auto b = in_.bytes(std::min(len, FakeQemu::kRamSize - off));
                std::copy(b.begin(), b.end(), q_.ram.begin() + static_cast<ptrdiff_t>(off));
                break;
            }
            case kOpPostSend:
                post_send();
                break;
            case kOpPostRecv:
                post_recv();
                break;
            case kOpTimer: {
                const uint32_t ns = in_.get<uint32_t>();
                if (ns == 0 && q_.timer) {
                    q_.now = std::max(q_.now, *q_.timer);
                } else {
                    q_.now += ns;
                }
                q_.fire_due();
                break;
            }
            case kOpReset:  // FLR; the driver programs the rings again
                q_.reset();
                eth_up_ = false;
                setup_queues(aq_log2_, aeq_log2_, ceq_log2_);
                break;
            case kOpFrame:
                frame();
                break;
            case kOpMsix: {
                const unsigned v = in_.get<uint8_t>() % SCENIC_MSIX_VECTORS;
                const uint8_t target = in_.get<uint8_t>();
                const uint32_t off = in_.get<uint32_t>();
                const uint64_t bases[4] = {FakeQemu::kLapic, FakeQemu::kBar0, FakeQemu::kDbBar,
                                           FakeQemu::kRamBase};
                const uint64_t sizes[4] = {FakeQemu::kLapicSize, SCENIC_BAR0_SIZE, q_.db_size,
                                           FakeQemu::kRamSize};
                q_.msix_table[v] = {bases[target & 3] + off % sizes[target & 3],
                                    in_.get<uint32_t>()};
                break;
            }
            case kOpLink:
                scenic_model_set_link(q_.model, (in_.get<uint8_t>() & 1) != 0);
                break;
            case kOpEvents:
                service_events();
                break;
            case kOpPollCq: {
                const unsigned c = in_.get<uint8_t>() & 1;
                poll_cq(c, (in_.get<uint8_t>() & 1) != 0);
                break;
            }
            case kOpPeer:
                peer();
                break;
            case kOpDmaFault:
                q_.fault_off = in_.get<uint32_t>() % FakeQemu::kRamSize;
                q_.fault_len = in_.get<uint16_t>();
                break;
            case kOpRawFrame: {
                const auto b = in_.bytes(in_.get<uint16_t>() % 9100);
                q_.receive(b);
                break;
            }
            case kOpSqeRaw: {
                // A raw 128-byte entry at the SQ tail: mode bit 0 keeps the input's id and phase.
                const uint8_t mode = in_.get<uint8_t>();
                Sqe e{};
                const auto b = in_.bytes(e.size());
                std::copy(b.begin(), b.end(), e.begin());
                submit(e, (mode & 1) == 0);
                break;
            }
            case kOpAqReg: {
                // A raw write to an admin register: doorbells, heads, ring bases and configs.
                static constexpr struct {
                    bool core;
                    uint32_t off;
                } kRegs[] = {
                    {true, rc::kAqSqTail},   {true, rc::kAqCqHead},   {true, rc::kAqCfg},
                    {true, rc::kAqSqBaseLo}, {true, rc::kAqSqBaseHi}, {true, rc::kAqCqBaseLo},
                    {true, rc::kAqCqBaseHi}, {true, rc::kAeqCfg},     {true, rc::kAeqHead},
                    {true, rc::kAeqBaseLo},  {true, rc::kAeqBaseHi},  {false, rr::kCeqCfg},
                    {false, rr::kCeqHead},   {false, rr::kCeqBaseLo}, {false, rr::kCeqBaseHi}};
                const auto& r = kRegs[in_.get<uint8_t>() % std::size(kRegs)];
                const uint32_t v = in_.get<uint32_t>();
                r.core ? wcore(r.off, v) : wrdma(r.off, v);
                break;
            }
            case kOpAqSetup: {
                // The driver re-creates its rings with other depths (up to the memory it has).
                const uint8_t l = in_.get<uint8_t>();
                setup_queues(l % (kAqLog2 + 1), (l >> 3) % (kAeqLog2 + 1), kCeqLog2 - (l >> 6));
                break;
            }
            case kOpCount:
                break;
        }
    }

    uint32_t key(uint8_t sel) {
        switch (sel & 3) {
            case 0:
                return kKey;
            case 1:
                return (sel & 4) ? kMwKey1 : (sel & 8) ? kMwKey2 : kKey;
            case 2:
                return kKey + 0x100;
            default:
                return in_.get<uint32_t>();
        }
    }

    void post_send() {
        const unsigned i = in_.get<uint8_t>() & 1;
        scenic_sq_wqe w{};
        w.opcode = in_.get<uint8_t>() % 10;  // SEND .. SEND_INV, LOCAL_INV, BIND_MW
        w.flags = in_.get<uint8_t>() & 0x0f;
        const uint8_t nsge = in_.get<uint8_t>();
        w.imm_data_be = in_.get<uint32_t>();
        const uint8_t rsel = in_.get<uint8_t>();
        w.rkey = (rsel & 1) ? in_.get<uint32_t>() : (rsel & 4) ? key(rsel >> 3) : kPeerKey;
        w.remote_addr = (rsel & 2) ? in_.get<uint64_t>() : kVa + in_.get<uint16_t>();
        w.compare_add = in_.get<uint64_t>();
        w.swap = in_.get<uint64_t>();
        if (w.opcode == SCENIC_WQE_OP_BIND_MW && (rsel & 0x80) != 0) {
            // struct scenic_bind_mw_wqe over the same bytes: a plausible length, our MR, and
            // the access / type byte pair from the input.
            w.compare_add &= 0xffff;
            w.swap = (w.swap & 0xffff'ffff'0000'0000) | kKey;
        }
        uint32_t len = 0;
        if ((w.flags & SCENIC_WQE_F_INLINE) != 0) {
            w.num_sge = 0;
            len = in_.get<uint16_t>() % (SCENIC_MAX_INLINE + 2);
            std::memset(w.inline_data, 0xa5, std::min<size_t>(len, SCENIC_MAX_INLINE));
        } else {
            w.num_sge = nsge < 0xf0 ? nsge % (SCENIC_SQ_MAX_SGE + 1) : nsge;
            for (unsigned s = 0; s < std::min<unsigned>(w.num_sge, SCENIC_SQ_MAX_SGE); ++s) {
                const uint16_t off = in_.get<uint16_t>();
                const uint16_t l = in_.get<uint16_t>();
                w.sge[s] = {kVa + off, l, key(in_.get<uint8_t>())};
                len += l;
            }
        }
        const uint8_t lsel = in_.get<uint8_t>();
        w.length = lsel == 0xff ? in_.get<uint32_t>() : len;
        uint32_t& pi = sq_pi_[i];
        const uint64_t slot = kSq[i] + uint64_t{pi & ((1u << kSqLog2) - 1)} * SCENIC_SQ_WQE_BYTES;
        std::memcpy(&q_.ram[slot], &w, sizeof w);
        ++pi;
        ring(i, lsel, pi, offsetof(scenic_qp_dbrec, sq_pi), SCENIC_DB_SQ, SCENIC_QP_DB_SKIP_SQ);
    }
    void post_recv() {
        const unsigned i = in_.get<uint8_t>() & 1;
        scenic_rq_wqe w{};
        const uint8_t nsge = in_.get<uint8_t>();
        w.num_sge = nsge < 0xf0 ? nsge % (SCENIC_RQ_MAX_SGE_V0 + 1) : nsge;
        for (unsigned s = 0; s < std::min<unsigned>(w.num_sge, SCENIC_RQ_MAX_SGE_V0); ++s) {
            const uint16_t off = in_.get<uint16_t>();
            const uint16_t l = in_.get<uint16_t>();
            w.sge[s] = {kVa + off, l, key(in_.get<uint8_t>())};
        }
        uint32_t& pi = rq_pi_[i];
        const uint64_t slot = kRq[i] + uint64_t{pi & ((1u << kRqLog2) - 1)} * SCENIC_RQ_WQE_BYTES;
        std::memcpy(&q_.ram[slot], &w, SCENIC_RQ_WQE_BYTES);
        ++pi;
        ring(i, in_.get<uint8_t>(), pi, offsetof(scenic_qp_dbrec, rq_pi), SCENIC_DB_RQ,
             SCENIC_QP_DB_SKIP_RQ);
    }
    // As the provider: the record, then the doorbell unless the card said it can do without.
    // mode 0xfe: a raw index (backward, far ahead); 0xfd: no doorbell at all.
    void ring(unsigned i, uint8_t mode, uint32_t pi, size_t rec_off, uint64_t db_off,
              uint32_t skip_bit) {
        if (mode == 0xfe) {
            pi = in_.get<uint32_t>();
        }
        if (use_dbrec_) {
            std::memcpy(&q_.ram[kQpRec[i] + rec_off], &pi, 4);
            uint32_t skip;
            std::memcpy(&skip, &q_.ram[kStatus[i] + offsetof(scenic_qp_status, db_skip)], 4);
            if ((skip & skip_bit) != 0 && mode != 0xfe) {
                return;
            }
        }
        if (mode != 0xfd) {
            q_.db_write(uint64_t{kQpn[i]} * 4096 + db_off, pi, 4);
        }
    }

    // ---- the peer
    roce::PathContext path(bool spoof) const {
        roce::PathContext pc;
        pc.src_mac = {0x02, 0x5c, 0x00, 0x00, 0x00, 0x02};
        pc.dst_mac = {0x02, 0x5c, 0x00, 0x00, 0x00, 0x01};
        pc.src_ip = {10, 0, 0, static_cast<uint8_t>(spoof ? 9 : 2)};
        pc.dst_ip = {10, 0, 0, 1};
        return pc;
    }
    void send_frame(const roce::Transport& t, std::span<const uint8_t> payload, bool spoof,
                    uint16_t flip) {
        roce::BuildResult b = roce::build_frame(path(spoof), t, payload);
        if (!b.ok()) {
            return;
        }
        if (flip != 0) {  // a damaged frame: bad ICRC, or a header the parser must refuse
            b.frame[flip % b.frame.size()] ^= static_cast<uint8_t>(flip >> 8 | 1);
        }
        q_.receive(b.frame);
    }
    // A frame with every header the opcode needs, fields from the input.
    void frame() {
        // RC opcodes first (the corpus indexes them), then the selective-repeat ones, UD, UC.
        const auto rc = roce::rc_opcodes();
        const auto sr = roce::sr_opcodes();
        const auto ud = roce::ud_opcodes();
        const auto uc = roce::uc_opcodes();
        const uint8_t osel = in_.get<uint8_t>();
        const size_t oi = osel % (rc.size() + sr.size() + ud.size() + uc.size());
        const size_t n3 = rc.size() + sr.size() + ud.size();
        const roce::OpcodeInfo& info = oi < rc.size()               ? rc[oi]
                                       : oi < rc.size() + sr.size() ? sr[oi - rc.size()]
                                       : oi < n3                    ? ud[oi - rc.size() - sr.size()]
                                                                    : uc[oi - n3];
        const uint8_t f = in_.get<uint8_t>();
        const unsigned i = f & 1;
        roce::Transport t;
        t.bth.opcode = static_cast<uint8_t>(info.opcode);
        t.bth.se = (f & 2) != 0;
        t.bth.ackreq = (f & 4) != 0;
        t.bth.becn = (f & 8) != 0;
        t.bth.dest_qp = (f & 0x10)                 ? in_.get<uint32_t>() & 0xffffff
                        : info.has(roce::kHdrDeth) ? kUdQpn
                        : roce::is_uc(static_cast<uint8_t>(info.opcode)) ? kUcQpn
                                                                         : kQpn[i];
        const int16_t dpsn = in_.get<int16_t>();
        const uint32_t base = info.request ? kRqPsn + rx_msgs_[i] : kSqPsn;
        t.bth.psn = (f & 0x20) ? in_.get<uint32_t>() & 0xffffff : (base + dpsn) & 0xffffff;
        if (info.has(roce::kHdrSreth)) {
            const uint8_t s = in_.get<uint8_t>();
            roce::Sreth h;
            h.ver_flags = (s & 1) ? in_.get<uint8_t>() : uint8_t{0x10};
            h.midx = in_.get<uint8_t>() % 16;
            h.rsn = (s & 2) ? in_.get<uint32_t>() : in_.get<uint8_t>();
            h.msg_len = (s & 4) ? in_.get<uint32_t>() : in_.get<uint16_t>();
            t.sreth = h;
        }
        if (info.has(roce::kHdrSrHello)) {
            const uint8_t s = in_.get<uint8_t>();
            roce::SrHello h;
            h.window_log2 = static_cast<uint8_t>(4 + s % 8);
            h.max_ranges = in_.get<uint8_t>() % 10;
            h.nonce = in_.get<uint32_t>();
            if (s & 0x80) {
                h.version = in_.get<uint8_t>();
            }
            t.sr_hello = h;
        }
        if (info.has(roce::kHdrDeth)) {
            const uint8_t s = in_.get<uint8_t>();
            t.deth = roce::Deth{(s & 1) ? in_.get<uint32_t>() : kUdQkey, in_.get<uint32_t>()};
        }
        if (info.has(roce::kHdrReth)) {
            const uint8_t s = in_.get<uint8_t>();
            t.reth = roce::Reth{(s & 1) ? in_.get<uint64_t>() : kVa + in_.get<uint16_t>(),
                                key(s >> 1), in_.get<uint32_t>() % ((s & 8) ? 0xffffffffu : 9000u)};
        }
        if (info.has(roce::kHdrAtomicEth)) {
            const uint8_t s = in_.get<uint8_t>();
            t.atomic_eth =
                roce::AtomicEth{(s & 1) ? in_.get<uint64_t>() : kVa + (in_.get<uint16_t>() & ~7u),
                                key(s >> 1), in_.get<uint64_t>(), in_.get<uint64_t>()};
        }
        if (info.has(roce::kHdrAeth)) {
            t.aeth = roce::Aeth{static_cast<uint8_t>(in_.get<uint8_t>() & 0x7f),
                                in_.get<uint32_t>() & 0xffffff};
        }
        if (info.has(roce::kHdrSackEth)) {
            // SR_SACK: mostly well-formed ranges near the requester's PSNs, sometimes raw
            const uint8_t s = in_.get<uint8_t>();
            roce::SackEth k;
            k.n = static_cast<uint8_t>((s & 0x80) ? in_.get<uint8_t>() : 1 + s % 8);
            uint16_t at = 0;
            for (uint8_t r = 0; r < std::min<uint8_t>(k.n, roce::SackEth::kMaxRanges); ++r) {
                k.ranges[r].start =
                    r == 0 ? uint16_t{0} : static_cast<uint16_t>(at + 1 + in_.get<uint8_t>() % 8);
                k.ranges[r].len = static_cast<uint16_t>(1 + in_.get<uint8_t>() % 8);
                at = static_cast<uint16_t>(k.ranges[r].start + k.ranges[r].len);
            }
            k.right_edge = (s & 0x40) ? in_.get<uint32_t>() & 0xffffff
                                      : (t.bth.psn + at + 1 + in_.get<uint8_t>() % 16) & 0xffffff;
            t.sack = k;
        }
        if (info.has(roce::kHdrAtomicAckEth)) {
            t.atomic_ack = roce::AtomicAckEth{in_.get<uint64_t>()};
        }
        if (info.has(roce::kHdrImmDt)) {
            t.imm = roce::ImmDt{in_.get<uint32_t>()};
        }
        if (info.has(roce::kHdrIeth)) {
            t.ieth = roce::Ieth{key(in_.get<uint8_t>())};
        }
        size_t plen = 0;
        if (info.payload == roce::PayloadRule::kFull) {
            plen = kPmtu;
        } else if (info.payload == roce::PayloadRule::kTail) {
            plen = in_.get<uint16_t>() % (kPmtu + 1);
        }
        std::vector<uint8_t> payload(plen, static_cast<uint8_t>(osel));
        if (info.request && info.last) {
            ++rx_msgs_[i];
        }
        const uint8_t g = in_.get<uint8_t>();
        send_frame(t, payload, (g & 1) != 0, (g & 2) ? in_.get<uint16_t>() : 0);
    }
    // The peer answers the oldest frame the card sent: ACK, NAK, RNR NAK, READ response, atomic
    // ACK, or a duplicate of the request; or drops it.
    void peer() {
        const uint8_t action = in_.get<uint8_t>();
        if (q_.wire.empty()) {
            return;
        }
        const std::vector<uint8_t> sent = std::move(q_.wire.front());
        q_.wire.pop_front();
        const roce::ParseResult pr = roce::parse_frame(sent);
        if (!pr.ok()) {
            return;
        }
        const roce::Transport& rq = pr.packet.transport;
        const roce::OpcodeInfo* info = roce::rc_opcode_info(rq.bth.opcode);
        if (!info || !info->request) {
            return;
        }
        const unsigned i = rq.bth.dest_qp == kPeerQpn[1] ? 1 : 0;
        roce::Transport t;
        t.bth.dest_qp = kQpn[i];
        t.bth.psn = rq.bth.psn;
        const uint32_t msn = ++peer_msn_[i];
        switch (action % 6) {
            case 0:  // the right answer
                if (info->cls == roce::OpClass::kRead && rq.reth) {
                    read_response(t, *rq.reth, msn);
                    return;
                }
                if (info->cls == roce::OpClass::kAtomic) {
                    t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kAtomicAck);
                    t.aeth = roce::Aeth::ack(msn);
                    t.atomic_ack = roce::AtomicAckEth{0x0123456789abcdefull};
                    break;
                }
                t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kAck);
                t.aeth = roce::Aeth::ack(msn);
                break;
            case 1:
                t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kAck);
                t.aeth = roce::Aeth::nak(msn, static_cast<roce::NakCode>(in_.get<uint8_t>() % 5));
                break;
            case 2:
                t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kAck);
                t.aeth = roce::Aeth::rnr_nak(msn, in_.get<uint8_t>() & 0x1f);
                break;
            case 3:  // the request again, as if it were echoed back by a broken switch
                q_.receive(sent);
                return;
            case 4:  // lost
                return;
            default:  // an ACK for some other PSN
                t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kAck);
                t.bth.psn = (rq.bth.psn + in_.get<int8_t>()) & 0xffffff;
                t.aeth = roce::Aeth::ack(msn);
                break;
        }
        send_frame(t, {}, false, 0);
    }
    void read_response(roce::Transport t, const roce::Reth& reth, uint32_t msn) {
        const uint32_t len = std::min<uint32_t>(reth.dma_length, 8 * kPmtu);
        const uint32_t n = len == 0 ? 1 : (len + kPmtu - 1) / kPmtu;
        std::vector<uint8_t> payload(kPmtu, 0x5c);
        const uint32_t psn0 = t.bth.psn;
        for (uint32_t k = 0; k < n; ++k) {
            roce::Opcode op = roce::Opcode::kReadResponseMiddle;
            if (n == 1) {
                op = roce::Opcode::kReadResponseOnly;
            } else if (k == 0) {
                op = roce::Opcode::kReadResponseFirst;
            } else if (k == n - 1) {
                op = roce::Opcode::kReadResponseLast;
            }
            t.bth.opcode = static_cast<uint8_t>(op);
            t.bth.psn = (psn0 + k) & 0xffffff;
            t.aeth.reset();
            if (op != roce::Opcode::kReadResponseMiddle) {
                t.aeth = roce::Aeth::ack(msn);
            }
            const size_t plen = k == n - 1 ? len - k * kPmtu : kPmtu;
            send_frame(t, std::span(payload).first(plen), false, 0);
        }
    }

    // ---- ETH TX (docs/eth-offloads.md 1.1, 2.4): runs of data and context entries, mostly
    // near the rules' bounds, sometimes raw; the ring is set up on first use.
    void eth_setup() {
        namespace eth = regs::eth;
        const auto w = [this](uint32_t off, uint32_t v) { q_.wr32(eth::kOffset + off, v); };
        w(eth::kTxRingSize, 0);
        w(eth::kTxRingAddrLo, lo(bus(kEthTxRing)));
        w(eth::kTxRingAddrHi, hi(bus(kEthTxRing)));
        w(eth::kTxRingSize, kEthTxEntries);
        w(eth::kCtrl, eth::kCtrlTxEn.mask | eth::kCtrlRxEn.mask);
        // Templates: Ethernet + IPv4 (IHL 5, TCP) + TCP (doff 5) at 0, Ethernet + IPv6 + TCP at
        // 0x1000; lengths as for a 4000-byte packet.
        std::array<uint8_t, 74> t{};
        t[12] = 0x08;
        t[14] = 0x45;
        t[16] = 4000 >> 8;
        t[17] = 4000 & 0xff;
        t[23] = 6;
        t[46] = 0x50;
        ram_write(kEthTxBufs, std::span(t).first(54));
        t = {};
        t[12] = 0x86;
        t[13] = 0xdd;
        t[14] = 0x60;
        t[20] = 6;
        t[66] = 0x50;
        ram_write(kEthTxBufs + 0x1000, t);
        eth_tail_ = 0;
        eth_up_ = true;
    }
    void eth_tx() {
        if (!eth_up_) {
            eth_setup();
        }
        const unsigned n = 1 + in_.get<uint8_t>() % 40;  // over TX_MAX_FRAGS sometimes
        for (unsigned i = 0; i < n; ++i) {
            const uint8_t sel = in_.get<uint8_t>();
            std::array<uint8_t, 16> e{};
            const uint32_t more = i + 1 < n ? 1u : 0u;
            if ((sel & 0xc0) == 0xc0) {  // raw entry
                const auto b = in_.bytes(16);
                std::copy(b.begin(), b.end(), e.begin());
            } else if ((sel & 0x40) != 0) {  // context entry
                static constexpr uint16_t kStarts[4] = {34, 54, 14, 13};
                static constexpr uint16_t kOffsets[4] = {16, 6, 0, 0xfffe};
                static constexpr uint8_t kHdrs[4] = {54, 74, 53, 255};
                const uint16_t start = (sel & 8) != 0 ? in_.get<uint16_t>() : kStarts[sel & 3];
                const uint16_t offset = kOffsets[(sel >> 2) & 1 ? 1 : (sel >> 4) & 3];
                const uint16_t mss = in_.get<uint16_t>();
                const uint8_t l3 = (sel & 0x20) != 0 ? 18 : 14;
                const uint8_t hdr = kHdrs[(sel >> 4) & 3];
                const uint16_t ops = in_.get<uint8_t>();  // reserved bits 4..7 sometimes
                const uint32_t flags = 2u | ((sel & 4) != 0 ? 0u : 1u);
                put_le(e, 0, start, 2);
                put_le(e, 2, offset, 2);
                put_le(e, 4, mss, 2);
                e[6] = l3;
                e[7] = hdr;
                put_le(e, 8, ops, 2);
                put_le(e, 12, flags, 4);
            } else {  // data entry into the buffers (length 0 and over 65535 sometimes)
                const uint16_t off = in_.get<uint16_t>();
                const uint32_t len =
                    (sel & 0x20) != 0 ? in_.get<uint32_t>() % 0x11000 : in_.get<uint16_t>() % 2048;
                const uint64_t addr = bus(kEthTxBufs + off % kEthTxBufBytes);
                const uint32_t flags = (more ^ (sel & 1u)) | ((sel & 0x10) != 0 ? 1u << 5 : 0u);
                put_le(e, 0, addr, 8);
                put_le(e, 8, len, 4);
                put_le(e, 12, flags, 4);
            }
            ram_write(kEthTxRing + uint64_t{(eth_tail_ + i) % kEthTxEntries} * 16, e);
        }
        eth_tail_ = (eth_tail_ + n) % kEthTxEntries;
        q_.wr32(regs::eth::kOffset + regs::eth::kTxTail, eth_tail_);
        check_eth_wire();
    }
    void ram_write(uint64_t off, std::span<const uint8_t> b) {
        std::copy(b.begin(), b.end(), q_.ram.begin() + static_cast<ptrdiff_t>(off));
    }
    static void put_le(std::array<uint8_t, 16>& e, size_t at, uint64_t v, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            e[at + i] = static_cast<uint8_t>(v >> (8 * i));
        }
    }
    // Nothing longer than the largest MTU + 18 reaches the wire, whatever the entries said.
    void check_eth_wire() {
        for (const auto& f : q_.wire) {
            if (f.size() > regs::eth::kMaxMtuDefault + 18) {
                fail("an ETH frame longer than MAX_MTU + 18 on the wire");
            }
        }
        const uint32_t head = q_.rd32(regs::eth::kOffset + regs::eth::kTxHead);
        if (head >= kEthTxEntries &&
            q_.rd32(regs::eth::kOffset + regs::eth::kTxRingSize) == kEthTxEntries) {
            fail("TX_HEAD outside the ring");
        }
    }

    // ---- invariants
    void check_heap() {
        if (__sanitizer_get_current_allocated_bytes() > heap0_ + kMaxHeapBytes) {
            fail("the card's heap grew past 64 MiB");
        }
    }
    // No more guest input: the driver keeps servicing events and CQs (and recovers the card
    // when a command timed out or the card reported a fatal error); the card must go idle. The
    // budget counts every fire, those run while the driver waits for a command too.
    // A status page is rewritten every millisecond for as long as it is set (docs/scu.md 4.4),
    // so the driver takes every page back, as scenic_scu.ko does at unbind, once the card has
    // not gone idle within kPagesAfterFires. A card that goes idle before has no page set (a set
    // page keeps its timer running): the 16 commands would change nothing there, and they cost
    // more than most inputs.
    void drain() {
        q_.fault_len = 0;
        const uint64_t fires0 = q_.fires;
        bool pages_taken = false;
        while (q_.fires - fires0 < kMaxDrainFires) {
            if (dead_ && recoveries_ < kMaxRecoveries) {
                recover();
            }
            if (!pages_taken && !dead_ && q_.fires - fires0 >= kPagesAfterFires) {
                pages_taken = true;
                for (uint32_t slot = 0; slot < 16; ++slot) {
                    cmd(static_cast<uint32_t>(admin::AqOpcode::kScuSetStatusPage), {slot, 0, 0, 0});
                }
            }
            service_events();
            poll_cq(0, false);
            poll_cq(1, false);
            q_.wire.clear();
            check_heap();
            if (!q_.timer) {
                return;
            }
            q_.now = std::max(q_.now, *q_.timer);
            q_.fire_due();
        }
        fail("the card's timer still runs after 20000 fires without input");
    }

    Reader in_;
    FakeQemu q_;
    bool use_dbrec_ = true;
    bool hostile_status_ = false;
    unsigned failed_cmds_ = 0;
    bool dead_ = false;
    unsigned recoveries_ = 0;
    unsigned aq_log2_ = kAqLog2, aeq_log2_ = kAeqLog2, ceq_log2_ = kCeqLog2;
    uint32_t sq_tail_ = 0, cq_head_ = 0, aeq_head_ = 0, ceq_head_ = 0;
    uint16_t next_id_ = 0;
    bool eth_up_ = false;
    uint32_t eth_tail_ = 0;
    std::array<uint8_t, kAqCqeBytes> last_cqe_{};
    uint32_t ci_[2] = {};
    uint32_t sq_pi_[2] = {};
    uint32_t rq_pi_[2] = {};
    uint32_t rx_msgs_[2] = {};
    uint32_t peer_msn_[2] = {};
    size_t heap0_ = __sanitizer_get_current_allocated_bytes();
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Harness(std::span(data, size)).run();
    return 0;
}
