// SPDX-License-Identifier: MIT
#include "scenic/rdma_engine.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "scenic/regs.hpp"

namespace scenic::rdma {

namespace {

constexpr uint32_t kGsiQpn = 1;  // QP 1: the driver's software GSI (rdma_cm), not the engine's

// IP ECN field = CE (0b11): a switch on the path was congested.
bool ce_marked(const roce::ParsedPacket& p) {
    if (p.ipv4) {
        return p.ipv4->ecn == 3;
    }
    return p.ipv6 && (p.ipv6->traffic_class & 3) == 3;
}

uint8_t cqe_opcode(uint8_t wqe_opcode) {
    switch (wqe_opcode) {
        case SCENIC_WQE_OP_WRITE:
        case SCENIC_WQE_OP_WRITE_IMM:
            return SCENIC_CQE_OP_WRITE;
        case SCENIC_WQE_OP_READ:
            return SCENIC_CQE_OP_READ;
        case SCENIC_WQE_OP_ATOMIC_CAS:
            return SCENIC_CQE_OP_ATOMIC_CAS;
        case SCENIC_WQE_OP_ATOMIC_FAA:
            return SCENIC_CQE_OP_ATOMIC_FAA;
        case SCENIC_WQE_OP_BIND_MW:
            return SCENIC_CQE_OP_BIND_MW;
        case SCENIC_WQE_OP_LOCAL_INV:
            return SCENIC_CQE_OP_LOCAL_INV;
        default:
            return SCENIC_CQE_OP_SEND;
    }
}

}  // namespace

Engine::Engine(const Config& config, Host& host, EventQueue& events, EventRing& aeq)
    : config_(config),
      host_(host),
      events_(events),
      ceq_(EventRing::Kind::kCeq, config, host, events),
      events_out_(host, aeq, ceq_),
      tlb_(cnt_, events_out_),
      mem_(host, tlb_, cnt_),
      cqs_(host, events_out_, cnt_),
      req_(*this),
      comp_(*this),
      resp_(*this),
      cc_(*this),
      sr_(*this),
      arb_(*this),
      loop_(config, events, cnt_, [this](std::span<const uint8_t> f) { receive(f); }),
      ud_(*this),
      uc_(*this) {}

Engine::~Engine() = default;

void Engine::reset() {
    for (auto& q : qps_) {
        if (q) {
            retire(q);
        }
    }
    cqs_.reset();
    mem_.reset();
    tlb_.reset();
    ceq_.reset();
    arb_.reset();
    loop_.reset();
    ud_.reset();
    for (auto& srq : srqs_) {
        srq.reset();
    }
    scu_waiting_.clear();
    cnt_ = {};
}

size_t Engine::send(Qp& qp, roce::Transport& t, std::span<const uint8_t> payload) {
    t.bth.dest_qp = qp.dest_qpn;
    t.bth.pkey = qp.pkey;
    return send_frame(qp.path, t, payload);
}

size_t Engine::send_frame(const roce::PathContext& path, const roce::Transport& t,
                          std::span<const uint8_t> payload) {
    auto built = roce::build_frame(path, t, payload);
    if (!built.ok()) {
        return 0;  // only reachable with an inconsistent context; never sends garbage
    }
    const size_t len = built.frame.size();
    ++cnt_.tx_pkts;
    if (loop_.ours(path)) {
        loop_.push(std::move(built.frame));
    } else {
        host_.eth_send(built.frame);
    }
    return len;
}

void Engine::defer(Qp& target, QpTimer kind, uint64_t delay_ns, std::function<void(Qp&)> fn) {
    const auto k = static_cast<size_t>(kind);
    if (target.timers[k] != 0) {
        events_.cancel(target.timers[k]);
    }
    const uint32_t qpn = target.qpn;
    const uint64_t gen = target.generation;
    target.timers[k] = events_.schedule_in(delay_ns, [this, qpn, gen, k, fn = std::move(fn)] {
        if (Qp* q = this->qp(qpn); q && q->generation == gen) {
            q->timers[k] = 0;
            fn(*q);
        }
    });
}

void Engine::cancel_timers(Qp& qp) {
    for (uint64_t& id : qp.timers) {
        if (id != 0) {
            events_.cancel(id);
            id = 0;
        }
    }
}

void Engine::retire(std::unique_ptr<Qp>& slot) {
    cancel_timers(*slot);
    retired_.push_back(std::move(slot));
}

scu::Pass Engine::scu_pass(const Qp& qp, const scu::Meta& m, std::span<const uint8_t>& payload) {
    if (!scu_pass_ || qp.scu == 0 || payload.empty()) {
        return scu::Pass::kBypass;
    }
    std::vector<uint8_t>& out = scu_out_[static_cast<unsigned>(m.dir)];
    const scu::Pass p = scu_pass_(qp.scu, m, payload, out);
    if (p == scu::Pass::kDone || p == scu::Pass::kDropped) {
        payload = out;
    }
    return p;
}

void Engine::scu_hold(Qp& qp) {
    // A QP in the list keeps at least one of its flags set until scu_resumed() takes it out.
    if (std::ranges::find(scu_waiting_, qp.qpn) == scu_waiting_.end()) {
        scu_waiting_.push_back(qp.qpn);
    }
}

void Engine::scu_resumed(unsigned slot) {
    // Bounded: the list holds at most kMaxQp entries, and the QPs run here that the slot holds
    // again are only re-added to the fresh list.
    std::vector<uint32_t> waiting = std::exchange(scu_waiting_, {});
    for (const uint32_t qpn : waiting) {
        Qp* q = qp(qpn);
        if (q == nullptr || (!q->req.scu_wait && !q->resp.scu_wait)) {
            continue;  // destroyed, reset or resumed otherwise
        }
        if (q->scu != slot) {
            scu_waiting_.push_back(qpn);
            continue;
        }
        if (q->req.scu_wait) {
            q->req.scu_wait = false;
            req_.kick(*q);
        }
        if (q->resp.scu_wait) {
            q->resp.scu_wait = false;
            resp_.scu_resume(*q);
        }
    }
}

void Engine::collect() {
    for (auto& q : retired_) {
        cancel_timers(*q);  // armed by a caller that still held it after the destroy
    }
    retired_.clear();
}

void Engine::write_status_state(Qp& qp) {
    const uint32_t s = qp.state;
    std::array<uint8_t, 4> raw{};
    std::memcpy(raw.data(), &s, raw.size());
    if (!host_.dma_write(qp.status_page + offsetof(scenic_qp_status, state), raw)) {
        ++cnt_.dma_errors;
    }
}

void Engine::set_state(Qp& qp, uint32_t state) {
    qp.state = state;
    write_status_state(qp);
    state_db_skip(qp);
    arb_.account(qp);  // a QP that may not send (ERR, RESET, ...) holds nothing of the window
}

void Engine::enter_error(Qp& qp, uint32_t ev) {
    if (qp.state == kQpsErr) {
        return;
    }
    set_state(qp, kQpsErr);
    qp.last_err = ev;
    if (ev != kQpErrNone) {
        events_out_.qp_error(qp.qpn, static_cast<admin::QpErr>(ev));
    }
    qp.resp.outq.clear();
    qp.resp.tlb_wait = false;
    qp.flush_pending = true;
    flush(qp);
}

void Engine::enter_sqe(Qp& qp) {
    if (qp.state == kQpsRts || qp.state == kQpsSqd) {
        set_state(qp, kQpsSqe);
    }
}

void Engine::write_status_completed(Qp& qp) {
    std::array<uint8_t, 8> raw{};
    std::memcpy(raw.data(), &qp.req.completed, raw.size());
    if (!host_.dma_write(qp.status_page + offsetof(scenic_qp_status, sq_completed), raw)) {
        ++cnt_.dma_errors;
    }
}

void Engine::complete_send_ok(Qp& qp) {
    ++qp.req.completed;
    write_status_completed(qp);
    cqs_.send_completion(qp.send_cqn);
}

void Engine::complete_send_err(Qp& qp, uint32_t idx, uint8_t opcode, uint8_t status,
                               uint8_t syndrome) {
    scenic_cqe cqe{};
    cqe.wqe_idx = idx;
    cqe.qpn = qp.qpn;
    cqe.status = status;
    cqe.opcode = cqe_opcode(opcode);
    cqe.flags = SCENIC_CQE_F_SQ;
    cqe.syndrome = syndrome;
    cqs_.post(qp.send_cqn, cqe);
}

void Engine::flush(Qp& qp) {
    if (qp.state != kQpsErr) {
        return;
    }
    auto& rq = qp.req;
    auto& rs = qp.resp;
    uint32_t budget = kFlushBudget;
    for (; budget != 0 && !rq.pending.empty(); --budget) {
        const SendWqe& w = rq.pending.front();
        complete_send_err(qp, w.idx, w.opcode, kWcFlushErr, 0);
        rq.pending.pop_front();
    }
    for (; budget != 0 && rq.sq_next != rq.sq_pi; --budget) {
        uint8_t op = 0;
        const uint64_t slot =
            qp.sq_base + uint64_t{rq.sq_next & (qp.sq_size() - 1)} * SCENIC_SQ_WQE_BYTES;
        if (!host_.dma_read(slot, std::span<uint8_t>(&op, 1))) {
            ++cnt_.dma_errors;
        }
        complete_send_err(qp, rq.sq_next, op, kWcFlushErr, 0);
        ++rq.sq_next;
    }
    if (qp.srq && rs.have_rwqe && budget != 0) {
        // An SRQ QP flushes only the WQE it took; the SRQ's others stay for its other QPs.
        scenic_cqe cqe{};
        cqe.wqe_idx = rs.rwqe_idx;
        cqe.qpn = qp.qpn;
        cqe.status = kWcFlushErr;
        cqe.opcode = SCENIC_CQE_OP_RECV;
        cqe.flags = SCENIC_CQE_F_SRQ;
        cqs_.post(qp.recv_cqn, cqe);
        --budget;
    }
    rs.have_rwqe = false;
    rs.msg = ResponderState::Msg::kNone;
    for (; budget != 0 && rs.rq_ci != rs.rq_pi; --budget) {
        scenic_cqe cqe{};
        cqe.wqe_idx = rs.rq_ci;
        cqe.qpn = qp.qpn;
        cqe.status = kWcFlushErr;
        cqe.opcode = SCENIC_CQE_OP_RECV;
        cqs_.post(qp.recv_cqn, cqe);
        ++rs.rq_ci;
    }
    const bool more = !rq.pending.empty() || rq.sq_next != rq.sq_pi || rs.rq_ci != rs.rq_pi;
    qp.flush_pending = more;
    if (!more && qp.srq && !rs.last_wqe) {
        // Its last receive completion is written: the application may destroy it now.
        rs.last_wqe = true;
        events_out_.qp_error(qp.qpn, admin::QpErr::kLastWqe);
    }
    if (more && !qp.flush_scheduled) {
        qp.flush_scheduled = true;
        defer(qp, QpTimer::kFlush, 0, [this](Qp& q) {
            q.flush_scheduled = false;
            flush(q);
        });
    }
}

void Engine::doorbell(uint64_t offset, uint64_t value, unsigned size) {
    const uint64_t page = offset / regs::kDbPageSize;
    const uint64_t reg = offset % regs::kDbPageSize;
    const auto v = static_cast<uint32_t>(value);
    if ((size != 4 && size != 8) || (reg != SCENIC_DB_SQ && reg != SCENIC_DB_RQ)) {
        ++cnt_.db_ignored;  // SCENIC_DB_SQ == SCENIC_DB_CQ_CI, SCENIC_DB_RQ == SCENIC_DB_CQ_ARM
        return;
    }
    if (page >= uint64_t{kMaxQp} + kMaxCq) {
        srq_doorbell(static_cast<uint32_t>(std::min<uint64_t>(page - kMaxQp - kMaxCq, kMaxSrq)),
                     reg, v, size);
        return;
    }
    if (page >= kMaxQp) {
        const uint64_t cqn = page - kMaxQp;
        const Cq* cq = cqn < kMaxCq ? cqs_.find(static_cast<uint32_t>(cqn)) : nullptr;
        if (!cq) {
            ++cnt_.db_ignored;
            return;
        }
        // A consumer index moves forward, never past the CQEs written. A bad one is ignored
        // and counted; an arm request still arms (at the card's index), so no wake-up is lost.
        const auto ahead = [](uint32_t a, uint32_t b) { return (a - b) & SCENIC_DB_CQ_CI_MASK; };
        const bool ci_ok = ahead(v, cq->ci) <= ahead(cq->pi, cq->ci);
        if (!ci_ok) {
            ++cnt_.db_ignored;
        }
        if (reg == SCENIC_DB_CQ_CI) {
            if (ci_ok) {
                cqs_.set_ci(static_cast<uint32_t>(cqn), v);
            }
        } else {
            cqs_.arm(static_cast<uint32_t>(cqn),
                     ci_ok ? v : cq->ci | (v & SCENIC_DB_CQ_ARM_SOLICITED));
        }
        return;
    }
    Qp* q = qp(static_cast<uint32_t>(page));
    if (!q || q->state == kQpsReset) {
        ++cnt_.db_ignored;
        return;
    }
    if (reg == SCENIC_DB_SQ) {
        auto& rq = q->req;
        if (!sq_pi_ok(*q, v)) {
            ++cnt_.db_ignored;  // behind what the card fetched, or more WQEs than the ring holds
            return;
        }
        rq.sq_pi = v;
        if (q->state == kQpsErr) {
            flush(*q);
        } else {
            req_.kick(*q);
        }
    } else {
        auto& rs = q->resp;
        if (q->srq || !rq_pi_ok(*q, v)) {  // an SRQ QP has no RQ
            ++cnt_.db_ignored;
            return;
        }
        rs.rq_pi = v;
        if (q->state == kQpsErr) {
            flush(*q);
        }
    }
}

bool Engine::reserved_rc_request(const roce::ParsedPacket& pkt) {
    // Opcodes of other transports (UC, RD, UD) stay malformed drops: header validation
    // discards a transport mismatch silently (IBA 9.6.1.1, rxe's check_type_state).
    const roce::Bth& bth = pkt.transport.bth;
    constexpr uint8_t kTransportMask = 0xe0;  // RC is transport 0
    if ((bth.opcode & kTransportMask) != 0 || !std::ranges::equal(pkt.eth.dst, config_.mac)) {
        return false;
    }
    Qp* q = qp(bth.dest_qp);
    if (!q || !q->can_receive() || !pkey_match(bth.pkey, q->pkey)) {
        return false;
    }
    ++cnt_.rx_pkts;
    resp_.reserved_opcode(*q, pkt);
    return true;
}

bool Engine::receive(std::span<const uint8_t> frame) {
    const roce::ParseResult pr = roce::parse_frame(
        frame, config_.sr_capable ? roce::OpcodeSet::kRcAndSr : roce::OpcodeSet::kRc);
    // QP 1 is the driver's software GSI (UD QP 1 is not the engine's yet): the frame takes the
    // RX ring. The BTH is decoded only once the ICRC matched; the driver checks
    // the rest.
    if (pr.packet.transport.bth.dest_qp == kGsiQpn) {
        return false;
    }
    if (!pr.ok()) {
        if (pr.reason == roce::DropReason::kUnknownOpcode && reserved_rc_request(pr.packet)) {
            return true;
        }
        ++(pr.reason == roce::DropReason::kBadIcrc ? cnt_.rx_drop_icrc : cnt_.rx_drop_malformed);
        return true;
    }
    const roce::ParsedPacket& pkt = pr.packet;
    if (!pkt.info || !std::ranges::equal(pkt.eth.dst, config_.mac)) {
        ++cnt_.rx_drop_malformed;  // another station's
        return true;
    }
    if (pkt.info->cls == roce::OpClass::kUdSend) {
        ud_.receive(pkt, frame);
        return true;
    }
    if (pkt.info->cls == roce::OpClass::kCnp) {
        receive_cnp(pkt);
        return true;
    }
    Qp* q = qp(pkt.transport.bth.dest_qp);
    if (!q) {
        ++cnt_.rx_drop_qp;
        return true;
    }
    if (!pkey_match(pkt.transport.bth.pkey, q->pkey)) {
        ++cnt_.rx_drop_pkey;  // a partition violation is dropped silently, never NAKed
        return true;
    }
    // Header validation (IBA 9.6.1.1): a packet of another transport than the QP's (a UC
    // opcode to an RC QP, an RC request or ACK to a UC QP) is dropped silently.
    if (roce::is_uc(pkt.transport.bth.opcode) != q->is_uc() || q->is_ud()) {
        ++cnt_.rx_drop_qp;
        return true;
    }
    if (pkt.info->request) {
        if (!q->can_receive()) {
            ++cnt_.rx_drop_qp;
            return true;
        }
        ++cnt_.rx_pkts;
        if (ce_marked(pkt)) {
            ++cnt_.ecn_ce_rcvd;
            cc_.congestion_experienced(*q);  // and the request is processed as any other
        }
        if (q->is_uc()) {
            uc_.receive(*q, pkt);
        } else if (roce::is_sr_vendor(pkt.transport.bth.opcode)) {
            if (const auto rc = sr_.receive(*q, pkt)) {
                resp_.receive(*q, *rc, &pkt);
            }
        } else {
            resp_.receive(*q, pkt);
        }
    } else {
        if (!q->can_send() && q->state != kQpsSqe) {
            ++cnt_.rx_drop_qp;
            return true;
        }
        ++cnt_.rx_pkts;
        if (ce_marked(pkt)) {
            ++cnt_.ecn_ce_rcvd;  // counted; the RP paces requests, not the peer's responses
        }
        if (pkt.info->cls == roce::OpClass::kSrSack) {
            comp_.sack(*q, pkt);  // selective repeat's cumulative ACK plus gaps
            arb_.account(*q);
            return true;
        }
        if (roce::is_sr_vendor(pkt.transport.bth.opcode)) {
            sr_.receive(*q, pkt);  // SR_HELLO_ACK: no PSN, no progress
            return true;
        }
        comp_.receive(*q, pkt);
        arb_.account(*q);  // ACKed PSNs leave the card's window; waiting QPs get their turn
    }
    return true;
}

// RP: a CNP reacts only on a QP that is sending (RTS); anything else is dropped and counted.
void Engine::receive_cnp(const roce::ParsedPacket& pkt) {
    Qp* q = qp(pkt.transport.bth.dest_qp);
    if (!q || q->state != kQpsRts) {
        ++cnt_.rx_drop_qp;
        return;
    }
    ++cnt_.rx_pkts;
    cc_.cnp_received(*q);
}

void Engine::aeq_overflowed() {
    tlb_.reraise_pending();
    for (auto& q : qps_) {
        if (q) {
            req_.tlb_resume(*q);
            resp_.tlb_resume(*q);
            if (q->can_send()) {
                req_.arm_ack_timer(*q);  // dropped while the QP waited without retrying
            }
        }
    }
}

}  // namespace scenic::rdma
