// SPDX-License-Identifier: MIT
#include "scenic/rdma_responder.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::NakCode;
using roce::OpClass;
using roce::Opcode;
using roce::psn_add;
using roce::psn_diff;

namespace {

uint32_t packets(uint32_t length, uint32_t pmtu) {
    return length == 0 ? 1 : static_cast<uint32_t>((uint64_t{length} + pmtu - 1) / pmtu);
}

bool is_rd_atomic(const RespJob& j) {
    return j.kind == RespJob::Kind::kRead || j.kind == RespJob::Kind::kAtomicAck;
}

bool is_rnr_nak(const RespJob& j) {
    return j.kind == RespJob::Kind::kAck && j.aeth.type() == roce::AethType::kRnrNak;
}

}  // namespace

bool path_matches(const Qp& qp, const roce::ParsedPacket& pkt) {
    const roce::PathContext& p = qp.path;
    if (p.ip_version == roce::IpVersion::kV4) {
        return pkt.ipv4 && std::ranges::equal(pkt.ipv4->src, std::span(p.dst_ip).first<4>()) &&
               std::ranges::equal(pkt.ipv4->dst, std::span(p.src_ip).first<4>());
    }
    return pkt.ipv6 && pkt.ipv6->src == p.dst_ip && pkt.ipv6->dst == p.src_ip;
}

void Responder::receive(Qp& qp, const roce::ParsedPacket& pkt, const roce::ParsedPacket* sr) {
    auto& s = qp.resp;
    if (!path_matches(qp, pkt)) {
        ++e_.counters().rx_drop_path;  // not the connected peer: never answered, never executed
        return;
    }
    const int32_t d = psn_diff(pkt.transport.bth.psn, s.epsn);
    if (s.sr == SrRx::kSacking) {
        sr_receive(qp, pkt, sr, d);  // placement out of order, SACKs (rdma_responder_sr.cpp)
        return;
    }
    if (d > 0) {
        sequence_gap(qp);
        return;
    }
    if (d < 0) {
        duplicate(qp, pkt);
        return;
    }
    execute(qp, pkt);
}

void Responder::sequence_gap(Qp& qp) {
    // Packets were lost: one sequence NAK per gap, carrying the PSN expected.
    auto& s = qp.resp;
    if (s.sr == SrRx::kSacking && s.sr_right_edge != s.epsn) {
        if (reack_due(qp)) {
            sack(qp);  // a SACK instead of the sequence NAK (4.10), rate-limited as re-ACKs
        }
        return;
    }
    // No SR gap report possible (nothing placed after epsn: a SACK needs a received PSN after
    // its last range), so today's sequence NAK: go-back-N for SENDs, READs and atomics (5.10).
    // Without it such a stream would wait for the requester's timer.
    if (!s.nak_sent) {
        RespJob j;
        j.psn = s.epsn;
        j.aeth = roce::Aeth::nak(s.msn, NakCode::kPsnSeqError);
        if (emit(qp, j)) {
            s.nak_sent = true;
            ++e_.counters().seq_nak_sent;
        }
    }
}

void Responder::reserved_opcode(Qp& qp, const roce::ParsedPacket& pkt) {
    if (!path_matches(qp, pkt)) {
        ++e_.counters().rx_drop_path;
        return;
    }
    const int32_t d = psn_diff(pkt.transport.bth.psn, qp.resp.epsn);
    if (d > 0) {
        sequence_gap(qp);
    } else if (d < 0) {
        ++e_.counters().dup_requests;  // nothing was executed for it: nothing to answer
    } else {
        nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
    }
}

