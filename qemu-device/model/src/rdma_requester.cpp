// SPDX-License-Identifier: MIT
#include "scenic/rdma_requester.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::Opcode;
using roce::psn_add;
using roce::psn_diff;

uint32_t message_packets(uint32_t length, uint32_t pmtu) {
    return length == 0 ? 1 : static_cast<uint32_t>((uint64_t{length} + pmtu - 1) / pmtu);
}

// Opcode of packet k of n of a SEND / WRITE (RC and UC; SEND_INV only reaches here on RC).
Opcode message_opcode(uint8_t op, uint32_t k, uint32_t n) {
    const bool inv = op == SCENIC_WQE_OP_SEND_INV;
    const bool send = op == SCENIC_WQE_OP_SEND || op == SCENIC_WQE_OP_SEND_IMM || inv;
    const bool imm = op == SCENIC_WQE_OP_SEND_IMM || op == SCENIC_WQE_OP_WRITE_IMM;
    if (inv && k + 1 == n) {
        return n == 1 ? Opcode::kSendOnlyInv : Opcode::kSendLastInv;
    }
    if (n == 1) {
        return send ? (imm ? Opcode::kSendOnlyImm : Opcode::kSendOnly)
                    : (imm ? Opcode::kWriteOnlyImm : Opcode::kWriteOnly);
    }
    if (k == 0) {
        return send ? Opcode::kSendFirst : Opcode::kWriteFirst;
    }
    if (k + 1 < n) {
        return send ? Opcode::kSendMiddle : Opcode::kWriteMiddle;
    }
    return send ? (imm ? Opcode::kSendLastImm : Opcode::kSendLast)
                : (imm ? Opcode::kWriteLastImm : Opcode::kWriteLast);
}

uint8_t read_send_sges(Engine& e, const Qp& qp, uint64_t slot, const scenic_sq_wqe& raw,
                       std::array<Sge, SCENIC_SQ_MAX_SGE>& sge) {
    const unsigned nsge = raw.num_sge;
    std::array<uint8_t, SCENIC_SQ_MAX_SGE * sizeof(scenic_sge)> sg{};
    const auto sg_bytes = std::span(sg).first(nsge * sizeof(scenic_sge));
    if (!sg_bytes.empty() && !e.host().dma_read(slot + 64, sg_bytes)) {
        ++e.counters().dma_errors;
        return kWcLocQpOpErr;
    }
    uint64_t total = 0;
    bool prot = false;
    for (unsigned i = 0; i < nsge; ++i) {
        scenic_sge s{};
        std::memcpy(&s, sg.data() + i * sizeof(scenic_sge), sizeof(s));
        sge[i] = {s.addr, s.length, s.lkey};
        total += s.length;
        prot = prot || !e.mem().allowed(s.lkey, qp.pdn, s.addr, s.length, 0);
    }
    if (total != raw.length) {
        return kWcLocLenErr;
    }
    return prot ? kWcLocProtErr : 0;
}

namespace {

uint32_t rd_atomic_limit(const Qp& qp) { return std::max<uint32_t>(1, qp.max_rd_atomic); }

}  // namespace

uint64_t Requester::timeout_ns(const Qp& qp) const {
    return uint64_t{4096} << qp.timeout;  // 4.096 us * 2^timeout
}

void Requester::start(Qp& qp) {
    auto& r = qp.req;
    r.next_psn = r.tx_psn = r.snd_una = r.max_sent = qp.sq_psn;
    r.retry_left = qp.retry_cnt;
    r.rnr_left = qp.rnr_retry;
    r.cwnd = kCwndInit;
    r.ssthresh = kWindowPsns;
    r.cwnd_acc = 0;
    r.cwnd_una = qp.sq_psn;
    r.in_recovery = false;
    r.pace_wait = false;
    r.sr_base = r.sr_high_sacked = r.sr_round_mark = qp.sq_psn;
    Congestion::start(qp);
}

