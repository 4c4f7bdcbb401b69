// SPDX-License-Identifier: MIT
// The host as the card's blocks see it: the real host, except that the frames the card sends
// go through the fault-injecting wire (WireFaults::transmit) before they reach it.
#pragma once

#include "scenic/host.hpp"
#include "scenic/wire_faults.hpp"

namespace scenic::wire {

class WireTxHost final : public Host {
  public:
    WireTxHost(Host& inner, WireFaults& wire) : inner_(inner), wire_(wire) {}

    bool dma_read(uint64_t addr, std::span<uint8_t> dst) override {
        return inner_.dma_read(addr, dst);
    }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        return inner_.dma_write(addr, src);
    }
    void msix_notify(unsigned vector) override { inner_.msix_notify(vector); }
    void eth_send(std::span<const uint8_t> frame) override { wire_.transmit(frame); }
    uint64_t now_ns() override { return inner_.now_ns(); }
    void timer_schedule(uint64_t deadline_ns) override { inner_.timer_schedule(deadline_ns); }
    void timer_cancel() override { inner_.timer_cancel(); }
    size_t bar_windows(std::span<Window, kMaxWindows> out) override {
        return inner_.bar_windows(out);
    }
    std::optional<uint64_t> msix_address(unsigned vector) override {
        return inner_.msix_address(vector);
    }

  private:
    Host& inner_;
    WireFaults& wire_;
};

}  // namespace scenic::wire