// IBA 9.7.5.1.1 (rxe's duplicate_request): a duplicate is never executed again. READ and
// atomics are answered only from what the responder remembers of the original request (its
// rkey, va and PMTU; the saved original value): the duplicate's own RETH is not trusted, so a
// forged "duplicate" can neither read other memory nor NAK the QP into ERR. Anything else
// (never executed here, or older than the last max_dest_rd_atomic requests) is dropped.
void Responder::duplicate(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    ++e_.counters().dup_requests;
    const uint32_t psn = pkt.transport.bth.psn;
    switch (pkt.info->cls) {
        case OpClass::kRead:
        case OpClass::kAtomic: {
            const RdResource* r = find_resource(qp, psn);
            if (!r || r->atomic != (pkt.info->cls == OpClass::kAtomic)) {
                ++e_.counters().dup_ignored;
                return;
            }
            if (!r->atomic) {
                replay_read(qp, *r, psn);
                return;
            }
            // A re-sent atomic replaces its answer still queued.
            std::erase_if(s.outq, [r](const RespJob& j) {
                return j.kind == RespJob::Kind::kAtomicAck && j.req_psn == r->psn;
            });
            RespJob j;
            j.kind = RespJob::Kind::kAtomicAck;
            j.psn = r->psn;
            j.req_psn = r->psn;
            j.replay = true;
            j.orig = r->orig;
            j.aeth = roce::Aeth::ack(s.msn);
            emit(qp, j);
            return;
        }
        default:
            // SEND / WRITE: already executed; acknowledged with the current PSN and MSN, no second
            // completion. Whether or not it asks (AckReq): a requester that retries after a
            // lost ACK may resend packets that do not ask (rxe does), and only an ACK ends it.
            if (reack_due(qp)) {
                if (s.sr == SrRx::kSacking && s.sr_right_edge != s.epsn) {
                    sack(qp);  // gaps remain: the re-ACK says which (4.9)
                } else {
                    ack(qp, psn_add(s.epsn, kPsnMask));
                }
            }
            return;
    }
}

bool Responder::reack_due(Qp& qp) {
    auto& s = qp.resp;
    const uint64_t now = e_.now();
    ++s.dups_since_reack;
    if (s.reacked && s.dups_since_reack < kReAckEvery && now - s.last_reack_ns < kReAckIntervalNs) {
        return false;  // a flood of duplicates gets a trickle of ACKs
    }
    s.reacked = true;
    s.dups_since_reack = 0;
    s.last_reack_ns = now;
    return true;
}

const RdResource* Responder::find_resource(const Qp& qp, uint32_t psn) {
    const auto& s = qp.resp;
    const unsigned n = std::clamp<unsigned>(qp.max_dest_rd_atomic, 1, kRdResources);
    for (unsigned i = 1; i <= n; ++i) {
        const RdResource& r = s.res[(s.res_next + kRdResources - i) % kRdResources];
        if (!r.valid) {
            break;
        }
        const int32_t d = psn_diff(psn, r.psn);
        if (d >= 0 && static_cast<uint32_t>(d) < r.npsn) {
            return &r;
        }
    }
    return nullptr;
}

void Responder::remember(Qp& qp, const RdResource& r) {
    auto& s = qp.resp;
    s.res[s.res_next] = r;
    s.res_next = (s.res_next + 1) % kRdResources;
}

void Responder::replay_read(Qp& qp, const RdResource& r, uint32_t psn) {
    auto& s = qp.resp;
    // The memory may have been deregistered since: a replay is never an error of the QP.
    if (r.length != 0 &&
        ((qp.access & kAccessRemoteRead) == 0 ||
         !e_.mem().allowed(r.key, qp.pdn, r.va, r.length, kAccessRemoteRead, qp.qpn))) {
        ++e_.counters().dup_ignored;
        return;
    }
    // The requester asks again from psn: what is still queued of the request is replaced.
    std::erase_if(s.outq, [&r](const RespJob& j) {
        return j.kind == RespJob::Kind::kRead && j.req_psn == r.psn;
    });
    const auto k = static_cast<uint32_t>(psn_diff(psn, r.psn));
    const uint64_t off = std::min<uint64_t>(uint64_t{k} * r.pmtu, r.length);
    RespJob j;
    j.kind = RespJob::Kind::kRead;
    j.psn = psn;
    j.req_psn = r.psn;
    j.replay = true;
    j.key = r.key;
    j.va = r.va + off;
    j.length = static_cast<uint32_t>(r.length - off);
    j.pmtu = r.pmtu;
    j.aeth = roce::Aeth::ack(s.msn);
    emit(qp, j);
}

bool Responder::rd_atomic_room(Qp& qp) {
    const auto& q = qp.resp.outq;
    // Requests still being answered; a replay answers one the requester already counts.
    const auto busy =
        std::ranges::count_if(q, [](const RespJob& j) { return is_rd_atomic(j) && !j.replay; });
    if (busy >= qp.max_dest_rd_atomic) {
        // IBA 9.7.5.1.3 (rxe: RESPST_ERR_TOO_MANY_RDMA_ATM_REQ): more than the responder
        // granted; 0 granted refuses every READ / atomic.
        nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
        return false;
    }
    if (q.size() >= kMaxRespJobs) {
        ++e_.counters().resp_q_drops;
        return false;
    }
    return true;
}

