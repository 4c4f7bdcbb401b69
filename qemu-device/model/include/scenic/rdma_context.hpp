// SPDX-License-Identifier: MIT
// The RDMA engine's on-card state: QP, CQ and MR contexts and the engine counters, as the
// hardware's context memories hold them. Formats in host memory are uapi/scenic_rdma.h.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "scenic/admin.hpp"
#include "scenic/regs.hpp"
#include "scenic/roce/packet.hpp"
#include "scenic/wire_counters.hpp"
#include "uapi/scenic_rdma.h"

namespace scenic::rdma {

inline constexpr uint32_t kMaxQp = regs::rdma::kMaxQpDefault;
inline constexpr uint32_t kMaxCq = regs::rdma::kMaxCqDefault;
inline constexpr uint32_t kMaxMr = regs::rdma::kMaxMrDefault;
inline constexpr uint32_t kTlbEntries = regs::rdma::kTlbEntriesDefault;
inline constexpr uint32_t kMaxAh = regs::rdma::kMaxAhDefault;
inline constexpr uint32_t kMaxSrq = regs::rdma::kMaxSrqDefault;
inline constexpr uint32_t kMaxMw = regs::rdma::kMaxMwDefault;
// Bit 23 of a key's 24-bit index: the key is a memory window's (rkey only).
inline constexpr uint32_t kMwIndexBit = 0x800000;
inline constexpr uint64_t kPageSize = uint64_t{1} << SCENIC_RDMA_PAGE_SHIFT;
// Access bits of MRs and QPs as the data path checks them: the card's ACCESS_* codes (REG_MR,
// MODIFY_QP).
inline constexpr uint32_t kAccessLocalWrite = static_cast<uint32_t>(admin::Access::kLocalWrite);
inline constexpr uint32_t kAccessRemoteWrite = static_cast<uint32_t>(admin::Access::kRemoteWrite);
inline constexpr uint32_t kAccessRemoteRead = static_cast<uint32_t>(admin::Access::kRemoteRead);
inline constexpr uint32_t kAccessRemoteAtomic = static_cast<uint32_t>(admin::Access::kRemoteAtomic);
inline constexpr uint32_t kAccessMwBind = static_cast<uint32_t>(admin::Access::kMwBind);
inline constexpr uint32_t kAccessRemote =
    kAccessRemoteWrite | kAccessRemoteRead | kAccessRemoteAtomic;

inline constexpr unsigned kMaxWqRingLog2 = 15;         // SQ / RQ: up to 32768 WQEs
inline constexpr unsigned kMaxCqRingLog2 = 16;         // CQ: up to 65536 CQEs
inline constexpr uint32_t kMaxMsgBytes = 0x80000000u;  // IBA: 2^31
// card: bytes of new PSNs in flight over all QPs (rdma_tx_arbiter), 64 PSNs at PMTU 1024
inline constexpr uint32_t kCardWindowBytes = 64 * 1024;
// ... while a single QP sends and none waits: its own window (kWindowPsns) is the bound then
inline constexpr uint32_t kSoloWindowBytes = 1024 * 1024;
inline constexpr uint32_t kWindowPsns = 128;  // requester: PSNs in flight, at most
// Congestion window (AIMD, in PSNs): the wire is lossy (the host's UDP buffers overflow when many
// QPs burst), so a QP that sees loss backs off instead of resending a full window into it.
inline constexpr uint32_t kCwndInit = 16;
inline constexpr uint32_t kCwndMin = 2;
inline constexpr uint32_t kMaxPendingWqes = 128;  // requester: WQEs fetched, not done
inline constexpr uint32_t kAckReqEvery = 16;      // AckReq at least every N packets
inline constexpr uint32_t kTxBudget = 64;         // packets per requester run
inline constexpr uint32_t kRespBudget = 64;       // packets per responder run
inline constexpr uint32_t kFlushBudget = 64;      // flush CQEs per run
// queued READ / atomic responses (and the ACKs between them)
inline constexpr uint32_t kMaxRespJobs = SCENIC_RDMA_MAX_RD_ATOMIC + 16;
// responder: READ / atomic requests remembered for duplicates (rdma_responder.hpp)
inline constexpr unsigned kRdResources = SCENIC_RDMA_MAX_RD_ATOMIC;
// responder: a duplicate SEND / WRITE is re-ACKed at most once per this many duplicates or
// this much time, besides the first one after progress
inline constexpr uint32_t kReAckEvery = 16;
inline constexpr uint64_t kReAckIntervalNs = 10'000;
inline constexpr uint64_t kTlbRetryNs = 100'000;  // requester: retry a missing page
inline constexpr uint32_t kPsnMask = 0x00ffffffu;

// Selective repeat (docs/selective-repeat.md section 12): the handshake of section 2.
inline constexpr uint8_t kSrWindowLog2 = 9;  // W = 512 PSNs, the largest a hello offers
inline constexpr uint8_t kSrMinWindowLog2 = 6;
inline constexpr uint8_t kSrMaxRanges = 8;
inline constexpr uint8_t kSrVersion = 1;
inline constexpr uint8_t kSrFlagReadResponses = 0x01;
inline constexpr uint16_t kSrVendor = 0x10ee;
inline constexpr uint32_t kSrHelloTries = 3;
// Hellos at t0, t0 + 1 ms and t0 + 11 ms; the direction gives up 10 ms after the last.
inline constexpr std::array<uint64_t, kSrHelloTries> kSrHelloGapNs = {1'000'000, 10'000'000,
                                                                      10'000'000};
inline constexpr uint64_t kSrHelloWaitNs = 10'000'000;
// ... and the recovery of sections 4 and 5
inline constexpr uint32_t kSrWindowMax = 1u << kSrWindowLog2;  // bitmap size (PSNs)
inline constexpr uint32_t kSrReorder = 3;          // PSNs: a gap this far behind is a loss (5.5)
inline constexpr uint32_t kSrSackEvery = 4;        // out-of-order packets per SACK (4.10)
inline constexpr uint64_t kSrProbeMinNs = 20'000;  // probe timer floor (5.6)
inline constexpr uint32_t kSrMaxProbes = 2;        // probes in a row without progress
inline constexpr uint32_t kSrLossBurst = 4;        // PSNs lost in one detection that cut cwnd (5.9)
using SrBitmap = std::bitset<kSrWindowMax>;

// Congestion control (DCQCN; rdma_congestion.hpp). Rates in kb/s: the line rate is the rate of
// a QP that never saw a CNP, and it is not paced. Parameters of Zhu et al. 2015 (SIGCOMM).
inline constexpr uint64_t kLineRateKbps = 100'000'000;  // 100 Gb/s = 12.5 bytes/ns
inline constexpr uint64_t kCcRateMinKbps = 100'000;     // 100 Mb/s floor of a cut
inline constexpr uint64_t kCcRateAiKbps = 40'000;       // additive increase step
inline constexpr uint64_t kCcRateHaiKbps = 100'000;     // hyper increase step
inline constexpr unsigned kCcGShift = 8;                // g = 1/256
inline constexpr unsigned kCcFastRecovery = 5;          // F: stages of fast recovery
inline constexpr uint64_t kCcAlphaPeriodNs = 55'000;    // K: alpha decay timer
inline constexpr uint64_t kCcRatePeriodNs = 55'000;     // T: rate increase timer
inline constexpr uint64_t kCcByteThresh = 10'000'000;   // B: byte counter
inline constexpr uint64_t kCcBurstBytes = 8192;         // token bucket depth
inline constexpr uint64_t kCnpIntervalNs = 50'000;      // NP: one CNP per QP per 50 us

// CQE status values: the card's own codes (admin::CqeStatus; the driver and provider
// translate them).
enum WcStatus : uint8_t {
    kWcSuccess = static_cast<uint8_t>(admin::CqeStatus::kSuccess),
    kWcLocLenErr = static_cast<uint8_t>(admin::CqeStatus::kLocLen),
    kWcLocQpOpErr = static_cast<uint8_t>(admin::CqeStatus::kLocQpOp),
    kWcLocProtErr = static_cast<uint8_t>(admin::CqeStatus::kLocProt),
    kWcFlushErr = static_cast<uint8_t>(admin::CqeStatus::kFlushed),
    kWcBadRespErr = static_cast<uint8_t>(admin::CqeStatus::kBadResp),
    kWcRemInvReqErr = static_cast<uint8_t>(admin::CqeStatus::kRemInvReq),
    kWcRemAccessErr = static_cast<uint8_t>(admin::CqeStatus::kRemAccess),
    kWcRemOpErr = static_cast<uint8_t>(admin::CqeStatus::kRemOp),
    kWcRetryExcErr = static_cast<uint8_t>(admin::CqeStatus::kRetryExc),
    kWcRnrRetryExcErr = static_cast<uint8_t>(admin::CqeStatus::kRnrRetryExc),
    kWcMwBindErr = static_cast<uint8_t>(admin::CqeStatus::kMwBind),
};

// Why the card moved a QP to ERR (AEQ QP_ERROR.code, QUERY_QP.last_err; 0: no event).
enum QpErrCode : uint32_t {
    kQpErrNone = 0,
    kQpErrReqInvalid = static_cast<uint32_t>(admin::QpErr::kReqInvalid),
    kQpErrAccess = static_cast<uint32_t>(admin::QpErr::kAccess),
    kQpErrLocal = static_cast<uint32_t>(admin::QpErr::kLocal),
    // AEQ only: an SRQ QP in ERR wrote its last receive completion (never QUERY_QP.last_err).
    kQpErrLastWqe = static_cast<uint32_t>(admin::QpErr::kLastWqe),
};

// IBA 10.9.3 (rxe's pkey_match): the low 15 bits equal and not 0, and at least one of the two
// keys a full member (bit 15).
[[nodiscard]] inline bool pkey_match(uint16_t packet, uint16_t qp) {
    return (packet & 0x7fff) != 0 && (packet & 0x7fff) == (qp & 0x7fff) &&
           ((packet | qp) & 0x8000) != 0;
}

// QP transports: CREATE_QP.type.
inline constexpr uint8_t kQpTypeRc = static_cast<uint8_t>(admin::QpType::kRc);
inline constexpr uint8_t kQpTypeUd = static_cast<uint8_t>(admin::QpType::kUd);
inline constexpr uint8_t kQpTypeUc = static_cast<uint8_t>(admin::QpType::kUc);

// QP states: the card's values (admin::QpState), in the status page and the commands.
inline constexpr uint32_t kQpsReset = static_cast<uint32_t>(admin::QpState::kReset);
inline constexpr uint32_t kQpsInit = static_cast<uint32_t>(admin::QpState::kInit);
inline constexpr uint32_t kQpsRtr = static_cast<uint32_t>(admin::QpState::kRtr);
inline constexpr uint32_t kQpsRts = static_cast<uint32_t>(admin::QpState::kRts);
inline constexpr uint32_t kQpsSqd = static_cast<uint32_t>(admin::QpState::kSqd);
inline constexpr uint32_t kQpsSqe = static_cast<uint32_t>(admin::QpState::kSqe);
inline constexpr uint32_t kQpsErr = static_cast<uint32_t>(admin::QpState::kErr);

// The RDMA block's 32-bit counters (registers 0x100..), wrapping as on the card.
struct Counters {
    uint32_t tx_pkts = 0;
    uint32_t rx_pkts = 0;
    uint32_t rx_drop_icrc = 0;
    uint32_t rx_drop_qp = 0;
    uint32_t rx_drop_malformed = 0;
    uint32_t rx_drop_tlb_miss = 0;
    uint32_t seq_nak_sent = 0;
    uint32_t seq_nak_rcvd = 0;
    uint32_t rnr_nak_sent = 0;
    uint32_t rnr_nak_rcvd = 0;
    uint32_t retransmits = 0;
    uint32_t ack_timeouts = 0;
    uint32_t dup_requests = 0;
    uint32_t rem_access_err = 0;
    uint32_t rem_inv_req = 0;
    uint32_t acks_sent = 0;
    uint32_t tlb_hits = 0;
    uint32_t tlb_misses = 0;
    uint32_t tlb_evictions = 0;
    uint32_t cqe_written = 0;
    uint32_t cq_overruns = 0;
    wire::Counters wire;  // the fault-injecting wire (scenic/wire_faults.hpp)
    uint32_t cnp_sent = 0;
    uint32_t cnp_rcvd = 0;
    uint32_t ecn_ce_rcvd = 0;
    uint32_t cc_rate_cuts = 0;
    uint32_t rx_drop_pkey = 0;
    uint32_t loopback_frames = 0;  // frames to the card itself, turned around (rdma_loopback)
    uint32_t loopback_drops = 0;   // ... dropped: the loopback queue was full
    // UD (rdma_ud): registers 0x1a8..
    uint32_t rx_drop_qkey = 0;
    uint32_t ud_rx_no_wqe = 0;
    uint32_t ud_rx_too_long = 0;
    uint32_t ud_tx_oversize = 0;
    uint32_t ud_tx_pkts = 0;
    uint32_t ud_rx_pkts = 0;
    // Not registers (no slot in the map): kept for tests and the report.
    uint32_t db_ignored = 0;    // doorbell writes (or records) at unknown offsets / sizes / objects
    uint32_t dbrec_reads = 0;   // doorbell records read from host memory (scenic_qp/cq_dbrec)
    uint32_t dma_errors = 0;    // failed DMA accesses of any kind
    uint32_t rx_drop_path = 0;  // IP addresses / GIDs not those of the QP's address vector
    uint32_t dup_ignored = 0;   // duplicate READ / atomic the responder does not remember
    uint32_t resp_q_drops = 0;  // responder output refused: its queue was full
    uint32_t rnr_nak_merged = 0;  // RNR NAK not queued: one was already waiting to leave
    // UC messages the responder dropped (PSN gap, no receive WQE, too long, rkey, TLB miss):
    // UC never NAKs (rdma_uc)
    uint32_t uc_rx_msg_drops = 0;
    // Selective repeat (docs/selective-repeat.md 8.4): registers 0x1c0.. (the rest of 8.4 comes
    // with the SACK engine)
    uint32_t sr_hello_sent = 0;
    uint32_t sr_hello_acked = 0;          // valid hello-acks received (a direction switched on)
    uint32_t sr_hello_unanswered = 0;     // directions that gave up (OFF_FOR_LIFE)
    uint32_t sr_drop_malformed = 0;       // bad SRHELLO or SRETH
    uint32_t sr_drop_not_negotiated = 0;  // vendor opcodes to a QP without SR
    uint32_t sr_fallbacks = 0;            // sequence NAKs received by an SR requester
    uint32_t sr_sack_sent = 0;
    uint32_t sr_sack_rcvd = 0;      // accepted SACKs
    uint32_t sr_ooo_placed = 0;     // packets placed at d > 0
    uint32_t sr_retransmits = 0;    // PSNs resent selectively (also in retransmits)
    uint32_t sr_probes = 0;         // probe-timer resends
    uint32_t sr_drop_order = 0;     // out of order and not placed out of order in this slice
    uint32_t sr_drop_fence = 0;     // dropped by the order fence
    uint32_t sr_drop_resource = 0;  // TLB miss at d > 0
    uint32_t sr_drop_window = 0;    // d >= W
    uint32_t sr_dup_ooo = 0;        // second copy of a placed PSN
};

struct Mr {
    uint32_t key = 0;
    uint32_t pdn = 0;
    uint64_t iova = 0;
    uint64_t length = 0;
    uint32_t access = 0;    // kAccess*
    uint32_t mw_binds = 0;  // windows bound to it: DEREG_MR is refused while not 0
};

// A memory window (docs/verbs-completeness.md 5.1). Type 1 is usable from ALLOC_MW on (length 0
// until bound); type 2 only between a bind and its invalidation.
struct Mw {
    uint32_t key = 0;  // current rkey: (kMwIndexBit | index) << 8 | tag
    uint32_t pdn = 0;
    uint8_t type = 0;  // 1 or 2
    bool valid = false;
    uint32_t mr_key = 0;  // bound MR, 0: none
    uint64_t va = 0;
    uint64_t length = 0;
    uint32_t access = 0;  // remote kAccess* bits
    uint32_t qpn = 0;     // type 2: the QP it was bound through (remote access only there)
};

// BIND_MW WQE (struct scenic_bind_mw_wqe), as the requester decoded it.
struct MwBind {
    uint32_t new_rkey = 0;
    uint64_t va = 0;
    uint64_t length = 0;
    uint32_t mr_lkey = 0;
    uint32_t access = 0;
    uint8_t type = 0;
};

struct Cq {
    uint64_t base = 0;
    unsigned log2 = 0;
    uint32_t pi = 0;     // next CQE the card writes (free-running)
    uint32_t ci = 0;     // consumer index from the doorbell
    uint64_t dbrec = 0;  // host address of its struct scenic_cq_dbrec, 0: none
    bool armed = false;
    bool solicited_only = false;
    bool overrun = false;  // in error: CQEs are dropped, AEQ CQ_ERROR raised once
    uint32_t users = 0;    // QPs using it
};

// A shared receive queue (CREATE_SRQ): a ring of receive WQEs the QPs created with its srqn
// take from, in ring order.
struct Srq {
    uint32_t srqn = 0;
    uint32_t pdn = 0;
    uint64_t base = 0;
    unsigned log2 = 0;
    unsigned stride = 0;  // WQEs of 64 << stride bytes
    uint32_t limit = 0;   // SRQ_LIMIT when pi - ci drops below it (while armed)
    bool armed = false;
    uint32_t pi = 0;     // producer index: doorbell or record
    uint32_t ci = 0;     // WQEs handed to QPs
    uint64_t dbrec = 0;  // host address of its struct scenic_srq_dbrec, 0: none
    uint32_t users = 0;  // QPs created with it

