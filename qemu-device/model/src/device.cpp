// SPDX-License-Identifier: MIT
#include "scenic/device.hpp"

#include <stdexcept>

namespace scenic {

namespace {

const Config& checked(const Config& config) {
    if (!config.valid()) {
        throw std::invalid_argument(
            "scenic: msix_vectors larger than the card's MSI-X table, wire_drop_ppm > 10^6, or "
            "scu_reconfig_us outside 1..10^7");
    }
    if ((config.rtl_blocks & ~cosim::kRtlAll) != 0) {
        throw std::invalid_argument("scenic: unknown RTL block in rtl_blocks");
    }
    return config;
}

// The card's view of its fault-injecting wire's settings.
wire::FaultConfig wire_config(const Config& c) {
    wire::FaultConfig w;
    w.rules = c.wire_faults;
    w.seed = c.wire_seed;
    w.log_path = c.wire_fault_log;
    w.drop_ppm = c.wire_drop_ppm;
    return w;
}

}  // namespace

Device::Device(const Config& config, Host& host)
    : config_(checked(config)),
      icrc_((config_.rtl_blocks & cosim::kRtlIcrc) != 0 ? cosim::make_icrc(true) : nullptr),
      guard_(host),
      events_(guard_),
      // The hooks run only once frames flow, after every member is constructed.
      wire_(wire_config(config_), events_,
            {[this](std::span<const uint8_t> f) { eth_.receive(f); },
             [this](std::span<const uint8_t> f) { guard_.eth_send(f); },
             [this]() -> wire::Counters& { return rdma_.counters().wire; }}),
      tx_host_(guard_, wire_),
      core_(
          config_, guard_, events_, [this] { do_reset(); },
          [this](std::span<const uint8_t, kAqSqeBytes> e, std::span<uint8_t, kAqResultBytes> r) {
              // The SCU opcode group goes to the slots, everything else to the RDMA engine.
              const uint8_t op = admin::AqSqeHdr<const uint8_t>(e.first<8>()).opcode();
              return ScuBlock::is_scu_opcode(op) ? scu_.command(e, r)
                                                 : rdma_.engine().command(e, r);
          }),
      eth_(config_, tx_host_, events_),
      rdma_(config_, tx_host_, events_, core_.aeq(),
            [this](bool en) { eth_.set_roce_steering(en); }),
      scu_(config_, guard_, events_, core_.aeq(), rdma_.engine().mem()) {
    core_.aeq().set_on_overflow([this] { rdma_.engine().aeq_overflowed(); });
    core_.set_on_ceq_stall([this](bool s) { rdma_.engine().ceq().set_stalled(s); });
    // The QPs' completions count on their SCU slot's status page (docs/scu.md 4.4).
    rdma_.engine().set_scu_completion([this](unsigned slot, rdma::Engine::ScuOp op) {
        scu_.slots().count_completion(slot, static_cast<scu::CompletionOp>(op));
    });
    // The QPs' payload through their slot's SCU (docs/scu.md 3), and on when it resumes.
    rdma_.engine().set_scu_pass(
        [this](unsigned slot, const scu::Meta& m, std::span<const uint8_t> in,
               std::vector<uint8_t>& out) { return scu_.slots().pass(slot, m, in, out); });
    scu_.set_resume([this](unsigned slot) { rdma_.engine().scu_resumed(slot); });
    rdma_.engine().set_tlb_filled([this] { scu_.slots().mem_ready(); });
    eth_.set_roce_sink([this](std::span<const uint8_t> frame) { return rdma_.receive(frame); });
    // Fallback frames through the SCU steering table (docs/scu.md 3) and back.
    eth_.set_steer([this](scu::Dir d, std::span<const uint8_t> frame) {
        return scu_.slots().steer_frame(d, frame);
    });
    scu_.set_frame_out([this](scu::Dir d, std::span<const uint8_t> frame) {
        if (d == scu::Dir::kRx) {
            eth_.deliver_from_scu(frame);
        } else {
            tx_host_.eth_send(frame);
        }
    });
    bus_.attach(core_);
    bus_.attach(eth_);
    bus_.attach(rdma_);
    bus_.attach(scu_);
}

void Device::reset() {
    if (busy_) {
        reset_pending_ = true;  // e.g. an FLR written through the card's own DMA: not under it
        return;
    }
    busy_ = true;
    const Unbusy unbusy{busy_};
    do_reset();
    leave();
}

void Device::leave() {
    while (reset_pending_) {
        reset_pending_ = false;
        do_reset();
    }
    rdma_.engine().collect();
    if (refire_) {
        refire_ = false;
        events_.rearm();
    }
}

void Device::do_reset() {
    for (Block* b : bus_.blocks()) {
        b->reset();
    }
    events_.clear();
    // After the blocks: the held frames it drops are counted in the fresh WIRE_DROPS.
    wire_.reset();
}

}  // namespace scenic