void Responder::execute(Qp& qp, const roce::ParsedPacket& pkt) {
    if (execute_packet(qp, pkt)) {
        ack(qp, pkt.transport.bth.psn);
    }
}

bool Responder::execute_packet(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    s.nak_sent = false;
    s.reacked = false;
    const roce::OpcodeInfo& info = *pkt.info;
    // Opcode sequence (IBA 9.7.5.1.1): a message in progress continues with MIDDLE / LAST of
    // the same kind; otherwise only FIRST / ONLY / READ / atomics.
    bool in_order = false;
    switch (s.msg) {
        case ResponderState::Msg::kSend:
            in_order = info.cls == OpClass::kSend && !info.first;
            break;
        case ResponderState::Msg::kWrite:
            in_order = info.cls == OpClass::kWrite && !info.first;
            break;
        case ResponderState::Msg::kNone:
            in_order = info.first;
            break;
    }
    if (!in_order || !payload_fits_pmtu(qp, pkt)) {
        nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
        return false;
    }
    bool done = false;
    switch (info.cls) {
        case OpClass::kSend:
            done = do_send(qp, pkt);
            break;
        case OpClass::kWrite:
            done = do_write(qp, pkt);
            break;
        case OpClass::kRead:
            do_read(qp, pkt);
            return false;
        case OpClass::kAtomic:
            do_atomic(qp, pkt);
            return false;
        default:
            ++e_.counters().rx_drop_malformed;
            return false;
    }
    return done && pkt.transport.bth.ackreq;
}

bool Responder::payload_fits_pmtu(const Qp& qp, const roce::ParsedPacket& pkt) {
    // IBA 9.7.5.1.2 (rxe's check_rkey does it for WRITEs): FIRST / MIDDLE carry exactly one
    // PMTU, LAST / ONLY at most one.
    const roce::OpcodeInfo& info = *pkt.info;
    if (info.cls != OpClass::kSend && info.cls != OpClass::kWrite) {
        return true;
    }
    return info.last ? pkt.payload.size() <= qp.pmtu : pkt.payload.size() == qp.pmtu;
}

bool Responder::take_rwqe(Qp& qp) {
    auto& s = qp.resp;
    if (s.have_rwqe) {
        return true;
    }
    uint64_t slot = 0;
    uint32_t max_sge = 0;
    if (qp.srq) {
        Srq* srq = e_.srq(qp.srqn);  // exists: DESTROY_SRQ waits for its QPs
        if (srq == nullptr || !e_.srq_take(*srq, s.rwqe_idx)) {
            return false;
        }
        slot = srq->slot(s.rwqe_idx);
        max_sge = srq->max_sge();
    } else {
        if (s.rq_ci == s.rq_pi && !e_.rq_record(qp)) {
            return false;
        }
        slot = qp.rq_base + uint64_t{s.rq_ci & (qp.rq_size() - 1)} * qp.rq_wqe_bytes();
        max_sge = qp.rq_max_sge();
    }
    // The first 64 bytes (header and 3 SGEs: every stride has them) in one read, as before
    // strides existed; then only the further SGEs the header names, never beyond the stride.
    std::array<uint8_t, SCENIC_RQ_WQE_MAX_BYTES> raw{};
    const auto first = std::span(raw).first(SCENIC_RQ_WQE_BYTES);
    s.have_rwqe = true;
    s.rwqe_nsge = ResponderState::kRwqeBad;
    if (!e_.host().dma_read(slot, first)) {
        ++e_.counters().dma_errors;
        return true;  // refused by its user as a malformed WQE
    }
    scenic_rq_wqe w{};
    std::memcpy(&w, first.data(), SCENIC_RQ_WQE_HDR_BYTES);
    if (w.num_sge > max_sge) {
        return true;
    }
    const size_t used = SCENIC_RQ_WQE_HDR_BYTES + size_t{w.num_sge} * sizeof(scenic_sge);
    if (used > first.size() &&
        !e_.host().dma_read(slot + first.size(),
                            std::span(raw).subspan(first.size(), used - first.size()))) {
        ++e_.counters().dma_errors;
        return true;
    }
    for (unsigned i = 0; i < w.num_sge; ++i) {
        scenic_sge g{};
        std::memcpy(&g, raw.data() + SCENIC_RQ_WQE_HDR_BYTES + i * sizeof(scenic_sge), sizeof(g));
        s.rwqe_sge[i] = {g.addr, g.length, g.lkey};
    }
    s.rwqe_nsge = static_cast<uint8_t>(w.num_sge);
    return true;
}