    [[nodiscard]] uint32_t size() const { return 1u << log2; }
    [[nodiscard]] uint32_t wqe_bytes() const { return uint32_t{SCENIC_RQ_WQE_BYTES} << stride; }
    [[nodiscard]] uint32_t max_sge() const { return SCENIC_RQ_STRIDE_SGES(stride); }
    [[nodiscard]] uint64_t slot(uint32_t idx) const {
        return base + uint64_t{idx & (size() - 1)} * wqe_bytes();
    }
};

struct Sge {
    uint64_t addr = 0;
    uint32_t length = 0;
    uint32_t lkey = 0;
};

// One SQ WQE the requester fetched: what it needs to (re)send and complete it.
struct SendWqe {
    uint32_t idx = 0;  // free-running SQ index
    uint8_t opcode = 0;
    uint8_t flags = 0;
    uint32_t imm = 0;  // as on the wire
    uint32_t length = 0;
    uint32_t rkey = 0;
    uint64_t remote_addr = 0;
    uint64_t compare_add = 0;
    uint64_t swap = 0;
    uint8_t num_sge = 0;
    std::array<Sge, SCENIC_SQ_MAX_SGE> sge{};
    std::vector<uint8_t> inline_data;
    uint32_t first_psn = 0;
    uint32_t npsn = 0;      // PSNs the WQE uses (READ: one per response packet)
    uint8_t local_err = 0;  // CQE status (WcStatus) of a WQE refused before it was sent
    uint8_t syndrome = 0;
    bool sr = false;   // begun after the SR handshake: every (re)send in SR format
    uint32_t rsn = 0;  // SR: receive sequence number (docs/selective-repeat.md 3.1)
    bool ofv = false;  // SR: the order fence (4.4, 5.2) holds it behind PSN ofp
    uint32_t ofp = 0;

