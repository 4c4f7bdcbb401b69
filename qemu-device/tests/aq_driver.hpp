// SPDX-License-Identifier: MIT
// A small admin-queue client for the model's tests, as the core driver does it
// (docs/admin-queue.md 3.2, 4): the rings live in the test's fake host memory; a command is
// written at the SQ tail with its phase and id, the doorbell rung, the card's timer run (the
// card never executes inside the MMIO write) and the completion read by phase, its id checked
// and AQ_CQ_HEAD written. The AEQ and CEQ are drained by phase the same way. Entries are built
// and read through the generated views (scenic/admin.hpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "scenic/admin.hpp"
#include "scenic/admin_queue.hpp"
#include "scenic/device.hpp"
#include "scenic/rdma_context.hpp"
#include "scenic/regs.hpp"

namespace scenic::test {

using Sqe = std::array<uint8_t, kAqSqeBytes>;
using AqResult = std::array<uint8_t, kAqCqeBytes>;  // the whole completion

// An SQ entry with its opcode set; fill the rest with the request's view.
inline Sqe sqe(admin::AqOpcode op) {
    Sqe e{};
    admin::AqSqeHdr<>(std::span<uint8_t, kAqSqeBytes>(e).first<8>())
        .set_opcode(static_cast<uint8_t>(op));
    return e;
}

class AqDriver {
  public:
    struct Layout {
        uint64_t sq = 0, cq = 0, aeq = 0, ceq = 0;  // bus addresses (aligned)
        unsigned aq_log2 = 6, aeq_log2 = 10, ceq_log2 = 12;
    };
    // Bytes needed for the rings of a layout (for the test's allocator).
    static constexpr uint64_t sq_bytes(unsigned l) { return uint64_t{kAqSqeBytes} << l; }
    static constexpr uint64_t cq_bytes(unsigned l) { return uint64_t{kAqCqeBytes} << l; }

    // mem(addr, len): the fake host's bytes at a bus address. fire(): run the card's due timer
    // events (advancing the host clock to the next deadline only if nothing is due now).
    AqDriver(Device& dev, std::function<uint8_t*(uint64_t)> mem, std::function<bool()> fire)
        : dev_(dev), mem_(std::move(mem)), fire_(std::move(fire)) {}

    // Programs and enables the AQ (polling), the AEQ (vector core) and the CEQ (vector rdma).
    void setup(const Layout& l) {
        l_ = l;
        sq_tail_ = cq_head_ = aeq_head_ = ceq_head_ = 0;
        next_id_ = 0;
        std::memset(mem_(l.sq), 0, sq_bytes(l.aq_log2));
        std::memset(mem_(l.cq), 0, cq_bytes(l.aq_log2));
        std::memset(mem_(l.aeq), 0, size_t{32} << l.aeq_log2);
        std::memset(mem_(l.ceq), 0, size_t{8} << l.ceq_log2);
        namespace c = regs::core;
        namespace r = regs::rdma;
        wc(c::kAqSqBaseLo, lo(l.sq));
        wc(c::kAqSqBaseHi, hi(l.sq));
        wc(c::kAqCqBaseLo, lo(l.cq));
        wc(c::kAqCqBaseHi, hi(l.cq));
        wc(c::kAqCfg, l.aq_log2 | c::kAqCfgEnable.mask);
        wc(c::kAeqBaseLo, lo(l.aeq));
        wc(c::kAeqBaseHi, hi(l.aeq));
        wc(c::kAeqCfg, l.aeq_log2 | (regs::kVecCore << c::kAeqCfgVector.shift) |
                           c::kAeqCfgIrqEn.mask | c::kAeqCfgEnable.mask);
        wr(r::kCeqBaseLo, lo(l.ceq));
        wr(r::kCeqBaseHi, hi(l.ceq));
        wr(r::kCeqCfg, l.ceq_log2 | (regs::kVecRdma << c::kAeqCfgVector.shift) |
                           c::kAeqCfgIrqEn.mask | c::kAeqCfgEnable.mask);
    }
    [[nodiscard]] const Layout& layout() const { return l_; }
    // Re-creates the AEQ with 2^log2 entries (within the ring memory of setup()).
    void setup_aeq(unsigned log2) {
        namespace c = regs::core;
        EXPECT_LE(log2, l_.aeq_log2);
        wc(c::kAeqCfg, 0);
        l_.aeq_log2 = log2;
        aeq_head_ = 0;
        std::memset(mem_(l_.aeq), 0, size_t{32} << log2);
        wc(c::kAeqCfg, log2 | (regs::kVecCore << c::kAeqCfgVector.shift) | c::kAeqCfgIrqEn.mask |
                           c::kAeqCfgEnable.mask);
    }

