#include "adjoint/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "adjoint/file_io.hpp"

namespace adjoint {
namespace {

using json = nlohmann::json;

// The range of a file's bytes (offsets into the data area) one tensor claims, for the overlap check.
struct ByteRange {
  std::uint64_t begin, end;
  const std::string* name;
};

std::uint64_t read_le64(const std::byte* bytes) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | std::to_integer<std::uint64_t>(bytes[i]);
  return value;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

TensorDtype dtype_from_name(const std::string& name, const std::string& where) {
  if (name == "F32") return TensorDtype::f32;
  if (name == "BF16") return TensorDtype::bf16;
  if (name == "F16") return TensorDtype::f16;
  throw std::runtime_error(where + ": unsupported dtype '" + name + "' (F32, BF16 or F16)");
}

// A non-negative integer of the header (shape dimensions, offsets), or a one-line error.
std::uint64_t header_count(const json& value, const std::string& where, const char* what) {
  if (!value.is_number_unsigned()) throw std::runtime_error(where + ": " + what + " is not a non-negative integer");
  return value.get<std::uint64_t>();
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  int exponent = (h >> 10) & 0x1f;
  std::uint32_t mantissa = h & 0x3ff;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | mantissa << 13;  // Inf or NaN
  } else if (exponent != 0) {
    bits = sign | std::uint32_t(exponent + 112) << 23 | mantissa << 13;
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exponent = 113;
    while (!(mantissa & 0x400)) mantissa <<= 1, --exponent;
    bits = sign | std::uint32_t(exponent) << 23 | (mantissa & 0x3ff) << 13;
  }
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

const char* dtype_name(TensorDtype dtype) {
  switch (dtype) {
    case TensorDtype::f32: return "F32";
    case TensorDtype::bf16: return "BF16";
    case TensorDtype::f16: return "F16";
  }
  return "?";
}

std::size_t dtype_bytes(TensorDtype dtype) { return dtype == TensorDtype::f32 ? 4 : 2; }

void tensor_to_float(const TensorView& view, std::size_t first, std::size_t count, float* out) {
  const std::byte* bytes = view.data + first * dtype_bytes(view.dtype);
  if (view.dtype == TensorDtype::f32) {
    std::memcpy(out, bytes, count * sizeof(float));
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::uint16_t half;
    std::memcpy(&half, bytes + 2 * i, sizeof(half));
    if (view.dtype == TensorDtype::f16) {
      out[i] = half_to_float(half);
    } else {  // bf16: the upper half of an fp32
      const std::uint32_t bits = std::uint32_t(half) << 16;
      std::memcpy(out + i, &bits, sizeof(float));
    }
  }
}

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)) {
  std::FILE* file = open_for_reading(path_);  // its one-line errors for a missing file or a folder
  const std::size_t size = file_size(file);
  if (size < 8) {
    std::fclose(file);
    throw std::runtime_error(path_ + ": truncated header (" + std::to_string(size) +
                             " bytes, shorter than the 8-byte header length)");
  }
  map_ = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fileno(file), 0);
  const int error = errno;
  std::fclose(file);  // the mapping outlives the descriptor
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::runtime_error("cannot map " + path_ + ": " + std::strerror(error));
  }
  map_bytes_ = size;
  try {
    const auto* bytes = static_cast<const std::byte*>(map_);
    const std::uint64_t header_bytes = read_le64(bytes);
    if (header_bytes > size - 8) {
      throw std::runtime_error(path_ + ": header length " + std::to_string(header_bytes) +
                               " is past the end of the file (" + std::to_string(size) + " bytes)");
    }
    if (header_bytes > kMaxSafetensorsHeader) {
      throw std::runtime_error(path_ + ": header length " + std::to_string(header_bytes) + " is above the " +
                               std::to_string(kMaxSafetensorsHeader >> 20) + " MB limit");
    }
    parse_header(std::string(reinterpret_cast<const char*>(bytes + 8), header_bytes), size - 8 - header_bytes);
    for (auto& [name, view] : tensors_) view.data += 8 + header_bytes;
  } catch (...) {
    ::munmap(map_, map_bytes_);
    throw;
  }
}

