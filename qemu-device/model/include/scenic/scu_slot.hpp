// SPDX-License-Identifier: MIT
// One SCU slot, the card's side (docs/scu.md 2, 3, 5): the input FIFOs, the card's copy of each
// packet's metadata paired with the SCU's output in order, the per-slot counters, the memory
// port's checks (key, PD, bounds, access) before the TLB, the CSR window and the state of a
// reconfiguration. The SCU inside is any scu::Scu; it cannot tell which slot it is in.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "scenic/admin.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"
#include "scenic/regs.hpp"
#include "scenic/scu.hpp"
#include "scenic/scu_image.hpp"

namespace scenic::scu {

inline constexpr unsigned kIrqLines = 4;
inline constexpr uint32_t kCsrWindowBytes = 64 * 1024;
inline constexpr uint32_t kCsrRegs = kCsrWindowBytes / 8;
inline constexpr size_t kFifoBytes = 32 * 1024;  // per direction
inline constexpr size_t kFifoPackets = 64;       // per direction
inline constexpr size_t kMinFrame = 14;          // a frame out of a slot: Ethernet header
inline constexpr size_t kMaxFrame = regs::eth::kMaxMtuDefault + 18;  // .. ETH.MAX_MTU + 18
// Indices of SlotCounters::completions, the status page's order (docs/scu.md 4.4).
enum CompletionOp : unsigned {
    kRemoteWrite,
    kRemoteRead,
    kRemoteSend,
    kRecvWrite,
    kRecvSend,
    kLocalRead,
    kLocalWrite,
    kCompletionOps,
};

// The wrapper's counters (docs/scu.md 2.4), indexed by direction where there are two.
struct SlotCounters {
    std::array<uint64_t, kDirs> pkts_in{}, bytes_in{}, pkts_out{}, bytes_out{}, fifo_drops{};
    uint64_t scu_drops = 0;
    uint64_t violations = 0;  // output without input, or an RDMA packet of another length
    uint64_t mem_rd_bytes = 0;
    uint64_t mem_wr_bytes = 0;
    uint64_t mem_faults = 0;
    uint64_t csr_dropped = 0;  // CSR accesses while loading
    uint64_t irqs = 0;
    uint64_t loads = 0;
    // Completions of the slot's QPs and memory port, by op (docs/scu.md 4.4 order, kRemoteWrite
    // .. kLocalWrite).
    std::array<uint64_t, 7> completions{};
};

// What the card knows of an MR, for the memory port's checks.
struct MrInfo {
    uint32_t pdn = 0;
    uint64_t iova = 0;
    uint64_t length = 0;
    uint32_t access = 0;  // admin::Access bits
};

// The card's memory behind the checks: the MR table and the TLB + DMA.
class CardMemory {
  public:
    virtual ~CardMemory() = default;
    [[nodiscard]] virtual std::optional<MrInfo> mr(uint32_t key) const = 0;
    virtual MemStatus read(uint32_t key, uint32_t pdn, uint64_t iova, std::span<uint8_t> dst) = 0;
    virtual MemStatus write(uint32_t key, uint32_t pdn, uint64_t iova,
                            std::span<const uint8_t> src) = 0;
};

// An SCU AEQ event before it is an entry (admin::AeqeScu).
struct Event {
    unsigned slot = 0;
    admin::ScuEventKind kind{};
    admin::ScuStatus status = admin::ScuStatus::kOk;
    uint32_t info = 0;
    uint64_t count = 0;
};

struct SlotEnv {
    Host& host;  // the clock
    EventQueue& events;
    CardMemory& mem;
    // A packet out of the slot with the card's metadata.
    std::function<void(unsigned slot, Dir, const Meta&, std::span<const uint8_t>, bool drop)> out;
    std::function<void(const Event&)> event;
    // The slot's MSI-X vector (16 + slot): STATUS & ~MASK became non-zero. Empty: none.
    std::function<void(unsigned slot)> irq;
    // The slot may take RDMA packets again (a load ended, or the SCU woke): the engine resumes
    // the QPs it held. Called from an event, never from inside a slot call. Empty: none.
    std::function<void(unsigned slot)> resume;
};

class Slot final : public SlotPort {
  public:
    static constexpr uint32_t kMaxMemLen = 65536;

    Slot(unsigned index, const SlotEnv& env, std::unique_ptr<Scu> scu);
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() override;

    // A packet for the SCU: FIFO'd while loading or while the SCU is not ready. False when the
    // FIFO is full: the packet is dropped and counted (can_accept() first for back-pressure).
    bool submit(Dir d, const Meta& m, std::span<const uint8_t> data);
    [[nodiscard]] bool can_accept(Dir d, size_t len) const;
    // A steered frame the slot cannot take now (loading): counted in fifo_drops.
    void drop_frame(Dir d) { ++cnt_.fifo_drops[static_cast<unsigned>(d)]; }

    // The RDMA payload path (docs/scu.md 3): one packet through the SCU, its output in `out`.
    // kHeld when the slot cannot take it at once (loading, frames queued before it, the SCU not
    // ready); RX refusals count in fifo_drops (the engine answers RNR or drops the response).
    // The engine needs the output before it goes on: an SCU that keeps the packet past push()
    // is counted as a violation (kFailed), as is any output the 1:1 rule refuses.
    Pass pass(Dir d, const Meta& m, std::span<const uint8_t> in, std::vector<uint8_t>& out);

