// SPDX-License-Identifier: MIT
// The RDMA block's admin commands (docs/admin-queue.md 5): object tables and QP state
// transitions. Fields are read and results written only through the generated views
// (scenic/admin.hpp). The checks run in the documented order (opcode and reserved bits are
// checked by the admin queue first: check_request), then indices (BAD_INDEX), values and
// alignment (BAD_ARG), existence (NOT_FOUND / BUSY) and state (BAD_STATE); the syndrome is the
// offset of the field refused. Everything is checked before anything changes.
#include <algorithm>
#include <array>
#include <span>

#include "scenic/rdma_av.hpp"
#include "scenic/rdma_engine.hpp"

namespace scenic::rdma {

namespace {

using admin::AqStatus;
using Entry = std::span<const uint8_t, kAqSqeBytes>;
using Cqe = std::span<uint8_t, kAqCqeBytes>;

// TLB_FILL: pages given in the entry, and in an indirect table.
constexpr uint32_t kTlbFillDirectMax = 12;
constexpr uint32_t kTlbFillIndirectMax = 512;

bool aligned(uint64_t v, uint64_t a) { return (v & (a - 1)) == 0; }

bool valid_mtu(uint32_t m) { return m >= 256 && m <= 4096 && (m & (m - 1)) == 0; }

// The refusal of field `name` of `fields` with `status`.
template <size_t N>
CmdResult refuse(AqStatus status, const std::array<admin::FieldDef, N>& fields,
                 std::string_view name) {
    return {status, field_offset(fields, name)};
}

bool has(uint32_t mask, admin::ModifyQpAttr a) { return (mask & static_cast<uint32_t>(a)) != 0; }

// IBA's QP state diagram for RC (modify_qp; ib_modify_qp_is_ok without the attribute masks).
bool transition_ok(uint32_t from, uint32_t to) {
    if (to == kQpsReset || to == kQpsErr) {
        return true;
    }
    switch (from) {
        case kQpsReset:
            return to == kQpsInit;
        case kQpsInit:
            return to == kQpsInit || to == kQpsRtr;
        case kQpsRtr:
            return to == kQpsRts;
        case kQpsRts:
        case kQpsSqd:
            return to == kQpsRts || to == kQpsSqd;
        case kQpsSqe:
            return to == kQpsRts;
        default:
            return false;
    }
}

}  // namespace

CmdResult Engine::command(Entry entry, std::span<uint8_t, kAqResultBytes> result) {
    std::array<uint8_t, kAqCqeBytes> cqe{};
    const Cqe c(cqe);
    CmdResult r;
    switch (static_cast<admin::AqOpcode>(
        admin::AqSqeHdr<const uint8_t>(entry.first<admin::AqSqeHdr<>::kSize>()).opcode())) {
        case admin::AqOpcode::kCreateCq:
            r = create_cq(entry);
            break;
        case admin::AqOpcode::kDestroyCq:
            r = destroy_cq(entry);
            break;
        case admin::AqOpcode::kResizeCq:
            r = resize_cq(entry);
            break;
        case admin::AqOpcode::kQueryCq:
            r = query_cq(entry, c);
            break;
        case admin::AqOpcode::kCreateQp:
            r = create_qp(entry);
            break;
        case admin::AqOpcode::kModifyQp:
            r = modify_qp(entry);
            break;
        case admin::AqOpcode::kQueryQp:
            r = query_qp(entry, c);
            break;
        case admin::AqOpcode::kDestroyQp:
            r = destroy_qp(entry);
            break;
        case admin::AqOpcode::kQueryQpCc:
            r = query_qp_cc(entry, c);
            break;
        case admin::AqOpcode::kRegMr:
            r = reg_mr(entry);
            break;
        case admin::AqOpcode::kDeregMr:
            r = dereg_mr(entry);
            break;
        case admin::AqOpcode::kReregMr:
            r = rereg_mr(entry);
            break;
        case admin::AqOpcode::kTlbFill:
            r = tlb_fill(entry);
            break;
        case admin::AqOpcode::kAllocMw:
            r = alloc_mw(entry);
            break;
        case admin::AqOpcode::kDeallocMw:
            r = dealloc_mw(entry);
            break;
        case admin::AqOpcode::kCreateAh:
            r = ud_.create_ah(entry);
            break;
        case admin::AqOpcode::kDestroyAh:
            r = ud_.destroy_ah(entry);
            break;
        case admin::AqOpcode::kCreateSrq:
            r = create_srq(entry);
            break;
        case admin::AqOpcode::kModifySrq:
            r = modify_srq(entry);
            break;
        case admin::AqOpcode::kQuerySrq:
            r = query_srq(entry, c);
            break;
        case admin::AqOpcode::kDestroySrq:
            r = destroy_srq(entry);
            break;
        default:
            return refuse(AqStatus::kBadOpcode, admin::kAqSqeHdrFields, "opcode");
    }
    if (r.ok()) {
        std::ranges::copy(c.last<kAqResultBytes>(), result.begin());
    }
    return r;
}

CmdResult Engine::create_cq(Entry entry) {
    const admin::AqCreateCq<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqCreateCqFields;
    if (v.cqn() >= kMaxCq) {
        return refuse(AqStatus::kBadIndex, f, "cqn");
    }
    if (v.log2_entries() > kMaxCqRingLog2) {
        return refuse(AqStatus::kBadArg, f, "log2_entries");
    }
    if (v.ring_addr() == 0 || !aligned(v.ring_addr(), SCENIC_CQE_BYTES)) {
        return refuse(AqStatus::kBadArg, f, "ring_addr");
    }
    if (!aligned(v.dbrec_addr(), 8)) {
        return refuse(AqStatus::kBadArg, f, "dbrec_addr");
    }
    if (!cqs_.create(v.cqn(), v.ring_addr(), v.log2_entries(), v.dbrec_addr())) {
        return refuse(AqStatus::kBusy, f, "cqn");
    }
    return {};
}

CmdResult Engine::destroy_cq(Entry entry) {
    const admin::AqDestroyCq<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqDestroyCqFields;
    if (v.cqn() >= kMaxCq) {
        return refuse(AqStatus::kBadIndex, f, "cqn");
    }
    const Cq* cq = cqs_.find(v.cqn());
    if (!cq) {
        return refuse(AqStatus::kNotFound, f, "cqn");
    }
    if (cq->users != 0) {
        return refuse(AqStatus::kBusy, f, "cqn");
    }
    cqs_.destroy(v.cqn());
    return {};
}

// RESIZE_CQ (docs/verbs-completeness.md 5.2): the card ends the old ring with a RESIZE CQE and
// continues in the new one, so no CQE is copied by software and none is lost.
CmdResult Engine::resize_cq(Entry entry) {
    const admin::AqResizeCq<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqResizeCqFields;
    if (v.cqn() >= kMaxCq) {
        return refuse(AqStatus::kBadIndex, f, "cqn");
    }
    if (v.log2_entries() > kMaxCqRingLog2) {
        return refuse(AqStatus::kBadArg, f, "log2_entries");
    }
    const uint64_t bytes = uint64_t{SCENIC_CQE_BYTES} << v.log2_entries();
    // A ring in the card's own BARs would have the card write into itself.
    if (v.ring_addr() == 0 || !aligned(v.ring_addr(), SCENIC_CQE_BYTES) ||
        v.ring_addr() + bytes < v.ring_addr() || overlaps_card_bars(host_, v.ring_addr(), bytes)) {
        return refuse(AqStatus::kBadArg, f, "ring_addr");
    }
    if (!aligned(v.dbrec_addr(), 8) ||
        (v.dbrec_addr() != 0 &&
         overlaps_card_bars(host_, v.dbrec_addr(), sizeof(scenic_cq_dbrec)))) {
        return refuse(AqStatus::kBadArg, f, "dbrec_addr");
    }
    using S = CqWriter::ResizeStatus;
    switch (cqs_.resize(v.cqn(), v.ring_addr(), v.log2_entries(), v.dbrec_addr())) {
        case S::kOk:
            return {};
        case S::kNotFound:
            return refuse(AqStatus::kNotFound, f, "cqn");
        case S::kInError:
            return refuse(AqStatus::kBadState, f, "cqn");
        case S::kTooSmall:
            return refuse(AqStatus::kBadArg, f, "log2_entries");
        case S::kOldFull:
            return refuse(AqStatus::kBusy, f, "cqn");  // no slot for the RESIZE CQE yet
        case S::kDmaError:
            break;
    }
    return refuse(AqStatus::kDmaError, f, "cqn");
}

CmdResult Engine::query_cq(Entry entry, Cqe cqe) {
    const admin::AqQueryCq<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqQueryCqFields;
    if (v.cqn() >= kMaxCq) {
        return refuse(AqStatus::kBadIndex, f, "cqn");
    }
    const Cq* cq = cqs_.find(v.cqn());
    if (!cq) {
        return refuse(AqStatus::kNotFound, f, "cqn");
    }
    const admin::AcqQueryCq<> res(cqe);
    res.set_overrun(cq->overrun ? 1 : 0);
    res.set_armed(cq->armed ? 1 : 0);
    res.set_solicited_only(cq->solicited_only ? 1 : 0);
    res.set_producer_index(cq->pi);
    return {};
}

CmdResult Engine::create_qp(Entry entry) {
    const admin::AqCreateQp<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqCreateQpFields;
    const uint32_t qpn = v.qpn();
    if (qpn < SCENIC_RDMA_RSVD_QPS || qpn >= kMaxQp) {
        return refuse(AqStatus::kBadIndex, f, "qpn");
    }
    if (v.send_cqn() >= kMaxCq) {
        return refuse(AqStatus::kBadIndex, f, "send_cqn");
    }
    if (v.recv_cqn() >= kMaxCq) {
        return refuse(AqStatus::kBadIndex, f, "recv_cqn");
    }
    if (!aligned(v.sq_addr(), 64)) {
        return refuse(AqStatus::kBadArg, f, "sq_addr");
    }
    if (!aligned(v.rq_addr(), 64)) {
        return refuse(AqStatus::kBadArg, f, "rq_addr");
    }
    if (v.sq_log2() > kMaxWqRingLog2) {
        return refuse(AqStatus::kBadArg, f, "sq_log2");
    }
    if (v.rq_log2() > kMaxWqRingLog2) {
        return refuse(AqStatus::kBadArg, f, "rq_log2");
    }
    if (v.rq_stride() > SCENIC_RQ_MAX_STRIDE) {
        return refuse(AqStatus::kBadArg, f, "rq_stride");
    }
    if (v.type() > kQpTypeUc) {
        return refuse(AqStatus::kBadArg, f, "type");
    }
    if (v.type() != kQpTypeRc && v.scu() != 0) {
        return refuse(AqStatus::kBadArg, f, "scu");  // only RC messages pass the SCU slots
    }
    if (v.status_page_addr() == 0 || !aligned(v.status_page_addr(), 8)) {
        return refuse(AqStatus::kBadArg, f, "status_page_addr");
    }
    if (!aligned(v.dbrec_addr(), 8)) {
        return refuse(AqStatus::kBadArg, f, "dbrec_addr");
    }
    Srq* srq = nullptr;
    if (const CmdResult r = create_qp_srq(entry, srq); !r.ok()) {
        return r;
    }
    if (qps_[qpn]) {
        return refuse(AqStatus::kBusy, f, "qpn");
    }
    Cq* scq = cqs_.find(v.send_cqn());
    Cq* rcq = cqs_.find(v.recv_cqn());
    if (!scq) {
        return refuse(AqStatus::kNotFound, f, "send_cqn");
    }
    if (!rcq) {
        return refuse(AqStatus::kNotFound, f, "recv_cqn");
    }
    auto q = std::make_unique<Qp>();
    q->qpn = qpn;
    q->type = v.type();
    q->generation = next_generation_++;
    q->sr_attr = config_.sr_default;
    q->sq_base = v.sq_addr();
    q->sq_log2 = v.sq_log2();
    q->rq_base = v.rq_addr();
    q->rq_log2 = v.rq_log2();
    q->rq_stride = v.rq_stride();
    q->send_cqn = v.send_cqn();
    q->recv_cqn = v.recv_cqn();
    q->pdn = v.pdn();
    q->scu = v.scu();
    q->status_page = v.status_page_addr();
    q->dbrec = v.dbrec_addr();
    q->path.src_mac = config_.mac;
    if (srq != nullptr) {
        q->srq = true;
        q->srqn = srq->srqn;
        ++srq->users;
    }
    ++scq->users;
    ++rcq->users;
    qps_[qpn] = std::move(q);
    return {};
}

// The QP a command names: BAD_INDEX outside the QPs a command may name, NOT_FOUND if absent.
// Every QP command has its qpn at the same offset (aq_query_qp's table names it).
CmdResult Engine::command_qp(uint32_t qpn, Qp*& q) const {
    constexpr const auto& f = admin::kAqQueryQpFields;
    if (qpn < SCENIC_RDMA_RSVD_QPS || qpn >= kMaxQp) {
        return refuse(AqStatus::kBadIndex, f, "qpn");
    }
    q = qp(qpn);
    return q ? CmdResult{} : refuse(AqStatus::kNotFound, f, "qpn");
}

CmdResult Engine::query_qp(Entry entry, Cqe cqe) {
    Qp* q = nullptr;
    if (const CmdResult r = command_qp(admin::AqQueryQp<const uint8_t>(entry).qpn(), q); !r.ok()) {
        return r;
    }
    const bool started =
        q->state == kQpsRts || q->state == kQpsSqd || q->state == kQpsSqe || q->state == kQpsErr;
    const admin::AcqQueryQp<> res(cqe);
    res.set_state(static_cast<uint8_t>(q->state));
    res.set_last_err(static_cast<uint8_t>(q->state == kQpsErr ? q->last_err : kQpErrNone));
    res.set_sq_drained(q->state == kQpsSqd && q->req.drained_event ? 1 : 0);
    res.set_scu(static_cast<uint8_t>(q->scu));
    res.set_send_psn(started ? q->req.next_psn : q->sq_psn);
    res.set_expected_psn(q->resp.epsn);
    return {};
}

CmdResult Engine::query_qp_cc(Entry entry, Cqe cqe) {
    Qp* q = nullptr;
    if (const CmdResult r = command_qp(admin::AqQueryQpCc<const uint8_t>(entry).qpn(), q);
        !r.ok()) {
        return r;
    }
    const admin::AcqQueryQpCc<> res(cqe);
    res.set_rate_kbps(static_cast<uint32_t>(q->cc.rc));
    res.set_target_kbps(static_cast<uint32_t>(q->cc.rt));
    res.set_alpha(q->cc.alpha);
    res.set_cnps_rcvd(q->cc.cnps);
    return {};
}

CmdResult Engine::destroy_qp(Entry entry) {
    Qp* q = nullptr;
    const uint32_t qpn = admin::AqDestroyQp<const uint8_t>(entry).qpn();
    if (const CmdResult r = command_qp(qpn, q); !r.ok()) {
        return r;
    }
    for (const uint32_t cqn : {q->send_cqn, q->recv_cqn}) {
        if (Cq* cq = cqs_.find(cqn); cq && cq->users != 0) {
            --cq->users;
        }
    }
    if (Srq* s = q->srq ? srq(q->srqn) : nullptr; s != nullptr && s->users != 0) {
        --s->users;
    }
    arb_.forget(*q);
    retire(qps_[qpn]);  // freed once the call into the card returns (a caller may hold it)
    return {};
}

void Engine::reset_qp_queues(Qp& qp) {
    arb_.forget(qp);
    qp.req = RequesterState{};
    qp.resp = ResponderState{};
    qp.flush_pending = false;
    qp.generation = next_generation_++;  // forget timers armed before the reset
    qp.flush_scheduled = false;
    cancel_timers(qp);
}

CmdResult Engine::modify_qp(Entry entry) {
    const admin::AqModifyQp<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqModifyQpFields;
    using A = admin::ModifyQpAttr;
    Qp* q = nullptr;
    if (const CmdResult r = command_qp(v.qpn(), q); !r.ok()) {
        return r;
    }
    const uint32_t m = v.attr_mask();  // unknown bits were refused as MALFORMED
    // IBA's attribute table: a UD QP has no connection (no peer, PSNs it checks, timers or
    // access rights), an RC QP no Q_Key; an attribute of the other transport is MALFORMED.
    const uint32_t ud_only = static_cast<uint32_t>(A::kQkey) | static_cast<uint32_t>(A::kPkeyIndex);
    const uint32_t ud_ok = static_cast<uint32_t>(A::kState) | static_cast<uint32_t>(A::kSqPsn) |
                           static_cast<uint32_t>(A::kPathMtu) | ud_only;
    if ((m & ~(q->is_ud() ? ud_ok : ~ud_only)) != 0) {
        return refuse(AqStatus::kMalformed, f, "attr_mask");
    }
    if (has(m, A::kPkeyIndex) && v.pkey_index() != 0) {
        return refuse(AqStatus::kBadArg, f, "pkey_index");
    }
    // Validate everything before changing anything.
    if (has(m, A::kState) && v.state() > kQpsErr) {
        return refuse(AqStatus::kBadArg, f, "state");
    }
    if (has(m, A::kPathMtu) && !valid_mtu(v.path_mtu())) {
        return refuse(AqStatus::kBadArg, f, "path_mtu");
    }
    if (has(m, A::kMaxRdAtomic) && v.max_rd_atomic() > SCENIC_RDMA_MAX_RD_ATOMIC) {
        return refuse(AqStatus::kBadArg, f, "max_rd_atomic");
    }
    if (has(m, A::kMaxDestRdAtomic) && v.max_dest_rd_atomic() > SCENIC_RDMA_MAX_RD_ATOMIC) {
        return refuse(AqStatus::kBadArg, f, "max_dest_rd_atomic");
    }
    const uint32_t to = has(m, A::kState) ? v.state() : q->state;
    if (has(m, A::kState) && !transition_ok(q->state, to)) {
        return refuse(AqStatus::kBadState, f, "state");
    }
    // IBA (ib_modify_qp_is_ok): PATH_MTU only before traffic (RESET / INIT, INIT -> RTR); the
    // PSNs of the messages in flight were counted with the old one.
    // A UD QP's MTU is the port's, which may change at any time: a datagram is one packet, so
    // nothing depends on the old value.
    if (has(m, A::kPathMtu) && !q->is_ud() && q->state != kQpsReset && q->state != kQpsInit) {
        return refuse(AqStatus::kBadState, f, "path_mtu");
    }
    if (has(m, A::kDestQpn)) q->dest_qpn = v.dest_qpn();
    if (has(m, A::kSqPsn)) q->sq_psn = v.sq_psn();
    if (has(m, A::kRqPsn)) {
        q->rq_psn = v.rq_psn();
        if (q->state == kQpsReset || q->state == kQpsInit) {
            q->resp.epsn = v.rq_psn();
        }
    }
    if (has(m, A::kPathMtu)) q->pmtu = v.path_mtu();
    if (has(m, A::kTimeout)) q->timeout = v.timeout();
    if (has(m, A::kRetryCnt)) q->retry_cnt = v.retry_cnt();
    if (has(m, A::kRnrRetry)) q->rnr_retry = v.rnr_retry();
    if (has(m, A::kMinRnrTimer)) q->min_rnr_timer = v.min_rnr_timer();
    if (has(m, A::kAccess)) q->access = v.access();
    if (has(m, A::kMaxRdAtomic)) q->max_rd_atomic = v.max_rd_atomic();
    if (has(m, A::kMaxDestRdAtomic)) q->max_dest_rd_atomic = v.max_dest_rd_atomic();
    if (has(m, A::kQkey)) q->qkey = v.qkey();
    if (has(m, A::kAv)) {
        path_from_av(v, q->path);
    }
    q->path.src_mac = config_.mac;
    q->path.udp_sport = roce::rdma_get_udp_sport(q->path.flow_label, q->qpn, q->dest_qpn);

    if (has(m, A::kState) && to != q->state) {
        const uint32_t from = q->state;
        if (to == kQpsReset) {
            reset_qp_queues(*q);
            q->last_err = kQpErrNone;
            // the provider counts send completions from 0 again after RESET
            write_status_completed(*q);
            set_state(*q, to);
        } else if (to == kQpsErr) {
            enter_error(*q, kQpErrNone);
        } else {
            if (to == kQpsRtr) {
                q->resp.epsn = q->rq_psn;
            }
            set_state(*q, to);
            if (to == kQpsRts && from == kQpsRtr) {
                req_.start(*q);
                if (q->is_rc()) {
                    sr_.start(*q);  // the selective-repeat handshake is per RC connection
                }
            }
            if (to == kQpsRts) {
                req_.kick(*q);
            }
            if (to == kQpsSqd) {
                q->req.drained_event = false;
                req_.check_drained(*q);
            }
        }
    }
    return {};
}

CmdResult Engine::reg_mr(Entry entry) {
    const admin::AqRegMr<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqRegMrFields;
    if ((v.key() >> 8) >= kMaxMr) {
        return refuse(AqStatus::kBadIndex, f, "key");
    }
    Mr mr;
    mr.key = v.key();
    mr.pdn = v.pdn();
    mr.iova = v.iova();
    mr.length = v.length();
    mr.access = v.access();
    if (mr.iova + mr.length < mr.iova) {
        return refuse(AqStatus::kBadArg, f, "length");
    }
    return mem_.add(mr) ? CmdResult{} : refuse(AqStatus::kBusy, f, "key");
}

CmdResult Engine::dereg_mr(Entry entry) {
    const admin::AqDeregMr<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqDeregMrFields;
    if ((v.key() >> 8) >= kMaxMr) {
        return refuse(AqStatus::kBadIndex, f, "key");
    }
    switch (mem_.remove(v.key())) {
        case Memory::RemoveStatus::kOk:
            return {};
        case Memory::RemoveStatus::kBusy:
            return refuse(AqStatus::kBusy, f, "key");  // memory windows are bound to it
        case Memory::RemoveStatus::kNotFound:
            break;
    }
    return refuse(AqStatus::kNotFound, f, "key");
}

// REREG_MR (docs/verbs-completeness.md 5.3): the MR changes in place under the same key. The
// model checks and moves each packet in one call, so no access that resolved the key before the
// command moves data after it (the drain rule); anything that waits for a translation resolves
// the key again, under the new values.
CmdResult Engine::rereg_mr(Entry entry) {
    const admin::AqReregMr<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqReregMrFields;
    if ((v.key() >> 8) >= kMaxMr) {
        return refuse(AqStatus::kBadIndex, f, "key");
    }
    const bool trans = v.translation() != 0;
    const bool pd = v.pd() != 0;
    const bool acc = v.access_change() != 0;
    if (!trans && !pd && !acc) {
        return refuse(AqStatus::kBadArg, f, "translation");  // nothing to change
    }
    // Fields the mask does not name are reserved.
    if (!trans && v.iova() != 0) {
        return refuse(AqStatus::kMalformed, f, "iova");
    }
    if (!trans && v.length() != 0) {
        return refuse(AqStatus::kMalformed, f, "length");
    }
    if (!pd && v.pdn() != 0) {
        return refuse(AqStatus::kMalformed, f, "pdn");
    }
    if (!acc && v.access() != 0) {
        return refuse(AqStatus::kMalformed, f, "access");
    }
    if (trans && v.iova() + v.length() < v.iova()) {
        return refuse(AqStatus::kBadArg, f, "length");
    }
    Mr* mr = mem_.find_index(v.key() >> 8);
    if (!mr || mr->key != v.key()) {
        return refuse(AqStatus::kNotFound, f, "key");
    }
    if (mr->mw_binds != 0) {
        return refuse(AqStatus::kBusy, f, "key");  // windows reach it through the old values
    }
    if (trans) {
        mr->iova = v.iova();
        mr->length = v.length();
        tlb_.invalidate(mr->key);  // no old page is reachable any more
    }
    if (pd) {
        mr->pdn = v.pdn();
    }
    if (acc) {
        mr->access = v.access();
    }
    // Whatever waited for a translation resolves the key again: a miss under the new
    // translation, or a protection error.
    for (auto& q : qps_) {
        if (q) {
            req_.tlb_resume(*q);
            resp_.tlb_resume(*q);
        }
    }
    return {};
}

CmdResult Engine::alloc_mw(Entry entry) {
    const admin::AqAllocMw<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqAllocMwFields;
    const uint32_t index = v.key() >> 8;
    if ((index & kMwIndexBit) == 0 || (index & ~kMwIndexBit) >= kMaxMw) {
        return refuse(AqStatus::kBadIndex, f, "key");
    }
    if (v.type() != 1 && v.type() != 2) {
        return refuse(AqStatus::kBadArg, f, "type");
    }
    return mem_.alloc_mw(v.key(), v.pdn(), v.type()) ? CmdResult{}
                                                     : refuse(AqStatus::kBusy, f, "key");
}

CmdResult Engine::dealloc_mw(Entry entry) {
    const admin::AqDeallocMw<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqDeallocMwFields;
    const uint32_t index = v.key() >> 8;
    if ((index & kMwIndexBit) == 0 || (index & ~kMwIndexBit) >= kMaxMw) {
        return refuse(AqStatus::kBadIndex, f, "key");
    }
    // The model checks and moves each packet in one call: no access through the window is in
    // flight between commands (the drain rule of docs/verbs-completeness.md 5.3).
    return mem_.dealloc_mw(v.key()) ? CmdResult{} : refuse(AqStatus::kNotFound, f, "key");
}

// Pages [iova, iova + count pages) of an MR: up to 12 in the entry, or up to 512 in a table of
// __le64 bus addresses the card reads (one command for a run of pages: a miss fills the missing
// page and those after it).
CmdResult Engine::tlb_fill(Entry entry) {
    const admin::AqTlbFill<const uint8_t> v(entry);
    constexpr const auto& f = admin::kAqTlbFillFields;
    if ((v.key() >> 8) >= kMaxMr) {
        return refuse(AqStatus::kBadIndex, f, "key");
    }
    const uint32_t count = v.count();
    const bool indirect = v.indirect() != 0;
    if (count == 0 || count > (indirect ? kTlbFillIndirectMax : kTlbFillDirectMax)) {
        return refuse(AqStatus::kBadArg, f, "count");
    }
    if (!aligned(v.iova(), kPageSize)) {
        return refuse(AqStatus::kBadArg, f, "iova");
    }
    if (indirect ? !aligned(v.table_addr(), 8) || v.table_addr() == 0 : v.table_addr() != 0) {
        return refuse(AqStatus::kBadArg, f, "table_addr");
    }
    std::array<uint64_t, kTlbFillIndirectMax> dma{};
    if (indirect) {
        // The table is read before anything is checked against the MR: a failed read changes
        // nothing either.
        std::array<uint8_t, kTlbFillIndirectMax * 8> raw{};
        if (!host_.dma_read(v.table_addr(), std::span(raw.data(), size_t{count} * 8))) {
            return refuse(AqStatus::kDmaError, f, "table_addr");
        }
        for (uint32_t i = 0; i < count; ++i) {
            dma[i] = admin::detail::load<uint64_t, const uint8_t>(std::span<const uint8_t>(raw),
                                                                  size_t{i} * 8);
        }
    } else {
        for (uint32_t i = 0; i < count; ++i) {
            dma[i] = v.page(i);
        }
        // Unused page slots are reserved.
        for (uint32_t i = count; i < kTlbFillDirectMax; ++i) {
            if (v.page(i) != 0) {
                return {AqStatus::kMalformed,
                        static_cast<uint16_t>(field_offset(f, "page") + i * 8)};
            }
        }
    }
    return fill_translations(v.key(), v.iova(), std::span(dma).first(count));
}

// Pages [page, page + dma.size()) of MR key: the whole run and every address are checked
// before the first entry is written, so a refused fill changes nothing.
CmdResult Engine::fill_translations(uint32_t key, uint64_t page, std::span<const uint64_t> dma) {
    constexpr const auto& f = admin::kAqTlbFillFields;
    const Mr* mr = mem_.find(key);
    if (!mr) {
        return refuse(AqStatus::kNotFound, f, "key");
    }
    const uint64_t first = mr->iova & ~(kPageSize - 1);
    if (mr->length == 0 || page < first || page >= mr->iova + mr->length ||
        (mr->iova + mr->length - 1 - page) / kPageSize < dma.size() - 1) {
        return refuse(AqStatus::kBadArg, f, "count");
    }
    if (!std::ranges::all_of(dma, [](uint64_t d) { return aligned(d, kPageSize); })) {
        return refuse(AqStatus::kBadArg, f, "page");
    }
    for (size_t i = 0; i < dma.size(); ++i) {
        tlb_.fill(key, page + i * kPageSize, dma[i]);
    }
    // Whatever waited for a translation (a paused SQ, a stalled READ response) tries again.
    for (auto& q : qps_) {
        if (q) {
            req_.tlb_resume(*q);
            resp_.tlb_resume(*q);
        }
    }
    if (tlb_filled_) {
        tlb_filled_();
    }
    return {};
}

}  // namespace scenic::rdma