    // Writes the entry at the SQ tail (id and phase set here) without ringing. Returns the id.
    uint16_t put(Sqe e) {
        const uint32_t d = 1u << l_.aq_log2;
        const uint16_t id = next_id_++;
        const admin::AqSqeHdr<> h(std::span<uint8_t, kAqSqeBytes>(e).first<8>());
        h.set_cmd_id(id);
        h.set_phase(static_cast<uint8_t>(((sq_tail_ >> l_.aq_log2) & 1) ^ 1));
        std::memcpy(mem_(l_.sq + uint64_t{sq_tail_ % d} * kAqSqeBytes), e.data(), e.size());
        sq_tail_ = (sq_tail_ + 1) & 0xffff;
        ids_.push_back(id);
        return id;
    }
    void ring() { wc(regs::core::kAqSqTail, sq_tail_); }
    // Replaces the entry written at free-running index `index` (its id and phase kept).
    void rewrite(uint32_t index, Sqe e) {
        const uint32_t d = 1u << l_.aq_log2;
        uint8_t* slot = mem_(l_.sq + uint64_t{index % d} * kAqSqeBytes);
        const admin::AqSqeHdr<const uint8_t> old(std::span<const uint8_t, 8>(slot, 8));
        const admin::AqSqeHdr<> h(std::span<uint8_t, kAqSqeBytes>(e).first<8>());
        h.set_cmd_id(old.cmd_id());
        h.set_phase(old.phase());
        std::memcpy(slot, e.data(), e.size());
    }

    // The next completion if the card wrote one (by phase); consumes it and writes AQ_CQ_HEAD.
    std::optional<AqResult> take() {
        const uint32_t d = 1u << l_.aq_log2;
        AqResult c{};
        std::memcpy(c.data(), mem_(l_.cq + uint64_t{cq_head_ % d} * kAqCqeBytes), c.size());
        const admin::AqCqeHdr<const uint8_t> h(std::span<const uint8_t, kAqCqeBytes>(c).first<8>());
        if (h.phase() != (((cq_head_ >> l_.aq_log2) & 1) ^ 1)) {
            return std::nullopt;
        }
        cq_head_ = (cq_head_ + 1) & 0xffff;
        wc(regs::core::kAqCqHead, cq_head_);
        return c;
    }

    // One command, synchronously: status and syndrome; the completion in *out.
    // Completions of commands put earlier (and not waited for) are taken on the way, each
    // checked against the id submitted at its index.
    CmdResult exec(const Sqe& e, AqResult* out = nullptr) {
        const uint16_t id = put(e);
        ring();
        for (int i = 0; i < 64;) {
            if (auto c = take()) {
                const admin::AqCqeHdr<const uint8_t> h(
                    std::span<const uint8_t, kAqCqeBytes>(*c).first<8>());
                EXPECT_FALSE(ids_.empty());
                const uint16_t expected = ids_.empty() ? id : ids_.front();
                if (!ids_.empty()) {
                    ids_.pop_front();
                }
                EXPECT_EQ(h.cmd_id(), expected) << "completion out of submission order";
                if (expected != id) {
                    continue;
                }
                if (out) {
                    *out = *c;
                }
                return {static_cast<admin::AqStatus>(h.status()), h.syndrome()};
            }
            ++i;
            if (!fire_()) {
                break;
            }
        }
        ADD_FAILURE() << "no admin completion for command " << id;
        return {admin::AqStatus::kInternal, 0xffff};
    }

