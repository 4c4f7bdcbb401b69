// SPDX-License-Identifier: MIT
// The responder's side of selective repeat (docs/selective-repeat.md 4), for a QP whose peer
// sends in SR format (state SACKING): SR WRITE packets inside the window are placed out of
// order at their own RETH address, epsn moves over what is placed, completions stay in order,
// and gaps are reported by SR_SACK instead of a PSN sequence NAK. What is not placed out of
// order in this slice (SEND, WRITE_WITH_IMMEDIATE's last packet, READ, atomics, standard
// packets, QPs with an SCU slot) keeps the in-order rule: dropped unmarked at d > 0.
#include <algorithm>

#include "scenic/rdma_engine.hpp"
#include "scenic/rdma_responder.hpp"
#include "scenic/rdma_sr_window.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::NakCode;
using roce::OpClass;
using roce::psn_add;
using roce::psn_diff;

namespace {

// An SR packet the window places by itself: a WRITE packet that needs no receive WQE, on a QP
// whose payload does not pass an SCU slot (a slot sees a message's bytes in order).
bool placeable(const Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket* sr) {
    return sr != nullptr && qp.scu == 0 && pkt.info->cls == OpClass::kWrite &&
           !(pkt.info->last && pkt.info->has(roce::kHdrImmDt));
}

}  // namespace

void Responder::sr_receive(Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket* sr,
                           int32_t d) {
    auto& s = qp.resp;
    auto& c = e_.counters();
    const uint32_t w = 1u << s.sr_window_log2;
    const uint32_t psn = pkt.transport.bth.psn;
    if (d < 0) {
        duplicate(qp, pkt);
        return;
    }
    if (static_cast<uint32_t>(d) >= w) {
        ++c.sr_drop_window;  // a correct requester never sends it
        return;
    }
    const uint32_t k = srwin::slot(psn, w);
    if (d > 0) {
        if (s.sr_placed.test(k)) {
            ++c.sr_dup_ooo;  // placed already: never placed twice (4.9)
            if (reack_due(qp)) {
                sack(qp);
            }
            return;
        }
        if (!placeable(qp, pkt, sr)) {
            ++c.sr_drop_order;  // left for in-order execution; its PSN stays missing
            sequence_gap(qp);   // a SACK, rate-limited
            return;
        }
        const roce::Sreth& h = *sr->transport.sreth;
        if (h.ofv() && psn_diff(h.ofp, s.epsn) >= 0) {
            ++c.sr_drop_fence;  // an earlier READ / atomic / overlapping WRITE first (4.4)
            return;
        }
        if (!sr_place_write(qp, pkt, *sr, false)) {
            return;
        }
        ++c.sr_ooo_placed;
        s.sr_placed.set(k);
        if (pkt.info->last) {
            s.sr_ends.set(k);
        }
        const bool opens = !s.sr_placed.test(srwin::slot(psn_add(psn, kPsnMask), w));
        if (psn_diff(psn, s.sr_right_edge) >= 0) {
            s.sr_right_edge = psn_add(psn, 1);
        }
        ++s.sr_ooo_since_sack;
        if (opens || pkt.transport.bth.ackreq || s.sr_ooo_since_sack >= kSrSackEvery) {
            sack(qp);  // 4.10 triggers 1, 2 and 3
        }
        return;
    }
    // d == 0: in order.
    const bool had_gap = s.sr_right_edge != s.epsn;
    if (placeable(qp, pkt, sr) && s.msg == ResponderState::Msg::kNone) {
        s.nak_sent = false;
        s.reacked = false;
        if (!sr_place_write(qp, pkt, *sr, true)) {
            return;
        }
        s.epsn = psn_add(s.epsn, 1);
        if (pkt.info->last) {
            ++s.msn;
            e_.scu_completed(qp, Engine::ScuOp::kRecvWrite);
        }
        sr_advanced(qp, had_gap, pkt.transport.bth.ackreq, psn);
        return;
    }
    // SEND, READ, atomics, WRITE_IMM's last packet, standard packets: today's execution. (An SR
    // WRITE_IMM's earlier packets were placed through their RETH: its last one completes the
    // message here, with its receive WQE.)
    if (sr != nullptr && pkt.info->cls == OpClass::kWrite && pkt.info->last &&
        s.msg == ResponderState::Msg::kNone && qp.scu == 0) {
        s.nak_sent = false;
        s.reacked = false;
        if (!take_rwqe(qp)) {
            rnr_nak(qp);
            return;
        }
        if (!sr_place_write(qp, pkt, *sr, true)) {
            return;
        }
        s.epsn = psn_add(s.epsn, 1);
        ++s.msn;
        e_.scu_completed(qp, Engine::ScuOp::kRecvWrite);
        recv_cqe(qp, kWcSuccess, SCENIC_CQE_OP_RECV_WRITE_IMM, sr->transport.reth->dma_length,
                 &pkt);
        sr_advanced(qp, had_gap, pkt.transport.bth.ackreq, psn);
        return;
    }
    const uint32_t before = s.epsn;
    const bool ack_due = execute_packet(qp, pkt);
    if (qp.state == kQpsErr || s.epsn == before) {
        return;  // NAKed, or waiting (RNR)
    }
    sr_advanced(qp, had_gap, ack_due, psn);
}

