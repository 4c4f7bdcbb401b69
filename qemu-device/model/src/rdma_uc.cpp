// SPDX-License-Identifier: MIT
#include "scenic/rdma_uc.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using Msg = ResponderState::Msg;

bool UcTransport::send(Qp& qp) {
    auto& r = qp.req;
    for (uint32_t budget = kTxBudget; budget != 0; --budget) {
        if (r.tlb_wait || r.pace_wait) {
            return true;
        }
        if (r.uc_pkt == 0) {
            // Between messages: SQD begins nothing new, SQE flushes what is posted.
            if (qp.state == kQpsSqd) {
                e_.requester().check_drained(qp);
                return true;
            }
            if (r.sq_next == r.sq_pi && !e_.sq_record(qp)) {
                return true;
            }
            if (qp.state == kQpsSqe) {
                uint8_t op = 0;
                const uint64_t slot =
                    qp.sq_base + uint64_t{r.sq_next & (qp.sq_size() - 1)} * SCENIC_SQ_WQE_BYTES;
                if (!e_.host().dma_read(slot, std::span<uint8_t>(&op, 1))) {
                    ++e_.counters().dma_errors;
                }
                e_.complete_send_err(qp, r.sq_next, op, kWcFlushErr, 0);
                ++r.sq_next;
                continue;
            }
            if (qp.state != kQpsRts) {
                return true;
            }
        } else if (!qp.can_send()) {
            return true;  // a message begun is finished in RTS and SQD only
        }
        if (!send_packet(qp)) {
            return true;
        }
    }
    return false;
}

void UcTransport::refuse(Qp& qp, uint8_t opcode, uint8_t status) {
    // As UD (IBA 10.3.1): the WQE completes in error and the SQ goes to SQE; the RQ keeps
    // working. A message cut short by it is dropped by the receiver at the next FIRST / ONLY.
    e_.complete_send_err(qp, qp.req.sq_next, opcode, status, 0);
    ++qp.req.sq_next;
    qp.req.uc_pkt = 0;
    e_.enter_sqe(qp);
}