    // Out of reset: `scu` runs at once (no delay, no event, no load counted).
    void install(std::unique_ptr<Scu> scu, const ImageInfo& info);
    // Reconfiguration (docs/scu.md 5): DRAINING while an RDMA message the old SCU started is
    // unfinished or the SCU is not idle() (new messages are held, their continuations pass),
    // at most drain_ns (then the swap happens anyway); then LOADING for delay_ns, then `next`
    // runs out of reset.
    void start_load(std::unique_ptr<Scu> next, const ImageInfo& info, uint64_t delay_ns,
                    uint64_t drain_ns = kDefaultDrainNs);
    static constexpr uint64_t kDefaultDrainNs = 100'000'000;  // the ABI's default, 100 ms
    // RDMA messages with packets through the SCU and their last packet not yet (dir, qpn).
    [[nodiscard]] size_t open_messages() const { return open_.size(); }
    // Drains that ended at drain_ns instead of at a message boundary.
    [[nodiscard]] uint64_t drain_timeouts() const { return drain_timeouts_; }
    [[nodiscard]] admin::ScuSlotState state() const { return state_; }
    [[nodiscard]] const ImageInfo& image() const { return image_; }
    [[nodiscard]] uint32_t next_kind() const { return next_image_.kind; }

    // CSR window (64-bit registers); all-ones and dropped while loading.
    uint64_t csr_read(uint32_t index);
    void csr_write(uint32_t index, uint64_t value, uint8_t byte_mask);

    void bind_pd(std::optional<uint32_t> pdn) { pdn_ = pdn; }
    [[nodiscard]] std::optional<uint32_t> pdn() const { return pdn_; }
    // Reading the state re-arms the FAULT event.
    void rearm_fault_event() { fault_reported_ = false; }
    // Lines pending, cleared by the read (the driver's handler).
    uint32_t take_irqs();
    // SLOT_IRQ_STATUS (w1c) and SLOT_IRQ_MASK (docs/scu.md 3). Clearing or unmasking while an
    // unmasked line is still pending fires the vector again, so a line that rose between the
    // handler's read and its clear is not lost.
    [[nodiscard]] uint32_t irq_status() const { return irq_pending_; }
    void clear_irqs(uint32_t w1c);
    [[nodiscard]] uint32_t irq_mask() const { return irq_mask_; }
    void set_irq_mask(uint32_t mask);
    // SCU_RESET: the SCU's rst pulse (CSRs to reset values); false while reconfiguring.
    bool reset_scu();
    // The card's TLB took new translations: an SCU whose memory request missed (kRetry)
    // tries again (Scu::mem_ready), while it runs or drains.
    void mem_ready();

    [[nodiscard]] const SlotCounters& counters() const { return cnt_; }
    // One more completion of op (docs/scu.md 4.4 order); returns the new count.
    uint64_t count_completion(unsigned op) { return ++cnt_.completions.at(op); }
    admin::ScuStatus last_refusal = admin::ScuStatus::kOk;

    // SlotPort.
    void emit(Dir d, std::span<const uint8_t> data, bool drop) override;
    void wake(Dir d) override {
        pump(d);
        resume_soon();
    }
    void raise_irq(unsigned line) override;
    MemStatus mem_read(uint32_t key, uint64_t iova, std::span<uint8_t> dst) override;
    MemStatus mem_write(uint32_t key, uint64_t iova, std::span<const uint8_t> src) override;
    uint64_t now_ns() override { return env_.host.now_ns(); }
    void schedule(uint64_t deadline_ns) override;

  private:
    struct Packet {
        Meta meta;
        std::vector<uint8_t> data;
    };
    void pump(Dir d);
    void track(Dir d, const Meta& m);
    void drain_check();
    void begin_loading();
    void finish_load();
    void resume_soon();
    MemStatus check(uint32_t key, uint64_t iova, uint64_t len, bool write);
    void fault(MemStatus s);

    const unsigned index_;
    SlotEnv env_;
    std::unique_ptr<Scu> scu_;
    std::unique_ptr<Scu> next_;
    ImageInfo image_{};
    ImageInfo next_image_{};
    admin::ScuSlotState state_ = admin::ScuSlotState::kRunning;
    uint64_t load_start_ns_ = 0;
    uint64_t load_delay_ns_ = 0;
    uint64_t drain_timeouts_ = 0;
    std::set<std::pair<unsigned, uint32_t>> open_;  // (dir, qpn) of unfinished messages
    std::optional<EventQueue::Id> load_timer_;
    std::optional<EventQueue::Id> drain_timer_;
    std::optional<EventQueue::Id> scu_timer_;
    std::optional<EventQueue::Id> resume_event_;
    // pass() in progress, per direction: the output goes here instead of env_.out.
    std::array<std::vector<uint8_t>*, kDirs> capture_{};
    std::array<bool, kDirs> captured_{};
    std::array<bool, kDirs> captured_drop_{};
    std::array<std::deque<Packet>, kDirs> fifo_;
    std::array<size_t, kDirs> fifo_bytes_{};
    std::array<std::deque<Meta>, kDirs> inflight_;  // the card's copy, paired in order
    std::optional<uint32_t> pdn_;
    bool fault_reported_ = false;
    std::array<bool, kDirs> pumping_{};
    void notify_if_due(uint32_t before);

    uint32_t irq_pending_ = 0;
    uint32_t irq_mask_ = 0;
    SlotCounters cnt_;
};

}  // namespace scenic::scu