SafetensorsFile::~SafetensorsFile() {
  if (map_) ::munmap(map_, map_bytes_);
}

void SafetensorsFile::parse_header(const std::string& text, std::size_t data_bytes) {
  json header;
  try {
    header = json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(path_ + ": bad JSON header: " + e.what());
  }
  if (!header.is_object()) throw std::runtime_error(path_ + ": bad JSON header: not an object");
  std::vector<ByteRange> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string where = path_ + ": tensor '" + name + "'";
    if (!entry.is_object() || !entry.contains("dtype") || !entry["dtype"].is_string() || !entry.contains("shape") ||
        !entry["shape"].is_array() || !entry.contains("data_offsets") || !entry["data_offsets"].is_array() ||
        entry["data_offsets"].size() != 2) {
      throw std::runtime_error(where + ": needs a dtype string, a shape array and two data_offsets");
    }
    TensorView view{dtype_from_name(entry["dtype"].get<std::string>(), where), {}, nullptr, 1};
    // The element count stays exact: each factor is checked against what the file can hold.
    for (const json& dimension : entry["shape"]) {
      const std::uint64_t d = header_count(dimension, where, "a shape dimension");
      if (d > data_bytes)
        throw std::runtime_error(where + ": shape dimension " + std::to_string(d) + " is larger than the file");
      view.shape.push_back(std::int64_t(d));
      view.elements = d == 0 ? 0 : view.elements > data_bytes / d ? data_bytes + 1 : view.elements * d;
    }
    const std::uint64_t begin = header_count(entry["data_offsets"][0], where, "data_offsets[0]");
    const std::uint64_t end = header_count(entry["data_offsets"][1], where, "data_offsets[1]");
    if (begin > end || end > data_bytes) {
      throw std::runtime_error(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                               "] are not inside the data area (" + std::to_string(data_bytes) + " bytes)");
    }
    if (view.elements > data_bytes || view.elements * dtype_bytes(view.dtype) != end - begin) {
      throw std::runtime_error(where + ": shape " + shape_text(view.shape) + " of " + dtype_name(view.dtype) +
                               " does not fit data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                               "]");
    }
    view.data = static_cast<const std::byte*>(map_) + begin;  // moved past the header by the caller
    const auto inserted = tensors_.emplace(name, std::move(view));
    ranges.push_back({begin, end, &inserted.first->first});
  }
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].begin < ranges[i - 1].end) {
      throw std::runtime_error(path_ + ": tensors '" + *ranges[i - 1].name + "' and '" + *ranges[i].name +
                               "' overlap (data_offsets [" + std::to_string(ranges[i - 1].begin) + ", " +
                               std::to_string(ranges[i - 1].end) + "] and [" + std::to_string(ranges[i].begin) + ", " +
                               std::to_string(ranges[i].end) + "])");
    }
  }
}

const TensorView& SafetensorsFile::tensor(const std::string& name) const {
  const auto found = tensors_.find(name);
  if (found == tensors_.end()) throw std::runtime_error(path_ + ": tensor '" + name + "' is missing");
  return found->second;
}

void save_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors) {
  // nlohmann's ordered_json keeps the tensors in the order they are written.
  nlohmann::ordered_json header;
  header["__metadata__"] = {{"format", "pt"}};
  std::uint64_t offset = 0;
  std::vector<std::uint64_t> bytes;
  for (const TensorToWrite& t : tensors) {
    std::uint64_t elements = 1;
    for (std::int64_t d : t.shape) elements *= std::uint64_t(d);
    bytes.push_back(elements * sizeof(float));
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes.back()}}};
    offset += bytes.back();
  }
  std::string text = header.dump();
  text.append((64 - (8 + text.size()) % 64) % 64, ' ');  // the data starts 64-byte aligned
  std::byte length[8];
  for (int i = 0; i < 8; ++i) length[i] = std::byte(std::uint64_t(text.size()) >> (8 * i));
  AtomicFileWriter out(path);
  out.write(length, sizeof(length));
  out.write(text.data(), text.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) out.write(tensors[i].values, bytes[i]);
  out.commit();
}

}  // namespace adjoint