void Requester::window_acked(Qp& qp) {
    auto& r = qp.req;
    const int32_t acked = psn_diff(r.snd_una, r.cwnd_una);
    if (acked <= 0) {
        return;
    }
    r.cwnd_una = r.snd_una;
    if (r.in_recovery && psn_diff(r.snd_una, r.recover_psn) >= 0) {
        r.in_recovery = false;
    }
    if (r.cwnd < r.ssthresh) {
        r.cwnd = std::min<uint32_t>(r.ssthresh, r.cwnd + static_cast<uint32_t>(acked));
        return;
    }
    r.cwnd_acc += static_cast<uint32_t>(acked);
    const uint32_t cap = window_cap(qp);
    while (r.cwnd_acc >= r.cwnd && r.cwnd < cap) {
        r.cwnd_acc -= r.cwnd;
        ++r.cwnd;
    }
    if (r.cwnd >= cap) {
        r.cwnd_acc = 0;
    }
}

void Requester::window_loss(Qp& qp, bool timeout) {
    auto& r = qp.req;
    if (r.in_recovery && !timeout) {
        return;  // one decrease per window of loss
    }
    r.ssthresh = std::max(kCwndMin, r.cwnd / 2);
    r.cwnd = timeout ? kCwndMin : r.ssthresh;
    r.cwnd_acc = 0;
    r.in_recovery = true;
    r.recover_psn = r.max_sent;
}

void Requester::kick(Qp& qp) { run(qp); }

void Requester::check_drained(Qp& qp) {
    auto& r = qp.req;
    if (qp.state != kQpsSqd || r.drained_event || r.uc_pkt != 0) {
        return;  // (UC: a message begun is finished first)
    }
    // The oldest WQE not completed is the only one that can have begun and not finished.
    if (!r.pending.empty() && r.pending.front().npsn != 0 &&
        psn_diff(r.pending.front().first_psn, r.max_sent) < 0) {
        return;
    }
    r.drained_event = true;
    e_.events().sq_drained(qp.qpn);
}

void Requester::schedule(Qp& qp) {
    if (qp.req.run_scheduled) {
        return;
    }
    qp.req.run_scheduled = true;
    e_.defer(qp, QpTimer::kReqRun, 0, [this](Qp& q) {
        q.req.run_scheduled = false;
        run(q);
    });
}

void Requester::run(Qp& qp) {
    // Budget used up: continue after the vCPUs and the wire had a turn. Stopped: tell the
    // provider whether it may skip the SQ doorbell; WQEs it posted just before run now.
    // A UD QP's SQ is the datagram block's, a UC QP's the UC block's (no PSN window, no ACKs).
    const bool stopped = qp.is_ud()   ? e_.datagram().send(qp)
                         : qp.is_uc() ? e_.uc().send(qp)
                                      : run_until_blocked(qp);
    if (stopped) {
        ask_for_ack(qp);
    }
    if (!stopped || e_.sq_skip_update(qp)) {
        schedule(qp);
    }
}

void Requester::ask_for_ack(Qp& qp) {
    auto& r = qp.req;
    if (r.unasked == 0 || !qp.can_send() || psn_diff(r.tx_psn, r.snd_una) <= 0) {
        return;  // nothing relies on a later AckReq (the usual stop: no scan below)
    }
    // Every other stop resumes by itself (an answer, a TLB fill, the pacer or the arbiter's
    // turn); a local error (it fails only once the WQEs before it completed) and SQD (no new
    // message begins) do not.
    const bool stuck = qp.state == kQpsSqd ||
                       std::ranges::any_of(r.pending, [](const SendWqe& w) { return w.local_err; });
    if (!stuck) {
        return;
    }
    r.force_ackreq = true;
    r.tx_psn = psn_add(r.tx_psn, kPsnMask);  // the last packet sent
    transmit_one(qp);  // if it cannot go now, it goes with AckReq when the QP resumes
}

