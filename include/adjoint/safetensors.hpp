// Safetensors files (Hugging Face's weight format): an 8-byte little-endian header length N, N
// bytes of JSON ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}),
// then the tensors' bytes, offsets counted from the end of the header.
//
// The reader maps the file and checks every entry against it before anything is allocated; a
// tensor is handed out as its mapped bytes and dtype (nothing copied), so a caller can use f32 data
// in place, keep bf16 data mapped, or convert to fp32 where it needs fp32.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace adjoint {

enum class TensorDtype { f32, bf16, f16 };
// "F32", "BF16", "F16" (safetensors' names).
const char* dtype_name(TensorDtype dtype);
std::size_t dtype_bytes(TensorDtype dtype);

// One tensor of a mapped file: its bytes stay valid while the SafetensorsFile lives.
struct TensorView {
  TensorDtype dtype;
  std::vector<std::int64_t> shape;
  const std::byte* data;  // dtype's little-endian values, row-major; not aligned for f32 in general
  std::size_t elements;
};

// Converts count values of a view, starting at element first, to fp32 into out.
void tensor_to_float(const TensorView& view, std::size_t first, std::size_t count, float* out);

// Header lengths above this are refused as corrupt (Hugging Face's own reader caps it at 100 MB).
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100u << 20;

class SafetensorsFile {
 public:
  // Maps path and checks it: header length against the file size and the cap, the JSON, each
  // tensor's dtype, shape, and data_offsets (inside the data area, matching shape × dtype size, no
  // two ranges overlapping). Throws a one-line std::runtime_error naming the file and the tensor.
  explicit SafetensorsFile(std::string path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  bool contains(const std::string& name) const { return tensors_.count(name) != 0; }
  // Throws "<path>: tensor '<name>' is missing" when absent.
  const TensorView& tensor(const std::string& name) const;

 private:
  void parse_header(const std::string& json, std::size_t data_bytes);

  std::string path_;
  void* map_ = nullptr;
  std::size_t map_bytes_ = 0;
  std::map<std::string, TensorView> tensors_;
};

// One tensor to write: fp32 values, row-major in shape.
struct TensorToWrite {
  std::string name;
  std::vector<std::int64_t> shape;
  const float* values;
};

// Writes tensors as an F32 safetensors file atomically (temporary file, then rename), in the
// order given: the header padded with spaces so the data starts 64-byte aligned, the tensors
// contiguous after it (as Hugging Face's reader requires), __metadata__ {"format": "pt"}.
void save_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors);

}  // namespace adjoint