    [[nodiscard]] bool is_read() const { return opcode == SCENIC_WQE_OP_READ; }
    [[nodiscard]] bool is_atomic() const {
        return opcode == SCENIC_WQE_OP_ATOMIC_CAS || opcode == SCENIC_WQE_OP_ATOMIC_FAA;
    }
    [[nodiscard]] bool needs_response() const { return is_read() || is_atomic(); }
    [[nodiscard]] uint32_t last_psn() const { return (first_psn + npsn - 1) & kPsnMask; }
};

// Selective repeat handshake, per direction (docs/selective-repeat.md 2.5).
enum class SrTx : uint8_t { kOff, kOffered, kOn, kOffForLife };
enum class SrRx : uint8_t { kOff, kAcked, kSacking };

// Responder output that must leave in PSN order behind READ responses.
struct RespJob {
    enum class Kind : uint8_t { kRead, kAtomicAck, kAck, kSack };
    Kind kind = Kind::kAck;
    uint32_t psn = 0;  // first PSN (READ), the request's PSN (atomic), the acked PSN (ACK)
    uint32_t key = 0;  // READ: rkey
    uint64_t va = 0;
    uint32_t length = 0;
    uint32_t sent = 0;     // READ: bytes already sent
    uint64_t orig = 0;     // atomic: original value
    roce::Aeth aeth;       // ACK / NAK
    uint32_t pmtu = 0;     // READ: the path MTU latched when the request was executed
    uint32_t req_psn = 0;  // READ / atomic: first PSN of the request it answers
    bool replay = false;   // READ / atomic: answers a duplicate (not counted in max_dest_rd_atomic)
    roce::SackEth sack;    // SACK (psn: the epsn it was built at)
};

// A READ / atomic request the responder executed, for duplicates of it (rxe's resources).
struct RdResource {
    bool valid = false;
    bool atomic = false;
    uint32_t psn = 0;   // first PSN
    uint32_t npsn = 1;  // PSNs it covers (READ: response packets)
    uint32_t key = 0;   // READ: rkey, va, length and the PMTU it was answered with
    uint64_t va = 0;
    uint32_t length = 0;
    uint32_t pmtu = 0;
    uint64_t orig = 0;  // atomic: the original value
};

struct RequesterState {
    uint32_t sq_pi = 0;           // doorbell
    uint32_t sq_next = 0;         // next WQE to fetch
    uint64_t completed = 0;       // status-page counter
    std::deque<SendWqe> pending;  // fetched, not completed, in SQ order
    uint32_t next_psn = 0;        // next PSN to assign
    uint32_t tx_psn = 0;          // next PSN to transmit (go-back-N rewinds it)
    uint32_t snd_una = 0;         // oldest PSN not acknowledged / answered
    uint32_t max_sent = 0;        // highest PSN sent + 1, to count retransmits
    uint32_t unasked = 0;         // SEND / WRITE packets sent since the last AckReq
    bool force_ackreq = false;    // the next packet asks for an ACK (ask_for_ack)
    int retry_left = 0;
    int rnr_left = 0;
    bool rnr_wait = false;
    bool tlb_wait = false;
    bool pace_wait = false;  // DCQCN pacer: no tokens, a timer resumes the QP
    bool scu_wait = false;   // the QP's SCU slot cannot take payload (Engine::scu_resumed)
    uint32_t tlb_wait_key = 0;
    bool gap_rewound = false;  // one go-back-N per detected response gap
    bool ack_timer = false;
    bool run_scheduled = false;
    uint64_t last_progress_ns = 0;
    // congestion window: slow start below ssthresh, +1 per window above; halved on loss
    uint32_t cwnd = kCwndInit;
    uint32_t ssthresh = kWindowPsns;
    uint32_t cwnd_acc = 0;     // PSNs acknowledged toward the next +1
    uint32_t cwnd_una = 0;     // snd_una when the window was last grown
    uint32_t recover_psn = 0;  // no second decrease before snd_una passes it
    bool in_recovery = false;
    bool drained_event = false;  // SQD: SQ_DRAINED raised
    // transmit arbiter (rdma_tx_arbiter): PSNs counted in the card's window, queued for a turn
    uint32_t charged = 0;
    bool timed_out = false;  // ACK timeout, no progress since: nothing charged
    bool tx_waiting = false;
    bool tx_granted = false;
    // selective repeat: our sends (rdma_sr)
    SrTx sr = SrTx::kOff;
    uint8_t sr_hellos = 0;       // hellos sent this incarnation
    uint32_t sr_nonce = 0;       // of this incarnation's hellos
    uint8_t sr_window_log2 = 0;  // negotiated (ON)
    uint8_t sr_max_ranges = 0;
    uint32_t next_rsn = 0;  // RSN of the next SEND / WRITE_IMM message (counted from RESET)
    // SR scoreboard (5.4-5.6), bit p mod W: S SACKed, X resent this round; bits of PSNs before
    // sr_base are stale and cleared when sr_base catches up with snd_una.
    SrBitmap sr_sacked;
    SrBitmap sr_resent;
    uint32_t sr_base = 0;
    uint32_t sr_high_sacked = 0;  // highest right_edge seen
    uint32_t sr_round_mark = 0;   // max_sent when this round's first resend left
    bool sr_resend_due = false;   // deemed-lost PSNs wait for a resend
    bool sr_probe_armed = false;
    uint32_t sr_probes = 0;       // probes in a row without progress
    uint64_t sr_progress_ns = 0;  // last cumulative or selective acknowledgement
    bool sr_rtt_valid = false;    // srtt holds a sample
    bool sr_rtt_active = false;   // a sample is being timed
    uint32_t sr_rtt_psn = 0;
    uint64_t sr_rtt_t = 0;
    uint32_t sr_rtt_retx = 0;  // counters().retransmits when it started (Karn)
    uint64_t sr_srtt = 0;      // ns
    uint32_t uc_pkt = 0;       // UC: packets of the WQE at sq_next already sent (rdma_uc)