bool Requester::run_until_blocked(Qp& qp) {
    auto& r = qp.req;
    for (uint32_t budget = kTxBudget; budget != 0; --budget) {
        if (!qp.can_send() || r.rnr_wait || r.tlb_wait || r.pace_wait || r.scu_wait) {
            return true;
        }
        if (r.sr == SrTx::kOn) {
            if (!sr_resend(qp)) {
                return true;  // resends leave before new PSNs (5.3)
            }
            sr_skip_sacked(qp);
        }
        if (psn_diff(r.tx_psn, r.next_psn) < 0) {
            // Before the last packet of what is fetched: fetch the next WQE if one is known to
            // be there, so that the packet may leave the ACK request to a later one.
            if (psn_add(r.tx_psn, 1) == r.next_psn && r.sq_next != r.sq_pi) {
                fetch(qp);
            }
            if (!transmit_one(qp)) {
                return true;
            }
        } else if (!fetch(qp)) {
            return true;
        }
    }
    return false;
}

void Requester::rewind(Qp& qp, uint32_t psn) {
    auto& r = qp.req;
    if (psn_diff(psn, r.tx_psn) < 0 && psn_diff(psn, r.snd_una) >= 0) {
        r.tx_psn = psn;
    }
    if (!r.rnr_wait) {
        run(qp);
    }
}

void Requester::rnr_wait(Qp& qp, uint64_t ns) {
    qp.req.rnr_wait = true;
    e_.defer(qp, QpTimer::kRnr, ns, [this](Qp& q) {
        q.req.rnr_wait = false;
        q.req.last_progress_ns = e_.now();
        run(q);
    });
}

void Requester::pace(Qp& qp, uint64_t ns) {
    qp.req.pace_wait = true;
    e_.defer(qp, QpTimer::kPace, ns, [this](Qp& q) {
        q.req.pace_wait = false;
        run(q);
    });
}

void Requester::wait_for_tlb(Qp& qp) {
    qp.req.tlb_wait = true;
    if (e_.miss_deliverable()) {
        e_.defer(qp, QpTimer::kReqTlb, kTlbRetryNs, [this](Qp& q) { tlb_resume(q); });
    }
}

void Requester::tlb_resume(Qp& qp) {
    // The model does not track which page a paused SQ waits for: any fill resumes it, and a
    // page still missing pauses it again (the miss event is not repeated).
    if (qp.req.tlb_wait) {
        qp.req.tlb_wait = false;
        run(qp);
    }
}

void Requester::arm_ack_timer(Qp& qp) {
    auto& r = qp.req;
    if (r.ack_timer || qp.timeout == 0) {
        return;  // armed already, or no timeout (IBA: 0 = infinite)
    }
    r.ack_timer = true;
    r.last_progress_ns = e_.now();
    e_.defer(qp, QpTimer::kAck, timeout_ns(qp), [this](Qp& q) { on_ack_timeout(q); });
}

void Requester::on_ack_timeout(Qp& qp) {
    auto& r = qp.req;
    r.ack_timer = false;
    if (!qp.can_send() || r.pending.empty() || psn_diff(r.max_sent, r.snd_una) <= 0) {
        return;  // nothing outstanding
    }
    const uint64_t now = e_.now();
    const uint64_t t = timeout_ns(qp);
    if (r.tlb_wait && !e_.miss_deliverable()) {
        return;  // nobody can answer the miss: Engine::aeq_overflowed() arms it again
    }
    if (r.rnr_wait || r.tlb_wait || r.scu_wait || now - r.last_progress_ns < t) {
        // progress since the timer was armed (or waiting on purpose): wait a full period more
        const bool waiting = r.rnr_wait || r.tlb_wait || r.scu_wait;
        const uint64_t left = waiting ? t : t - (now - r.last_progress_ns);
        r.ack_timer = true;
        e_.defer(qp, QpTimer::kAck, left, [this](Qp& q) { on_ack_timeout(q); });
        return;
    }
    ++e_.counters().ack_timeouts;
    if (r.retry_left <= 0) {
        e_.completer().fail_head(qp, kWcRetryExcErr, 0);
        return;
    }
    --r.retry_left;
    window_loss(qp, true);
    r.sr_resent.reset();  // SR: every PSN not SACKed goes again, in order (5.6)
    // What it had in flight is lost: it no longer holds its share of the card's window, so a
    // QP that retransmits (or whose peer is gone) does not stall the others.
    r.timed_out = true;
    e_.arbiter().account(qp);
    r.last_progress_ns = now;
    r.tx_psn = r.snd_una;
    run(qp);
    arm_ack_timer(qp);
}

