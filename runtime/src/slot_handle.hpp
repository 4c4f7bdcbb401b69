// SPDX-License-Identifier: MIT
// An open slot and the ioctls on it, each turned into a ScenicError on failure. Owner handles
// are shared inside the process (one owner fd per slot per process, docs/scu.md 7).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "scenic/scenic.hpp"
#include "uapi/scenic_scu.h"

namespace scenic {

inline constexpr unsigned kMaxSlots = 16;  // CORE.CAPS num_scu is at most 16

// The COUNTERS ioctl's values, named.
Counters counters_from(const scenic_scu_counters& c);

class SlotHandle {
  public:
    // Opens the slot (O_RDWR when owner). Throws ScenicError (EBUSY, EPERM, ENOENT, ...).
    SlotHandle(std::shared_ptr<sys::System> sys, unsigned card, unsigned slot, bool owner);
    ~SlotHandle();
    SlotHandle(const SlotHandle&) = delete;
    SlotHandle& operator=(const SlotHandle&) = delete;

    // This process's owner handle of the slot: the existing one, or a new open.
    static std::shared_ptr<SlotHandle> owner(const std::shared_ptr<sys::System>& sys, unsigned card,
                                             unsigned slot);
    // The existing owner handle, or nullptr.
    static std::shared_ptr<SlotHandle> find_owner(const std::shared_ptr<sys::System>& sys,
                                                  unsigned card, unsigned slot);

    [[nodiscard]] scenic_scu_info raw_info() const;
    [[nodiscard]] SlotInfo info() const;
    ReconfigResult load(std::span<const uint8_t> image, const ReconfigOptions& opt, bool unload);
    [[nodiscard]] scenic_scu_counters counters() const;
    uint64_t csr_ioctl(uint32_t index, bool write, uint64_t value);
    void set_irq(unsigned line, int eventfd);
    void set_policy(uint32_t policy);
    uint32_t steer_add(scenic_scu_steer_rule& rule);
    void steer_del(uint32_t rule_id);

    // Maps the CSR window and the status page; a refusal leaves the ioctl paths in use.
    void map();
    [[nodiscard]] volatile uint64_t* csr() const { return csr_; }
    [[nodiscard]] const volatile uint64_t* status() const { return status_; }
    [[nodiscard]] sys::SlotFile& file() const { return *file_; }
    [[nodiscard]] sys::System& system() const { return *sys_; }
    [[nodiscard]] unsigned card() const { return card_; }
    [[nodiscard]] unsigned slot() const { return slot_; }
    [[nodiscard]] uint32_t csr_count() const { return csr_count_; }

    [[nodiscard]] std::string what(const std::string& op) const;  // "card 0 slot 2: <op>"

  private:
    std::shared_ptr<sys::System> sys_;
    unsigned card_, slot_;
    std::unique_ptr<sys::SlotFile> file_;
    volatile uint64_t* csr_ = nullptr;
    const volatile uint64_t* status_ = nullptr;
    size_t csr_len_ = 0, status_len_ = 0;
    uint32_t csr_count_ = SCENIC_SCU_CSR_COUNT;
};

}  // namespace scenic