void Responder::recv_cqe(Qp& qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                         const roce::ParsedPacket* pkt) {
    auto& s = qp.resp;
    scenic_cqe cqe{};
    cqe.wqe_idx = qp.srq ? s.rwqe_idx : s.rq_ci;
    cqe.qpn = qp.qpn;
    cqe.byte_len = byte_len;
    cqe.src_qp = qp.dest_qpn;
    cqe.status = status;
    cqe.opcode = opcode;
    if (pkt && pkt->transport.imm) {
        cqe.imm_data_be = __builtin_bswap32(pkt->transport.imm->imm);
        cqe.flags |= SCENIC_CQE_F_IMM;
    }
    if (pkt && pkt->transport.bth.se) {
        cqe.flags |= SCENIC_CQE_F_SOLICITED;
    }
    if (pkt && pkt->transport.ieth) {
        cqe.imm_data_be = __builtin_bswap32(pkt->transport.ieth->rkey);
        cqe.flags |= SCENIC_CQE_F_INV;
    }
    if (qp.srq) {
        cqe.flags |= SCENIC_CQE_F_SRQ;
    } else {
        ++s.rq_ci;
    }
    e_.cqs().post(qp.recv_cqn, cqe);
    s.have_rwqe = false;
}

bool Responder::do_send(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::OpcodeInfo& info = *pkt.info;
    if (info.first) {
        if (!take_rwqe(qp)) {
            rnr_nak(qp);
            return false;
        }
        s.recv_off = 0;
    }
    if (s.rwqe_nsge == ResponderState::kRwqeBad) {
        recv_cqe(qp, kWcLocQpOpErr, SCENIC_CQE_OP_RECV, 0, nullptr);
        nak(qp, NakCode::kRemoteOpError, kQpErrLocal);
        return false;
    }
    const auto sgl = std::span(s.rwqe_sge).first(s.rwqe_nsge);
    uint64_t capacity = 0;
    for (const Sge& g : sgl) {
        capacity += g.length;
    }
    if (s.recv_off + pkt.payload.size() > capacity) {
        recv_cqe(qp, kWcLocLenErr, SCENIC_CQE_OP_RECV, s.recv_off, nullptr);
        nak(qp, NakCode::kInvalidRequest, 0);
        return false;
    }
    // SEND_INV (IETH on the last packet): only a valid type 2 window of the QP's PD may be
    // named; anything else is an invalid request (IBA class J, as rxe), the WQE kept for the
    // retransmission. The window is invalidated once the data is placed.
    if (pkt.transport.ieth) {
        const Mw* w = e_.mem().find_mw(pkt.transport.ieth->rkey);
        if (!w || w->type != 2 || !w->valid || w->pdn != qp.pdn) {
            nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
            return false;
        }
    }
    std::span<const uint8_t> data = pkt.payload;
    bool skip = false;
    if (!scu_rx(qp, pkt, s.recv_off, data, skip)) {
        return false;  // keep the WQE; the retransmission lands here again
    }
    switch (skip ? MemStatus::kOk : e_.mem().scatter(sgl, qp.pdn, s.recv_off, data)) {
        case MemStatus::kOk:
            break;
        case MemStatus::kMiss:
            tlb_miss_rnr(qp);
            return false;  // keep the WQE; the retransmission lands here again
        case MemStatus::kProt:
        case MemStatus::kDma:
            recv_cqe(qp, kWcLocProtErr, SCENIC_CQE_OP_RECV, s.recv_off, nullptr);
            nak(qp, NakCode::kRemoteOpError, kQpErrLocal);
            return false;
    }
    s.recv_off += static_cast<uint32_t>(pkt.payload.size());
    s.epsn = psn_add(s.epsn, 1);
    s.msg = info.last ? ResponderState::Msg::kNone : ResponderState::Msg::kSend;
    if (info.last) {
        ++s.msn;
        if (pkt.transport.ieth) {
            (void)e_.mem().invalidate_mw(pkt.transport.ieth->rkey, qp.pdn);  // checked above
        }
        recv_cqe(qp, kWcSuccess, SCENIC_CQE_OP_RECV, s.recv_off, &pkt);
        e_.scu_completed(qp, Engine::ScuOp::kRecvSend);
    }
    return true;
}