    // Drains the AEQ: the raw 32-byte entries, in order; AEQ_HEAD is written once at the end.
    std::vector<std::array<uint8_t, 32>> drain_aeq() {
        std::vector<std::array<uint8_t, 32>> out;
        const uint32_t d = 1u << l_.aeq_log2;
        for (;;) {
            std::array<uint8_t, 32> e{};
            std::memcpy(e.data(), mem_(l_.aeq + uint64_t{aeq_head_ % d} * 32), 32);
            const admin::AeqeHdr<const uint8_t> h(std::span<const uint8_t, 32>(e).first<16>());
            if (h.phase() != (((aeq_head_ >> l_.aeq_log2) & 1) ^ 1)) {
                break;
            }
            out.push_back(e);
            aeq_head_ = (aeq_head_ + 1) & 0xffff;
        }
        if (!out.empty()) {
            wc(regs::core::kAeqHead, aeq_head_);
        }
        return out;
    }
    // Drains the CEQ: the 8-byte entries.
    std::vector<std::array<uint8_t, 8>> drain_ceq() {
        std::vector<std::array<uint8_t, 8>> out;
        const uint32_t d = 1u << l_.ceq_log2;
        for (;;) {
            std::array<uint8_t, 8> e{};
            std::memcpy(e.data(), mem_(l_.ceq + uint64_t{ceq_head_ % d} * 8), 8);
            const admin::Ceqe<const uint8_t> h{std::span<const uint8_t, 8>(e)};
            if (h.phase() != (((ceq_head_ >> l_.ceq_log2) & 1) ^ 1)) {
                break;
            }
            out.push_back(e);
            ceq_head_ = (ceq_head_ + 1) & 0xffff;
        }
        if (!out.empty()) {
            wr(regs::rdma::kCeqHead, ceq_head_);
        }
        return out;
    }

    static uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }
    static uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
    uint32_t rc(uint32_t off) const {
        return static_cast<uint32_t>(dev_.mmio_read(regs::core::kOffset + off, 4));
    }
    void wc(uint32_t off, uint32_t v) { dev_.mmio_write(regs::core::kOffset + off, v, 4); }
    void wr(uint32_t off, uint32_t v) { dev_.mmio_write(regs::rdma::kOffset + off, v, 4); }
    [[nodiscard]] uint32_t sq_tail() const { return sq_tail_; }

  private:
    Device& dev_;
    std::function<uint8_t*(uint64_t)> mem_;
    std::function<bool()> fire_;
    Layout l_;
    uint32_t sq_tail_ = 0, cq_head_ = 0, aeq_head_ = 0, ceq_head_ = 0;
    uint16_t next_id_ = 0;
    std::deque<uint16_t> ids_;  // submitted, completion not taken yet
};

// Commands through the rigs' cmd(), with their arguments in the order of the driver's old mailbox
// words (a0..a23), which the rig encodes into admin-queue entries through the generated views:
// the tests keep their argument lists, the card sees only AQ entries.
inline constexpr uint32_t kOpCreateCq = static_cast<uint32_t>(admin::AqOpcode::kCreateCq);
inline constexpr uint32_t kOpDestroyCq = static_cast<uint32_t>(admin::AqOpcode::kDestroyCq);
inline constexpr uint32_t kOpQueryCq = static_cast<uint32_t>(admin::AqOpcode::kQueryCq);
inline constexpr uint32_t kOpCreateQp = static_cast<uint32_t>(admin::AqOpcode::kCreateQp);
inline constexpr uint32_t kOpModifyQp = static_cast<uint32_t>(admin::AqOpcode::kModifyQp);
inline constexpr uint32_t kOpQueryQp = static_cast<uint32_t>(admin::AqOpcode::kQueryQp);
inline constexpr uint32_t kOpDestroyQp = static_cast<uint32_t>(admin::AqOpcode::kDestroyQp);
inline constexpr uint32_t kOpQueryQpCc = static_cast<uint32_t>(admin::AqOpcode::kQueryQpCc);
inline constexpr uint32_t kOpRegMr = static_cast<uint32_t>(admin::AqOpcode::kRegMr);
inline constexpr uint32_t kOpDeregMr = static_cast<uint32_t>(admin::AqOpcode::kDeregMr);
inline constexpr uint32_t kOpTlbFill = static_cast<uint32_t>(admin::AqOpcode::kTlbFill);
inline constexpr uint32_t kOpAllocMw = static_cast<uint32_t>(admin::AqOpcode::kAllocMw);
inline constexpr uint32_t kOpDeallocMw = static_cast<uint32_t>(admin::AqOpcode::kDeallocMw);
// TLB_FILL with an indirect table (a0 key, a1/a2 iova, a3 count, a4/a5 table address).
inline constexpr uint32_t kOpTlbFillPages = 0x100 | kOpTlbFill;
inline constexpr uint32_t kTlbFillMax = 512;  // pages of an indirect TLB_FILL