bool Responder::sr_place_write(Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket& sr,
                               bool in_order) {
    auto& c = e_.counters();
    const roce::Reth& reth = *sr.transport.reth;
    const uint64_t off = uint64_t{sr.transport.sreth->midx} * qp.pmtu;
    if (!payload_fits_pmtu(qp, pkt)) {
        if (in_order) {
            nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
        } else {
            ++c.sr_drop_order;
        }
        return false;
    }
    // The whole message's range, from the RETH this packet carries (IRN): each packet is
    // checked on its own, so none depends on having seen FIRST.
    if (reth.dma_length != 0 && ((qp.access & kAccessRemoteWrite) == 0 ||
                                 !e_.mem().allowed(reth.rkey, qp.pdn, reth.va, reth.dma_length,
                                                   kAccessRemoteWrite, qp.qpn))) {
        if (in_order) {
            nak(qp, NakCode::kRemoteAccessError, kQpErrAccess);
        } else {
            ++c.sr_drop_order;  // no pending-error slot yet (4.7): the in-order resend NAKs
        }
        return false;
    }
    if (pkt.payload.empty()) {
        return true;
    }
    const MemStatus st =
        e_.mem().write(reth.rkey, qp.pdn, kAccessRemoteWrite, reth.va + off, pkt.payload, qp.qpn);
    if (in_order) {
        return remote_access_ok(qp, st);
    }
    if (st == MemStatus::kMiss) {
        ++c.sr_drop_resource;  // the miss event is raised; the resend lands after the fill
    } else if (st != MemStatus::kOk) {
        ++c.sr_drop_order;
    }
    return st == MemStatus::kOk;
}

void Responder::sr_advanced(Qp& qp, bool had_gap, bool ack_due, uint32_t psn) {
    auto& s = qp.resp;
    const uint32_t w = 1u << s.sr_window_log2;
    const uint32_t msgs = srwin::advance(s.sr_placed, s.sr_ends, s.epsn, w);
    for (uint32_t i = 0; i < msgs; ++i) {
        ++s.msn;  // plain WRITEs only: they complete nothing at the responder
        e_.scu_completed(qp, Engine::ScuOp::kRecvWrite);
    }
    if (psn_diff(s.sr_right_edge, s.epsn) < 0) {
        s.sr_right_edge = s.epsn;
    }
    const bool gap = s.sr_right_edge != s.epsn;
    if (had_gap && !gap) {
        ack(qp, psn_add(s.epsn, kPsnMask));  // the last gap closed: one ACK, asked or not
    } else if (ack_due) {
        if (gap) {
            sack(qp);
        } else {
            ack(qp, psn);
        }
    }
}

void Responder::sack(Qp& qp) {
    auto& s = qp.resp;
    if (s.sr_right_edge == s.epsn) {
        return;  // no gap: nothing to report
    }
    const uint32_t w = 1u << s.sr_window_log2;
    RespJob j;
    j.kind = RespJob::Kind::kSack;
    j.psn = s.epsn;
    j.aeth = roce::Aeth::ack(s.msn);
    j.sack = srwin::build_sack(s.sr_placed, s.epsn, s.sr_right_edge, w, s.sr_max_ranges);
    s.sr_ooo_since_sack = 0;
    emit(qp, j);
}

}  // namespace scenic::rdma
