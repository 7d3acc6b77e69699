// The safetensors reader and writer on their own (tests/pytorch/test_hf*.py check them through
// Hugging Face folders): dtype conversion at the edges of F16 and BF16, and what the writer lays out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "../common/command_test.hpp"
#include "adjoint/safetensors.hpp"

namespace {

using adjoint::SafetensorsFile;
using adjoint::TensorDtype;
using adjoint::TensorView;
using command_test::TempDir;

// Converts 16-bit patterns of dtype with tensor_to_float.
std::vector<float> converted(TensorDtype dtype, const std::vector<std::uint16_t>& bits) {
  const TensorView view{
      dtype, {std::int64_t(bits.size())}, reinterpret_cast<const std::byte*>(bits.data()), bits.size()};
  std::vector<float> out(bits.size());
  adjoint::tensor_to_float(view, 0, bits.size(), out.data());
  return out;
}

TEST(Safetensors, F16ConvertsNormalsSubnormalsZerosAndInfinities) {
  const std::vector<float> f =
      converted(TensorDtype::f16, {0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x8000, 0x7c00, 0xfc00, 0x7e00});
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -2.0f);
  EXPECT_EQ(f[2], 65504.0f);                      // the largest half
  EXPECT_EQ(f[3], std::ldexp(1.0f, -24));         // the smallest subnormal
  EXPECT_EQ(f[4], 1023 * std::ldexp(1.0f, -24));  // the largest subnormal
  EXPECT_EQ(f[5], std::ldexp(1.0f, -14));         // the smallest normal
  EXPECT_EQ(f[6], 0.0f);
  EXPECT_TRUE(std::signbit(f[6]));
  EXPECT_EQ(f[7], std::numeric_limits<float>::infinity());
  EXPECT_EQ(f[8], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(f[9]));
}

TEST(Safetensors, Bf16IsTheUpperHalfOfAFloat) {
  const std::vector<float> f = converted(TensorDtype::bf16, {0x3f80, 0xc040, 0x0001, 0x7f80});
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -3.0f);
  EXPECT_EQ(f[2], std::ldexp(1.0f, -133));
  EXPECT_EQ(f[3], std::numeric_limits<float>::infinity());
}

TEST(Safetensors, WrittenFileReadsBackAlignedAndContiguous) {
  TempDir dir;
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {-1.5f}, empty;
  adjoint::save_safetensors(dir / "t.safetensors",
                            {{"a", {2, 3}, a.data()}, {"b", {1}, b.data()}, {"e", {0, 4}, empty.data()}});
  const SafetensorsFile file(dir / "t.safetensors");
  ASSERT_EQ(file.tensors().size(), 3u);
  const TensorView& va = file.tensor("a");
  EXPECT_EQ(va.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(va.dtype, TensorDtype::f32);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(va.data) % 64, 0u);  // the data area starts aligned
  std::vector<float> values(6);
  adjoint::tensor_to_float(va, 0, 6, values.data());
  EXPECT_EQ(values, a);
  EXPECT_EQ(file.tensor("b").data, va.data + 6 * sizeof(float));  // no gap, as HF's reader requires
  EXPECT_EQ(file.tensor("e").elements, 0u);
  EXPECT_THROW(file.tensor("c"), std::runtime_error);
  const std::string bytes = command_test::read_bytes(dir / "t.safetensors");
  EXPECT_NE(bytes.find(R"("__metadata__":{"format":"pt"})"), std::string::npos);
}

TEST(Safetensors, ZeroLengthFileIsATruncatedHeader) {
  TempDir dir;
  std::ofstream(dir / "empty.safetensors").close();
  try {
    SafetensorsFile file(dir / "empty.safetensors");
    FAIL() << "loaded an empty file";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              dir / "empty.safetensors" + ": truncated header (0 bytes, shorter than the 8-byte header length)");
  }
}

}  // namespace
