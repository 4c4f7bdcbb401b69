// SPDX-License-Identifier: MIT
#include "scenic/device.hpp"

#include <stdexcept>

namespace scenic {

namespace {

const Config& checked(const Config& config) {
    if (!config.valid()) {
        throw std::invalid_argument("scenic: msix_vectors larger than the card's MSI-X table");
    }
    return config;
}

}  // namespace

Device::Device(const Config& config, Host& host)
    : config_(checked(config)),
      events_(host),
      core_(config_, host, events_, [this] { reset(); }),
      eth_(config_, host, events_) {
    bus_.attach(core_);
    bus_.attach(eth_);
    bus_.attach(rdma_);
    bus_.attach(scu_);
}

void Device::reset() {
    for (Block* b : bus_.blocks()) {
        b->reset();
    }
    events_.clear();
}

}  // namespace scenic
