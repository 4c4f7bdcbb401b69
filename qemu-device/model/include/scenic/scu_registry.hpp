// SPDX-License-Identifier: MIT
// The SCU kinds a card can instantiate, by (kind, kind version) as an image names them
// (docs/scu.md 5, 7). The slot manager gets its own registry: no global registration order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scenic/scu.hpp"

namespace scenic::scu {

inline constexpr uint32_t kKindPassthrough = 1;

class Registry {
  public:
    using Factory = std::function<std::unique_ptr<Scu>(SlotPort&)>;

    // The kinds built into the model (the passthrough).
    static Registry builtin();

    // What SCU_QUERY_CAPS lists: one entry per (kind, version), in that order.
    struct Entry {
        uint32_t kind;
        uint16_t version;
        std::string name;
    };

    // Replaces an earlier factory for the same (kind, version).
    void add(uint32_t kind, uint16_t version, Factory f, std::string name = {}) {
        kinds_[{kind, version}] = {std::move(f), std::move(name)};
    }
    [[nodiscard]] const Factory* find(uint32_t kind, uint16_t version) const {
        const auto it = kinds_.find({kind, version});
        return it == kinds_.end() ? nullptr : &it->second.make;
    }
    [[nodiscard]] std::vector<Entry> entries() const {
        std::vector<Entry> v;
        for (const auto& [key, k] : kinds_) {
            v.push_back({key.first, key.second, k.name});
        }
        return v;
    }

  private:
    struct Kind {
        Factory make;
        std::string name;
    };
    std::map<std::pair<uint32_t, uint16_t>, Kind> kinds_;
};

}  // namespace scenic::scu
