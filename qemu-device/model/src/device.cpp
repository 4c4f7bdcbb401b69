// SPDX-License-Identifier: MIT
#include "scenic/device.hpp"

#include <stdexcept>

namespace scenic {

namespace {

const Config& checked(const Config& config) {
    if (!config.valid()) {
        throw std::invalid_argument(
            "scenic: msix_vectors larger than the card's MSI-X table, or wire_drop_ppm > 10^6");
    }
    if ((config.rtl_blocks & ~cosim::kRtlAll) != 0) {
        throw std::invalid_argument("scenic: unknown RTL block in rtl_blocks");
    }
    return config;
}

}  // namespace

Device::Device(const Config& config, Host& host)
    : config_(checked(config)),
      icrc_((config_.rtl_blocks & cosim::kRtlIcrc) != 0 ? cosim::make_icrc(true) : nullptr),
      events_(host),
      // The hooks run only once frames flow, after every member is constructed.
      wire_(config_, events_,
            {[this](std::span<const uint8_t> f) { eth_.receive(f); },
             [&host](std::span<const uint8_t> f) { host.eth_send(f); },
             [this]() -> rdma::Counters& { return rdma_.counters(); }}),
      tx_host_(host, wire_),
      core_(config_, host, events_, [this] { reset(); }),
      eth_(config_, tx_host_, events_),
      rdma_(config_, tx_host_, events_, [this](bool en) { eth_.set_roce_steering(en); }) {
    eth_.set_roce_sink([this](std::span<const uint8_t> frame) { return rdma_.receive(frame); });
    bus_.attach(core_);
    bus_.attach(eth_);
    bus_.attach(rdma_);
    bus_.attach(scu_);
}

void Device::reset() {
    const auto scope = icrc_scope();
    for (Block* b : bus_.blocks()) {
        b->reset();
    }
    events_.clear();
    // After the blocks: the held frames it drops are counted in the fresh WIRE_DROPS.
    wire_.reset();
}

}  // namespace scenic
