// SPDX-License-Identifier: MIT
#include "scenic/scu_registry.hpp"

#include "scenic/scu_passthrough.hpp"
#include "scenic/scu_xor.hpp"

namespace scenic::scu {

Registry Registry::builtin() {
    Registry r;
    r.add(
        kKindPassthrough, Passthrough::kVersion,
        [](SlotPort& p) { return std::make_unique<Passthrough>(p); }, "passthrough");
    r.add(
        kKindXorTest, XorTest::kVersion, [](SlotPort& p) { return std::make_unique<XorTest>(p); },
        "xor-test");
    return r;
}

}  // namespace scenic::scu