bool UcTransport::send_packet(Qp& qp) {
    auto& r = qp.req;
    const uint64_t slot =
        qp.sq_base + uint64_t{r.sq_next & (qp.sq_size() - 1)} * SCENIC_SQ_WQE_BYTES;
    std::array<uint8_t, 64> hdr{};
    if (!e_.host().dma_read(slot, hdr)) {
        ++e_.counters().dma_errors;
        refuse(qp, 0, kWcLocQpOpErr);
        return true;
    }
    // The WQE is read again for every packet (the card keeps no copy); each read is checked as
    // the first was, so a WQE rewritten mid-message fails instead of sending garbage.
    scenic_sq_wqe raw{};
    std::memcpy(&raw, hdr.data(), hdr.size());
    const bool inl = (raw.flags & SCENIC_WQE_F_INLINE) != 0;
    const bool data_op = raw.opcode == SCENIC_WQE_OP_SEND || raw.opcode == SCENIC_WQE_OP_SEND_IMM ||
                         raw.opcode == SCENIC_WQE_OP_WRITE || raw.opcode == SCENIC_WQE_OP_WRITE_IMM;
    // READ and atomics have no UC opcode (IBA 9.2.1).
    if (!data_op || (raw.flags & SCENIC_WQE_F_AV_INLINE) != 0 || raw.num_sge > SCENIC_SQ_MAX_SGE ||
        (inl && raw.length > SCENIC_MAX_INLINE)) {
        refuse(qp, raw.opcode, kWcLocQpOpErr);
        return true;
    }
    if (raw.length > kMaxMsgBytes) {
        refuse(qp, raw.opcode, kWcLocLenErr);
        return true;
    }
    std::array<Sge, SCENIC_SQ_MAX_SGE> sge{};
    unsigned nsge = 0;
    if (!inl) {
        nsge = raw.num_sge;
        if (const uint8_t st = read_send_sges(e_, qp, slot, raw, sge); st != 0) {
            refuse(qp, raw.opcode, st);
            return true;
        }
    }
    const uint32_t n = message_packets(raw.length, qp.pmtu);
    const uint32_t k = r.uc_pkt;
    if (k >= n) {
        refuse(qp, raw.opcode, kWcLocLenErr);  // the WQE shrank under a message begun
        return true;
    }
    if (const uint64_t wait = e_.congestion().pace_delay(qp); wait != 0) {
        e_.requester().pace(qp, wait);
        return false;
    }
    const uint64_t off = uint64_t{k} * qp.pmtu;
    payload_.resize(static_cast<size_t>(std::min<uint64_t>(qp.pmtu, raw.length - off)));
    if (inl) {
        if (!payload_.empty() && !e_.host().dma_read(slot + 64 + off, payload_)) {
            ++e_.counters().dma_errors;
            refuse(qp, raw.opcode, kWcLocQpOpErr);
            return true;
        }
    } else {
        switch (e_.mem().gather(std::span(sge).first(nsge), qp.pdn, off, payload_)) {
            case MemStatus::kOk:
                break;
            case MemStatus::kMiss:
                e_.requester().wait_for_tlb(qp);  // this packet is built again after the fill
                return false;
            case MemStatus::kProt:
            case MemStatus::kDma:
                refuse(qp, raw.opcode, kWcLocProtErr);
                return true;
        }
    }
    const auto op = static_cast<uint8_t>(roce::kUcBase +
                                         static_cast<uint8_t>(message_opcode(raw.opcode, k, n)));
    const roce::OpcodeInfo& info = *roce::opcode_info(op, roce::OpcodeSet::kRc);
    roce::Transport t;
    t.bth.opcode = op;
    t.bth.psn = r.next_psn;
    t.bth.se = info.last && (raw.flags & SCENIC_WQE_F_SOLICITED) != 0;
    if (info.has(roce::kHdrReth)) {
        t.reth = roce::Reth{raw.remote_addr, raw.rkey, raw.length};
    }
    if (info.has(roce::kHdrImmDt)) {
        t.imm = roce::ImmDt{__builtin_bswap32(raw.imm_data_be)};
    }
    e_.congestion().sent(qp, e_.send(qp, t, payload_));
    r.next_psn = roce::psn_add(r.next_psn, 1);
    if (++r.uc_pkt == n) {
        // No ACK: the message is complete once its last packet has left.
        r.uc_pkt = 0;
        ++r.sq_next;
        e_.complete_send_ok(qp);
    }
    return true;
}

void UcTransport::drop(Qp& qp) {
    auto& s = qp.resp;
    if (!s.uc_dropping) {
        ++e_.counters().uc_rx_msg_drops;
    }
    s.msg = Msg::kNone;
    s.uc_dropping = true;
}

void UcTransport::receive(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    if (!path_matches(qp, pkt)) {
        ++e_.counters().rx_drop_path;
        return;
    }
    const roce::OpcodeInfo& info = *pkt.info;
    const uint32_t psn = pkt.transport.bth.psn;
    // IBA 9.7.5 (UC responder): any PSN is accepted as the new expected one; a gap loses the
    // message in progress. Nothing is ever NAKed.
    if (psn != s.epsn && s.msg != Msg::kNone) {
        drop(qp);
    }
    s.epsn = roce::psn_add(psn, 1);
    const Msg kind = info.cls == roce::OpClass::kSend ? Msg::kSend : Msg::kWrite;
    if (info.first) {
        if (s.msg != Msg::kNone) {
            drop(qp);  // the message in progress never got its LAST
        }
        s.msg = Msg::kNone;
        s.uc_dropping = false;
    } else if (s.msg != kind) {
        drop(qp);  // continues no message (its FIRST was lost or dropped)
        if (info.last) {
            s.uc_dropping = false;
        }
        return;
    }
    const bool ok = kind == Msg::kSend ? receive_send(qp, pkt) : receive_write(qp, pkt);
    if (!ok) {
        drop(qp);
        if (info.last) {
            s.uc_dropping = false;  // nothing of this message is left to come
        }
    }
}