inline constexpr uint32_t st(admin::AqStatus s) { return static_cast<uint32_t>(s); }
inline constexpr uint32_t kStOk = st(admin::AqStatus::kOk);
inline constexpr uint32_t kStBadOpcode = st(admin::AqStatus::kBadOpcode);
inline constexpr uint32_t kStMalformed = st(admin::AqStatus::kMalformed);
inline constexpr uint32_t kStBadIndex = st(admin::AqStatus::kBadIndex);
inline constexpr uint32_t kStBusy = st(admin::AqStatus::kBusy);
inline constexpr uint32_t kStNotFound = st(admin::AqStatus::kNotFound);
inline constexpr uint32_t kStBadArg = st(admin::AqStatus::kBadArg);
inline constexpr uint32_t kStBadState = st(admin::AqStatus::kBadState);
inline constexpr uint32_t kStDmaError = st(admin::AqStatus::kDmaError);

inline constexpr uint32_t attr(admin::ModifyQpAttr a) { return static_cast<uint32_t>(a); }
inline constexpr uint32_t kAttrState = attr(admin::ModifyQpAttr::kState);
inline constexpr uint32_t kAttrDestQpn = attr(admin::ModifyQpAttr::kDestQpn);
inline constexpr uint32_t kAttrSqPsn = attr(admin::ModifyQpAttr::kSqPsn);
inline constexpr uint32_t kAttrRqPsn = attr(admin::ModifyQpAttr::kRqPsn);
inline constexpr uint32_t kAttrPathMtu = attr(admin::ModifyQpAttr::kPathMtu);
inline constexpr uint32_t kAttrTimeout = attr(admin::ModifyQpAttr::kTimeout);
inline constexpr uint32_t kAttrRetryCnt = attr(admin::ModifyQpAttr::kRetryCnt);
inline constexpr uint32_t kAttrRnrRetry = attr(admin::ModifyQpAttr::kRnrRetry);
inline constexpr uint32_t kAttrMinRnrTimer = attr(admin::ModifyQpAttr::kMinRnrTimer);
inline constexpr uint32_t kAttrAccess = attr(admin::ModifyQpAttr::kAccess);
inline constexpr uint32_t kAttrMaxRdAtomic = attr(admin::ModifyQpAttr::kMaxRdAtomic);
inline constexpr uint32_t kAttrMaxDestRdAtomic = attr(admin::ModifyQpAttr::kMaxDestRdAtomic);
inline constexpr uint32_t kAttrAv = attr(admin::ModifyQpAttr::kAv);
inline constexpr uint32_t kAttrQkey = attr(admin::ModifyQpAttr::kQkey);
inline constexpr uint32_t kAttrPkeyIndex = attr(admin::ModifyQpAttr::kPkeyIndex);

// Node::Event::type: the AEQ entry type, or kCeq | the CEQ entry type.
inline constexpr uint32_t kCeq = 0x100;
inline constexpr uint32_t kEvLink = static_cast<uint32_t>(admin::AeqType::kLink);
inline constexpr uint32_t kEvQpErr = static_cast<uint32_t>(admin::AeqType::kQpError);
inline constexpr uint32_t kEvSqDrained = static_cast<uint32_t>(admin::AeqType::kSqDrained);
inline constexpr uint32_t kEvCqErr = static_cast<uint32_t>(admin::AeqType::kCqError);
inline constexpr uint32_t kEvTlbMiss = static_cast<uint32_t>(admin::AeqType::kTlbMiss);
inline constexpr uint32_t kEvFatal = static_cast<uint32_t>(admin::AeqType::kCardFatal);
inline constexpr uint32_t kEvAeqOverflow = static_cast<uint32_t>(admin::AeqType::kOverflow);
inline constexpr uint32_t kEvCq = kCeq | static_cast<uint32_t>(admin::CeqType::kCqNotify);
inline constexpr uint32_t kEvCeqOverflow = kCeq | static_cast<uint32_t>(admin::CeqType::kOverflow);

