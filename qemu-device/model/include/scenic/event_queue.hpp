// SPDX-License-Identifier: MIT
// Timed events of the model on top of the host's single timer (the RTL's notion of time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>

#include "scenic/host.hpp"

namespace scenic {

class EventQueue {
  public:
    using Id = uint64_t;  // never 0: 0 means "no event"

    explicit EventQueue(TimerHost& host) : host_(host) {}

    // Run fn at now + delay_ns. Returns an id for cancel().
    Id schedule_in(uint64_t delay_ns, std::function<void()> fn);
    // O(log n); an id that already ran or was cancelled is ignored.
    void cancel(Id id);
    // Drop every pending event (device reset).
    void clear();
    // The host timer expired: run what is due, re-arm for the rest.
    void fire();
    // Request the host timer for the earliest pending event (or cancel it when none).
    void rearm();

    [[nodiscard]] bool empty() const { return events_.empty(); }
    [[nodiscard]] size_t size() const { return events_.size(); }

  private:
    struct Key {
        uint64_t deadline;
        Id id;
        auto operator<=>(const Key&) const = default;
    };

    TimerHost& host_;
    std::map<Key, std::function<void()>> events_;
    std::unordered_map<Id, uint64_t> deadline_;  // id -> deadline of the pending events
    Id next_id_ = 1;
};

}  // namespace scenic
