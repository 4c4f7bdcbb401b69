// SPDX-License-Identifier: MIT
// The host side of the card, as the device model sees it: what the card is plugged into.
// Sized like the SimBricks device interface. The QEMU glue implements it with pci_dma_*,
// msix_notify, qemu_send_packet and a QEMU_CLOCK_VIRTUAL timer; the unit tests with a fake
// host memory and a fake wire.
#pragma once

#include <cstdint>
#include <span>

namespace scenic {

class Host {
  public:
    virtual ~Host() = default;

    // Bus-master DMA. Return false if the access failed (unmapped address, IOMMU fault, bus
    // master disabled): the model then reports an error, it never relies on the data.
    virtual bool dma_read(uint64_t addr, std::span<uint8_t> dst) = 0;
    virtual bool dma_write(uint64_t addr, std::span<const uint8_t> src) = 0;

    // Raise an MSI-X vector. The model only calls it with vector < Config::msix_vectors.
    virtual void msix_notify(unsigned vector) = 0;

    // Put one Ethernet frame (without FCS) on the wire.
    virtual void eth_send(std::span<const uint8_t> frame) = 0;

    // Time in nanoseconds, and one timer: after timer_schedule(t) the host calls
    // Device::timer_fire() once at (or after) t. A new request replaces the previous one.
    virtual uint64_t now_ns() = 0;
    virtual void timer_schedule(uint64_t deadline_ns) = 0;
    virtual void timer_cancel() = 0;
};

}  // namespace scenic
