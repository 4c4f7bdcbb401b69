// SPDX-License-Identifier: MIT
#include "scenic/dp/rx_tagger.hpp"

#include <algorithm>
#include <stdexcept>

namespace scenic::dp {

RxTagger::RxTagger(const Params& p)
    : p_(p), cnt_mask_(p.cnt_w >= 64 ? ~0ull : (1ull << p.cnt_w) - 1) {
    const unsigned w = p.data_w;
    const unsigned f = p.fifo_bytes;
    if (w < 64 || w > 1024 || (w & (w - 1)) != 0 || (f & (f - 1)) != 0 || f > 65536 ||
        f < 9018 + w / 8 || p.cnt_w < 1 || p.cnt_w > 64)
        throw std::invalid_argument("RxTagger: bad parameters");
    reset();
}

void RxTagger::reset() {
    cfg_ = {};
    cnt_ = {};
    ring_reset();
}

void RxTagger::ring_reset() {
    tail_ = 0;
    seq_ = 0;
}

bool RxTagger::ring_valid() const {
    // eth_ring.hpp: valid_ring_size, valid_ring_stride, valid_ring_area
    const uint32_t s = cfg_.ring_size;
    const bool size_ok = s >= 8 && s <= 32768 && (s & (s - 1)) == 0;
    const bool stride_ok = cfg_.ring_stride >= 64 && cfg_.ring_stride % 64 == 0;
    const uint64_t bytes = uint64_t{s} * cfg_.ring_stride;
    return size_ok && stride_ok && cfg_.ring_addr % 64 == 0 && bytes <= ~0ull - cfg_.ring_addr;
}

uint32_t RxTagger::head() const {
    const uint32_t s = cfg_.ring_size;
    const bool size_ok = s >= 8 && s <= 32768 && (s & (s - 1)) == 0;
    return size_ok ? cfg_.ring_head & (s - 1) : 0;
}

bool RxTagger::full() const {
    const uint32_t s = cfg_.ring_size;
    const bool size_ok = s >= 8 && s <= 32768 && (s & (s - 1)) == 0;
    const uint32_t mask = size_ok ? s - 1 : 0;
    return ((tail_ + 1) & mask) == head();
}

uint32_t RxTagger::limit() const {
    uint64_t lim = std::min<uint64_t>(cfg_.max_frame, hw_max());
    if (ring_valid()) lim = std::min<uint64_t>(lim, uint64_t{cfg_.ring_stride} - kTagBytes);
    return static_cast<uint32_t>(lim);
}

unsigned RxTagger::out_beats(size_t len) const {
    const size_t k = p_.data_w / 8;
    return static_cast<unsigned>((len + kTagBytes + k - 1) / k);
}

std::array<uint8_t, RxTagger::kTagBytes> RxTagger::tag(uint16_t len, uint16_t flags, uint32_t seq) {
    return {static_cast<uint8_t>(len),       static_cast<uint8_t>(len >> 8),
            static_cast<uint8_t>(flags),     static_cast<uint8_t>(flags >> 8),
            static_cast<uint8_t>(seq),       static_cast<uint8_t>(seq >> 8),
            static_cast<uint8_t>(seq >> 16), static_cast<uint8_t>(seq >> 24)};
}

RxTagger::Verdict RxTagger::process(std::span<const uint8_t> frame, unsigned cls, DmaWrite* out) {
    // EthBlock::receive order: runt, oversize, (MAC filter: upstream), disabled, ring full
    const size_t len = frame.size();
    if (len < kRuntBytes) {
        bump(cnt_.drop_runt);
        return Verdict::DropRunt;
    }
    if (len > limit()) {
        bump(cnt_.drop_oversize);
        return Verdict::DropOversize;
    }
    if (!cfg_.rx_en || !ring_valid()) {
        bump(cnt_.drop_disabled);
        return Verdict::DropDisabled;
    }
    if (full()) {  // EthRx::write
        bump(cnt_.drop_ring_full);
        return Verdict::DropRingFull;
    }
    const auto flags = static_cast<uint16_t>(kTagValid | (cls & 3u) << kClassShift);
    if (out) {
        const auto t = tag(static_cast<uint16_t>(len), flags, seq_);
        out->addr = cfg_.ring_addr + uint64_t{tail_} * cfg_.ring_stride;
        out->bytes.assign(t.begin(), t.end());
        out->bytes.insert(out->bytes.end(), frame.begin(), frame.end());
    }
    ++seq_;
    tail_ = (tail_ + 1) & (cfg_.ring_size - 1);
    bump(cnt_.frames);
    bump(cnt_.bytes, len);
    return Verdict::Written;
}

}  // namespace scenic::dp