    // The oldest SQ index the card still holds: a new producer index may not pass it by more
    // than the ring's size.
    [[nodiscard]] uint32_t oldest() const {
        return pending.empty() ? sq_next : pending.front().idx;
    }
};

struct ResponderState {
    uint32_t rq_pi = 0;
    uint32_t rq_ci = 0;
    uint32_t epsn = 0;
    uint32_t msn = 0;
    bool nak_sent = false;  // one sequence (or RNR) NAK per gap
    enum class Msg : uint8_t { kNone, kSend, kWrite };
    Msg msg = Msg::kNone;
    // SEND in progress: the receive WQE being filled
    bool have_rwqe = false;
    uint8_t rwqe_nsge = 0;  // kRwqeBad: num_sge above what the QP's RQ stride holds
    static constexpr uint8_t kRwqeBad = 0xff;
    std::array<Sge, SCENIC_RQ_MAX_SGE> rwqe_sge{};
    uint32_t rwqe_idx = 0;  // SRQ QPs: the SRQ index of the receive WQE in use
    bool last_wqe = false;  // SRQ QPs in ERR: the LAST_WQE_REACHED event was raised
    uint32_t recv_off = 0;
    // WRITE in progress
    uint32_t write_key = 0;
    uint64_t write_va = 0;
    uint32_t write_left = 0;
    uint32_t write_total = 0;
    bool uc_dropping = false;  // UC: the rest of a dropped message is discarded (rdma_uc)
    std::deque<RespJob> outq;
    bool run_scheduled = false;
    bool tlb_wait = false;  // a READ response waits for a TLB fill (outq stalled)
    bool scu_wait = false;  // a READ response waits for the QP's SCU slot (outq stalled)
    std::array<RdResource, kRdResources> res{};
    unsigned res_next = 0;
    // re-ACKs of duplicate SEND / WRITE (Responder::duplicate)
    bool reacked = false;  // a re-ACK was sent since the last new request
    uint32_t dups_since_reack = 0;
    uint64_t last_reack_ns = 0;
    // selective repeat: the peer's sends (rdma_sr)
    SrRx sr = SrRx::kOff;
    uint8_t sr_window_log2 = 0;  // min(ours, the hello's)
    uint8_t sr_max_ranges = 0;
    // SR window (4.1): bit p mod W of R (placed) and E (ends a message) for PSNs after epsn
    SrBitmap sr_placed;
    SrBitmap sr_ends;
    uint32_t sr_right_edge = 0;  // highest placed PSN + 1, or epsn
    uint32_t sr_ooo_since_sack = 0;
};

// DCQCN state of a QP (rdma_congestion): notification point and reaction point.
struct CongestionState {
    bool cnp_sent = false;  // NP: a CNP went out (at last_cnp_ns)
    uint64_t last_cnp_ns = 0;
    bool limited = false;         // RP: a CNP cut the rate and it has not recovered to line rate
    uint64_t rc = kLineRateKbps;  // current rate
    uint64_t rt = kLineRateKbps;  // target rate
    uint32_t alpha = 0x8000;      // 1.0 = scenic::dp::Dcqcn::kAlphaOne
    unsigned i = 0;               // rate-timer stage
    unsigned j = 0;               // byte-counter stage
    uint64_t bytes = 0;           // sent since the last CNP or byte event
    uint64_t epoch = 0;           // timers started before the last CNP / release stop
    int64_t tokens = 0;           // pacer, 1 = 1/8e6 byte (1 ns at 1 kb/s)
    uint64_t tokens_ns = 0;       // last refill
    uint32_t cnps = 0;            // CNPs this QP received (CMD_QUERY_QP_CC)
};

// Deferred work of a QP: one event-queue slot per kind, re-arming replaces the pending event,
// and RESET / destroy cancel them all (Engine::defer), so a QP holds a bounded number of events.
enum class QpTimer : uint8_t {
    kReqRun,
    kRnr,
    kPace,
    kReqTlb,
    kAck,
    kRespRun,
    kRespTlb,
    kFlush,
    kCcAlpha,
    kCcRate,
    kSrHello,
    kSrProbe,
    kCount
};

struct Qp {
    uint32_t qpn = 0;
    uint8_t type = kQpTypeRc;  // kQpType*
    uint32_t qkey = 0;         // UD: MODIFY_QP qkey
    uint64_t generation = 0;   // tells timers of a destroyed / re-created QP apart
    uint32_t state = kQpsReset;
    uint32_t last_err = kQpErrNone;  // why the card last moved it to ERR (QUERY_QP)
    uint64_t sq_base = 0;
    unsigned sq_log2 = 0;
    uint64_t rq_base = 0;
    unsigned rq_log2 = 0;
    unsigned rq_stride = 0;  // RQ WQEs of 64 << rq_stride bytes
    bool srq = false;        // receive WQEs come from SRQ srqn (no RQ)
    uint32_t srqn = 0;
    uint32_t send_cqn = 0;
    uint32_t recv_cqn = 0;
    uint32_t pdn = 0;
    uint32_t scu = 0;
    uint64_t status_page = 0;
    uint64_t dbrec = 0;    // host address of its struct scenic_qp_dbrec, 0: none
    uint32_t db_skip = 0;  // SCENIC_QP_DB_SKIP_* as last written to the status page
    // MODIFY_QP attributes
    uint32_t dest_qpn = 0;
    uint32_t sq_psn = 0;
    uint32_t rq_psn = 0;
    uint32_t pmtu = 1024;
    uint8_t timeout = 14;
    uint8_t retry_cnt = 7;
    uint8_t rnr_retry = 7;
    uint8_t min_rnr_timer = 1;
    uint8_t access = 0;
    uint8_t max_rd_atomic = 1;
    uint8_t max_dest_rd_atomic = 1;
    uint16_t pkey = roce::kDefaultPkey;  // the port's one partition (pkey index 0, as rxe)
    bool sr_attr = false;  // selective repeat offered and answered (Config::sr_default)
    roce::PathContext path;
    bool flush_pending = false;  // ERR: WQEs still to flush
    bool flush_scheduled = false;
    std::array<uint64_t, static_cast<size_t>(QpTimer::kCount)> timers{};  // EventQueue ids, 0: none
    RequesterState req;
    ResponderState resp;
    CongestionState cc;

    [[nodiscard]] uint32_t sq_size() const { return 1u << sq_log2; }
    [[nodiscard]] uint32_t rq_size() const { return 1u << rq_log2; }
    [[nodiscard]] uint32_t rq_wqe_bytes() const {
        return uint32_t{SCENIC_RQ_WQE_BYTES} << rq_stride;
    }
    [[nodiscard]] uint32_t rq_max_sge() const { return SCENIC_RQ_STRIDE_SGES(rq_stride); }
    [[nodiscard]] bool is_ud() const { return type == kQpTypeUd; }
    [[nodiscard]] bool is_uc() const { return type == kQpTypeUc; }
    [[nodiscard]] bool is_rc() const { return type == kQpTypeRc; }
    [[nodiscard]] bool can_send() const { return state == kQpsRts || state == kQpsSqd; }
    [[nodiscard]] bool can_receive() const {
        return state == kQpsRtr || state == kQpsRts || state == kQpsSqd || state == kQpsSqe;
    }
};

}  // namespace scenic::rdma
