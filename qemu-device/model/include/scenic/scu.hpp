// SPDX-License-Identifier: MIT
// The Stream Compute Unit base class (docs/scu.md 8): what an SCU implements and what the card
// (its slot, scenic::scu::Slot) offers it. One packet in gives exactly one packet out, per
// direction and in order; the card keeps the metadata and pairs it with the output itself.
#pragma once

#include <cstdint>
#include <span>

namespace scenic::scu {

enum class Dir : uint8_t { kRx = 0, kTx = 1 };
inline constexpr unsigned kDirs = 2;

// scenic_scu_meta_t (docs/scu.md 2.1).
struct Meta {
    uint32_t qpn = 0;
    uint8_t op = 0;
    uint32_t offset = 0;
    uint32_t psn = 0;
    bool msg_first = true;
    bool msg_last = true;
    Dir dir = Dir::kRx;
    uint8_t src = 0;  // 0 RDMA payload, 1 fallback frame
    bool retx = false;
    uint16_t len = 0;
};
inline constexpr uint8_t kSrcRdma = 0;
inline constexpr uint8_t kSrcFrame = 1;
inline constexpr uint8_t kOpReadResp = 0x04;  // Meta::op of a READ response's payload
inline constexpr uint8_t kOpFrame = 0x10;     // Meta::op of a fallback frame

// What became of an RDMA packet the engine offered its QP's slot (docs/scu.md 3).
enum class Pass : uint8_t {
    kBypass,   // slot 0, an index past NUM_SLOTS, or nothing to pass: the payload unchanged
    kDone,     // the SCU's output replaces the payload
    kDropped,  // RX: the SCU consumed the bytes (drop); the message still completes
    kHeld,     // the slot cannot take it now (loading, or the SCU not ready): wait, or RNR
    kFailed,   // the SCU broke the 1:1 rule (length, TX drop, no output): the QP fails
};

// The memory port's answer (mwr_cpl_status / mrd_data_tuser status, docs/scu.md 2.3).
enum class MemStatus : uint8_t {
    kOk,
    kRetry,   // TLB miss: the TLB-miss event was raised, mem_ready() follows
    kKeyPd,   // no PD bound, unknown key, or the MR is in another PD
    kBounds,  // outside the MR, or a write without local write access
    kDma,     // the host refused the DMA
};

// The card, as an SCU sees it.
class SlotPort {
  public:
    virtual ~SlotPort() = default;
    // The next output packet of direction d (drop: the frame, or an RX payload's bytes, go).
    virtual void emit(Dir d, std::span<const uint8_t> data, bool drop = false) = 0;
    virtual void wake(Dir d) = 0;  // ready(d) may have become true
    virtual void raise_irq(unsigned line) = 0;
    virtual MemStatus mem_read(uint32_t key, uint64_t iova, std::span<uint8_t> dst) = 0;
    virtual MemStatus mem_write(uint32_t key, uint64_t iova, std::span<const uint8_t> src) = 0;
    virtual uint64_t now_ns() = 0;
    virtual void schedule(uint64_t deadline_ns) = 0;  // one timer: timer_fire() then
};

class Scu {
  public:
    explicit Scu(SlotPort& port) : port_(port) {}
    Scu(const Scu&) = delete;
    Scu& operator=(const Scu&) = delete;
    virtual ~Scu() = default;

    virtual void reset() = 0;                           // rst: CSRs to reset values
    [[nodiscard]] virtual bool ready(Dir d) const = 0;  // tready at a packet start
    // One whole packet; only called when ready(d).
    virtual void push(Dir d, const Meta& m, std::span<const uint8_t> data) = 0;
    virtual uint64_t csr_read(uint32_t index) = 0;
    virtual void csr_write(uint32_t index, uint64_t value, uint8_t byte_mask) = 0;
    virtual void timer_fire(uint64_t /*now_ns*/) {}
    virtual void mem_ready() {}
    [[nodiscard]] virtual bool idle() const = 0;  // nothing held: a drain is done

  protected:
    SlotPort& port() { return port_; }

  private:
    SlotPort& port_;
};

// A CSR write's 8 strobes applied to the old value.
inline uint64_t merge_bytes(uint64_t old, uint64_t value, uint8_t byte_mask) {
    uint64_t m = 0;
    for (unsigned i = 0; i < 8; ++i) {
        if ((byte_mask >> i) & 1U) {
            m |= uint64_t{0xff} << (8 * i);
        }
    }
    return (old & ~m) | (value & m);
}

}  // namespace scenic::scu
