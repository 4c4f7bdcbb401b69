// SPDX-License-Identifier: MIT
// Loss injection on the card's receive side (QEMU property wire_drop_ppm): drops received
// frames of every kind at a rate of ppm per million, from a PRNG seeded with wire_seed, so that a
// run's drops can be replayed. The drops are counted in RDMA.WIRE_DROPS.
#pragma once

#include <cstdint>

namespace scenic::rdma {

class WireLoss {
  public:
    WireLoss(uint32_t ppm, uint64_t seed) : ppm_(ppm), seed_(seed), state_(seed) {}

    // True when the next frame is to be dropped.
    bool drop() {
        if (ppm_ == 0) {
            return false;
        }
        // splitmix64: one multiply-xorshift step per frame, good enough for loss patterns.
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return z % 1'000'000 < ppm_;
    }
    // Reset replays the same drop pattern.
    void reset() { state_ = seed_; }

  private:
    uint32_t ppm_;
    uint64_t seed_;
    uint64_t state_;
};

}  // namespace scenic::rdma
