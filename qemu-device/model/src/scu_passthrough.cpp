// SPDX-License-Identifier: MIT
#include "scenic/scu_passthrough.hpp"

#include <algorithm>

namespace scenic::scu {

namespace {

// BURST is capped so that bytes * 1e9 fits an int64 with room for one packet below zero.
constexpr uint64_t kBurstMax = uint64_t{1} << 32;

int64_t cap_tokens(uint64_t burst) {
    return static_cast<int64_t>(std::min(burst, kBurstMax) * 1'000'000'000ULL);
}

}  // namespace

void Passthrough::reset() {
    scratch_ = 0;
    rate_bps_ = 0;
    burst_ = kBurstDefault;
    pkts_ = 0;
    bytes_ = 0;
    irq_every_ = 0;
    tokens_.fill(cap_tokens(burst_));
    last_ns_ = port().now_ns();
    timer_armed_ = false;
}

void Passthrough::refill(uint64_t now) {
    const uint64_t dt = now - std::min(now, last_ns_);
    last_ns_ = now;
    const int64_t cap = cap_tokens(burst_);
    for (int64_t& t : tokens_) {
        if (rate_bps_ == 0 || t >= cap) {
            t = std::max(t, cap);
            continue;
        }
        const auto need = static_cast<uint64_t>(cap - t);
        // rate * dt overflows only when it is far beyond need.
        if (dt >= need / rate_bps_ + 1) {
            t = cap;
        } else {
            t += static_cast<int64_t>(rate_bps_ * dt);
            t = std::min(t, cap);
        }
    }
}

bool Passthrough::ready(Dir d) const {
    return rate_bps_ == 0 || tokens_[static_cast<unsigned>(d)] > 0;
}

void Passthrough::push(Dir d, const Meta& /*m*/, std::span<const uint8_t> data) {
    const auto i = static_cast<unsigned>(d);
    if (rate_bps_ != 0) {
        refill(port().now_ns());
        tokens_[i] -= static_cast<int64_t>(data.size() * 1'000'000'000ULL);
    }
    ++pkts_;
    bytes_ += data.size();
    port().emit(d, data);
    if (irq_every_ != 0 && pkts_ % irq_every_ == 0) {
        port().raise_irq(0);
    }
    if (rate_bps_ != 0 && tokens_[i] <= 0 && !timer_armed_) {
        // When the bucket is back above zero.
        const auto deficit = static_cast<uint64_t>(-tokens_[i]);
        timer_armed_ = true;
        port().schedule(port().now_ns() + deficit / rate_bps_ + 1);
    }
}

void Passthrough::timer_fire(uint64_t now_ns) {
    timer_armed_ = false;
    refill(now_ns);
    for (unsigned i = 0; i < kDirs; ++i) {
        if (tokens_[i] > 0) {
            port().wake(static_cast<Dir>(i));
        } else if (!timer_armed_ && rate_bps_ != 0) {
            timer_armed_ = true;
            port().schedule(now_ns + static_cast<uint64_t>(-tokens_[i]) / rate_bps_ + 1);
        }
    }
}

uint64_t Passthrough::csr_read(uint32_t index) {
    switch (index) {
        case kId:
            return kIdValue;
        case kScratch:
            return scratch_;
        case kRateBps:
            return rate_bps_;
        case kBurst:
            return burst_;
        case kPkts:
            return pkts_;
        case kBytes:
            return bytes_;
        case kIrqEvery:
            return irq_every_;
        default:
            return 0;
    }
}

void Passthrough::csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) {
    switch (index) {
        case kScratch:
            scratch_ = merge_bytes(scratch_, value, byte_mask);
            break;
        case kRateBps:
            refill(port().now_ns());  // the old rate up to now
            rate_bps_ = merge_bytes(rate_bps_, value, byte_mask);
            if (rate_bps_ == 0) {
                tokens_.fill(cap_tokens(burst_));
                for (unsigned i = 0; i < kDirs; ++i) {
                    port().wake(static_cast<Dir>(i));
                }
            }
            break;
        case kBurst:
            burst_ = std::min(merge_bytes(burst_, value, byte_mask), kBurstMax);
            refill(port().now_ns());
            for (int64_t& t : tokens_) {
                t = std::min(t, cap_tokens(burst_));
            }
            break;
        case kIrqEvery:
            irq_every_ = merge_bytes(irq_every_, value, byte_mask);
            break;
        case kIrqRaise: {
            // The lines are in byte 0: a write of the upper half raises nothing.
            const uint64_t lines = merge_bytes(0, value, byte_mask) & 0xf;
            for (unsigned line = 0; line < 4; ++line) {
                if ((lines >> line) & 1U) {
                    port().raise_irq(line);
                }
            }
            break;
        }
        default:
            break;  // read-only or unused: ignored
    }
}

}  // namespace scenic::scu