// Encodes a command given in the old mailbox word order into an AQ entry. Sub-fields are
// stored as whole members (admin::detail::store at the generated offsets) so that bits a test
// sets outside a field reach the card, which refuses them as MALFORMED.
inline Sqe encode_cmd(uint32_t op, const std::vector<uint32_t>& args) {
    std::array<uint32_t, 24> a{};
    std::copy_n(args.begin(), std::min<size_t>(args.size(), a.size()), a.begin());
    const auto u64 = [&](size_t i) { return uint64_t{a[i + 1]} << 32 | a[i]; };
    Sqe e{};
    const std::span<uint8_t, kAqSqeBytes> s(e);
    namespace d = admin::detail;
    const auto put8 = [&](const auto& fields, std::string_view n, uint32_t v) {
        d::store<uint8_t>(s, field_offset(fields, n), static_cast<uint8_t>(v));
    };
    const auto put16 = [&](const auto& fields, std::string_view n, uint32_t v) {
        d::store<uint16_t>(s, field_offset(fields, n), static_cast<uint16_t>(v));
    };
    const auto put32 = [&](const auto& fields, std::string_view n, uint32_t v) {
        d::store<uint32_t>(s, field_offset(fields, n), v);
    };
    const auto put64 = [&](const auto& fields, std::string_view n, uint64_t v) {
        d::store<uint64_t>(s, field_offset(fields, n), v);
    };
    const uint8_t opcode = static_cast<uint8_t>(op == kOpTlbFillPages ? kOpTlbFill : op);
    admin::AqSqeHdr<>(s.first<8>()).set_opcode(opcode);
    switch (static_cast<admin::AqOpcode>(opcode)) {
        case admin::AqOpcode::kCreateCq: {
            const auto& f = admin::kAqCreateCqFields;
            put32(f, "cqn", a[0]);
            put64(f, "ring_addr", u64(1));
            put8(f, "log2_entries", a[3]);
            put64(f, "dbrec_addr", u64(4));
            break;
        }
        case admin::AqOpcode::kResizeCq: {  // the words of CREATE_CQ
            const auto& f = admin::kAqResizeCqFields;
            put32(f, "cqn", a[0]);
            put64(f, "ring_addr", u64(1));
            put8(f, "log2_entries", a[3]);
            put64(f, "dbrec_addr", u64(4));
            break;
        }
        case admin::AqOpcode::kDestroyCq:
        case admin::AqOpcode::kQueryCq:
        case admin::AqOpcode::kQueryQp:
        case admin::AqOpcode::kDestroyQp:
        case admin::AqOpcode::kQueryQpCc:
        case admin::AqOpcode::kDeregMr:
        case admin::AqOpcode::kDeallocMw:
            d::store<uint32_t>(s, 8, a[0]);  // cqn / qpn / key: the first payload word of all
            break;
        case admin::AqOpcode::kAllocMw: {
            const auto& f = admin::kAqAllocMwFields;
            put32(f, "key", a[0]);
            put32(f, "pdn", a[1]);
            put8(f, "type", a[2]);
            break;
        }
        case admin::AqOpcode::kCreateQp: {
            const auto& f = admin::kAqCreateQpFields;
            put32(f, "qpn", a[0]);
            put64(f, "sq_addr", u64(1));
            put8(f, "sq_log2", a[3]);
            put64(f, "rq_addr", u64(4));
            put8(f, "rq_log2", a[6]);
            put32(f, "send_cqn", a[7]);
            put32(f, "recv_cqn", a[8]);
            put32(f, "pdn", a[9]);
            put8(f, "scu", a[10]);
            put64(f, "status_page_addr", u64(11));
            put64(f, "dbrec_addr", u64(13));
            admin::AqCreateQp<>(s).set_rq_stride(static_cast<uint8_t>(a[15]));
            put8(f, "type", a[16]);
            admin::AqCreateQp<>(s).set_srq(static_cast<uint8_t>(a[17]));
            put16(f, "srqn", a[18]);
            break;
        }
        case admin::AqOpcode::kModifyQp: {
            const auto& f = admin::kAqModifyQpFields;
            const admin::AqModifyQp<> v(s);
            put32(f, "qpn", a[0]);
            put32(f, "attr_mask", a[1]);
            put8(f, "state", a[2]);
            put32(f, "dest_qpn", a[3]);
            put32(f, "sq_psn", a[4]);
            put32(f, "rq_psn", a[5]);
            put16(f, "path_mtu", a[6]);
            put8(f, "timeout", a[7]);
            put8(f, "retry_cnt", a[7] >> 8);
            put8(f, "rnr_retry", a[7] >> 16);
            put8(f, "min_rnr_timer", a[7] >> 24);
            put8(f, "access", a[8]);
            put8(f, "max_rd_atomic", a[8] >> 8);
            put8(f, "max_dest_rd_atomic", a[8] >> 16);
            std::array<uint8_t, 16> dgid{};
            std::array<uint8_t, 16> sgid{};
            std::memcpy(dgid.data(), &a[9], 16);
            std::memcpy(sgid.data(), &a[13], 16);
            for (size_t i = 0; i < 16; ++i) {
                v.set_dgid(i, dgid[i]);
                v.set_sgid(i, sgid[i]);
            }
            // a17 = mac[2..5] big-endian, a18 = mac[0] << 8 | mac[1] | hop_limit << 16 | tclass <<
            // 24
            const std::array<uint8_t, 6> mac{
                static_cast<uint8_t>(a[18] >> 8),  static_cast<uint8_t>(a[18]),
                static_cast<uint8_t>(a[17] >> 24), static_cast<uint8_t>(a[17] >> 16),
                static_cast<uint8_t>(a[17] >> 8),  static_cast<uint8_t>(a[17])};
            for (size_t i = 0; i < mac.size(); ++i) {
                v.set_dmac(i, mac[i]);
            }
            v.set_hop_limit(static_cast<uint8_t>(a[18] >> 16));
            v.set_traffic_class(static_cast<uint8_t>(a[18] >> 24));
            put32(f, "flow_label", a[19]);  // flow_label [19:0], ipv4 bit 31
            put32(f, "qkey", a[20]);
            put16(f, "pkey_index", a[21]);
            break;
        }
        case admin::AqOpcode::kRegMr: {
            const auto& f = admin::kAqRegMrFields;
            put32(f, "key", a[0]);
            put32(f, "pdn", a[1]);
            put64(f, "iova", u64(2));
            put64(f, "length", u64(4));
            put8(f, "access", a[6]);
            break;
        }
        case admin::AqOpcode::kTlbFill: {
            const auto& f = admin::kAqTlbFillFields;
            const admin::AqTlbFill<> v(s);
            put32(f, "key", a[0]);
            put64(f, "iova", u64(1));
            if (op == kOpTlbFillPages) {
                put16(f, "count", a[3]);
                v.set_indirect(1);
                put64(f, "table_addr", u64(4));
            } else {
                v.set_count(1);
                v.set_page(0, u64(3));
            }
            break;
        }
        default:
            // The SCU group (0x60..0x7f), REREG_MR and the SRQ commands (0x28..0x2b): the words as
            // they are from byte 8, so the fuzz harness reaches every field of those entries (a
            // steering rule's slot is a[22]).
            if ((opcode >= 0x60 && opcode <= 0x7f) ||
                opcode == static_cast<uint8_t>(admin::AqOpcode::kReregMr) ||
                (opcode >= static_cast<uint8_t>(admin::AqOpcode::kCreateSrq) &&
                 opcode <= static_cast<uint8_t>(admin::AqOpcode::kDestroySrq))) {
                for (size_t i = 0; i < a.size(); ++i) {
                    d::store<uint32_t>(s, 8 + 4 * i, a[i]);
                }
            }
            break;  // NOP or an unknown opcode: the header only
    }
    return e;
}

// The card's QP states (the model's names of admin::QpState).
using rdma::kQpsErr;
using rdma::kQpsInit;
using rdma::kQpsReset;
using rdma::kQpsRtr;
using rdma::kQpsRts;
using rdma::kQpsSqd;
using rdma::kQpsSqe;

}  // namespace scenic::test
