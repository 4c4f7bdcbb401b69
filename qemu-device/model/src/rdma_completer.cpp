// SPDX-License-Identifier: MIT
#include "scenic/rdma_completer.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::AethType;
using roce::NakCode;
using roce::Opcode;
using roce::psn_add;
using roce::psn_diff;

void Completer::complete_ok(Qp& qp) {
    switch (qp.req.pending.front().opcode) {
        case SCENIC_WQE_OP_WRITE:
        case SCENIC_WQE_OP_WRITE_IMM:
            e_.scu_completed(qp, Engine::ScuOp::kRemoteWrite);
            break;
        case SCENIC_WQE_OP_READ:
            e_.scu_completed(qp, Engine::ScuOp::kRemoteRead);
            break;
        case SCENIC_WQE_OP_SEND:
        case SCENIC_WQE_OP_SEND_IMM:
        case SCENIC_WQE_OP_SEND_INV:
            e_.scu_completed(qp, Engine::ScuOp::kRemoteSend);
            break;
        default:
            break;  // atomics have no SCU counter
    }
    qp.req.pending.pop_front();
    e_.complete_send_ok(qp);
    // WQEs that send nothing (BIND_MW, LOCAL_INV) right behind it are done with it: a READ or
    // atomic completes after its progress() ran, and nothing else would come for them.
    auto& r = qp.req;
    while (!r.pending.empty() && r.pending.front().npsn == 0 && r.pending.front().local_err == 0) {
        r.pending.pop_front();
        e_.complete_send_ok(qp);
    }
}

void Completer::progress(Qp& qp) {
    auto& r = qp.req;
    r.retry_left = qp.retry_cnt;
    r.rnr_left = qp.rnr_retry;
    r.last_progress_ns = e_.now();
    r.gap_rewound = false;
    r.timed_out = false;  // charged again in the card's window (TxArbiter::account)
    // An ACK for PSNs beyond a rewind point (a late or duplicated ACK after a sequence NAK): those
    // PSNs arrived, so resending starts after them. Left behind snd_una, tx_psn pointed into a
    // completed WQE and the requester jumped past PSNs never sent (a hang under dup + loss).
    if (psn_diff(r.tx_psn, r.snd_una) < 0) {
        r.tx_psn = r.snd_una;
    }
    e_.requester().window_acked(qp);
    if (r.sr == SrTx::kOn) {
        e_.requester().sr_acked(qp);
    }
}

void Completer::gap(Qp& qp) {
    auto& r = qp.req;
    if (!r.gap_rewound) {
        r.gap_rewound = true;
        e_.requester().window_loss(qp, false);
        e_.requester().rewind(qp, r.snd_una);
    }
}

void Completer::fail_head(Qp& qp, uint8_t status, uint8_t syndrome) {
    auto& r = qp.req;
    if (!r.pending.empty()) {
        const SendWqe& w = r.pending.front();
        e_.complete_send_err(qp, w.idx, w.opcode, status, syndrome);
        r.pending.pop_front();
    }
    e_.enter_error(qp, 0);  // the error is reported by the CQE; the rest is flushed
}

void Completer::complete_local_errors(Qp& qp) {
    const auto& r = qp.req;
    // WQEs that send nothing (BIND_MW, LOCAL_INV: done when fetched) complete once every WQE
    // before them has: in SQ order, as the status-page counter requires.
    if (!r.pending.empty() && r.pending.front().npsn == 0 && r.pending.front().local_err == 0) {
        complete_ok(qp);  // and those right behind it
    }
    if (!r.pending.empty() && r.pending.front().local_err != 0) {
        fail_head(qp, r.pending.front().local_err, r.pending.front().syndrome);
    }
}