bool Responder::scu_rx(Qp& qp, const roce::ParsedPacket& pkt, uint32_t offset,
                       std::span<const uint8_t>& data, bool& skip) {
    const roce::OpcodeInfo& info = *pkt.info;
    scu::Meta m;
    m.qpn = qp.qpn;
    // The card knows an immediate only from the packet that carries it (LAST / ONLY).
    const bool imm = info.has(roce::kHdrImmDt);
    m.op = static_cast<uint8_t>(info.cls == OpClass::kSend
                                    ? (imm ? SCENIC_WQE_OP_SEND_IMM : SCENIC_WQE_OP_SEND)
                                    : (imm ? SCENIC_WQE_OP_WRITE_IMM : SCENIC_WQE_OP_WRITE));
    m.offset = offset;
    m.psn = pkt.transport.bth.psn;
    m.msg_first = info.first;
    m.msg_last = info.last;
    m.dir = scu::Dir::kRx;
    m.src = scu::kSrcRdma;
    m.len = static_cast<uint16_t>(data.size());
    switch (e_.scu_pass(qp, m, data)) {
        case scu::Pass::kBypass:
        case scu::Pass::kDone:
            return true;
        case scu::Pass::kDropped:
            skip = true;
            return true;
        case scu::Pass::kHeld:
            // Loading, or its input full: the requester waits out an RNR timer and resends.
            rnr_nak(qp);
            return false;
        case scu::Pass::kFailed:
            if (info.cls == OpClass::kSend) {
                recv_cqe(qp, kWcLocQpOpErr, SCENIC_CQE_OP_RECV, qp.resp.recv_off, nullptr);
            }
            nak(qp, NakCode::kRemoteOpError, kQpErrLocal);
            return false;
    }
    return false;
}

// A request that misses the TLB is not executed; an RNR NAK (the QP's min_rnr_timer) makes the
// requester wait for the driver's fill and resend from this PSN, as NICs answer a responder
// page fault (mlx5 ODP). Dropping it instead cost a go-back-N storm per miss, and retry
// exhaustion when many QPs thrash the TLB.
void Responder::tlb_miss_rnr(Qp& qp) {
    ++e_.counters().rx_drop_tlb_miss;
    rnr_nak(qp);
}

bool Responder::remote_access_ok(Qp& qp, MemStatus st) {
    switch (st) {
        case MemStatus::kOk:
            return true;
        case MemStatus::kMiss:
            tlb_miss_rnr(qp);
            return false;
        case MemStatus::kProt:
            nak(qp, NakCode::kRemoteAccessError, kQpErrAccess);
            return false;
        case MemStatus::kDma:
            nak(qp, NakCode::kRemoteOpError, kQpErrLocal);
            return false;
    }
    return false;
}

bool Responder::do_write(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::OpcodeInfo& info = *pkt.info;
    const auto len = static_cast<uint32_t>(pkt.payload.size());
    if (info.first) {
        const roce::Reth& reth = *pkt.transport.reth;
        if (reth.dma_length != 0 && ((qp.access & kAccessRemoteWrite) == 0 ||
                                     !e_.mem().allowed(reth.rkey, qp.pdn, reth.va, reth.dma_length,
                                                       kAccessRemoteWrite, qp.qpn))) {
            nak(qp, NakCode::kRemoteAccessError, kQpErrAccess);
            return false;
        }
        s.write_key = reth.rkey;
        s.write_va = reth.va;
        s.write_left = reth.dma_length;
        s.write_total = reth.dma_length;
    }
    // FIRST / MIDDLE carry exactly one PMTU; LAST / ONLY the rest of the RETH length.
    if ((!info.last && (len != qp.pmtu || len >= s.write_left)) ||
        (info.last && len != s.write_left)) {
        nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
        return false;
    }
    const bool imm = info.has(roce::kHdrImmDt);
    if (imm && !take_rwqe(qp)) {
        rnr_nak(qp);
        return false;
    }
    std::span<const uint8_t> data = pkt.payload;
    bool skip = false;
    if (!scu_rx(qp, pkt, s.write_total - s.write_left, data, skip)) {
        return false;
    }
    if (!skip && !remote_access_ok(qp, e_.mem().write(s.write_key, qp.pdn, kAccessRemoteWrite,
                                                      s.write_va, data, qp.qpn))) {
        return false;
    }
    s.write_va += len;
    s.write_left -= len;
    s.epsn = psn_add(s.epsn, 1);
    s.msg = info.last ? ResponderState::Msg::kNone : ResponderState::Msg::kWrite;
    if (info.last) {
        ++s.msn;
        e_.scu_completed(qp, Engine::ScuOp::kRecvWrite);
        if (imm) {
            // As rxe: byte_len of a WRITE with immediate is the message length.
            recv_cqe(qp, kWcSuccess, SCENIC_CQE_OP_RECV_WRITE_IMM, s.write_total, &pkt);
        }
    }
    return true;
}

