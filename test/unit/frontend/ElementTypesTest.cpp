// The language's element type names are the runtime's: the driver writes a
// parameter's dtype into the manifest by its name (driver/ManifestBuilder.cpp).
#include "frontend/Types.h"
#include "megac/runtime/dtype.h"

#include <gtest/gtest.h>

namespace {

using megac::fe::ScalarKind;

TEST(ElementTypes, RuntimeSpellsEveryOneAlike) {
  for (int k = static_cast<int>(ScalarKind::I1); k <= static_cast<int>(ScalarKind::E8M0); ++k) {
    const char *name = megac::fe::scalarKindName(static_cast<ScalarKind>(k));
    std::optional<megac::rt::DType> t = megac::rt::parseDType(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(megac::rt::dtypeName(*t), name);
  }
}

} // namespace