bool Completer::ack_before(Qp& qp, uint32_t psn) {
    auto& r = qp.req;
    bool advanced = false;
    while (!r.pending.empty()) {
        const SendWqe& w = r.pending.front();
        if (w.local_err != 0 || w.needs_response()) {
            break;  // READ / atomic complete with their responses only
        }
        if (psn_diff(w.last_psn(), psn) < 0) {
            r.snd_una = psn_add(w.last_psn(), 1);
            complete_ok(qp);
            advanced = true;
            continue;
        }
        if (psn_diff(psn, r.snd_una) > 0) {
            r.snd_una = psn;  // part of a multi-packet message
            advanced = true;
        }
        break;
    }
    if (advanced) {
        progress(qp);
    }
    return r.pending.empty() || !r.pending.front().needs_response() ||
           psn_diff(psn, r.snd_una) <= 0;
}

void Completer::receive(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& r = qp.req;
    if (!path_matches(qp, pkt)) {
        ++e_.counters().rx_drop_path;  // a forged ACK / NAK / response: not from the peer
        return;
    }
    const uint32_t psn = pkt.transport.bth.psn;
    // Only PSNs in flight: older ones are duplicates, newer ones were never sent.
    if (r.pending.empty() || psn_diff(psn, r.snd_una) < 0 || psn_diff(psn, r.next_psn) >= 0) {
        return;
    }
    switch (static_cast<Opcode>(pkt.transport.bth.opcode)) {
        case Opcode::kReadResponseFirst:
        case Opcode::kReadResponseMiddle:
        case Opcode::kReadResponseLast:
        case Opcode::kReadResponseOnly:
            read_response(qp, pkt);
            break;
        case Opcode::kAtomicAck:
            atomic_ack(qp, pkt);
            break;
        case Opcode::kAck: {
            const roce::Aeth& aeth = *pkt.transport.aeth;
            switch (aeth.type()) {
                case AethType::kAck:
                    if (!ack_before(qp, psn_add(psn, 1))) {
                        gap(qp);  // implied NAK: a READ / atomic before psn got no response
                    }
                    break;
                case AethType::kRnrNak: {
                    ++e_.counters().rnr_nak_rcvd;
                    if (!ack_before(qp, psn)) {
                        gap(qp);
                        break;
                    }
                    if (qp.rnr_retry != 7) {  // 7: retry for ever
                        if (r.rnr_left <= 0) {
                            fail_head(qp, kWcRnrRetryExcErr, aeth.syndrome);
                            return;
                        }
                        --r.rnr_left;
                    }
                    if (psn_diff(psn, r.tx_psn) < 0) {
                        r.tx_psn = psn;
                    }
                    e_.requester().rnr_wait(qp, roce::rnr_timer_ns(aeth.value()));
                    return;
                }
                case AethType::kNak: {
                    const auto code = static_cast<NakCode>(aeth.value());
                    if (code == NakCode::kPsnSeqError) {
                        ++e_.counters().seq_nak_rcvd;
                        if (qp.req.sr == SrTx::kOn) {
                            ++e_.counters().sr_fallbacks;  // go-back-N (5.10), SR format kept
                        }
                        e_.requester().window_loss(qp, false);
                        if (ack_before(qp, psn)) {
                            e_.requester().rewind(qp, psn);
                        } else {
                            gap(qp);
                        }
                        break;
                    }
                    ack_before(qp, psn);
                    uint8_t status = kWcRemOpErr;
                    if (code == NakCode::kInvalidRequest || code == NakCode::kInvalidRdRequest) {
                        status = kWcRemInvReqErr;
                    } else if (code == NakCode::kRemoteAccessError) {
                        status = kWcRemAccessErr;
                    }
                    fail_head(qp, status, aeth.syndrome);
                    return;
                }
                case AethType::kReserved:
                    return;
            }
            break;
        }
        default:
            return;  // a request opcode never reaches the completer
    }
    if (qp.state == kQpsErr) {
        return;
    }
    complete_local_errors(qp);
    e_.requester().kick(qp);  // the window moved, or a READ / atomic slot freed
    e_.requester().check_drained(qp);
}