bool UcTransport::receive_send(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::OpcodeInfo& info = *pkt.info;
    const auto len = static_cast<uint32_t>(pkt.payload.size());
    if (len > qp.pmtu || (!info.last && len != qp.pmtu)) {
        return false;
    }
    if (info.first) {
        if (!e_.responder().take_rwqe(qp)) {
            return false;  // no receive WQE: UC never sends an RNR NAK
        }
        s.recv_off = 0;
    }
    if (s.rwqe_nsge == ResponderState::kRwqeBad) {
        e_.responder().recv_cqe(qp, kWcLocQpOpErr, SCENIC_CQE_OP_RECV, 0, nullptr);
        e_.enter_error(qp, kQpErrLocal);
        return true;
    }
    const auto sgl = std::span(s.rwqe_sge).first(s.rwqe_nsge);
    uint64_t capacity = 0;
    for (const Sge& g : sgl) {
        capacity += g.length;
    }
    if (s.recv_off + uint64_t{len} > capacity) {
        return false;  // does not fit: dropped, the WQE stays for the next message (as UD)
    }
    switch (e_.mem().scatter(sgl, qp.pdn, s.recv_off, pkt.payload)) {
        case MemStatus::kOk:
            break;
        case MemStatus::kMiss:
            ++e_.counters().rx_drop_tlb_miss;  // no retransmission comes: the message is lost
            return false;
        case MemStatus::kProt:
        case MemStatus::kDma:
            e_.responder().recv_cqe(qp, kWcLocProtErr, SCENIC_CQE_OP_RECV, s.recv_off, nullptr);
            e_.enter_error(qp, kQpErrLocal);
            return true;
    }
    s.recv_off += len;
    s.msg = info.last ? Msg::kNone : Msg::kSend;
    if (info.last) {
        ++s.msn;
        e_.responder().recv_cqe(qp, kWcSuccess, SCENIC_CQE_OP_RECV, s.recv_off, &pkt);
    }
    return true;
}

bool UcTransport::receive_write(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& s = qp.resp;
    const roce::OpcodeInfo& info = *pkt.info;
    const auto len = static_cast<uint32_t>(pkt.payload.size());
    if (info.first) {
        const roce::Reth& reth = *pkt.transport.reth;
        if (reth.dma_length > kMaxMsgBytes) {
            return false;
        }
        if (reth.dma_length != 0 &&
            ((qp.access & kAccessRemoteWrite) == 0 ||
             !e_.mem().allowed(reth.rkey, qp.pdn, reth.va, reth.dma_length, kAccessRemoteWrite))) {
            ++e_.counters().rem_access_err;  // dropped; the QP stays up (no NAK on UC)
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
        return false;
    }
    const bool imm = info.has(roce::kHdrImmDt);
    if (imm && !e_.responder().take_rwqe(qp)) {
        return false;  // the bytes already written stay, as IBA allows
    }
    if (len != 0) {
        switch (e_.mem().write(s.write_key, qp.pdn, kAccessRemoteWrite, s.write_va, pkt.payload)) {
            case MemStatus::kOk:
                break;
            case MemStatus::kMiss:
                ++e_.counters().rx_drop_tlb_miss;
                return false;
            case MemStatus::kProt:
                ++e_.counters().rem_access_err;
                return false;
            case MemStatus::kDma:
                return false;
        }
    }
    s.write_va += len;
    s.write_left -= len;
    s.msg = info.last ? Msg::kNone : Msg::kWrite;
    if (info.last) {
        ++s.msn;
        if (imm) {
            // byte_len of a WRITE with immediate is the message length, as on RC.
            e_.responder().recv_cqe(qp, kWcSuccess, SCENIC_CQE_OP_RECV_WRITE_IMM, s.write_total,
                                    &pkt);
        }
    }
    return true;
}

}  // namespace scenic::rdma
