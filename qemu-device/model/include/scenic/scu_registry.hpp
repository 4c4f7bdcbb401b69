// SPDX-License-Identifier: MIT
// The SCU kinds a card can instantiate, by (kind, kind version) as an image names them
// (docs/scu.md 5, 7). The slot manager gets its own registry: no global registration order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include "scenic/scu.hpp"

namespace scenic::scu {

inline constexpr uint32_t kKindPassthrough = 1;

class Registry {
  public:
    using Factory = std::function<std::unique_ptr<Scu>(SlotPort&)>;

    // The kinds built into the model (the passthrough).
    static Registry builtin();

    // Replaces an earlier factory for the same (kind, version).
    void add(uint32_t kind, uint16_t version, Factory f) { kinds_[{kind, version}] = std::move(f); }
    [[nodiscard]] const Factory* find(uint32_t kind, uint16_t version) const {
        const auto it = kinds_.find({kind, version});
        return it == kinds_.end() ? nullptr : &it->second;
    }

  private:
    std::map<std::pair<uint32_t, uint16_t>, Factory> kinds_;
};

}  // namespace scenic::scu