bool Completer::stored(Qp& qp, const SendWqe& w, uint64_t off, std::span<const uint8_t> data) {
    switch (e_.mem().scatter(std::span(w.sge).first(w.num_sge), qp.pdn, off, data)) {
        case MemStatus::kOk:
            return true;
        case MemStatus::kMiss:
            return false;  // dropped: asked again after the gap or the ACK timeout
        case MemStatus::kProt:
        case MemStatus::kDma:
            fail_head(qp, kWcLocProtErr, 0);
            return false;
    }
    return false;
}

void Completer::read_response(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& r = qp.req;
    const uint32_t psn = pkt.transport.bth.psn;
    // A response implies that every request before it arrived.
    if (!ack_before(qp, psn) || r.pending.empty()) {
        gap(qp);
        return;
    }
    SendWqe& w = r.pending.front();
    if (!w.is_read() || w.local_err != 0) {
        return;  // a response nobody asked for
    }
    if (psn != r.snd_una) {
        gap(qp);  // an earlier response of this READ was lost
        return;
    }
    const auto k = static_cast<uint32_t>(psn_diff(psn, w.first_psn));
    const uint64_t off = uint64_t{k} * qp.pmtu;
    const uint64_t expect = std::min<uint64_t>(qp.pmtu, w.length - off);
    // A READ is asked for in window-sized pieces, and again from a gap: each piece is answered
    // FIRST .. LAST (or ONLY), so only the final packet of the WQE has a fixed opcode.
    const auto op = static_cast<Opcode>(pkt.transport.bth.opcode);
    const bool final_pkt = k + 1 == w.npsn;
    const bool op_ok =
        !final_pkt || op == Opcode::kReadResponseLast || op == Opcode::kReadResponseOnly;
    if (!op_ok || pkt.payload.size() != expect) {
        ++e_.counters().rx_drop_malformed;
        return;
    }
    // Through the QP's SCU slot before placement (docs/scu.md 3).
    std::span<const uint8_t> data = pkt.payload;
    scu::Meta m;
    m.qpn = qp.qpn;
    m.op = scu::kOpReadResp;
    m.offset = static_cast<uint32_t>(off);
    m.psn = psn;
    m.msg_first = k == 0;
    m.msg_last = final_pkt;
    m.dir = scu::Dir::kRx;
    m.src = scu::kSrcRdma;
    m.len = static_cast<uint16_t>(data.size());
    bool skip = false;
    switch (e_.scu_pass(qp, m, data)) {
        case scu::Pass::kBypass:
        case scu::Pass::kDone:
            break;
        case scu::Pass::kDropped:
            skip = true;
            break;
        case scu::Pass::kHeld:
            return;  // dropped (counted by the slot): the gap recovery asks for it again
        case scu::Pass::kFailed:
            fail_head(qp, kWcLocQpOpErr, 0);
            return;
    }
    if (!skip && !stored(qp, w, off, data)) {
        return;
    }
    r.snd_una = psn_add(psn, 1);
    progress(qp);
    if (k + 1 == w.npsn) {
        complete_ok(qp);
    }
}

void Completer::atomic_ack(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& r = qp.req;
    const uint32_t psn = pkt.transport.bth.psn;
    if (!ack_before(qp, psn) || r.pending.empty()) {
        gap(qp);
        return;
    }
    SendWqe& w = r.pending.front();
    if (!w.is_atomic() || w.local_err != 0 || psn != w.first_psn) {
        return;
    }
    std::array<uint8_t, 8> orig{};
    const uint64_t v = pkt.transport.atomic_ack->orig;
    std::memcpy(orig.data(), &v, orig.size());
    if (!stored(qp, w, 0, orig)) {
        return;
    }
    r.snd_una = psn_add(psn, 1);
    progress(qp);
    complete_ok(qp);
}

}  // namespace scenic::rdma
