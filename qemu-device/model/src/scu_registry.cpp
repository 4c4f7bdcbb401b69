// SPDX-License-Identifier: MIT
#include "scenic/scu_registry.hpp"

#include "scenic/scu_aes_ctr.hpp"
#include "scenic/scu_hash_partition.hpp"
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
    r.add(
        kKindAesCtr, AesCtr::kVersion, [](SlotPort& p) { return std::make_unique<AesCtr>(p); },
        "aes128-ctr");
    r.add(
        kKindHashPartition, HashPartition::kVersion,
        [](SlotPort& p) { return std::make_unique<HashPartition>(p); }, "hash-partition");
    return r;
}

}  // namespace scenic::scu