bool Responder::do_read(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::Reth& reth = *pkt.transport.reth;
    if (reth.dma_length > kMaxMsgBytes) {
        nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
        return false;
    }
    if (reth.dma_length != 0 && ((qp.access & kAccessRemoteRead) == 0 ||
                                 !e_.mem().allowed(reth.rkey, qp.pdn, reth.va, reth.dma_length,
                                                   kAccessRemoteRead, qp.qpn))) {
        nak(qp, NakCode::kRemoteAccessError, kQpErrAccess);
        return false;
    }
    if (!rd_atomic_room(qp)) {
        return false;
    }
    const uint32_t psn = pkt.transport.bth.psn;
    // The PMTU is latched for the whole answer (and its replays): a later change of the QP's
    // PMTU cannot make the response stream disagree with the PSNs this request used.
    const uint32_t npsn = packets(reth.dma_length, qp.pmtu);
    remember(qp, {.valid = true,
                  .atomic = false,
                  .psn = psn,
                  .npsn = npsn,
                  .key = reth.rkey,
                  .va = reth.va,
                  .length = reth.dma_length,
                  .pmtu = qp.pmtu,
                  .orig = 0});
    s.epsn = psn_add(s.epsn, npsn);
    ++s.msn;
    RespJob j;
    j.kind = RespJob::Kind::kRead;
    j.psn = psn;
    j.req_psn = psn;
    j.key = reth.rkey;
    j.va = reth.va;
    j.length = reth.dma_length;
    j.pmtu = qp.pmtu;
    j.aeth = roce::Aeth::ack(s.msn);
    emit(qp, j);
    return true;
}

bool Responder::do_atomic(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::AtomicEth& ae = *pkt.transport.atomic_eth;
    if ((ae.va & 7) != 0) {
        nak(qp, NakCode::kInvalidRequest, kQpErrReqInvalid);
        return false;
    }
    if ((qp.access & kAccessRemoteAtomic) == 0 ||
        !e_.mem().allowed(ae.rkey, qp.pdn, ae.va, 8, kAccessRemoteAtomic, qp.qpn)) {
        nak(qp, NakCode::kRemoteAccessError, kQpErrAccess);
        return false;
    }
    if (!rd_atomic_room(qp)) {
        return false;
    }
    std::array<uint8_t, 8> raw{};
    MemStatus st =
        e_.mem().read(ae.rkey, qp.pdn, kAccessRemoteAtomic, ae.va, std::span(raw), qp.qpn);
    uint64_t orig = 0;
    if (st == MemStatus::kOk) {
        std::memcpy(&orig, raw.data(), raw.size());
        const bool cas = pkt.transport.bth.opcode == static_cast<uint8_t>(Opcode::kCmpSwap);
        const uint64_t next = cas ? (orig == ae.compare ? ae.swap_add : orig) : orig + ae.swap_add;
        if (next != orig) {
            std::memcpy(raw.data(), &next, raw.size());
            st = e_.mem().write(ae.rkey, qp.pdn, kAccessRemoteAtomic, ae.va,
                                std::span<const uint8_t>(raw), qp.qpn);
        }
    }
    if (!remote_access_ok(qp, st)) {
        return false;
    }
    const uint32_t psn = pkt.transport.bth.psn;
    remember(qp, {.valid = true, .atomic = true, .psn = psn, .npsn = 1, .orig = orig});
    s.epsn = psn_add(s.epsn, 1);
    ++s.msn;
    RespJob j;
    j.kind = RespJob::Kind::kAtomicAck;
    j.psn = psn;
    j.req_psn = psn;
    j.orig = orig;
    j.aeth = roce::Aeth::ack(s.msn);
    emit(qp, j);
    return true;
}

