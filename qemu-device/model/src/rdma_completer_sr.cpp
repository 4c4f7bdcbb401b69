// SPDX-License-Identifier: MIT
// SR_SACK at the requester (docs/selective-repeat.md 5.4): the checks, the cumulative part (as
// an ACK of the PSN before the SACK's), then the scoreboard of the requester.
#include "scenic/rdma_completer.hpp"
#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::psn_diff;

void Completer::sack(Qp& qp, const roce::ParsedPacket& pkt) {
    auto& r = qp.req;
    auto& c = e_.counters();
    if (!path_matches(qp, pkt)) {
        ++c.rx_drop_path;
        return;
    }
    if (r.sr != SrTx::kOn) {
        ++c.sr_drop_not_negotiated;  // only a requester that sends SR packets reads SACKs
        return;
    }
    const uint32_t psn = pkt.transport.bth.psn;
    const roce::SackEth& k = *pkt.transport.sack;
    if (r.pending.empty() || psn_diff(psn, r.snd_una) < 0) {
        return;  // late: a newer ACK or SACK has covered it
    }
    const uint32_t w = 1u << r.sr_window_log2;
    if (psn_diff(psn, r.max_sent) > 0 || psn_diff(k.right_edge, r.max_sent) > 0 ||
        !k.valid(psn, w, r.sr_max_ranges)) {
        ++c.sr_drop_malformed;  // no state changes
        return;
    }
    ++c.sr_sack_rcvd;
    const bool answered = ack_before(qp, psn);  // with the meaning of an ACK of psn - 1
    e_.requester().sr_sacked(qp, psn, k);
    if (!answered) {
        gap(qp);  // implied NAK: a READ / atomic before psn got no response (go-back-N)
    }
    if (qp.state == kQpsErr) {
        return;
    }
    complete_local_errors(qp);
    e_.requester().kick(qp);
    e_.requester().check_drained(qp);
}

}  // namespace scenic::rdma
