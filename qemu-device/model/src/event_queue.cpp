// SPDX-License-Identifier: MIT
#include "scenic/event_queue.hpp"

#include <algorithm>
#include <utility>

namespace scenic {

EventQueue::Id EventQueue::schedule_in(uint64_t delay_ns, std::function<void()> fn) {
    const Id id = next_id_++;
    events_.emplace(Key{host_.now_ns() + delay_ns, id}, std::move(fn));
    rearm();
    return id;
}

void EventQueue::cancel(Id id) {
    std::erase_if(events_, [id](const auto& e) { return e.first.id == id; });
    rearm();
}

void EventQueue::clear() {
    events_.clear();
    host_.timer_cancel();
}

void EventQueue::fire() {
    const uint64_t now = host_.now_ns();
    // An event may schedule or cancel others: take one at a time.
    while (!events_.empty() && events_.begin()->first.deadline <= now) {
        auto node = events_.extract(events_.begin());
        node.mapped()();
    }
    rearm();
}

void EventQueue::rearm() {
    if (events_.empty()) {
        host_.timer_cancel();
    } else {
        host_.timer_schedule(events_.begin()->first.deadline);
    }
}

}  // namespace scenic
