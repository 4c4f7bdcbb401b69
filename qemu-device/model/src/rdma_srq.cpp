// SPDX-License-Identifier: MIT
// Shared receive queues (docs/verbs-completeness.md 3): the SRQ table, CREATE / MODIFY / QUERY /
// DESTROY_SRQ, CREATE_QP's srq fields, the SRQ doorbell pages and records, and the limit event.
// The responder takes an SRQ's WQEs through srq_take (rdma_responder.cpp, rdma_ud.cpp); the CQE
// of such a WQE has SCENIC_CQE_F_SRQ and the SRQ index, and an SRQ QP in ERR flushes only the
// WQE it holds, then raises QP_ERROR last_wqe (Engine::flush).
#include <array>
#include <cstring>

#include "scenic/rdma_engine.hpp"

namespace scenic::rdma {

namespace {

using admin::AqStatus;
using Entry = std::span<const uint8_t, kAqSqeBytes>;

bool aligned(uint64_t v, uint64_t a) { return (v & (a - 1)) == 0; }

template <size_t N>
CmdResult refuse(AqStatus status, const std::array<admin::FieldDef, N>& fields,
                 std::string_view name) {
    return {status, field_offset(fields, name)};
}

// MODIFY_SRQ.mask bit 0: the limit.
constexpr uint32_t kModifySrqLimit = 0x1;

}  // namespace

CmdResult Engine::command_srq(uint32_t srqn, Srq*& s) const {
    constexpr const auto& f = admin::kAqQuerySrqFields;  // srqn at the same offset in all four
    if (srqn >= kMaxSrq) {
        return refuse(AqStatus::kBadIndex, f, "srqn");
    }
    s = srq(srqn);
    return s ? CmdResult{} : refuse(AqStatus::kNotFound, f, "srqn");
}

CmdResult Engine::create_srq(Entry entry) {
    const admin::AqCreateSrq<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqCreateSrqFields;
    if (v.srqn() >= kMaxSrq) {
        return refuse(AqStatus::kBadIndex, f, "srqn");
    }
    if (v.ring_addr() == 0 || !aligned(v.ring_addr(), SCENIC_RQ_WQE_BYTES)) {
        return refuse(AqStatus::kBadArg, f, "ring_addr");
    }
    if (v.log2_entries() > kMaxWqRingLog2) {
        return refuse(AqStatus::kBadArg, f, "log2_entries");
    }
    if (v.stride() > SCENIC_RQ_MAX_STRIDE) {
        return refuse(AqStatus::kBadArg, f, "stride");
    }
    if (v.limit() > (1u << v.log2_entries())) {
        return refuse(AqStatus::kBadArg, f, "limit");
    }
    if (!aligned(v.dbrec_addr(), 8)) {
        return refuse(AqStatus::kBadArg, f, "dbrec_addr");
    }
    if (srqs_[v.srqn()]) {
        return refuse(AqStatus::kBusy, f, "srqn");
    }
    auto s = std::make_unique<Srq>();
    s->srqn = v.srqn();
    s->pdn = v.pdn();
    s->base = v.ring_addr();
    s->log2 = v.log2_entries();
    s->stride = v.stride();
    s->limit = v.limit();
    s->armed = v.limit() != 0;
    s->dbrec = v.dbrec_addr();
    srqs_[v.srqn()] = std::move(s);
    return {};
}

CmdResult Engine::modify_srq(Entry entry) {
    const admin::AqModifySrq<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqModifySrqFields;
    Srq* s = nullptr;
    if (const CmdResult r = command_srq(v.srqn(), s); !r.ok()) {
        return r;
    }
    if ((v.mask() & kModifySrqLimit) == 0) {
        return {};
    }
    if (v.limit() > s->size()) {
        return refuse(AqStatus::kBadArg, f, "limit");
    }
    // Arming below the WQEs already missing fires at the next WQE taken, as IBA's "armed"
    // means: the event reports the first time the count is seen below the limit.
    s->limit = v.limit();
    s->armed = v.limit() != 0;
    return {};
}

CmdResult Engine::query_srq(Entry entry, std::span<uint8_t, kAqCqeBytes> cqe) {
    Srq* s = nullptr;
    if (const CmdResult r = command_srq(admin::AqQuerySrq<const uint8_t>(entry).srqn(), s);
        !r.ok()) {
        return r;
    }
    const admin::AcqQuerySrq<> res(cqe);
    res.set_limit(s->limit);
    res.set_armed(s->armed ? 1 : 0);
    res.set_pi(s->pi);
    res.set_ci(s->ci);
    return {};
}

CmdResult Engine::destroy_srq(Entry entry) {
    constexpr const auto& f = admin::kAqDestroySrqFields;
    Srq* s = nullptr;
    const uint32_t srqn = admin::AqDestroySrq<const uint8_t>(entry).srqn();
    if (const CmdResult r = command_srq(srqn, s); !r.ok()) {
        return r;
    }
    if (s->users != 0) {
        return refuse(AqStatus::kBusy, f, "srqn");  // a QP still takes WQEs from it
    }
    srqs_[srqn].reset();
    return {};
}

CmdResult Engine::create_qp_srq(Entry entry, Srq*& s) const {
    const admin::AqCreateQp<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqCreateQpFields;
    s = nullptr;
    if (v.srq() == 0) {
        return v.srqn() == 0 ? CmdResult{} : refuse(AqStatus::kBadArg, f, "srqn");
    }
    if (v.srqn() >= kMaxSrq) {
        return refuse(AqStatus::kBadIndex, f, "srqn");
    }
    // Receive WQEs come from one place: a QP with an SRQ has no RQ.
    if (v.rq_addr() != 0) {
        return refuse(AqStatus::kBadArg, f, "rq_addr");
    }
    if (v.rq_log2() != 0) {
        return refuse(AqStatus::kBadArg, f, "rq_log2");
    }
    if (v.rq_stride() != 0) {
        return refuse(AqStatus::kBadArg, f, "rq_stride");
    }
    s = srq(v.srqn());
    if (s == nullptr) {
        return refuse(AqStatus::kNotFound, f, "srqn");
    }
    if (s->pdn != v.pdn()) {
        s = nullptr;
        return refuse(AqStatus::kBadArg, f, "srqn");  // another PD's SRQ
    }
    return {};
}

bool Engine::srq_take(Srq& s, uint32_t& idx) {
    if (s.pi == s.ci && s.dbrec != 0) {
        std::array<uint8_t, 4> raw{};
        ++cnt_.dbrec_reads;
        if (!host_.dma_read(s.dbrec + offsetof(scenic_srq_dbrec, pi), raw)) {
            ++cnt_.dma_errors;
        } else {
            uint32_t v = 0;
            std::memcpy(&v, raw.data(), raw.size());
            if (v - s.ci <= s.size()) {
                s.pi = v;
            } else {
                ++cnt_.db_ignored;  // the doorbell's check
            }
        }
    }
    if (s.pi == s.ci) {
        return false;
    }
    idx = s.ci++;
    const uint32_t posted = s.pi - s.ci;
    if (s.armed && posted < s.limit) {
        s.armed = false;
        events_out_.srq_limit(s.srqn, posted);
    }
    return true;
}

void Engine::srq_doorbell(uint32_t srqn, uint64_t reg, uint32_t v, unsigned size) {
    Srq* s = srq(srqn);
    // A producer index never behind the WQEs taken, never more than the ring ahead of them.
    if (s == nullptr || reg != SCENIC_DB_SRQ || (size != 4 && size != 8) || v - s->ci > s->size()) {
        ++cnt_.db_ignored;
        return;
    }
    s->pi = v;
}

}  // namespace scenic::rdma