bool Requester::fetch(Qp& qp) {
    auto& r = qp.req;
    if (qp.state != kQpsRts || r.pending.size() >= kMaxPendingWqes ||
        psn_diff(r.next_psn, r.snd_una) >= static_cast<int32_t>(window_cap(qp)) ||
        (!r.pending.empty() && r.pending.back().local_err != 0)) {
        return false;
    }
    if (r.sq_next == r.sq_pi && !e_.sq_record(qp)) {
        return false;
    }
    const uint64_t slot =
        qp.sq_base + uint64_t{r.sq_next & (qp.sq_size() - 1)} * SCENIC_SQ_WQE_BYTES;
    std::array<uint8_t, 64> hdr{};
    SendWqe w;
    w.idx = r.sq_next;
    auto refuse = [&](uint8_t status) {
        w.local_err = status;
        w.npsn = 0;
        w.first_psn = r.next_psn;
        ++r.sq_next;
        r.pending.push_back(std::move(w));
        e_.completer().complete_local_errors(qp);
        return false;
    };
    if (!e_.host().dma_read(slot, hdr)) {
        ++e_.counters().dma_errors;
        return refuse(kWcLocQpOpErr);
    }
    scenic_sq_wqe raw{};
    std::memcpy(&raw, hdr.data(), hdr.size());
    w.opcode = raw.opcode;
    w.flags = raw.flags;
    w.imm = __builtin_bswap32(raw.imm_data_be);
    w.length = raw.length;
    w.rkey = raw.rkey;
    w.remote_addr = raw.remote_addr;
    w.compare_add = raw.compare_add;
    w.swap = raw.swap;
    if (w.opcode == SCENIC_WQE_OP_BIND_MW || w.opcode == SCENIC_WQE_OP_LOCAL_INV) {
        // Memory-window WQEs send nothing: done here, in SQ order; with FENCE only once the
        // READs / atomics before them completed (fetched again when one does).
        if ((w.flags & SCENIC_WQE_F_FENCE) &&
            std::ranges::any_of(r.pending, [](const SendWqe& p) { return p.needs_response(); })) {
            return false;
        }
        uint8_t st = kWcSuccess;
        if (w.opcode == SCENIC_WQE_OP_BIND_MW) {
            scenic_bind_mw_wqe b{};
            std::memcpy(&b, hdr.data(), sizeof(b));
            const MwBind bind{b.new_rkey, b.va, b.length, b.mr_lkey, b.access, b.mw_type};
            st = e_.mem().bind_mw(bind, qp.pdn, qp.qpn);
        } else if (!e_.mem().invalidate_mw(raw.rkey, qp.pdn)) {
            st = kWcLocQpOpErr;
        }
        if (st != kWcSuccess) {
            return refuse(st);
        }
        w.npsn = 0;
        w.first_psn = r.next_psn;
        ++r.sq_next;
        r.pending.push_back(std::move(w));
        e_.completer().complete_local_errors(qp);
        return true;
    }
    if (w.needs_response()) {
        const auto outstanding = static_cast<uint32_t>(
            std::ranges::count_if(r.pending, [](const SendWqe& p) { return p.needs_response(); }));
        if (outstanding >= rd_atomic_limit(qp)) {
            return false;  // fetched again when a READ / atomic completes
        }
    }
    const bool inl = (w.flags & SCENIC_WQE_F_INLINE) != 0;
    if (w.opcode > SCENIC_WQE_OP_SEND_INV || raw.num_sge > SCENIC_SQ_MAX_SGE ||
        (inl && (w.needs_response() || w.length > SCENIC_MAX_INLINE))) {
        return refuse(kWcLocQpOpErr);
    }
    if (w.length > kMaxMsgBytes || (w.is_atomic() && w.length != 8)) {
        return refuse(kWcLocLenErr);
    }
    if (inl) {
        w.inline_data.resize(w.length);
        if (w.length != 0 && !e_.host().dma_read(slot + 64, w.inline_data)) {
            ++e_.counters().dma_errors;
            return refuse(kWcLocQpOpErr);
        }
    } else {
        w.num_sge = static_cast<uint8_t>(raw.num_sge);
        std::array<uint8_t, SCENIC_SQ_MAX_SGE * sizeof(scenic_sge)> sg{};
        const auto sg_bytes = std::span(sg).first(w.num_sge * sizeof(scenic_sge));
        if (!sg_bytes.empty() && !e_.host().dma_read(slot + 64, sg_bytes)) {
            ++e_.counters().dma_errors;
            return refuse(kWcLocQpOpErr);
        }
        uint64_t total = 0;
        const uint32_t access = w.needs_response() ? kAccessLocalWrite : 0;
        bool prot = false;
        for (unsigned i = 0; i < w.num_sge; ++i) {
            scenic_sge s{};
            std::memcpy(&s, sg.data() + i * sizeof(scenic_sge), sizeof(s));
            w.sge[i] = {s.addr, s.length, s.lkey};
            total += s.length;
            prot = prot || !e_.mem().allowed(s.lkey, qp.pdn, s.addr, s.length, access);
        }
        if (total != w.length) {
            return refuse(kWcLocLenErr);
        }
        if (prot) {
            return refuse(kWcLocProtErr);
        }
    }
    w.npsn = w.is_atomic() ? 1 : message_packets(w.length, qp.pmtu);
    w.first_psn = r.next_psn;
    SelectiveRepeat::begin(qp, w);
    r.next_psn = psn_add(r.next_psn, w.npsn);
    ++r.sq_next;
    r.pending.push_back(std::move(w));
    return true;
}