void Responder::ack(Qp& qp, uint32_t psn) {
    RespJob j;
    j.psn = psn;
    j.aeth = roce::Aeth::ack(qp.resp.msn);
    emit(qp, j);
}

void Responder::rnr_nak(Qp& qp) {
    auto& s = qp.resp;
    // The requester resends from the NAKed PSN after the timer: the packets behind it, already
    // on the wire, are dropped quietly like those behind a sequence NAK (one NAK per attempt).
    s.nak_sent = true;
    if (std::ranges::any_of(s.outq, is_rnr_nak)) {
        ++e_.counters().rnr_nak_merged;  // the one waiting names the same PSN and MSN
        return;
    }
    RespJob j;
    j.psn = s.epsn;
    j.aeth = roce::Aeth::rnr_nak(s.msn, qp.min_rnr_timer);
    if (emit(qp, j)) {
        ++e_.counters().rnr_nak_sent;
    }
}

void Responder::nak(Qp& qp, NakCode code, uint32_t ev) {
    // The QP goes to ERR first (its RQ is flushed), then the NAK leaves directly: nothing
    // queued before it may be sent any more.
    auto& s = qp.resp;
    if (code == NakCode::kRemoteAccessError) {
        ++e_.counters().rem_access_err;
    } else if (code == NakCode::kInvalidRequest) {
        ++e_.counters().rem_inv_req;
    }
    const uint32_t psn = s.epsn;
    const roce::Aeth aeth = roce::Aeth::nak(s.msn, code);
    e_.enter_error(qp, ev);
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(Opcode::kAck);
    t.bth.psn = psn;
    t.aeth = aeth;
    e_.send(qp, t, {});
}

bool Responder::emit(Qp& qp, RespJob job) {
    auto& q = qp.resp.outq;
    if (job.kind == RespJob::Kind::kAck && !q.empty() && q.back().kind == RespJob::Kind::kAck &&
        q.back().aeth.type() == roce::AethType::kAck && job.aeth.type() == roce::AethType::kAck) {
        q.back() = job;  // coalesce: the newer ACK covers the older one
        return true;
    }
    // Selective repeat: an ACK or SACK waiting is replaced by a newer one (4.10).
    const auto cumulative = [](const RespJob& j) {
        return j.kind == RespJob::Kind::kSack ||
               (j.kind == RespJob::Kind::kAck && j.aeth.type() == roce::AethType::kAck);
    };
    if (qp.resp.sr == SrRx::kSacking && cumulative(job) && !q.empty() && cumulative(q.back())) {
        q.back() = job;
        return true;
    }
    if (q.size() >= kMaxRespJobs) {
        // Every kind is bounded: a lost ACK or NAK is recovered by the requester's timer.
        ++e_.counters().resp_q_drops;
        return false;
    }
    q.push_back(job);
    run(qp);
    return true;
}

void Responder::schedule(Qp& qp) {
    if (qp.resp.run_scheduled) {
        return;
    }
    qp.resp.run_scheduled = true;
    e_.defer(qp, QpTimer::kRespRun, 0, [this](Qp& q) {
        q.resp.run_scheduled = false;
        run(q);
    });
}

void Responder::stall_for_tlb(Qp& qp) {
    qp.resp.tlb_wait = true;
    if (e_.miss_deliverable()) {
        e_.defer(qp, QpTimer::kRespTlb, kTlbRetryNs, [this](Qp& q) { tlb_resume(q); });
    }
}

void Responder::tlb_resume(Qp& qp) {
    if (qp.resp.tlb_wait) {
        qp.resp.tlb_wait = false;
        run(qp);
    }
}

void Responder::run(Qp& qp) {
    auto& q = qp.resp.outq;
    for (uint32_t budget = kRespBudget; budget != 0 && !q.empty(); --budget) {
        if (qp.resp.tlb_wait || qp.resp.scu_wait) {
            return;  // resumed by tlb_resume() (a fill, or the retry timer) or scu_resume()
        }
        const bool done = send_job(qp, q.front());
        if (qp.state == kQpsErr) {
            q.clear();  // a NAK left instead
            return;
        }
        if (done) {
            q.pop_front();
        }
    }
    if (qp.resp.tlb_wait || qp.resp.scu_wait) {
        return;
    }
    if (!q.empty()) {
        schedule(qp);
    }
}

