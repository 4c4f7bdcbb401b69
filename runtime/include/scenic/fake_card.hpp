// SPDX-License-Identifier: MIT
// A card with its slot char devices in memory, behaving as uapi/scenic_scu.h says: exclusive
// owner opens, slot 0 fixed, struct size/comp_mask checks, image checks with the load statuses,
// a CSR window and a status page to map, interrupts for poll/read and eventfds. For unit tests
// of the runtime, scenicctl and the Python module on a host without the card.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string_view>
#include <vector>

#include "scenic/sys.hpp"

struct scenic_scu_steer_rule;  // uapi/scenic_scu.h

namespace scenic::testing {

class FakeCard : public sys::System, public std::enable_shared_from_this<FakeCard> {
  public:
    explicit FakeCard(unsigned num_slots = 4, unsigned card = 0);
    ~FakeCard() override;

    // sys::System
    std::unique_ptr<sys::SlotFile> open_slot(unsigned card, unsigned slot, bool owner,
                                             int* err) override;
    std::vector<unsigned> cards() override { return {card_}; }
    int make_eventfd() override;
    void close_fd(int fd) override;

    // Test controls.
    void raise_irq(unsigned slot, uint32_t lines);  // as the card's slot vector does
    void set_completed(unsigned slot, std::string_view op, uint64_t value);
    void set_traffic(unsigned slot, std::string_view counter, uint64_t value);
    void refuse_mmap(bool refuse) { refuse_mmap_ = refuse; }
    void add_kind(uint32_t kind, uint16_t version) { kinds_.insert({kind, version}); }
    [[nodiscard]] bool owned(unsigned slot) const;
    [[nodiscard]] uint64_t csr(unsigned slot, uint32_t index) const;
    [[nodiscard]] uint32_t kind(unsigned slot) const;
    [[nodiscard]] int eventfd_of(unsigned slot, unsigned line) const;
    // The slot's steering rules as the driver got them (uapi struct; include uapi/scenic_scu.h).
    [[nodiscard]] std::vector<scenic_scu_steer_rule> rules(unsigned slot) const;
    [[nodiscard]] unsigned open_files() const;
    [[nodiscard]] unsigned mappings() const;  // CSR + status mappings not yet unmapped

    struct Slot;
    class File;

  private:
    friend class File;
    int ioctl(File& f, unsigned long req, void* arg);
    unsigned card_;
    bool refuse_mmap_ = false;
    std::set<std::pair<uint32_t, uint16_t>> kinds_{{1, 1}};
    mutable std::mutex mu_;
    std::vector<std::unique_ptr<Slot>> slots_;
    unsigned files_ = 0, maps_ = 0;
    uint32_t next_rule_ = 0;
};

}  // namespace scenic::testing