bool Requester::transmit_one(Qp& qp) {
    auto& r = qp.req;
    const auto window = static_cast<int32_t>(std::min(r.cwnd, window_cap(qp)));
    int32_t in_flight = psn_diff(r.tx_psn, r.snd_una);
    if (r.sr == SrTx::kOn) {
        // 5.3: a new PSN stays below snd_una + W and needs room in the pipe (sent, neither
        // acknowledged nor SACKed); resends are not held back by the window.
        if (resending_ || psn_diff(r.tx_psn, r.max_sent) < 0) {
            in_flight = 0;
        } else if (in_flight >= static_cast<int32_t>(window_cap(qp))) {
            return false;
        } else {
            in_flight = sr_pipe(qp);
        }
    }
    if (in_flight >= window) {
        return false;  // window full: wait for ACKs
    }
    // A new PSN (not a retransmission) needs room in the card's window and its turn.
    if (psn_diff(r.tx_psn, r.max_sent) >= 0 && !e_.arbiter().may_send_new(qp)) {
        return false;
    }
    if (const uint64_t wait = e_.congestion().pace_delay(qp); wait != 0) {
        pace(qp, wait);
        return false;
    }
    // A paced QP asks for an ACK on every packet: its local ACK timer then measures the wire,
    // not the gaps the pacer leaves between packets.
    const bool paced = Congestion::paced(qp);
    // The packet that fills the window asks for an ACK, or the window would never open again.
    const bool fills_window = in_flight + 1 >= window;
    // The WQE holding tx_psn (usually one of the last).
    uint32_t rd_before = 0;
    SendWqe* w = nullptr;
    size_t wi = 0;
    for (auto& p : r.pending) {
        if (p.npsn != 0 && psn_diff(r.tx_psn, p.first_psn) >= 0 &&
            psn_diff(r.tx_psn, p.last_psn()) <= 0) {
            w = &p;
            break;
        }
        ++wi;
        if (p.needs_response()) {
            ++rd_before;
        }
    }
    if (!w) {
        r.tx_psn = r.next_psn;  // nothing left to send in the range (defensive)
        return true;
    }
    if (w->local_err != 0 || ((w->flags & SCENIC_WQE_F_FENCE) && rd_before != 0) ||
        (w->needs_response() && rd_before >= rd_atomic_limit(qp))) {
        return false;
    }
    // SQD drains: messages already begun are finished (and resent), none is begun.
    if (qp.state == kQpsSqd && psn_diff(w->first_psn, r.max_sent) >= 0) {
        return false;
    }
    const auto k = static_cast<uint32_t>(psn_diff(r.tx_psn, w->first_psn));
    const uint64_t off = uint64_t{k} * qp.pmtu;
    roce::Transport t;
    t.bth.psn = r.tx_psn;
    std::span<const uint8_t> payload;
    uint32_t advance = 1;
    if (w->is_read()) {
        t.bth.opcode = static_cast<uint8_t>(Opcode::kReadRequest);
        // A large READ is asked for in pieces that fit the window (each a READ request of its
        // own): the responses of one request are not paced, the requests are.
        advance = std::min(w->npsn - k, static_cast<uint32_t>(window - in_flight));
        // Not one request per freed PSN: wait until half a window (or the rest) fits.
        if (advance < std::min<uint32_t>(w->npsn - k, static_cast<uint32_t>(window) / 2)) {
            return false;
        }
        // A re-request after a rewind stops where the earlier requests stopped: a request is
        // either all duplicate or all new to the responder, never both.
        if (psn_diff(r.max_sent, r.tx_psn) > 0) {
            advance = std::min(advance, static_cast<uint32_t>(psn_diff(r.max_sent, r.tx_psn)));
        }
        const uint64_t len = std::min<uint64_t>(w->length - off, uint64_t{advance} * qp.pmtu);
        // The responses are scattered as they arrive: a destination page that misses would drop
        // them. Ask only once the piece's destination is translated (protection errors are
        // left to the responses, which fail the WQE in order).
        if (e_.mem().prepare_scatter(std::span(w->sge).first(w->num_sge), qp.pdn, off, len) ==
            MemStatus::kMiss) {
            wait_for_tlb(qp);
            return false;
        }
        t.reth = roce::Reth{w->remote_addr + off, w->rkey, static_cast<uint32_t>(len)};
    } else if (w->is_atomic()) {
        const bool cas = w->opcode == SCENIC_WQE_OP_ATOMIC_CAS;
        t.bth.opcode = static_cast<uint8_t>(cas ? Opcode::kCmpSwap : Opcode::kFetchAdd);
        t.atomic_eth = roce::AtomicEth{w->remote_addr, w->rkey, cas ? w->swap : w->compare_add,
                                       cas ? w->compare_add : 0};
    } else {
        const Opcode op = message_opcode(w->opcode, k, w->npsn);
        const auto& info = *roce::rc_opcode_info(op);
        t.bth.opcode = static_cast<uint8_t>(op);
        const auto len = static_cast<uint32_t>(std::min<uint64_t>(qp.pmtu, w->length - off));
        if (info.has(roce::kHdrReth)) {
            t.reth = roce::Reth{w->remote_addr, w->rkey, w->length};
        }
        if (info.has(roce::kHdrImmDt)) {
            t.imm = roce::ImmDt{w->imm};
        }
        if (info.has(roce::kHdrIeth)) {
            t.ieth = roce::Ieth{w->rkey};
        }
        t.bth.se = info.last && (w->flags & SCENIC_WQE_F_SOLICITED) != 0;
        // A window smaller than the ACK interval (after loss) asks on every packet: one lost
        // ACK then costs nothing, instead of holding the full window until the ACK timeout.
        const bool small_window = window < static_cast<int32_t>(kAckReqEvery);
        // Likewise the packet that fills the card's window (TxArbiter): the QP may have to wait
        // for its turn, and without an ACK request it would wait for its ACK timeout.
        const bool fills_card = e_.arbiter().in_flight() + qp.pmtu >= e_.arbiter().window(qp);
        // The end of a message asks unless a fetched WQE follows in this run: the ACK of a
        // later packet completes both (one ACK per kAckReqEvery packets when streaming).
        const bool followed = !info.last || (qp.state == kQpsRts && wi + 1 < r.pending.size() &&
                                             r.pending[wi + 1].local_err == 0);
        t.bth.ackreq = !followed || r.unasked + 1 >= kAckReqEvery || fills_window || paced ||
                       small_window || fills_card || r.force_ackreq;
        if (!w->inline_data.empty()) {
            payload = std::span(w->inline_data).subspan(off, len);
        } else {
            payload_.resize(len);
            switch (e_.mem().gather(std::span(w->sge).first(w->num_sge), qp.pdn, off, payload_)) {
                case MemStatus::kOk:
                    break;
                case MemStatus::kMiss:
                    wait_for_tlb(qp);
                    return false;
                case MemStatus::kProt:
                case MemStatus::kDma:
                    // MR gone or DMA refused after the fetch checks: the WQE fails when it
                    // reaches the head of the queue.
                    w->local_err = kWcLocProtErr;
                    e_.completer().complete_local_errors(qp);
                    return false;
            }
            payload = payload_;
        }
        // Through the QP's SCU slot, between payload fetch and packetization (docs/scu.md 3).
        scu::Meta m;
        m.qpn = qp.qpn;
        // SEND .. WRITE_IMM: the metadata's op codes (a SEND_INV's payload is a SEND's)
        m.op = w->opcode == SCENIC_WQE_OP_SEND_INV ? static_cast<uint8_t>(SCENIC_WQE_OP_SEND)
                                                   : w->opcode;
        m.offset = static_cast<uint32_t>(off);
        m.psn = r.tx_psn;
        m.msg_first = k == 0;
        m.msg_last = k + 1 == w->npsn;
        m.dir = scu::Dir::kTx;
        m.src = scu::kSrcRdma;
        m.retx = psn_diff(r.tx_psn, r.max_sent) < 0;
        m.len = static_cast<uint16_t>(len);
        switch (e_.scu_pass(qp, m, payload)) {
            case scu::Pass::kBypass:
            case scu::Pass::kDone:
                break;
            case scu::Pass::kHeld:
                // Back-pressure: nothing is sent until the slot takes payload again.
                r.scu_wait = true;
                e_.scu_hold(qp);
                return false;
            case scu::Pass::kDropped:
            case scu::Pass::kFailed:
                // The SCU broke the 1:1 rule: the WQE fails with a local QP operation error.
                w->local_err = kWcLocQpOpErr;
                e_.completer().complete_local_errors(qp);
                return false;
        }
        if (w->sr) {
            SelectiveRepeat::to_sr_format(*w, k, t);
        }
    }
    // A READ request or an atomic is answered, and the answer acknowledges all before it.
    const bool asks = t.bth.ackreq || w->needs_response();
    e_.congestion().sent(qp, e_.send(qp, t, payload));
    r.unasked = asks ? 0 : r.unasked + 1;
    r.force_ackreq = r.force_ackreq && !asks;
    const bool retx = psn_diff(r.tx_psn, r.max_sent) < 0;
    if (retx) {
        ++e_.counters().retransmits;
    }
    if (r.sr == SrTx::kOn) {
        if (asks && !retx && !r.sr_rtt_active) {
            // One RTT sample at a time, on a first transmission that asks (5.6).
            r.sr_rtt_active = true;
            r.sr_rtt_psn = r.tx_psn;
            r.sr_rtt_t = e_.now();
            r.sr_rtt_retx = e_.counters().retransmits;
        }
        sr_arm_probe(qp);
    }
    r.tx_psn = psn_add(r.tx_psn, advance);
    if (psn_diff(r.tx_psn, r.max_sent) > 0) {
        r.max_sent = r.tx_psn;
        e_.arbiter().account(qp);
    }
    arm_ack_timer(qp);
    return true;
}

}  // namespace scenic::rdma
