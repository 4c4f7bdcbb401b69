// SPDX-License-Identifier: MIT
#include "scenic/eth_tx.hpp"

#include <array>

#include "scenic/eth_block.hpp"
#include "scenic/eth_ring.hpp"
#include "scenic/eth_tx_offload.hpp"
#include "scenic/regs.hpp"

namespace scenic {

namespace eth = regs::eth;

namespace {

uint32_t le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

EthTx::EthTx(Host& host) : host_(host) {
    entries_.reserve(kMaxFrags + 1);
    pkt_.reserve(kMaxPkt);  // once: gathering never allocates (docs/eth-offloads.md 2.4)
    reset();
}

void EthTx::reset() {
    addr_lo_ = eth::kTxRingAddrLoDefault;
    addr_hi_ = eth::kTxRingAddrHiDefault;
    size_ = eth::kTxRingSizeDefault;
    head_ = eth::kTxHeadDefault;
    tail_ = eth::kTxTailDefault;
    waiting_ = false;
    skipping_ = false;
}

void EthTx::set_size(uint32_t v) {
    size_ = v;
    head_ = 0;
    tail_ = 0;
    waiting_ = false;
    skipping_ = false;
}

void EthTx::set_tail(uint32_t v) {
    tail_ = valid_ring_size(size_) ? v & (size_ - 1) : 0;
    waiting_ = false;
}

bool EthTx::valid() const {
    return valid_ring_size(size_) && valid_ring_area(join64(addr_lo_, addr_hi_), size_, kCmdBytes);
}

bool EthTx::read_entry(uint32_t index, Entry& e) {
    const uint64_t base = join64(addr_lo_, addr_hi_);
    if (!host_.dma_read(base + uint64_t{index} * kCmdBytes, e.raw)) {
        return false;
    }
    e.addr = join64(le32(&e.raw[0]), le32(&e.raw[4]));
    e.len = le32(&e.raw[8]);
    e.flags = le32(&e.raw[12]);
    return true;
}

uint32_t EthTx::run(uint32_t max_cmds, uint32_t max_len, bool send, EthCounters& cnt,
                    const SteerHook& steer) {
    uint32_t done = 0;
    const uint32_t mask = size_ - 1;
    while (done < max_cmds && pending()) {
        const uint32_t avail = (tail_ - head_) & mask;
        if (skipping_) {
            // The rest of an over-long run, already counted: up to its entry without MORE.
            Entry e;
            const bool ok = read_entry(head_, e);
            head_ = (head_ + 1) & mask;
            ++done;
            if (!ok) {
                ++cnt.tx_dma_errors;
            }
            skipping_ = ok && (e.flags & kFlagMore) != 0;
            continue;
        }
        entries_.clear();
        uint32_t k = 0;
        bool complete = false;
        bool dma_error = false;
        while (k < avail && k <= kMaxFrags) {
            Entry e;
            if (!read_entry((head_ + k) & mask, e)) {
                dma_error = true;  // the run's extent is unknown: consume up to this entry
                ++k;
                break;
            }
            entries_.push_back(e);
            ++k;
            if ((e.flags & kFlagMore) == 0) {
                complete = true;
                break;
            }
        }
        if (dma_error) {
            ++cnt.tx_dma_errors;
        } else if (!complete && k > kMaxFrags) {
            ++cnt.tx_drop_bad_sg;
            skipping_ = true;
        } else if (!complete) {
            waiting_ = true;  // TX_TAIL inside a packet: TX_HEAD stays on its first entry
            break;
        } else {
            packet(max_len, send, cnt, steer);
        }
        // Only after the whole packet was read (the driver frees its buffers once it passes).
        head_ = (head_ + k) & mask;
        done += k;
    }
    return done;
}

void EthTx::emit(std::span<const uint8_t> frame, bool send, EthCounters& cnt,
                 const SteerHook& steer) {
    // A steered frame completes when it enters the slot's FIFO (docs/scu.md 3).
    if (send && !(steer && steer(scu::Dir::kTx, frame))) {
        host_.eth_send(frame);
    }
    ++cnt.tx_frames;
    cnt.tx_bytes += static_cast<uint32_t>(frame.size());
}

void EthTx::packet(uint32_t max_len, bool send, EthCounters& cnt, const SteerHook& steer) {
    // Rule 1 (docs/eth-offloads.md 1.1): reserved bits, data lengths.
    const bool has_ctx = (entries_.front().flags & kFlagCtx) != 0;
    bool misplaced_ctx = false;
    uint64_t total = 0;
    TxCtx ctx;
    for (size_t i = 0; i < entries_.size(); ++i) {
        const Entry& e = entries_[i];
        if ((e.flags & kFlagsReserved) != 0) {
            ++cnt.tx_drop_bad_cmd;
            return;
        }
        if ((e.flags & kFlagCtx) != 0) {
            misplaced_ctx = misplaced_ctx || i != 0;
            continue;
        }
        if (e.len == 0 || e.len > kMaxEntryLen) {
            ++cnt.tx_drop_bad_cmd;
            return;
        }
        total += e.len;
    }
    if (has_ctx) {
        ctx = TxCtx::decode(entries_.front().raw);
        if ((ctx.ops & TxCtx::kOpsReserved) != 0 || ctx.reserved != 0) {
            ++cnt.tx_drop_bad_cmd;
            return;
        }
    }
    // Rule 2: the run's shape (a context alone, or not first, has no packet).
    if (misplaced_ctx || (has_ctx && entries_.size() < 2)) {
        ++cnt.tx_drop_bad_sg;
        return;
    }
    const uint16_t kind = ctx.ops & (TxCtx::kOpCsum | TxCtx::kOpTso | TxCtx::kOpUso);
    if (has_ctx && kind != TxCtx::kOpCsum && kind != TxCtx::kOpTso) {
        ++cnt.tx_drop_bad_offload;  // none, two, or USO (FEATURES.uso = 0)
        return;
    }
    const bool tso = kind == TxCtx::kOpTso;
    if (!tso && (total < kMinFrame || total > max_len)) {
        ++cnt.tx_drop_bad_cmd;
        return;
    }
    if ((kind == TxCtx::kOpCsum && !csum_ctx_ok(ctx, total)) || (tso && total > kMaxPkt)) {
        ++cnt.tx_drop_bad_offload;
        return;
    }
    // Gather: bounded by max_len or kMaxPkt above, before any DMA.
    pkt_.resize(static_cast<size_t>(total));
    size_t off = 0;
    for (const Entry& e : entries_) {
        if ((e.flags & kFlagCtx) != 0) {
            continue;
        }
        if (!host_.dma_read(e.addr, std::span(pkt_).subspan(off, e.len))) {
            ++cnt.tx_dma_errors;
            return;
        }
        off += e.len;
    }
    if (tso) {
        const uint32_t n = tso_check(pkt_, ctx, max_len, kMaxTsoSegs);
        if (n == 0) {
            ++cnt.tx_drop_bad_offload;
            return;
        }
        tso_segment(pkt_, ctx, seg_,
                    [&](std::span<const uint8_t> f) { emit(f, send, cnt, steer); });
        ++cnt.tx_tso_pkts;
        cnt.tx_tso_segs += n;
        cnt.tx_csum += n;
        return;
    }
    if (kind == TxCtx::kOpCsum) {
        csum_insert(pkt_, ctx);
        ++cnt.tx_csum;
    }
    emit(pkt_, send, cnt, steer);
}

}  // namespace scenic
