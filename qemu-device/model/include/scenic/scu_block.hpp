// SPDX-License-Identifier: MIT
// SCU block: the Stream Compute Unit slots' registers (docs/scu.md 3) and the slot manager
// behind them, wired to the card: the admin commands, the AEQ for SCU events, and the RDMA
// engine's MR table and TLB for the slots' memory ports.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>

#include "scenic/admin_queue.hpp"
#include "scenic/block.hpp"
#include "scenic/config.hpp"
#include "scenic/event_ring.hpp"
#include "scenic/rdma_memory.hpp"
#include "scenic/regs.hpp"
#include "scenic/scu_slots.hpp"

namespace scenic {

class ScuBlock final : public Block {
  public:
    // Slot n's vector is regs::kVecScu + n, raised only if the card has that many vectors.
    ScuBlock(const Config& config, Host& host, EventQueue& events, EventRing& aeq,
             rdma::Memory& mem);
    ScuBlock(const ScuBlock&) = delete;
    ScuBlock& operator=(const ScuBlock&) = delete;

    void reset() override { slots_.reset(); }

    // An admin command of the SCU opcode group (0x60..0x7f).
    static bool is_scu_opcode(uint8_t op) { return op >= 0x60 && op <= 0x7f; }
    CmdResult command(std::span<const uint8_t, kAqSqeBytes> entry,
                      std::span<uint8_t, kAqResultBytes> result) {
        return slots_.command(entry, result);
    }
    [[nodiscard]] scu::SlotManager& slots() { return slots_; }
    // Where a slot's output frames go on: RX to the ETH block's ring path, TX to the wire.
    void set_frame_out(std::function<void(scu::Dir, std::span<const uint8_t>)> out) {
        frame_out_ = std::move(out);
    }

    // Where a slot that may take RDMA payload again is announced (the engine's scu_resumed).
    void set_resume(std::function<void(unsigned)> f) { resume_ = std::move(f); }

  protected:
    uint32_t read_reg(uint32_t offset) override;
    void write_reg(uint32_t offset, uint32_t value) override;

  private:
    // The RDMA engine's MR table and TLB as the slots' memory ports see them.
    class RdmaMemory final : public scu::CardMemory {
      public:
        explicit RdmaMemory(rdma::Memory& mem) : mem_(mem) {}
        [[nodiscard]] std::optional<scu::MrInfo> mr(uint32_t key) const override;
        scu::MemStatus read(uint32_t key, uint32_t pdn, uint64_t iova,
                            std::span<uint8_t> dst) override;
        scu::MemStatus write(uint32_t key, uint32_t pdn, uint64_t iova,
                             std::span<const uint8_t> src) override;

      private:
        rdma::Memory& mem_;
    };
    void push_event(const scu::Event& e);
    void slot_out(scu::Dir d, const scu::Meta& m, std::span<const uint8_t> data, bool drop);
    // The slot whose per-slot register `offset` is (reg = the array's first offset), if any.
    [[nodiscard]] std::optional<unsigned> slot_of(uint32_t offset, uint32_t reg) const;

    EventRing& aeq_;
    RdmaMemory mem_;
    std::function<void(scu::Dir, std::span<const uint8_t>)> frame_out_;
    std::function<void(unsigned)> resume_;
    scu::SlotManager slots_;
};

}  // namespace scenic