bool Responder::send_job(Qp& qp, RespJob& job) {
    roce::Transport t;
    switch (job.kind) {
        case RespJob::Kind::kAck:
            t.bth.opcode = static_cast<uint8_t>(Opcode::kAck);
            t.bth.psn = job.psn;
            t.aeth = job.aeth;
            e_.send(qp, t, {});
            if (job.aeth.type() == roce::AethType::kAck) {
                ++e_.counters().acks_sent;
            }
            return true;
        case RespJob::Kind::kAtomicAck:
            t.bth.opcode = static_cast<uint8_t>(Opcode::kAtomicAck);
            t.bth.psn = job.psn;
            t.aeth = job.aeth;
            t.atomic_ack = roce::AtomicAckEth{job.orig};
            e_.send(qp, t, {});
            return true;
        case RespJob::Kind::kSack:
            t.bth.opcode = static_cast<uint8_t>(Opcode::kSrSack);
            t.bth.psn = job.psn;
            t.aeth = job.aeth;
            t.sack = job.sack;
            e_.send(qp, t, {});
            ++e_.counters().sr_sack_sent;
            return true;
        case RespJob::Kind::kRead:
            break;
    }
    // The job's own PMTU, and done when its bytes are sent: every packet but the last is full,
    // so job.sent / pmtu is the packet's index.
    const uint32_t pmtu = job.pmtu;
    const uint32_t k = job.sent / pmtu;
    const uint32_t len = std::min(pmtu, job.length - job.sent);
    const bool first = job.sent == 0;
    const bool last = len == job.length - job.sent;
    payload_.resize(len);
    switch (
        e_.mem().read(job.key, qp.pdn, kAccessRemoteRead, job.va + job.sent, payload_, qp.qpn)) {
        case MemStatus::kOk:
            break;
        case MemStatus::kMiss:
            // The response stream stalls until the driver's fill (or a retry after
            // kTlbRetryNs), as the card's DMA engine waits for a translation. Dropping the rest of
            // the READ instead left the requester to find the gap by its ACK timeout.
            stall_for_tlb(qp);
            return false;
        case MemStatus::kProt:
        case MemStatus::kDma: {
            // The MR went away (or DMA failed) after the request was checked.
            t.bth.opcode = static_cast<uint8_t>(Opcode::kAck);
            t.bth.psn = psn_add(job.psn, k);
            t.aeth = roce::Aeth::nak(qp.resp.msn, NakCode::kRemoteAccessError);
            ++e_.counters().rem_access_err;
            e_.enter_error(qp, kQpErrAccess);  // clears outq: job is gone after this
            e_.send(qp, t, {});
            return true;
        }
    }
    // Through the QP's SCU slot before packetization (docs/scu.md 3).
    std::span<const uint8_t> data = payload_;
    scu::Meta m;
    m.qpn = qp.qpn;
    m.op = scu::kOpReadResp;
    m.offset = job.sent;
    m.psn = psn_add(job.psn, k);
    m.msg_first = first;
    m.msg_last = last;
    m.dir = scu::Dir::kTx;
    m.src = scu::kSrcRdma;
    m.len = static_cast<uint16_t>(len);
    switch (e_.scu_pass(qp, m, data)) {
        case scu::Pass::kBypass:
        case scu::Pass::kDone:
            break;
        case scu::Pass::kHeld:
            qp.resp.scu_wait = true;  // the response stream waits, as for a TLB miss
            e_.scu_hold(qp);
            return false;
        case scu::Pass::kDropped:
        case scu::Pass::kFailed:
            e_.enter_error(qp, kQpErrLocal);  // clears outq: job is gone after this
            return true;
    }
    Opcode op = Opcode::kReadResponseMiddle;
    if (first && last) {
        op = Opcode::kReadResponseOnly;
    } else if (first) {
        op = Opcode::kReadResponseFirst;
    } else if (last) {
        op = Opcode::kReadResponseLast;
    }
    t.bth.opcode = static_cast<uint8_t>(op);
    t.bth.psn = psn_add(job.psn, k);
    if (roce::rc_opcode_info(op)->has(roce::kHdrAeth)) {
        t.aeth = job.aeth;
    }
    e_.send(qp, t, data);
    job.sent += len;
    return last;
}

}  // namespace scenic::rdma
