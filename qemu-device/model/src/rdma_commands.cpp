// SPDX-License-Identifier: MIT
// The RDMA block's command mailbox (uapi/scenic_rdma.h, enum scenic_rdma_cmd): object tables
// and QP state transitions. Every argument is validated; a refused command changes nothing.
#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "scenic/rdma_engine.hpp"

namespace scenic::rdma {

namespace {

uint64_t u64(uint32_t lo, uint32_t hi) { return uint64_t{hi} << 32 | lo; }

bool aligned(uint64_t v, uint64_t a) { return (v & (a - 1)) == 0; }

bool valid_mtu(uint32_t m) { return m >= 256 && m <= 4096 && (m & (m - 1)) == 0; }

// IBA's QP state diagram for RC (modify_qp; ib_modify_qp_is_ok without the attribute masks).
bool transition_ok(uint32_t from, uint32_t to) {
    if (to == SCENIC_QPS_RESET || to == SCENIC_QPS_ERR) {
        return true;
    }
    switch (from) {
        case SCENIC_QPS_RESET:
            return to == SCENIC_QPS_INIT;
        case SCENIC_QPS_INIT:
            return to == SCENIC_QPS_INIT || to == SCENIC_QPS_RTR;
        case SCENIC_QPS_RTR:
            return to == SCENIC_QPS_RTS;
        case SCENIC_QPS_RTS:
        case SCENIC_QPS_SQD:
            return to == SCENIC_QPS_RTS || to == SCENIC_QPS_SQD;
        case SCENIC_QPS_SQE:
            return to == SCENIC_QPS_RTS;
        default:
            return false;
    }
}

}  // namespace

uint32_t Engine::command(uint32_t op, const CmdArgs& a, CmdResults& res) {
    res = {};
    switch (op) {
        case SCENIC_RDMA_CMD_CREATE_CQ: {
            if (a[0] >= kMaxCq) {
                return SCENIC_RDMA_ERR_BAD_INDEX;
            }
            const uint64_t base = u64(a[1], a[2]);
            const uint64_t dbrec = u64(a[4], a[5]);
            if (a[3] > kMaxCqRingLog2 || base == 0 || !aligned(base, SCENIC_CQE_BYTES) ||
                !aligned(dbrec, 8)) {
                return SCENIC_RDMA_ERR_BAD_ARG;
            }
            return cqs_.create(a[0], base, a[3], dbrec) ? SCENIC_RDMA_OK : SCENIC_RDMA_ERR_BUSY;
        }
        case SCENIC_RDMA_CMD_DESTROY_CQ: {
            const Cq* cq = a[0] < kMaxCq ? cqs_.find(a[0]) : nullptr;
            if (a[0] >= kMaxCq) {
                return SCENIC_RDMA_ERR_BAD_INDEX;
            }
            if (!cq) {
                return SCENIC_RDMA_ERR_NOT_FOUND;
            }
            if (cq->users != 0) {
                return SCENIC_RDMA_ERR_BUSY;
            }
            cqs_.destroy(a[0]);
            return SCENIC_RDMA_OK;
        }
        case SCENIC_RDMA_CMD_CREATE_QP:
            return create_qp(a);
        case SCENIC_RDMA_CMD_MODIFY_QP:
            return modify_qp(a);
        case SCENIC_RDMA_CMD_QUERY_QP: {
            Qp* q = nullptr;
            if (const uint32_t err = command_qp(a[0], q); err != SCENIC_RDMA_OK) {
                return err;
            }
            const bool started = q->state == SCENIC_QPS_RTS || q->state == SCENIC_QPS_SQD ||
                                 q->state == SCENIC_QPS_SQE || q->state == SCENIC_QPS_ERR;
            res = {q->state, started ? q->req.next_psn : q->sq_psn, q->resp.epsn, q->scu};
            return SCENIC_RDMA_OK;
        }
        case SCENIC_RDMA_CMD_QUERY_QP_CC: {
            Qp* q = nullptr;
            if (const uint32_t err = command_qp(a[0], q); err != SCENIC_RDMA_OK) {
                return err;
            }
            res = {static_cast<uint32_t>(q->cc.rc), static_cast<uint32_t>(q->cc.rt), q->cc.alpha,
                   q->cc.cnps};
            return SCENIC_RDMA_OK;
        }
        case SCENIC_RDMA_CMD_DESTROY_QP:
            return destroy_qp(a);
        case SCENIC_RDMA_CMD_REG_MR:
            return reg_mr(a);
        case SCENIC_RDMA_CMD_DEREG_MR:
            if ((a[0] >> 8) >= kMaxMr) {
                return SCENIC_RDMA_ERR_BAD_INDEX;
            }
            return mem_.remove(a[0]) ? SCENIC_RDMA_OK : SCENIC_RDMA_ERR_NOT_FOUND;
        case SCENIC_RDMA_CMD_TLB_FILL:
            return tlb_fill(a);
        case SCENIC_RDMA_CMD_TLB_FILL_PAGES:
            return tlb_fill_pages(a);
        default:
            return SCENIC_RDMA_ERR_BAD_OP;
    }
}

uint32_t Engine::create_qp(const CmdArgs& a) {
    const uint32_t qpn = a[0];
    if (qpn < SCENIC_RDMA_RSVD_QPS || qpn >= kMaxQp || a[7] >= kMaxCq || a[8] >= kMaxCq) {
        return SCENIC_RDMA_ERR_BAD_INDEX;
    }
    const uint64_t sq = u64(a[1], a[2]);
    const uint64_t rq = u64(a[4], a[5]);
    const uint64_t status = u64(a[11], a[12]);
    const uint64_t dbrec = u64(a[13], a[14]);
    if (a[3] > kMaxWqRingLog2 || a[6] > kMaxWqRingLog2 || !aligned(sq, 64) || !aligned(rq, 64) ||
        !aligned(status, 8) || status == 0 || !aligned(dbrec, 8)) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    if (qps_[qpn]) {
        return SCENIC_RDMA_ERR_BUSY;
    }
    Cq* scq = cqs_.find(a[7]);
    Cq* rcq = cqs_.find(a[8]);
    if (!scq || !rcq) {
        return SCENIC_RDMA_ERR_NOT_FOUND;
    }
    auto q = std::make_unique<Qp>();
    q->qpn = qpn;
    q->generation = next_generation_++;
    q->sq_base = sq;
    q->sq_log2 = a[3];
    q->rq_base = rq;
    q->rq_log2 = a[6];
    q->send_cqn = a[7];
    q->recv_cqn = a[8];
    q->pdn = a[9];
    q->scu = a[10];
    q->status_page = status;
    q->dbrec = dbrec;
    q->path.src_mac = config_.mac;
    ++scq->users;
    ++rcq->users;
    qps_[qpn] = std::move(q);
    return SCENIC_RDMA_OK;
}

// The QP a command names: BAD_INDEX outside the QPs a command may name, NOT_FOUND if absent.
uint32_t Engine::command_qp(uint32_t qpn, Qp*& q) const {
    if (qpn < SCENIC_RDMA_RSVD_QPS || qpn >= kMaxQp) {
        return SCENIC_RDMA_ERR_BAD_INDEX;
    }
    q = qp(qpn);
    return q ? SCENIC_RDMA_OK : SCENIC_RDMA_ERR_NOT_FOUND;
}

uint32_t Engine::destroy_qp(const CmdArgs& a) {
    Qp* q = nullptr;
    if (const uint32_t err = command_qp(a[0], q); err != SCENIC_RDMA_OK) {
        return err;
    }
    for (const uint32_t cqn : {q->send_cqn, q->recv_cqn}) {
        if (Cq* cq = cqs_.find(cqn); cq && cq->users != 0) {
            --cq->users;
        }
    }
    arb_.forget(*q);
    retire(qps_[a[0]]);  // freed once the call into the card returns (a caller may hold it)
    return SCENIC_RDMA_OK;
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

uint32_t Engine::modify_qp(const CmdArgs& a) {
    Qp* q = nullptr;
    if (const uint32_t err = command_qp(a[0], q); err != SCENIC_RDMA_OK) {
        return err;
    }
    const uint32_t m = a[1];
    constexpr uint32_t kKnown = (SCENIC_QP_ATTR_AV << 1) - 1;
    if ((m & ~kKnown) != 0) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    // Validate everything before changing anything.
    if ((m & SCENIC_QP_ATTR_STATE) && a[2] > SCENIC_QPS_ERR) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    if (((m & SCENIC_QP_ATTR_DEST_QPN) && a[3] > kPsnMask) ||
        ((m & SCENIC_QP_ATTR_SQ_PSN) && a[4] > kPsnMask) ||
        ((m & SCENIC_QP_ATTR_RQ_PSN) && a[5] > kPsnMask) ||
        ((m & SCENIC_QP_ATTR_PATH_MTU) && !valid_mtu(a[6])) ||
        ((m & SCENIC_QP_ATTR_ACCESS) && (a[8] & 0xf0) != 0)) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    const uint32_t to = (m & SCENIC_QP_ATTR_STATE) ? a[2] : q->state;
    if ((m & SCENIC_QP_ATTR_STATE) && !transition_ok(q->state, to)) {
        return SCENIC_RDMA_ERR_BAD_STATE;
    }
    // IBA (ib_modify_qp_is_ok): PATH_MTU only before traffic (RESET / INIT, INIT -> RTR); the
    // PSNs of the messages in flight were counted with the old one.
    if ((m & SCENIC_QP_ATTR_PATH_MTU) && q->state != SCENIC_QPS_RESET &&
        q->state != SCENIC_QPS_INIT) {
        return SCENIC_RDMA_ERR_BAD_STATE;
    }
    if (m & SCENIC_QP_ATTR_DEST_QPN) q->dest_qpn = a[3];
    if (m & SCENIC_QP_ATTR_SQ_PSN) q->sq_psn = a[4];
    if (m & SCENIC_QP_ATTR_RQ_PSN) {
        q->rq_psn = a[5];
        if (q->state == SCENIC_QPS_RESET || q->state == SCENIC_QPS_INIT) {
            q->resp.epsn = a[5];
        }
    }
    if (m & SCENIC_QP_ATTR_PATH_MTU) q->pmtu = a[6];
    if (m & SCENIC_QP_ATTR_TIMEOUT) q->timeout = static_cast<uint8_t>(a[7] & 0x1f);
    if (m & SCENIC_QP_ATTR_RETRY_CNT) q->retry_cnt = static_cast<uint8_t>((a[7] >> 8) & 7);
    if (m & SCENIC_QP_ATTR_RNR_RETRY) q->rnr_retry = static_cast<uint8_t>((a[7] >> 16) & 7);
    if (m & SCENIC_QP_ATTR_MIN_RNR_TIMER) {
        q->min_rnr_timer = static_cast<uint8_t>((a[7] >> 24) & 0x1f);
    }
    if (m & SCENIC_QP_ATTR_ACCESS) q->access = static_cast<uint8_t>(a[8]);
    if (m & SCENIC_QP_ATTR_MAX_RD_ATOMIC) q->max_rd_atomic = static_cast<uint8_t>(a[8] >> 8);
    if (m & SCENIC_QP_ATTR_MAX_DEST_RD_ATOMIC) {
        q->max_dest_rd_atomic = static_cast<uint8_t>(a[8] >> 16);
    }
    if (m & SCENIC_QP_ATTR_AV) {
        roce::PathContext& p = q->path;
        std::array<uint8_t, 16> dgid{};
        std::array<uint8_t, 16> sgid{};
        std::memcpy(dgid.data(), &a[9], 16);
        std::memcpy(sgid.data(), &a[13], 16);
        p.dst_mac = {static_cast<uint8_t>(a[18] >> 8),  static_cast<uint8_t>(a[18]),
                     static_cast<uint8_t>(a[17] >> 24), static_cast<uint8_t>(a[17] >> 16),
                     static_cast<uint8_t>(a[17] >> 8),  static_cast<uint8_t>(a[17])};
        p.ttl = static_cast<uint8_t>(a[18] >> 16);
        const auto tclass = static_cast<uint8_t>(a[18] >> 24);
        p.dscp = static_cast<uint8_t>(tclass >> 2);
        p.ecn = static_cast<uint8_t>(tclass & 3);
        p.flow_label = a[19] & 0xfffff;
        const bool v4 = (a[19] & 0x80000000u) != 0;
        p.ip_version = v4 ? roce::IpVersion::kV4 : roce::IpVersion::kV6;
        p.src_ip = {};
        p.dst_ip = {};
        if (v4) {  // IPv4-mapped GID ::ffff:a.b.c.d
            std::copy_n(sgid.begin() + 12, 4, p.src_ip.begin());
            std::copy_n(dgid.begin() + 12, 4, p.dst_ip.begin());
        } else {
            p.src_ip = sgid;
            p.dst_ip = dgid;
        }
    }
    q->path.src_mac = config_.mac;
    q->path.udp_sport = roce::rdma_get_udp_sport(q->path.flow_label, q->qpn, q->dest_qpn);

    if ((m & SCENIC_QP_ATTR_STATE) && to != q->state) {
        const uint32_t from = q->state;
        if (to == SCENIC_QPS_RESET) {
            reset_qp_queues(*q);
            set_state(*q, to);
        } else if (to == SCENIC_QPS_ERR) {
            enter_error(*q, 0);
        } else {
            if (to == SCENIC_QPS_RTR) {
                q->resp.epsn = q->rq_psn;
            }
            set_state(*q, to);
            if (to == SCENIC_QPS_RTS && from == SCENIC_QPS_RTR) {
                req_.start(*q);
            }
            if (to == SCENIC_QPS_RTS) {
                req_.kick(*q);
            }
            if (to == SCENIC_QPS_SQD) {
                q->req.drained_event = false;
                req_.check_drained(*q);
            }
        }
    }
    return SCENIC_RDMA_OK;
}

uint32_t Engine::reg_mr(const CmdArgs& a) {
    const uint32_t key = a[0];
    if ((key >> 8) >= kMaxMr) {
        return SCENIC_RDMA_ERR_BAD_INDEX;
    }
    Mr mr;
    mr.key = key;
    mr.pdn = a[1];
    mr.iova = u64(a[2], a[3]);
    mr.length = u64(a[4], a[5]);
    mr.access = a[6];
    if ((mr.access & ~0xfu) != 0 || mr.iova + mr.length < mr.iova) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    return mem_.add(mr) ? SCENIC_RDMA_OK : SCENIC_RDMA_ERR_BUSY;
}

uint32_t Engine::tlb_fill(const CmdArgs& a) {
    const std::array<uint64_t, 1> dma{u64(a[3], a[4])};
    return fill_translations(a[0], u64(a[1], a[2]), dma);
}

// One command for a run of pages (a miss fills the missing page and those after it): the
// per-page TLB_FILL costs a dozen register accesses, this one a table DMA.
uint32_t Engine::tlb_fill_pages(const CmdArgs& a) {
    const uint32_t count = a[3];
    const uint64_t table = u64(a[4], a[5]);
    if (count == 0 || count > SCENIC_RDMA_TLB_FILL_MAX || !aligned(table, 8)) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    std::array<uint8_t, SCENIC_RDMA_TLB_FILL_MAX * 8> raw{};
    if (!host_.dma_read(table, std::span(raw.data(), size_t{count} * 8))) {
        return SCENIC_RDMA_ERR_BAD_ARG;
    }
    std::array<uint64_t, SCENIC_RDMA_TLB_FILL_MAX> dma{};
    for (uint32_t i = 0; i < count; ++i) {
        for (unsigned b = 0; b < 8; ++b) {  // __le64
            dma[i] |= uint64_t{raw[size_t{i} * 8 + b]} << (8 * b);
        }
    }
    return fill_translations(a[0], u64(a[1], a[2]), std::span(dma).first(count));
}

// Pages [page, page + dma.size()) of MR key: the whole run and every address are checked
// before the first entry is written, so a refused fill changes nothing.
uint32_t Engine::fill_translations(uint32_t key, uint64_t page, std::span<const uint64_t> dma) {
    if ((key >> 8) >= kMaxMr) {
        return SCENIC_RDMA_ERR_BAD_INDEX;
    }
    const Mr* mr = mem_.find(key);
    if (!mr) {
        return SCENIC_RDMA_ERR_NOT_FOUND;
    }
    const uint64_t first = mr->iova & ~(kPageSize - 1);
    if (dma.empty() || !aligned(page, kPageSize) || mr->length == 0 || page < first ||
        page >= mr->iova + mr->length ||
        (mr->iova + mr->length - 1 - page) / kPageSize < dma.size() - 1 ||
        !std::ranges::all_of(dma, [](uint64_t d) { return aligned(d, kPageSize); })) {
        return SCENIC_RDMA_ERR_BAD_ARG;
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
    return SCENIC_RDMA_OK;
}

}  // namespace scenic::rdma
